package links

import (
	"context"
	"database/sql"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// A link read from the database just before it was changed (a visit racing the change) is
// not cached: kept, the old target would be served on this replica for up to cacheTTL.
func TestLinkLoadedBeforeAChangeIsNotCached(t *testing.T) {
	ctx := context.Background()
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	l := New(svc, Config{ShortBase: "http://sb.test/l"})
	target, slug := "https://example.com/old", "race"
	link, err := l.Create(ctx, owner.Actor, Input{URL: &target, Slug: &slug})
	if err != nil {
		t.Fatal(err)
	}

	// The visit misses the cache and reads the link ...
	now := time.Now()
	_, gen, ok := l.cache.get(slug, now)
	if ok {
		t.Fatal("cached before any visit")
	}
	sl, err := l.st.LinkBySlug(ctx, slug)
	if err != nil {
		t.Fatal(err)
	}
	// ... the target changes meanwhile, and its invalidation arrives ...
	fixed := "https://example.com/new"
	if _, err := l.Update(ctx, owner.Actor, link.ID, Input{URL: &fixed}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, g, _ := l.cache.get(slug, now); g != gen {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the change's invalidation never arrived")
		}
	}
	// ... then the visit caches what it read.
	l.cache.put(slug, &cached{found: true, link: sl, target: sl.URL, loadedAt: now}, gen)
	e, err := l.resolve(ctx, slug, now)
	if err != nil {
		t.Fatal(err)
	}
	if e.target != fixed {
		t.Fatalf("the next visit goes to %s, want the changed target %s", e.target, fixed)
	}
}

// movableClock is a clock a test moves on.
type movableClock struct{ at atomic.Int64 }

func (c *movableClock) Now() time.Time { return time.Unix(0, c.at.Load()) }

// While the database cannot be read, a link visited before goes on redirecting past the
// cache's bound (it was right when the database last answered; a change would have dropped
// it), and is read again a little later; a slug never visited is unavailable, as is any read.
func TestCachedLinkServesThroughADatabaseOutage(t *testing.T) {
	ctx := context.Background()
	clock := &movableClock{}
	clock.at.Store(time.Now().UnixNano())
	svc, st := servicetest.New(t, store.Postgres, service.Config{Clock: clock})
	owner := servicetest.NewOwner(t, svc)
	l := New(svc, Config{ShortBase: "http://sb.test/l"})
	t.Cleanup(l.Close)
	target, slug := "https://example.com/kept", "kept"
	if _, err := l.Create(ctx, owner.Actor, Input{URL: &target, Slug: &slug}); err != nil {
		t.Fatal(err)
	}
	visit := func(slug string) (Outcome, error) {
		return l.Visit(ctx, Visit{Slug: slug, Method: "GET", UserAgent: "Mozilla/5.0", IP: "192.0.2.1"})
	}
	// Visit until the link stays cached (the new link's own announcement, arriving late,
	// drops what an earlier visit read, as any change racing a read does).
	deadline, since := time.Now().Add(5*time.Second), time.Time{}
	for ; ; time.Sleep(10 * time.Millisecond) {
		if out, err := visit(slug); err != nil || out.Location != target {
			t.Fatalf("before the outage: %+v %v", out, err)
		}
		if _, _, fresh := l.cache.get(slug, clock.Now()); !fresh {
			since = time.Time{}
		} else if since.IsZero() {
			since = time.Now()
		} else if time.Since(since) > 300*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the link never stayed cached")
		}
	}

	closeDatabase(t, st)
	clock.at.Add(int64(2 * cacheTTL))
	for i := range 2 {
		if out, err := visit(slug); err != nil || out.Kind != Redirect || out.Location != target {
			t.Fatalf("visit %d during the outage, past the cache's bound: %+v %v", i, out, err)
		}
	}
	if _, err := visit("never-seen"); !domain.IsCode(err, domain.CodeUnavailable) {
		t.Fatalf("a slug never visited during the outage: %v, want unavailable", err)
	}
}

// closeDatabase closes st's PostgreSQL database to connections and ends its sessions (as for
// maintenance), until the test ends: every read of st is then unavailable.
func closeDatabase(t *testing.T, st *store.Store) {
	t.Helper()
	u, err := url.Parse(st.URL())
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	admin, err := sql.Open("postgres", storetest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	allow := func(on bool) error {
		_, err := admin.Exec(`ALTER DATABASE "` + name + `" ALLOW_CONNECTIONS ` + strconv.FormatBool(on))
		return err
	}
	if err := allow(false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = allow(true)
		admin.Close()
	})
	if _, err := admin.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name); err != nil {
		t.Fatal(err)
	}
}

// A resync (notifications may have been missed) makes every entry stale rather than
// dropping it: each is read again at its next visit, and is still there to serve should that
// read find the database unavailable.
func TestResyncMakesEntriesStale(t *testing.T) {
	c := newSlugCache()
	now := time.Now()
	_, gen, _ := c.get("a", now)
	c.put("a", &cached{found: true, target: "https://example.com", loadedAt: now}, gen)
	c.clear()
	e, _, fresh := c.get("a", now)
	if e == nil || fresh || e.target != "https://example.com" {
		t.Fatalf("after a resync: entry %+v, fresh %v; want it kept, stale", e, fresh)
	}
}
