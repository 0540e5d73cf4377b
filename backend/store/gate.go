package store

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// DefaultAcquireTimeout is how long a statement or transaction waits for a free database
// connection (and on SQLite for its turn to write) before it is refused as unavailable
// (SetAcquireTimeout changes it).
const DefaultAcquireTimeout = 5 * time.Second

// gate admits at most as many users of the pool as it has connections, each waiting at
// most the acquire timeout for its turn. database/sql alone would queue a caller for a
// connection as long as its context lives: with every connection held (a stuck query, a
// lock, a burst far beyond the pool), requests would pile up for minutes instead of being
// told to retry.
//
// On SQLite it also lets one writer at a time in (writes gets its turn before a connection):
// SQLite has one write lock, and connections that wait for it poll with growing sleeps,
// holding their connections, so a burst of writes used to fill the pool with sleepers,
// readers included behind them.
type gate struct {
	slots    chan struct{}
	writes   chan struct{} // nil: writers need no turn (PostgreSQL)
	timeout  atomic.Int64  // nanoseconds
	timeouts atomic.Int64  // callers refused after waiting the whole timeout
	// waits and waited count the callers that had to wait for their turn or a connection,
	// and how long they waited in all (nanoseconds), whatever came of it.
	waits, waited atomic.Int64
	// mapErr is the store's error mapping (a caller's cancelled context).
	mapErr func(error) error
}

func newGate(size int, oneWriter bool, mapErr func(error) error) *gate {
	g := &gate{slots: make(chan struct{}, size), mapErr: mapErr}
	if oneWriter {
		g.writes = make(chan struct{}, 1)
	}
	g.timeout.Store(int64(DefaultAcquireTimeout))
	return g
}

// enter waits for a connection, and first for the turn to write when write is set; leave
// gives back what enter took.
func (g *gate) enter(ctx context.Context, write bool) error {
	timeout := time.Duration(g.timeout.Load())
	var timer *time.Timer // one deadline for both waits, made only when a wait is needed
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	wait := func(ch chan struct{}, what string) error {
		select {
		case ch <- struct{}{}:
			return nil
		default:
		}
		if timer == nil {
			timer = time.NewTimer(timeout)
		}
		start := time.Now()
		g.waits.Add(1)
		defer func() { g.waited.Add(int64(time.Since(start))) }()
		select {
		case ch <- struct{}{}:
			return nil
		case <-timer.C:
			g.timeouts.Add(1)
			return &domain.Error{Code: domain.CodeUnavailable, Reason: ReasonUnavailable,
				Message: "the database is busy: no connection was free in time; retry shortly",
				Err:     fmt.Errorf("store: waited %v for %s", timeout, what)}
		case <-ctx.Done():
			return g.mapErr(ctx.Err())
		}
	}
	if write && g.writes != nil {
		if err := wait(g.writes, "the turn to write"); err != nil {
			return err
		}
	}
	if err := wait(g.slots, fmt.Sprintf("one of %d connections", cap(g.slots))); err != nil {
		if write && g.writes != nil {
			<-g.writes
		}
		return err
	}
	return nil
}

func (g *gate) leave(write bool) {
	<-g.slots
	if write && g.writes != nil {
		<-g.writes
	}
}

// SetAcquireTimeout sets how long a statement or transaction waits for a free connection
// (at least a millisecond).
func (s *Store) SetAcquireTimeout(d time.Duration) {
	s.gate.timeout.Store(int64(max(d, time.Millisecond)))
}

// DefaultPoolSize is PostgreSQL's connection pool per process unless SetPoolSize says
// otherwise.
const DefaultPoolSize = 20

// SetPoolSize sizes PostgreSQL's connection pool (SQLite's is fixed: one writer at a time
// anyway). Call it right after Open, before the store is used.
func (s *Store) SetPoolSize(n int) {
	if s.dialect != Postgres || n < 1 {
		return
	}
	s.db.SetMaxOpenConns(n)
	s.db.SetMaxIdleConns(max(n/2, 1))
	old := s.gate
	s.gate = newGate(n, false, s.mapErr)
	s.gate.timeout.Store(old.timeout.Load())
	s.gate.timeouts.Store(old.timeouts.Load())
	s.gate.waits.Store(old.waits.Load())
	s.gate.waited.Store(old.waited.Load())
}

// AcquireTimeouts counts the statements and transactions refused because no connection was
// free within the acquire timeout.
func (s *Store) AcquireTimeouts() int64 { return s.gate.timeouts.Load() }
