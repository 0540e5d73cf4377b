package store_test

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// Nobody queues for ever. On PostgreSQL, with every connection held by a transaction, a
// statement or a transaction waits the acquire timeout, then is refused as unavailable. On
// SQLite writers take turns before they take a connection: with one write transaction stuck,
// another write is refused the same way, while reads go on. Refusals are counted; once the
// holders finish, everything works again.
func TestPoolExhaustionIsUnavailable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		s.SetAcquireTimeout(150 * time.Millisecond)
		s.SetPoolSize(4) // PostgreSQL's pool, as SWITCHBOARD_DB_MAX_CONNS sets it; SQLite keeps its own
		holders := s.PoolStats().MaxOpenConnections
		if s.Dialect() == store.Postgres && holders != 4 {
			t.Fatalf("pool of %d connections, want the 4 set", holders)
		}
		if s.Dialect() == store.SQLite {
			holders = 1
		}
		release := make(chan struct{})
		var done sync.WaitGroup
		for range holders {
			done.Go(func() {
				if err := s.Tx(ctx, func(tx *store.Tx) error { <-release; return nil }); err != nil {
					t.Error(err)
				}
			})
		}
		for deadline := time.Now().Add(5 * time.Second); s.PoolStats().InUse < holders; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d connections held", s.PoolStats().InUse, holders)
			}
		}

		before := s.AcquireTimeouts()
		unavailable := func(what string, err error, waited time.Duration) {
			t.Helper()
			if !domain.IsCode(err, domain.CodeUnavailable) || domain.ErrorOf(err).Reason != store.ReasonUnavailable {
				t.Fatalf("%s: %v, want unavailable", what, err)
			}
			if waited < 150*time.Millisecond || waited > 3*time.Second {
				t.Fatalf("%s waited %v, want the 150ms timeout", what, waited)
			}
		}
		start := time.Now()
		_, err := s.EventsByIDs(ctx, []string{"evt_x"})
		if s.Dialect() == store.Postgres {
			unavailable("a read with every connection held", err, time.Since(start))
		} else if err != nil {
			t.Fatalf("a read beside a stuck write: %v", err)
		}
		ran := false
		start = time.Now()
		err = s.Tx(ctx, func(*store.Tx) error { ran = true; return nil })
		unavailable("a transaction", err, time.Since(start))
		if ran {
			t.Fatal("the refused transaction ran")
		}
		want := int64(2)
		if s.Dialect() == store.SQLite {
			want = 1
		}
		if got := s.AcquireTimeouts() - before; got != want {
			t.Fatalf("%d acquire timeouts counted, want %d", got, want)
		}
		// A caller whose context ends first is told so, without waiting the timeout.
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := s.Tx(cctx, func(*store.Tx) error { return nil }); !domain.IsCode(err, domain.CodeUnavailable) {
			t.Fatalf("a cancelled transaction: %v", err)
		}

		close(release)
		done.Wait()
		if _, err := s.EventsByIDs(ctx, []string{"evt_x"}); err != nil {
			t.Fatalf("a read once connections are free: %v", err)
		}
		if err := s.Tx(ctx, func(*store.Tx) error { return nil }); err != nil {
			t.Fatalf("a transaction once connections are free: %v", err)
		}
	})
}

