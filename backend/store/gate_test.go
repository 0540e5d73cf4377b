package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// With every connection held, a statement or a transaction waits the acquire timeout, then
// is refused as unavailable (never queued for as long as its context lives), and is counted;
// once a connection is given back, everything works again.
func TestPoolExhaustionIsUnavailable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		s.SetAcquireTimeout(150 * time.Millisecond)
		// Every connection held by a transaction (on SQLite, one writes and the others wait
		// for its lock, holding their connections all the same).
		release := make(chan struct{})
		var done sync.WaitGroup
		n := s.PoolStats().MaxOpenConnections
		for range n {
			done.Add(1)
			go func() {
				defer done.Done()
				_ = s.Tx(ctx, func(tx *store.Tx) error {
					<-release
					return nil
				})
			}()
		}
		for deadline := time.Now().Add(5 * time.Second); s.PoolStats().InUse < n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d connections held", s.PoolStats().InUse, n)
			}
		}

		before := s.AcquireTimeouts()
		start := time.Now()
		_, err := s.EventsByIDs(ctx, []string{"evt_x"})
		if waited := time.Since(start); waited < 150*time.Millisecond || waited > 3*time.Second {
			t.Fatalf("a read waited %v for a connection, want the 150ms timeout", waited)
		}
		if !domain.IsCode(err, domain.CodeUnavailable) || domain.ErrorOf(err).Reason != store.ReasonUnavailable {
			t.Fatalf("a read with every connection held: %v, want unavailable", err)
		}
		ran := false
		err = s.Tx(ctx, func(*store.Tx) error { ran = true; return nil })
		if !domain.IsCode(err, domain.CodeUnavailable) || ran {
			t.Fatalf("a transaction with every connection held: %v (ran %v)", err, ran)
		}
		if got := s.AcquireTimeouts() - before; got != 2 {
			t.Fatalf("%d acquire timeouts counted, want 2", got)
		}
		// A caller whose context ends first is told so, without waiting the timeout.
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := s.EventsByIDs(cctx, []string{"evt_x"}); !domain.IsCode(err, domain.CodeUnavailable) {
			t.Fatalf("a cancelled read: %v", err)
		}

		close(release)
		done.Wait()
		if _, err := s.EventsByIDs(ctx, []string{"evt_x"}); err != nil {
			t.Fatalf("a read once connections are free: %v", err)
		}
	})
}
