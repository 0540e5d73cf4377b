package app_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// With every database connection of the replica held (a stuck query, a lock, a burst far
// beyond the pool), a request waits SWITCHBOARD_DB_ACQUIRE_TIMEOUT for one, then is told to
// retry: REST 503 unavailable with Retry-After, GraphQL UNAVAILABLE, counted on /metrics.
// Once connections are free, the same request succeeds.
func TestPoolExhaustionAnswers503(t *testing.T) {
	cfg, err := app.FromEnv(func(k string) string {
		return map[string]string{"SWITCHBOARD_DB_ACQUIRE_TIMEOUT": "300ms"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	a, srv := newAppWith(t, storetest.URL(t, store.Postgres), cfg)
	e := signedUpEdge(t, srv, "*")
	bearer := "Bearer " + e.secret
	if resp, raw := e.rest("/api/v1/links", "Authorization", bearer); resp.StatusCode != 200 {
		t.Fatalf("before: %d %s", resp.StatusCode, raw)
	}

	// Hold every connection in a transaction (a holder that lost the race for a slot to the
	// replica's own background work tries again).
	n := a.Store.PoolStats().MaxOpenConnections
	in, release := make(chan struct{}, n), make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free()
	hold := func() {
		for {
			err := a.Store.Tx(context.Background(), func(*store.Tx) error { in <- struct{}{}; <-release; return nil })
			if err == nil {
				return
			}
			select {
			case <-release:
				return
			default:
			}
		}
	}
	for range n {
		go hold()
	}
	for range n {
		select {
		case <-in:
		case <-time.After(10 * time.Second):
			t.Fatal("could not hold every connection")
		}
	}

	// The database still answers: the replica is ready, and says its pool is busy.
	start := time.Now()
	ready, err := http.Get(srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(ready.Body)
	ready.Body.Close()
	if ready.StatusCode != 200 || !strings.Contains(string(body), `"pool":"busy"`) || time.Since(start) > time.Second {
		t.Fatalf("/readyz with every connection held: %d %s after %v", ready.StatusCode, body, time.Since(start))
	}

	start = time.Now()
	resp, raw := e.rest("/api/v1/links", "Authorization", bearer)
	if waited := time.Since(start); resp.StatusCode != http.StatusServiceUnavailable || restCode(t, raw) != "unavailable" ||
		resp.Header.Get("Retry-After") == "" || waited < 300*time.Millisecond || waited > 5*time.Second {
		t.Fatalf("REST with every connection held: %d %s (Retry-After %q) after %v", resp.StatusCode, raw,
			resp.Header.Get("Retry-After"), waited)
	}
	if _, code, raw := e.gql(http.DefaultClient, `{ links(first: 1) { hasMore } }`, "Authorization", bearer); code != "UNAVAILABLE" {
		t.Fatalf("GraphQL with every connection held: %s", raw)
	}
	free()
	if got := newScraper(t, a).scrape()["switchboard_db_acquire_timeouts_total"]; got < 2 {
		t.Fatalf("switchboard_db_acquire_timeouts_total = %v, want at least 2", got)
	}
	if resp, raw := e.rest("/api/v1/links", "Authorization", bearer); resp.StatusCode != 200 {
		t.Fatalf("after: %d %s", resp.StatusCode, raw)
	}
}
