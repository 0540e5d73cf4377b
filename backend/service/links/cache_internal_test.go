package links

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
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
