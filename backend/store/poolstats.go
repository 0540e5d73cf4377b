package store

import "database/sql"

// PoolStats reports the connection pool's figures (connections in use and idle, the limit,
// and how often and how long callers waited for a connection), for metrics.
func (s *Store) PoolStats() sql.DBStats { return s.db.Stats() }
