package app_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
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

// A database that stops answering without closing its connections (a frozen server, a
// network partition) holds a request no longer than SWITCHBOARD_DB_STATEMENT_TIMEOUT: the
// caller is told to retry (503 unavailable, Retry-After), readiness says the database is not
// answering, and once it answers again requests succeed without a restart.
func TestFrozenDatabaseAnswers503(t *testing.T) {
	cfg, err := app.FromEnv(func(k string) string {
		return map[string]string{"SWITCHBOARD_DB_STATEMENT_TIMEOUT": "500ms"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(storetest.URL(t, store.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	f := storetest.NewFreezer(t, u.Host)
	u.Host = f.Addr()
	_, srv := newAppWith(t, u.String(), cfg)
	e := signedUpEdge(t, srv, "*")
	bearer := "Bearer " + e.secret
	if resp, raw := e.rest("/api/v1/links", "Authorization", bearer); resp.StatusCode != 200 {
		t.Fatalf("before: %d %s", resp.StatusCode, raw)
	}

	f.Frozen.Store(true)
	defer f.Frozen.Store(false)
	client := &http.Client{Timeout: 15 * time.Second} // fails the test rather than hang it
	start := time.Now()
	req, _ := http.NewRequest("GET", srv.URL+"/api/v1/links", nil)
	req.Header.Set("Authorization", bearer)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("a request on a frozen database got no answer: %v after %v", err, time.Since(start))
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if waited := time.Since(start); resp.StatusCode != http.StatusServiceUnavailable || restCode(t, raw) != "unavailable" ||
		resp.Header.Get("Retry-After") == "" || waited > 6*time.Second {
		t.Fatalf("REST on a frozen database: %d %s (Retry-After %q) after %v", resp.StatusCode, raw,
			resp.Header.Get("Retry-After"), waited)
	}
	ready, err := client.Get(srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	ready.Body.Close()
	if ready.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("/readyz on a frozen database: %d", ready.StatusCode)
	}

	f.Frozen.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, raw := e.rest("/api/v1/links", "Authorization", bearer)
		if resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the database answers again: %d %s", resp.StatusCode, raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
