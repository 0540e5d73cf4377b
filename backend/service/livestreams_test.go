package service_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// lockedClock is a settable clock safe to read from a stream's goroutine.
type lockedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *lockedClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *lockedClock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// closed reports whether ch closes within 5 s, dropping what it still delivers.
func closed(ch <-chan domain.Event) bool {
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

// A workspace has at most MaxLiveStreamsPerWorkspace live streams at once; the next is
// refused with a stable reason, other workspaces are unaffected, and a stream that ends (or
// a subscribe that fails) gives its slot back.
func TestLiveStreamsPerWorkspaceAreCapped(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			svc, _ := servicetest.New(t, d, service.Config{})
			owner := servicetest.NewOwner(t, svc)
			other := servicetest.NewOwner(t, svc)

			// A refused subscribe (here a revoked key) takes no slot.
			key, secret := owner.NewKey(t, svc, domain.ScopeEventsRead)
			revokedActor, err := svc.Keys.Authenticate(ctx, secret)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Keys.Revoke(ctx, owner.Actor, key.ID); err != nil {
				t.Fatal(err)
			}
			for range service.MaxLiveStreamsPerWorkspace + 1 {
				if _, err := svc.Events.Subscribe(ctx, revokedActor, domain.EventFilter{}, ""); reason(err) != "credential_revoked" {
					t.Fatalf("subscribe with a revoked key: %v", err)
				}
			}

			cancels := make([]context.CancelFunc, service.MaxLiveStreamsPerWorkspace)
			streams := make([]*service.Stream, service.MaxLiveStreamsPerWorkspace)
			for i := range cancels {
				sctx, cancel := context.WithCancel(ctx)
				t.Cleanup(cancel)
				s, err := svc.Events.Subscribe(sctx, owner.Actor, domain.EventFilter{Types: []string{domain.EventAPIKeyCreated}}, "")
				if err != nil {
					t.Fatalf("stream %d: %v", i+1, err)
				}
				cancels[i], streams[i] = cancel, s
			}
			_, err = svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{}, "")
			if e := domain.ErrorOf(err); e == nil || e.Code != domain.CodeRateLimited || e.Reason != "live_stream_limit_reached" {
				t.Fatalf("stream %d: %v, want rate_limited live_stream_limit_reached", service.MaxLiveStreamsPerWorkspace+1, err)
			}
			// Another workspace has its own slots.
			if _, err := svc.Events.Subscribe(ctx, other.Actor, domain.EventFilter{}, ""); err != nil {
				t.Fatalf("another workspace: %v", err)
			}
			// The open streams still deliver.
			k, _ := owner.NewKey(t, svc, domain.ScopeEventsRead)
			for _, i := range []int{0, len(streams) - 1} {
				for e := next(t, streams[i].C); ; e = next(t, streams[i].C) {
					if strings.Contains(string(e.Data), k.ID) {
						break
					}
				}
			}

			// One ends: its slot is free again (released just after its channel closes).
			cancels[0]()
			if !closed(streams[0].C) {
				t.Fatal("a cancelled stream did not close")
			}
			deadline := time.Now().Add(5 * time.Second)
			for {
				_, err := svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{}, "")
				if err == nil {
					break
				}
				if reason(err) != "live_stream_limit_reached" || time.Now().After(deadline) {
					t.Fatalf("subscribe after a stream ended: %v", err)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// A key that expires ends its live stream then, as REST refuses it then; a connection
// authenticated before cannot open another.
func TestSubscriptionEndsWhenItsKeyExpires(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			svc, _ := servicetest.New(t, d, service.Config{})
			owner := servicetest.NewOwner(t, svc)
			expires := time.Now().Add(5 * time.Second) // room for the first event on a busy machine
			_, secret, err := svc.Keys.Create(ctx, owner.Actor, service.CreateKeyInput{Name: "short-lived",
				Scopes: []string{string(domain.ScopeEventsRead)}, ExpiresAt: &expires})
			if err != nil {
				t.Fatal(err)
			}
			keyActor, err := svc.Keys.Authenticate(ctx, secret)
			if err != nil {
				t.Fatal(err)
			}
			live, err := svc.Events.Subscribe(ctx, keyActor, domain.EventFilter{Types: []string{domain.EventAPIKeyRevoked}}, "")
			if err != nil {
				t.Fatal(err)
			}
			// Live until then.
			k, _ := owner.NewKey(t, svc, domain.ScopeEventsRead)
			if _, err := svc.Keys.Revoke(ctx, owner.Actor, k.ID); err != nil {
				t.Fatal(err)
			}
			if e := next(t, live.C); e.Type != domain.EventAPIKeyRevoked {
				t.Fatalf("got %s", e.Type)
			}
			if !closed(live.C) {
				t.Fatal("the expired key's stream is still open")
			}
			if time.Now().Before(expires) {
				t.Fatal("the stream ended before the key expired")
			}
			if e := domain.ErrorOf(live.Err()); e == nil || e.Code != domain.CodeUnauthenticated || e.Reason != "credential_expired" {
				t.Fatalf("ended with %v, want unauthenticated credential_expired", live.Err())
			}
			if _, err := svc.Events.Subscribe(ctx, keyActor, domain.EventFilter{}, ""); reason(err) != "credential_expired" {
				t.Fatalf("subscribe with the expired key: %v", err)
			}
		})
	}
}

// A console session's stream ends when the session expires. The stream checks again when
// the expiry it read comes: a session used meanwhile (its idle expiry moved on) keeps it.
func TestSubscriptionFollowsItsSessionExpiry(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			clock := &lockedClock{t: start}
			svc, st := servicetest.New(t, d, service.Config{Clock: clock, SessionIdle: 300 * time.Millisecond})
			owner := servicetest.NewOwner(t, svc)
			live, err := svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{Types: []string{domain.EventAPIKeyCreated}}, "")
			if err != nil {
				t.Fatal(err)
			}
			// Used elsewhere before its idle expiry: it now expires at start+500ms.
			clock.Advance(200 * time.Millisecond)
			if err := st.TouchSession(ctx, owner.Actor.SessionID, clock.Now()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(600 * time.Millisecond) // past the first expiry the stream read, in real time too
			owner.NewKey(t, svc, domain.ScopeEventsRead)
			if e := next(t, live.C); e.Type != domain.EventAPIKeyCreated {
				t.Fatalf("got %s", e.Type)
			}

			clock.Advance(400 * time.Millisecond) // start+600ms: idle too long
			if !closed(live.C) {
				t.Fatal("the expired session's stream is still open")
			}
			if reason(live.Err()) != "credential_expired" {
				t.Fatalf("ended with %v, want credential_expired", live.Err())
			}
			if _, err := svc.Events.Subscribe(ctx, owner.Actor, domain.EventFilter{}, ""); reason(err) != "credential_expired" {
				t.Fatalf("subscribe with the expired session: %v", err)
			}
		})
	}
}
