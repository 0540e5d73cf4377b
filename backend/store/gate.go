package store

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// DefaultAcquireTimeout is how long a statement or transaction waits for a free database
// connection before it is refused as unavailable (SetAcquireTimeout changes it).
const DefaultAcquireTimeout = 5 * time.Second

// gate admits at most as many users of the pool as it has connections, each waiting at
// most the acquire timeout for its turn. database/sql alone would queue a caller for a
// connection as long as its context lives: with every connection held (a stuck query, a
// lock, a burst far beyond the pool), requests would pile up for minutes instead of being
// told to retry.
type gate struct {
	slots    chan struct{}
	timeout  atomic.Int64 // nanoseconds
	timeouts atomic.Int64 // callers refused after waiting the whole timeout
}

func newGate(size int) *gate {
	g := &gate{slots: make(chan struct{}, size)}
	g.timeout.Store(int64(DefaultAcquireTimeout))
	return g
}

// enter waits for a slot; leave gives it back.
func (g *gate) enter(ctx context.Context) error {
	select {
	case g.slots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(time.Duration(g.timeout.Load()))
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return nil
	case <-t.C:
		g.timeouts.Add(1)
		return &domain.Error{Code: domain.CodeUnavailable, Reason: ReasonUnavailable,
			Message: "the database is busy: no connection was free in time; retry shortly",
			Err:     fmt.Errorf("store: no free connection among %d within %v", cap(g.slots), time.Duration(g.timeout.Load()))}
	case <-ctx.Done():
		return &domain.Error{Code: domain.CodeUnavailable, Message: "request cancelled", Err: ctx.Err()}
	}
}

func (g *gate) leave() { <-g.slots }

// SetAcquireTimeout sets how long a statement or transaction waits for a free connection
// (at least a millisecond).
func (s *Store) SetAcquireTimeout(d time.Duration) {
	s.gate.timeout.Store(int64(max(d, time.Millisecond)))
}

// AcquireTimeouts counts the statements and transactions refused because no connection was
// free within the acquire timeout.
func (s *Store) AcquireTimeouts() int64 { return s.gate.timeouts.Load() }
