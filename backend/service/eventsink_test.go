package service_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Events recorded by as many transactions at once as the pool has connections, just after
// the webhook-endpoint cache expired, all commit: the cache reloads through each
// transaction (a reload from the pool would wait for a connection none of them gives back).
func TestEventsRecordedWithThePoolFull(t *testing.T) {
	// PostgreSQL only: SQLite runs one writer at a time, there is no pool to exhaust.
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	svc, st := servicetest.New(t, store.Postgres, service.Config{Clock: clock})
	owner := servicetest.NewOwner(t, svc)
	owner.NewKey(t, svc, domain.ScopeAll)   // records an event: the workspace's endpoints are cached
	clock.t = clock.t.Add(10 * time.Minute) // and now the cache has expired

	const pool = 20 // store.Open's MaxOpenConns for PostgreSQL
	var inside, wg sync.WaitGroup
	inside.Add(pool)
	errs := make(chan error, pool)
	for range pool {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			errs <- st.Tx(tctx, func(tx *store.Tx) error {
				inside.Done()
				inside.Wait() // every connection of the pool is in a transaction
				_, err := svc.Record(tctx, tx, owner.Actor.WorkspaceID, domain.EventAPIKeyCreated, nil, map[string]string{"k": "v"})
				return err
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("recording with the pool full: %v", err)
		}
	}
}
