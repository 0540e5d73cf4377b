package service_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// Events committed while the notification connection was away never reached the bus;
// after the reconnect every live subscriber gets them from the log, in order, once, and
// what arrives live afterwards is not repeated.
func TestResyncCatchesLiveSubscribersUp(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			svc, st := servicetest.New(t, d, service.Config{})
			owner := servicetest.NewOwner(t, svc)
			other := servicetest.NewOwner(t, svc)
			live, err := svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{Types: []string{"api_key.created"}}, "")
			if err != nil {
				t.Fatal(err)
			}
			seenLive, _ := owner.NewKey(t, svc, domain.ScopeAll)
			if e := next(t, live.C); e.Type != "api_key.created" {
				t.Fatalf("live: %+v", e)
			}

			// Lost notifications: events stored without reaching the bus (as while the
			// listener was disconnected), the other workspace's and another type too.
			var lost []string
			for i, ws := range []string{owner.Workspace.ID, other.Workspace.ID, owner.Workspace.ID, owner.Workspace.ID} {
				typ := "api_key.created"
				if i == 3 {
					typ = "api_key.revoked"
				}
				e := domain.Event{ID: domain.NewID(domain.PrefixEvent), Type: typ, WorkspaceID: ws,
					Timestamp: time.Now().UTC(), Data: json.RawMessage(`{"id":"key_lost"}`)}
				if err := st.Tx(ctx, func(tx *store.Tx) error { return tx.InsertEvent(ctx, e) }); err != nil {
					t.Fatal(err)
				}
				if i == 0 || i == 2 { // the owner's, of the type subscribed to
					lost = append(lost, e.ID)
				}
			}
			select {
			case e := <-live.C:
				t.Fatalf("a lost event arrived before the resync: %+v", e)
			case <-time.After(50 * time.Millisecond):
			}

			svc.Resync()
			for _, want := range lost {
				if e := next(t, live.C); e.ID != want {
					t.Fatalf("caught up %s, want %s (in order; and not %s again)", e.ID, want, seenLive.ID)
				}
			}
			// Live again: the next key once, nothing repeated before it.
			svc.Resync() // a second resync finds nothing new
			owner.NewKey(t, svc, domain.ScopeAll)
			e0 := next(t, live.C)
			e := e0
			if e.ID <= lost[1] {
				t.Fatalf("after the resync: %+v (repeated?)", e)
			}
			select {
			case e := <-live.C:
				t.Fatalf("after %s, a duplicate: %s", e0.ID, e.ID)
			case <-time.After(100 * time.Millisecond):
			}
			if live.Err() != nil {
				t.Fatalf("stream error %v", live.Err())
			}
		})
	}
}

// A key revoked while the notification connection was away ends its live subscriptions at
// the resync.
func TestResyncEndsSubscriptionsOfRevokedKeys(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc, st := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	key, _ := owner.NewKey(t, svc, domain.ScopeAll)
	keyActor := service.Actor{WorkspaceID: owner.Workspace.ID, KeyID: key.ID, Scopes: []domain.Scope{domain.ScopeAll}}
	live, err := svc.Events.Subscribe(ctx, keyActor, domain.EventFilter{}, "")
	if err != nil {
		t.Fatal(err)
	}
	// Revoked behind the service's back: no invalidation reaches this replica.
	if err := st.Tx(ctx, func(tx *store.Tx) error { return tx.RevokeAPIKey(ctx, owner.Workspace.ID, key.ID, time.Now()) }); err != nil {
		t.Fatal(err)
	}
	svc.Resync()
	select {
	case _, ok := <-live.C:
		if ok {
			t.Fatal("an event instead of the end")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the subscription of a revoked key is still open")
	}
	if e := domain.ErrorOf(live.Err()); e == nil || e.Reason != "credential_revoked" {
		t.Fatalf("end reason %v", live.Err())
	}
}

// While a catch-up cannot read the log yet (the database restarting, the pool busy), events
// arriving live from another replica are held and go out after the missed ones, in order:
// the subscriber never gets a new event before older ones it missed.
func TestLiveEventsWaitForAPendingCatchUp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svcB, stB := servicetest.New(t, store.Postgres, service.Config{})
	stA, err := store.Open(ctx, stB.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stA.Close() })
	svcA := servicetest.NewOn(t, stA, service.Config{})
	owner := servicetest.NewOwner(t, svcA)
	live, err := svcB.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{Types: []string{"api_key.created"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	owner.NewKey(t, svcA, domain.ScopeAll) // reaches B live: its listener is up
	next(t, live.C)

	var lost []string // stored without reaching the bus, as while B's listener was away
	for range 2 {
		e := domain.Event{ID: domain.NewID(domain.PrefixEvent), Type: "api_key.created", WorkspaceID: owner.Workspace.ID,
			Timestamp: time.Now().UTC(), Data: json.RawMessage(`{"id":"key_lost"}`)}
		if err := stA.Tx(ctx, func(tx *store.Tx) error { return tx.InsertEvent(ctx, e) }); err != nil {
			t.Fatal(err)
		}
		lost = append(lost, e.ID)
	}
	// B's pool is held: its catch-up is refused and waits to try again.
	stB.SetAcquireTimeout(20 * time.Millisecond)
	stB.SetPoolSize(2)
	release := make(chan struct{})
	var held sync.WaitGroup
	in := make(chan struct{}, 2)
	for range 2 {
		held.Go(func() {
			_ = stB.Tx(ctx, func(*store.Tx) error { in <- struct{}{}; <-release; return nil })
		})
	}
	<-in
	<-in
	svcB.Resync()
	time.Sleep(100 * time.Millisecond)
	// A new event reaches B live (A's notification) before the catch-up's next try.
	fresh, _ := owner.NewKey(t, svcA, domain.ScopeAll)
	time.Sleep(100 * time.Millisecond)
	close(release)
	held.Wait()
	var got []string
	for range 3 {
		got = append(got, next(t, live.C).ID)
	}
	if got[0] != lost[0] || got[1] != lost[1] {
		t.Fatalf("received %v, want the missed %v first, then the new event (key %s)", got, lost, fresh.ID)
	}
}
