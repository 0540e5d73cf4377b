package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultStatementTimeout is how long a PostgreSQL connection waits for the server's answer
// (any next bytes of it) once the app is serving (SetStatementTimeout changes it).
const DefaultStatementTimeout = 30 * time.Second

// A frozen server or a network partition keeps its connections open, and the kernel goes on
// acknowledging what is sent: without a deadline a statement would wait for an answer for as
// long as that lasts (lib/pq cancels a statement whose context ends by asking the server,
// which does not answer either, and keeps reading). So every read and write on a pooled
// connection has a deadline: past it the connection is given up, the statement fails as
// unavailable (503, Retry-After) and the pool opens a new connection for the next one.
// The LISTEN connection has none: it waits for notifications by design (and pings itself).

// deadlineDialer opens connections whose reads and writes end after timeout (0: none).
type deadlineDialer struct {
	d       net.Dialer
	timeout *atomic.Int64 // nanoseconds
	open    *connSet
}

// connSet is the open connections of a store, so that a shorter timeout reaches the waits
// already under way (a stop).
type connSet struct {
	mu sync.Mutex
	m  map[*deadlineConn]struct{}
}

func (s *connSet) add(c *deadlineConn) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[*deadlineConn]struct{}{}
	}
	s.m[c] = struct{}{}
	s.mu.Unlock()
}

func (s *connSet) remove(c *deadlineConn) {
	s.mu.Lock()
	delete(s.m, c)
	s.mu.Unlock()
}

// shorten makes every wait under way end by d from now, at the latest.
func (s *connSet) shorten(d time.Duration) {
	at := time.Now().Add(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.m {
		_ = c.Conn.SetDeadline(at) // net.Conn deadlines may be set from any goroutine
	}
}

func (d deadlineDialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

func (d deadlineDialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, network, address)
}

func (d deadlineDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := d.d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	dc := &deadlineConn{Conn: c, timeout: d.timeout, open: d.open}
	d.open.add(dc)
	return dc, nil
}

// deadlineConn sets a fresh deadline before each read and write: the bound is on waiting
// for the server, not on a long result, which keeps arriving.
type deadlineConn struct {
	net.Conn
	timeout *atomic.Int64
	open    *connSet
	armed   bool // a deadline of ours is set (cleared when the timeout is turned off)
}

func (c *deadlineConn) Close() error {
	c.open.remove(c)
	return c.Conn.Close()
}

func (c *deadlineConn) Read(p []byte) (int, error) {
	c.arm(c.Conn.SetReadDeadline)
	n, err := c.Conn.Read(p)
	return n, c.explain(err)
}

func (c *deadlineConn) Write(p []byte) (int, error) {
	c.arm(c.Conn.SetWriteDeadline)
	n, err := c.Conn.Write(p)
	return n, c.explain(err)
}

func (c *deadlineConn) arm(set func(time.Time) error) {
	// database/sql uses a connection from one goroutine at a time, so armed needs no lock.
	switch t := time.Duration(c.timeout.Load()); {
	case t > 0:
		_ = set(time.Now().Add(t))
		c.armed = true
	case c.armed:
		_ = c.Conn.SetDeadline(time.Time{})
		c.armed = false
	}
}

// explain names the setting in a timeout of ours (the error stays a *net.OpError, which the
// store reports as unavailable).
func (c *deadlineConn) explain(err error) error {
	var op *net.OpError
	if err == nil || !c.armed || !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &op) {
		return err
	}
	copied := *op
	copied.Err = fmt.Errorf("no answer from the database within SWITCHBOARD_DB_STATEMENT_TIMEOUT (%v): %w",
		time.Duration(c.timeout.Load()), op.Err)
	return &copied
}

// SetStatementTimeout bounds how long a PostgreSQL statement waits for the server to answer
// (0: no bound; SQLite has none to set: it is in the process). Migrations run without one:
// an index built on a large table may take minutes. Call it once migrated. A shorter bound
// than before applies to the waits under way too: a stop uses it so that a database that
// stopped answering cannot hold the process for ever.
func (s *Store) SetStatementTimeout(d time.Duration) {
	d = max(d, 0)
	old := time.Duration(s.statementTimeout.Swap(int64(d)))
	if d > 0 && (old == 0 || d < old) {
		s.conns.shorten(d)
	}
}

// StatementTimeout is the bound SetStatementTimeout set (0: none).
func (s *Store) StatementTimeout() time.Duration { return time.Duration(s.statementTimeout.Load()) }
