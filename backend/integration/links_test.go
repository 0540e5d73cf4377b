package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

const browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

type linkObject struct {
	ID     string `json:"id"`
	Clicks int    `json:"clicks"`
}

// visit follows nothing: it returns the redirect's status and Location.
func visit(t *testing.T, r *replica, slug string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, r.base+"/l/"+slug, nil)
	req.Header.Set("User-Agent", browserUA)
	c := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Location")
}

// A link changed on one replica redirects to its new target on the other at once, though
// the other had it cached; a link deleted on one is gone on the other. Clicks on both
// replicas count, and each person's click reaches a signed link.clicked webhook. A slug
// one replica knew to be unknown redirects there soon after the link is created on the other.
func TestLinkChangedOnOneReplicaRedirectsOnOther(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	a := startReplica(t, "A", db)
	b := startReplica(t, "B", db)
	o := signUp(t, a)
	rc := newHookReceiver(t)
	var hook webhookCreated
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": rc.URL + "/hook",
		"event_types": []string{"link.clicked"}}, &hook)
	rc.setSecret(hook.Secret)

	var l linkObject
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/links", map[string]any{"url": "https://example.com/v1", "slug": "moving"}, &l)
	if code, loc := visit(t, b, "moving"); code != 302 || loc != "https://example.com/v1" {
		t.Fatalf("B before the change: %d %q", code, loc) // B now has the slug cached
	}
	a.mustREST(t, o.key, http.MethodPatch, "/api/v1/links/"+l.ID, map[string]any{"url": "https://example.com/v2"}, nil)
	waitFor(t, 5*time.Second, "B to follow the change made on A", func() bool {
		_, loc := visit(t, b, "moving")
		return loc == "https://example.com/v2"
	})
	visit(t, a, "moving")

	var got linkObject
	waitFor(t, 5*time.Second, "the clicks of both replicas to be counted", func() bool {
		b.mustREST(t, o.key, http.MethodGet, "/api/v1/links/"+l.ID, nil, &got)
		return got.Clicks >= 3
	})
	waitFor(t, 10*time.Second, "a signed link.clicked webhook per click", func() bool {
		_, byID, _ := rc.snapshot()
		return len(byID) == got.Clicks
	})
	if _, _, bad := rc.snapshot(); len(bad) > 0 {
		t.Fatalf("signatures rejected: %v", bad)
	}

	a.mustREST(t, o.key, http.MethodDelete, "/api/v1/links/"+l.ID, nil, nil)
	waitFor(t, 5*time.Second, "B to forget the link deleted on A", func() bool {
		code, _ := visit(t, b, "moving")
		return code == http.StatusNotFound
	})

	// B remembers that "later" does not exist; created on A (its invalidation announced
	// after the commit, not inside it), it redirects on B without waiting for the cache's
	// one-minute expiry.
	if code, _ := visit(t, b, "later"); code != http.StatusNotFound {
		t.Fatalf("B before the link exists: %d", code)
	}
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/links", map[string]any{"url": "https://example.com/later", "slug": "later"}, nil)
	waitFor(t, 5*time.Second, "B to find the link created on A", func() bool {
		_, loc := visit(t, b, "later")
		return loc == "https://example.com/later"
	})
}

// SIGTERM writes the clicks still buffered: none is lost on a clean stop.
func TestSigtermWritesBufferedClicks(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			db := storetest.URL(t, d)
			r := startReplica(t, "A", db)
			o := signUp(t, r)
			var l linkObject
			r.mustREST(t, o.key, http.MethodPost, "/api/v1/links", map[string]any{"url": "https://example.com", "slug": "flush"}, &l)
			const n = 40
			for range n {
				if code, _ := visit(t, r, "flush"); code != 302 {
					t.Fatalf("visit: %d", code)
				}
			}
			if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			<-r.done
			r2 := startReplica(t, "A2", db)
			var got linkObject
			r2.mustREST(t, o.key, http.MethodGet, "/api/v1/links/"+l.ID, nil, &got)
			if got.Clicks != n {
				t.Fatalf("%d clicks after a clean stop, want %d", got.Clicks, n)
			}
		})
	}
}

