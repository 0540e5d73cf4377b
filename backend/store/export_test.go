package store

import "context"

// PingPool pings through the pool (Ping has a connection of its own): a caller that waits
// for a pooled connection, for tests of the pool's figures.
func (s *Store) PingPool(ctx context.Context) error { return s.db.PingContext(ctx) }
