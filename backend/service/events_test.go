package service_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

func next(t *testing.T, ch <-chan domain.Event) domain.Event {
	t.Helper()
	select {
	case e, ok := <-ch:
		if !ok {
			t.Fatal("subscription closed")
		}
		return e
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
	}
	return domain.Event{}
}

func TestSubscribeLiveAndReplay(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			svc, _ := servicetest.New(t, d, service.Config{})
			owner := servicetest.NewOwner(t, svc)
			other := servicetest.NewOwner(t, svc)

			live, err := svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{Types: []string{"api_key.created"}}, "")
			if err != nil {
				t.Fatal(err)
			}
			k1, _ := owner.NewKey(t, svc, domain.ScopeAll)
			other.NewKey(t, svc, domain.ScopeAll)    // another workspace: never delivered here
			svc.Keys.Revoke(ctx, owner.Actor, k1.ID) // filtered out by type
			k2, _ := owner.NewKey(t, svc, domain.ScopeAll)
			first, second := next(t, live.C), next(t, live.C)
			if first.WorkspaceID != owner.Workspace.ID || first.Type != "api_key.created" || second.ID <= first.ID {
				t.Fatalf("live events: %+v %+v", first, second)
			}
			_ = k2

			// A reconnecting dashboard replays from its last event, then continues live.
			resumed, err := svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{}, first.ID)
			if err != nil {
				t.Fatal(err)
			}
			if e := next(t, resumed.C); e.Type != "api_key.revoked" {
				t.Fatalf("replay[0] = %s", e.Type)
			}
			if e := next(t, resumed.C); e.ID != second.ID {
				t.Fatalf("replay[1] = %s, want %s", e.ID, second.ID)
			}
			owner.NewKey(t, svc, domain.ScopeAll)
			if e := next(t, resumed.C); e.Type != "api_key.created" || e.ID <= second.ID {
				t.Fatalf("live after replay: %+v", e)
			}
		})
	}
}

func TestSlowSubscriberIsDropped(t *testing.T) {
	ctx := context.Background()
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	slow, err := svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{}, "")
	if err != nil {
		t.Fatal(err)
	}
	fast, _ := svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{}, "")
	got := make(chan int)
	go func() {
		n := 0
		for range fast.C {
			n++
			if n == service.SubscriptionBuffer+100 {
				got <- n
			}
		}
	}()
	// The slow one reads nothing; publishing must not block and the fast one gets everything.
	for range service.SubscriptionBuffer + 100 {
		owner.NewKey(t, svc, domain.ScopeModelsRead)
	}
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("fast subscriber starved by a slow one")
	}
	n := 0
	for range slow.C {
		n++
	}
	if reason(slow.Err()) != "slow_subscriber" {
		t.Fatalf("slow subscriber ended with %v", slow.Err())
	}
	if n >= service.SubscriptionBuffer+100 {
		t.Fatalf("slow subscriber was not dropped (got all %d)", n)
	}
}

func TestEventTypesHaveSamples(t *testing.T) {
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	seen := map[string]bool{}
	for _, et := range eventTypes(t, svc) {
		if et.Description == "" || et.Sample == nil {
			t.Fatalf("%s lacks description or sample", et.Type)
		}
		seen[et.Type] = true
	}
	for _, want := range []string{domain.EventWorkspaceCreated, domain.EventAPIKeyCreated, domain.EventAPIKeyRevoked} {
		if !seen[want] {
			t.Fatalf("event type %s not listed", want)
		}
	}
}

// The catalog's samples have exactly the fields of the live events.
func TestEventSamplesMatchLiveShape(t *testing.T) {
	ctx := context.Background()
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	k, _ := owner.NewKey(t, svc, domain.ScopeAll)
	if _, err := svc.Keys.Revoke(ctx, owner.Actor, k.ID); err != nil {
		t.Fatal(err)
	}
	page, err := svc.Events.List(ctx, owner.Actor, domain.EventFilter{}, domain.ListParams{})
	if err != nil {
		t.Fatal(err)
	}
	samples := map[string]any{}
	for _, et := range eventTypes(t, svc) {
		samples[et.Type] = et.Sample
	}
	for _, e := range page.Data {
		var live map[string]any
		if err := json.Unmarshal(e.Data, &live); err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(samples[e.Type])
		var sample map[string]any
		if err := json.Unmarshal(raw, &sample); err != nil {
			t.Fatal(err)
		}
		if len(live) != len(sample) {
			t.Fatalf("%s: live has %d fields, sample %d", e.Type, len(live), len(sample))
		}
		for f := range live {
			if _, ok := sample[f]; !ok {
				t.Fatalf("%s: sample lacks %q", e.Type, f)
			}
		}
	}
}