// PostgreSQL stopped under a replica: a link visited before goes on redirecting, a slug
// never visited answers a 503 page with Retry-After, and every click made during the outage
// is stored, with its signed link.clicked webhook, once the database is back. (Serving a
// cached link past the cache's one-minute bound is TestCachedLinkServesThroughADatabaseOutage,
// on a moved clock.)
func TestLinksRedirectThroughAnOutageAndKeepTheirClicks(t *testing.T) {
	pg := startPostgres(t)
	a := startReplica(t, "A", pg.URL())
	o := signUp(t, a)
	rc := newHookReceiver(t)
	var hook webhookCreated
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": rc.URL + "/hook",
		"event_types": []string{"link.clicked"}}, &hook)
	rc.setSecret(hook.Secret)
	var l linkObject
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/links", map[string]any{"url": "https://example.com/steady", "slug": "steady"}, &l)
	// The link's own announcement, arriving after a first visit, drops what that visit read:
	// visit until it has arrived.
	time.Sleep(300 * time.Millisecond)
	clicks := 0
	for range 3 {
		if code, loc := visit(t, a, "steady"); code != http.StatusFound || loc != "https://example.com/steady" {
			t.Fatalf("before the outage: %d %q", code, loc)
		}
		clicks++
	}
	waitFor(t, 10*time.Second, "the clicks before the outage to be stored", func() bool {
		var got linkObject
		a.mustREST(t, o.key, http.MethodGet, "/api/v1/links/"+l.ID, nil, &got)
		return got.Clicks == clicks
	})

	pg.stop()
	for i := range 10 {
		if code, loc := visit(t, a, "steady"); code != http.StatusFound || loc != "https://example.com/steady" {
			t.Fatalf("visit %d during the outage: %d %q", i, code, loc)
		}
		clicks++
		time.Sleep(100 * time.Millisecond)
	}
	req, _ := http.NewRequest(http.MethodGet, a.base+"/l/never-seen", nil)
	req.Header.Set("User-Agent", browserUA)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" ||
		!strings.Contains(string(page), "try again") {
		t.Fatalf("a slug never visited during the outage: %d, Retry-After %q, %s", res.StatusCode, res.Header.Get("Retry-After"), page)
	}
	pg.start()

	waitFor(t, 30*time.Second, "every click of the outage to be stored", func() bool {
		code, raw := a.rest(t, o.key, http.MethodGet, "/api/v1/links/"+l.ID, nil)
		var got linkObject
		return code == http.StatusOK && json.Unmarshal(raw, &got) == nil && got.Clicks == clicks
	})
	waitFor(t, 30*time.Second, "a signed link.clicked webhook per click", func() bool {
		_, byID, _ := rc.snapshot()
		return len(byID) == clicks
	})
	if _, _, bad := rc.snapshot(); len(bad) > 0 {
		t.Fatalf("signatures rejected: %v", bad)
	}
	if strings.Contains(a.logs.String(), `"status":500`) {
		t.Fatalf("the replica answered 500:\n%s", a.logs.String())
	}
}

// Behind a proxy the operator trusts, clicks count the visitors the proxy names in
// X-Forwarded-For (two visitors: two uniques); without SWITCHBOARD_TRUSTED_PROXIES the
// header is anyone's to send and is ignored (one connection: one visitor).
func TestTrustedProxyNamesTheVisitor(t *testing.T) {
	for _, c := range []struct {
		name    string
		env     []string
		uniques float64
	}{{"trusted", []string{"SWITCHBOARD_TRUSTED_PROXIES=127.0.0.1"}, 2}, {"untrusted", nil, 1}} {
		t.Run(c.name, func(t *testing.T) {
			r := startReplica(t, "A", storetest.URL(t, store.SQLite), c.env...)
			o := signUp(t, r)
			var l linkObject
			r.mustREST(t, o.key, http.MethodPost, "/api/v1/links", map[string]any{"url": "https://example.com", "slug": "proxied"}, &l)
			for _, client := range []string{"203.0.113.1", "203.0.113.2", "203.0.113.2"} {
				req, _ := http.NewRequest(http.MethodGet, r.base+"/l/proxied", nil)
				req.Header.Set("User-Agent", browserUA)
				req.Header.Set("X-Forwarded-For", client)
				res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
			}
			var stats map[string]any
			waitFor(t, 10*time.Second, "the three clicks to be stored", func() bool {
				r.mustREST(t, o.key, http.MethodGet, "/api/v1/links/"+l.ID+"/stats", nil, &stats)
				return stats["clicks"] == float64(3)
			})
			if stats["uniques"] != c.uniques {
				t.Fatalf("uniques %v, want %v", stats["uniques"], c.uniques)
			}
		})
	}
}
