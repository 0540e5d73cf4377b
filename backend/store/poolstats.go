package store

import (
	"database/sql"
	"time"
)

// PoolStats reports the connection pool's figures (connections in use and idle, the limit,
// and how often and how long callers waited for a connection), for metrics. The waits are
// the gate's (gate.go), where callers queue for a connection, and the pool's own.
func (s *Store) PoolStats() sql.DBStats {
	st := s.db.Stats()
	st.WaitCount += s.gate.waits.Load()
	st.WaitDuration += time.Duration(s.gate.waited.Load())
	return st
}