// A live subscription ends the moment its key is revoked or its session signs out.
func TestSubscriptionEndsWithItsCredential(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			svc, _ := servicetest.New(t, d, service.Config{})
			owner := servicetest.NewOwner(t, svc)
			key, secret := owner.NewKey(t, svc, domain.ScopeEventsRead)
			keyActor, err := svc.Keys.Authenticate(ctx, secret)
			if err != nil {
				t.Fatal(err)
			}
			byKey, err := svc.Events.Subscribe(ctx, keyActor, domain.EventFilter{}, "")
			if err != nil {
				t.Fatal(err)
			}
			// (Filtered: on PostgreSQL the key's creation event may still be on its way.)
			bySession, err := svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{Types: []string{domain.EventAPIKeyRevoked}}, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Keys.Revoke(ctx, owner.Actor, key.ID); err != nil {
				t.Fatal(err)
			}
			drained := func(ch <-chan domain.Event) bool {
				timeout := time.After(5 * time.Second)
				for {
					select {
					case _, ok := <-ch:
						if !ok {
							return true
						}
					case <-timeout:
						return false
					}
				}
			}
			if !drained(byKey.C) {
				t.Fatal("the revoked key's subscription is still open")
			}
			if reason(byKey.Err()) != "credential_revoked" {
				t.Fatalf("ended with %v", byKey.Err())
			}
			// A connection authenticated before the revocation cannot start a new one.
			if _, err := svc.Events.Subscribe(ctx, keyActor, domain.EventFilter{}, ""); reason(err) != "credential_revoked" {
				t.Fatalf("subscribe with the revoked key: %v", err)
			}
			// The session's subscription saw the revocation event and is still live.
			if e := next(t, bySession.C); e.Type != domain.EventAPIKeyRevoked {
				t.Fatalf("session subscription got %s", e.Type)
			}
			if err := svc.Users.SignOut(ctx, owner.Token); err != nil {
				t.Fatal(err)
			}
			if !drained(bySession.C) {
				t.Fatal("the signed-out session's subscription is still open")
			}
			if _, err := svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{}, ""); reason(err) != "credential_revoked" {
				t.Fatalf("subscribe with the signed-out session: %v", err)
			}
		})
	}
}

// Every event must fit a webhook payload, whether or not this replica sends webhooks: a larger one fails the change
// that would record it, and nothing is stored.
func TestOversizedEventRefusedAtTheSource(t *testing.T) {
	ctx := context.Background()
	svc, st := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	big := map[string]string{"blob": strings.Repeat("a", domain.MaxEventPayload)}
	err := st.Tx(ctx, func(tx *store.Tx) error {
		_, err := svc.Record(ctx, tx, owner.Workspace.ID, domain.EventAPIKeyCreated, nil, big)
		return err
	})
	if reason(err) != "event_too_large" {
		t.Fatalf("oversized event: %v", err)
	}
	page, _ := svc.Events.List(ctx, owner.Actor, domain.EventFilter{Types: []string{domain.EventAPIKeyCreated}}, domain.ListParams{})
	if len(page.Data) != 0 {
		t.Fatal("the oversized event was stored")
	}
}

// A batch of events (group commit: sends, inbound calls, clicks) travels between replicas
// as its ids: a live subscriber on another replica still gets every event, whole and in
// order, and a single event still arrives inline. On PostgreSQL two replicas share one
// database; SQLite runs one replica, which hears its own announcements.
func TestBatchReachesSubscriberOnAnotherReplica(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			u := storetest.URL(t, d)
			open := func() *store.Store {
				st, err := store.Open(ctx, u)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				if err := st.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				return st
			}
			stA := open()
			a := servicetest.NewOn(t, stA, service.Config{})
			b := a
			if d == store.Postgres {
				b = servicetest.NewOn(t, open(), service.Config{})
			}
			owner := servicetest.NewOwner(t, a)

			live, err := b.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{Types: []string{"api_key.created"}}, "")
			if err != nil {
				t.Fatal(err)
			}
			var recorded []domain.Event
			err = stA.Tx(ctx, func(tx *store.Tx) error {
				rs := make([]service.EventRecord, 250) // more than one notification's worth of ids
				for i := range rs {
					rs[i] = service.EventRecord{WorkspaceID: owner.Workspace.ID, Type: "api_key.created", Data: map[string]int{"n": i}}
				}
				recorded, err = a.RecordAll(ctx, tx, rs)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range recorded {
				got := next(t, live.C)
				var data struct{ N int }
				if err := json.Unmarshal(got.Data, &data); err != nil || got.ID != want.ID || data.N != i || got.WorkspaceID != owner.Workspace.ID {
					t.Fatalf("event %d: got %s %s (%v), want %s n=%d", i, got.ID, got.Data, err, want.ID, i)
				}
			}
			if err := stA.Tx(ctx, func(tx *store.Tx) error {
				_, err := a.Record(ctx, tx, owner.Workspace.ID, "api_key.created", nil, map[string]int{"n": -1})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if got := next(t, live.C); !strings.Contains(string(got.Data), `"n":-1`) {
				t.Fatalf("single event: %s", got.Data)
			}
		})
	}
}

// A subscription's instance filter must name an instance of the workspace: an unknown one,
// or another workspace's, is refused rather than streaming nothing.
func TestSubscribeInstanceFilterMustExist(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			svc, st := servicetest.New(t, d, service.Config{})
			owner := servicetest.NewOwner(t, svc)
			other := servicetest.NewOwner(t, svc)
			addInstance(t, st, owner.Workspace.ID, "inst_01jc0000000000000000000001")
			addInstance(t, st, other.Workspace.ID, "inst_01jc0000000000000000000002")

			for _, inst := range []string{"inst_01jc0000000000000000000002", "inst_01jc0000000000000000000009", "garbage"} {
				_, err := svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{InstanceID: inst}, "")
				if de, ok := err.(*domain.Error); !ok || de.Code != domain.CodeInvalid || de.Param != "instance_id" {
					t.Errorf("instance %s: %v", inst, err)
				}
			}
			if _, err := svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{InstanceID: "inst_01jc0000000000000000000001"}, ""); err != nil {
				t.Errorf("own instance: %v", err)
			}
		})
	}
}
