package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// JobStats counts queued and running jobs per kind, leaves failed jobs out, and finds each
// kind's earliest queued job whether it is due or not.
func TestJobStats(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if got, err := s.JobStats(ctx); err != nil || len(got) != 0 {
			t.Fatalf("empty table: %v %v", got, err)
		}
		job := func(id, kind string, runAt time.Time) store.NewJob {
			return store.NewJob{ID: id, Kind: kind, Payload: "{}", RunAt: runAt, MaxAttempts: 3, CreatedAt: t0.Add(-3 * time.Hour)}
		}
		err := s.Tx(ctx, func(tx *store.Tx) error {
			return tx.InsertJobs(ctx, []store.NewJob{
				job("job_a1", "a", t0.Add(-2*time.Hour)), job("job_a2", "a", t0.Add(-time.Hour)), job("job_a3", "a", t0.Add(time.Hour)),
				job("job_b1", "b", t0.Add(-time.Hour)),
				job("job_c1", "c", t0.Add(5*time.Minute)),
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		claim := func(kind string) store.ClaimedJob {
			t.Helper()
			got, _, err := s.ClaimJobs(ctx, store.ClaimJobsParams{Kind: kind, Now: t0, LeaseUntil: t0.Add(time.Minute),
				Token: "me/1", Owner: "me/", Limit: 1})
			if err != nil || len(got) != 1 {
				t.Fatalf("claim %s: %v %v", kind, got, err)
			}
			return got[0]
		}
		if c := claim("a"); c.ID != "job_a1" {
			t.Fatalf("claimed %s", c.ID)
		}
		b := claim("b")
		err = s.Tx(ctx, func(tx *store.Tx) error {
			_, err := tx.FinishJobs(ctx, []store.JobOutcome{{JobLease: store.JobLease{ID: b.ID, Token: b.Token},
				Status: store.JobFailed, RunAt: t0, Error: "boom"}}, t0)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}

		got, err := s.JobStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("kinds: %+v (a failed job's kind has nothing queued or running)", got)
		}
		a, c := got["a"], got["c"]
		if a.Queued != 2 || a.Running != 1 || a.EarliestRunAt == nil || !a.EarliestRunAt.Equal(t0.Add(-time.Hour)) {
			t.Fatalf("a: %+v %v", a, a.EarliestRunAt)
		}
		if c.Queued != 1 || c.Running != 0 || c.EarliestRunAt == nil || !c.EarliestRunAt.Equal(t0.Add(5*time.Minute)) {
			t.Fatalf("c: %+v %v", c, c.EarliestRunAt)
		}
	})
}

// PoolStats follows the pool: connections in use while transactions hold them, a caller
// waiting when all are taken, and the time it waited. (On SQLite transactions write one at
// a time, so they cannot take every connection: see TestPoolExhaustionIsUnavailable.)
func TestPoolStats(t *testing.T) {
	s := storetest.Open(t, store.Postgres)
	ctx := context.Background()
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	limit := s.PoolStats().MaxOpenConnections
	if limit <= 0 {
		t.Fatalf("no connection limit: %+v", s.PoolStats())
	}
	release := make(chan struct{})
	var held sync.WaitGroup
	for range limit {
		held.Go(func() {
			if err := s.Tx(ctx, func(*store.Tx) error { <-release; return nil }); err != nil {
				t.Error(err)
			}
		})
	}
	waitUntil(t, "every connection in use", func() bool { return s.PoolStats().InUse == limit })
	// Readiness pings on a connection of its own: it answers with the pool full.
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping with every pooled connection in use: %v", err)
	}
	before := s.PoolStats()
	pinged := make(chan error, 1)
	go func() { pinged <- s.PingPool(ctx) }()
	waitUntil(t, "a caller waiting", func() bool { return s.PoolStats().WaitCount == before.WaitCount+1 })
	time.Sleep(20 * time.Millisecond)
	close(release)
	held.Wait()
	if err := <-pinged; err != nil {
		t.Fatal(err)
	}
	after := s.PoolStats()
	if after.InUse != 0 || after.Idle == 0 || after.OpenConnections != after.Idle {
		t.Fatalf("after release: %+v", after)
	}
	if after.WaitCount != before.WaitCount+1 || after.WaitDuration-before.WaitDuration < 20*time.Millisecond {
		t.Fatalf("wait not counted: before %+v after %+v", before, after)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