// A statement PostgreSQL cancels because the request's context ended (a client gone, a
// server shutting down) is unavailable, not an internal error: lib/pq reports the server's
// 57014 rather than the context's error.
func TestCancelledStatementIsUnavailable(t *testing.T) {
	s := storetest.Open(t, store.Postgres)
	locker, err := sql.Open("postgres", s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	tx, err := locker.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("LOCK TABLE events IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = s.EventsByIDs(ctx, []string{"evt_x"})
	// With the reason of the database's other faults: REST answers 503 unavailable.
	if !domain.IsCode(err, domain.CodeUnavailable) || domain.ErrorOf(err).Reason != store.ReasonUnavailable {
		t.Fatalf("a statement cancelled with its context: %v (code %v), want unavailable", err, domain.ErrorOf(err).Code)
	}
}

// A PostgreSQL database closed to new connections for maintenance (ALTER DATABASE …
// ALLOW_CONNECTIONS false, its sessions ended) is an outage like a restart: unavailable, so
// the API answers 503 with Retry-After, not 500. Once it opens again, everything works.
func TestDatabaseClosedToConnectionsIsUnavailable(t *testing.T) {
	s := storetest.Open(t, store.Postgres)
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	admin, err := sql.Open("postgres", storetest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	ctx := context.Background()
	set := func(allow bool) {
		t.Helper()
		if _, err := admin.ExecContext(ctx, `ALTER DATABASE "`+name+`" ALLOW_CONNECTIONS `+map[bool]string{true: "true", false: "false"}[allow]); err != nil {
			t.Fatal(err)
		}
	}
	set(false)
	t.Cleanup(func() { set(true) })
	if _, err := admin.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name); err != nil {
		t.Fatal(err)
	}
	// The pool's connections are gone: the next statements need new ones, which are refused.
	for range 3 {
		_, err = s.EventsByIDs(ctx, []string{"evt_x"})
		if domain.IsCode(err, domain.CodeUnavailable) {
			break
		}
	}
	if !domain.IsCode(err, domain.CodeUnavailable) || domain.ErrorOf(err).Reason != store.ReasonUnavailable {
		t.Fatalf("a read while the database refuses connections: %v, want unavailable", err)
	}
	err = s.Tx(ctx, func(*store.Tx) error { return nil })
	if !domain.IsCode(err, domain.CodeUnavailable) {
		t.Fatalf("a transaction while the database refuses connections: %v, want unavailable", err)
	}
	set(true)
	if _, err := s.EventsByIDs(ctx, []string{"evt_x"}); err != nil {
		t.Fatalf("after the database opened again: %v", err)
	}
}

// The readiness ping's own connection, closed by the server while idle, does not make the
// next ping report an outage: the API's pool recovers on its next statement, and so does it.
func TestPingSurvivesItsConnectionBeingClosed(t *testing.T) {
	s := storetest.Open(t, store.Postgres)
	ctx := context.Background()
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(s.URL())
	admin, err := sql.Open("postgres", storetest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var n int
	if err := admin.QueryRowContext(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1`,
		strings.TrimPrefix(u.Path, "/")).Scan(&n); err != nil || n == 0 {
		t.Fatalf("terminated %d sessions: %v", n, err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("the ping after its connection was closed: %v", err)
	}
}

// A caller that queues at the gate for its turn or a connection is counted in the pool's
// wait figures (switchboard_db_wait_count_total and _seconds_total), as one waiting in
// database/sql's own queue would be: the gate is where callers wait.
func TestGateWaitsAreCounted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		s.SetPoolSize(2)
		holders := 2
		if s.Dialect() == store.SQLite {
			holders = 1 // one write at a time
		}
		release, in := make(chan struct{}), make(chan struct{}, holders)
		var held sync.WaitGroup
		for range holders {
			held.Go(func() {
				_ = s.Tx(ctx, func(*store.Tx) error { in <- struct{}{}; <-release; return nil })
			})
		}
		for range holders {
			<-in
		}
		before := s.PoolStats()
		done := make(chan error, 1)
		go func() { done <- s.Tx(ctx, func(*store.Tx) error { return nil }) }()
		time.Sleep(100 * time.Millisecond)
		close(release)
		held.Wait()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		after := s.PoolStats()
		if after.WaitCount < before.WaitCount+1 || after.WaitDuration-before.WaitDuration < 90*time.Millisecond {
			t.Fatalf("a caller that waited 100 ms: wait count %d → %d, wait %v → %v", before.WaitCount, after.WaitCount,
				before.WaitDuration, after.WaitDuration)
		}
	})
}
