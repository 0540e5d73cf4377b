package webhook

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// A delivery is signed per Standard Webhooks: the reference library verifies it, the
// webhook-id is the event id, and the body is the event envelope of the events API.
func TestDeliverySignedAndVerifiable(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			h := newHarness(t, d, opts{})
			bigBody := strings.Repeat("x", 3000)
			rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write([]byte("ok\x00\xff" + bigBody))
			})
			hook, secret := h.hook(rc.URL+"/hooks?team=1", domain.EventAPIKeyCreated)
			h.start()

			e := h.emit("", map[string]any{"hello": "world"}, nil)
			waitFor(t, "the delivery", func() bool { return rc.count() == 1 })
			got := rc.get(0)
			if err := verify(t, secret, got, true); err != nil {
				t.Fatalf("reference verifier rejects the delivery: %v", err)
			}
			if got.Header.Get("webhook-id") != e.ID {
				t.Fatalf("webhook-id %q, want the event id %s", got.Header.Get("webhook-id"), e.ID)
			}
			if ts := got.Header.Get("webhook-timestamp"); ts != strconv.FormatInt(h.clock.Now().Unix(), 10) {
				t.Fatalf("webhook-timestamp %s", ts)
			}
			if got.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("content type %q", got.Header.Get("Content-Type"))
			}
			stored, err := h.svc.Events.Get(context.Background(), h.owner.Actor, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			envelope, _ := stored.MarshalJSON()
			if !bytes.Equal(got.Body, envelope) {
				t.Fatalf("body\n%s\nwant the envelope\n%s", got.Body, envelope)
			}
			// A wrong secret does not verify.
			if err := verify(t, "whsec_"+strings.Repeat("A", 44), got, false); err == nil {
				t.Fatal("a wrong secret verified")
			}

			var del domain.Delivery
			waitFor(t, "the attempt to be recorded", func() bool {
				ds := h.deliveries(hook.ID)
				if len(ds) == 1 && ds[0].Status == domain.DeliverySucceeded {
					del = ds[0]
					return true
				}
				return false
			})
			if del.EventID != e.ID || del.EventType != e.Type || del.NextAttemptAt != nil || len(del.Attempts) != 1 {
				t.Fatalf("delivery %+v", del)
			}
			a := del.Attempts[0]
			if a.StatusCode != 200 || a.Error != "" || !a.AttemptedAt.Equal(h.clock.Now()) || a.LatencyMS < 0 {
				t.Fatalf("attempt %+v", a)
			}
			if len(a.ResponseBody) > domain.WebhookResponseBodyLimit+8 || !strings.HasPrefix(a.ResponseBody, "ok\uFFFD") {
				t.Fatalf("stored response body (%d bytes) %q", len(a.ResponseBody), a.ResponseBody[:20])
			}
		})
	}
}

// After a rotation both secrets sign for 24 hours; then only the new one.
func TestRotationSignsWithBothSecrets(t *testing.T) {
	h := newHarness(t, store.SQLite, opts{})
	rc := newReceiver(t, status(204))
	hook, oldSecret := h.hook(rc.URL, domain.EventAPIKeyCreated)
	h.start()
	_, newSecret, until, err := h.svc.Webhooks.RotateSecret(context.Background(), h.owner.Actor, hook.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := rc.count()
	h.emit("", map[string]int{"n": 1}, nil)
	waitFor(t, "a delivery", func() bool { return rc.count() > n })
	got := rc.all()[rc.count()-1]
	if sigs := strings.Fields(got.Header.Get("webhook-signature")); len(sigs) != 2 {
		t.Fatalf("signatures during the overlap: %q", got.Header.Get("webhook-signature"))
	}
	for _, s := range []string{oldSecret, newSecret} {
		if err := verify(t, s, got, true); err != nil {
			t.Fatalf("a receiver with either secret must verify during the overlap: %v", err)
		}
	}

	h.clock.Advance(until.Sub(h.clock.Now()) + time.Second)
	n = rc.count()
	h.emit("", map[string]int{"n": 2}, nil)
	waitFor(t, "a delivery", func() bool { return rc.count() > n })
	got = rc.all()[rc.count()-1]
	if sigs := strings.Fields(got.Header.Get("webhook-signature")); len(sigs) != 1 {
		t.Fatalf("signatures after the overlap: %q", got.Header.Get("webhook-signature"))
	}
	if verify(t, newSecret, got, false) != nil || verify(t, oldSecret, got, false) == nil {
		t.Fatal("after the overlap only the new secret may verify")
	}
}

// Every secret a rotation replaced keeps signing until its own expiry, 24 hours after the
// rotation that replaced it: rotating again an hour later does not cut the first one off. A
// delivery carries one signature per live secret, and a receiver holding any of them
// verifies it with the reference library.
func TestEachReplacedSecretSignsUntilItsOwnExpiry(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			h := newHarness(t, d, opts{})
			rc := newReceiver(t, status(204))
			hook, s1 := h.hook(rc.URL, domain.EventAPIKeyCreated)
			h.start()
			_, s2, s1Until, err := h.svc.Webhooks.RotateSecret(ctx, h.owner.Actor, hook.ID)
			if err != nil {
				t.Fatal(err)
			}
			h.clock.Advance(time.Hour)
			_, s3, s2Until, err := h.svc.Webhooks.RotateSecret(ctx, h.owner.Actor, hook.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !s2Until.Equal(h.clock.Now().Add(24*time.Hour)) || !s1Until.Before(s2Until) {
				t.Fatalf("previous_secret_expires_at %v then %v", s1Until, s2Until)
			}
			// deliver sends an event and checks that exactly the secrets valid verify it.
			deliver := func(when string, valid, invalid []string) {
				t.Helper()
				n := rc.count()
				h.emit("", map[string]string{"when": when}, nil)
				waitFor(t, "the delivery "+when, func() bool { return rc.count() > n })
				got := rc.get(rc.count() - 1)
				if sigs := strings.Fields(got.Header.Get("webhook-signature")); len(sigs) != len(valid) {
					t.Fatalf("%s: %d signatures (%q), want one per live secret: %d", when, len(sigs), sigs, len(valid))
				}
				for i, s := range valid {
					// The fake clock runs ahead of the receiver's: timestamps are not checked.
					if err := verify(t, s, got, false); err != nil {
						t.Fatalf("%s: live secret %d does not verify: %v", when, i, err)
					}
				}
				for i, s := range invalid {
					if verify(t, s, got, false) == nil {
						t.Fatalf("%s: expired secret %d still verifies", when, i)
					}
				}
			}
			deliver("after two rotations", []string{s1, s2, s3}, nil)

			h.clock.Advance(s1Until.Sub(h.clock.Now()) - time.Second)
			deliver("a second before the first secret expires", []string{s1, s2, s3}, nil)
			h.clock.Advance(time.Second)
			deliver("once the first secret expired", []string{s2, s3}, []string{s1})
			h.clock.Advance(s2Until.Sub(h.clock.Now()) - time.Second)
			deliver("a second before the second secret expires", []string{s2, s3}, []string{s1})
			h.clock.Advance(time.Second)
			deliver("once the second secret expired", []string{s3}, []string{s1, s2})
		})
	}
}

// Every failure is retried on the schedule — 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h —
// then the delivery fails. The test moves the clock; it never sleeps for the schedule.
func TestRetrySchedule(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			h := newHarness(t, d, opts{})
			rc := newReceiver(t, status(500))
			hook, _ := h.hook(rc.URL, domain.EventAPIKeyCreated)
			h.emit("", nil, nil)
			delID := h.deliveries(hook.ID)[0].ID

			wantDelays := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
			for i := 0; i <= len(wantDelays); i++ {
				// Not due a moment early.
				if i > 0 {
					h.clock.Advance(wantDelays[i-1] - time.Millisecond)
					h.dispatchNow()
					if h.disp.InFlight() != 0 || rc.count() != i {
						t.Fatalf("attempt %d sent before it was due", i+1)
					}
					h.clock.Advance(time.Millisecond)
				}
				h.dispatchNow()
				waitFor(t, "attempt "+strconv.Itoa(i+1), func() bool { return len(h.delivery(hook.ID, delID).Attempts) == i+1 })
				// The engine lets go of the job just after the attempt's record commits: wait for
				// that, or the "not due early" check below could see this attempt still in flight.
				waitFor(t, "attempt "+strconv.Itoa(i+1)+" settled", func() bool { return h.disp.InFlight() == 0 })
				del := h.delivery(hook.ID, delID)
				if i < len(wantDelays) {
					if del.Status != domain.DeliveryPending || del.NextAttemptAt == nil || !del.NextAttemptAt.Equal(h.clock.Now().Add(wantDelays[i])) {
						t.Fatalf("after attempt %d: %s next %v, want pending at +%s", i+1, del.Status, del.NextAttemptAt, wantDelays[i])
					}
				} else if del.Status != domain.DeliveryFailed || del.NextAttemptAt != nil {
					t.Fatalf("after the last attempt: %s %v", del.Status, del.NextAttemptAt)
				}
				if a := del.Attempts[i]; a.StatusCode != 500 || a.Error == "" {
					t.Fatalf("attempt %d recorded as %+v", i+1, a)
				}
			}
			if rc.count() != 8 {
				t.Fatalf("%d requests, want 8", rc.count())
			}
			if w := h.webhook(hook.ID); !w.Enabled {
				t.Fatal("27 hours of failures must not disable the endpoint")
			}
			// A manual retry of the failed delivery is one more attempt, now.
			if _, err := h.svc.Webhooks.Retry(context.Background(), h.owner.Actor, hook.ID, delID); err != nil {
				t.Fatal(err)
			}
			h.dispatchNow()
			waitFor(t, "the manual retry", func() bool { return len(h.delivery(hook.ID, delID).Attempts) == 9 })
			if del := h.delivery(hook.ID, delID); del.Status != domain.DeliveryFailed {
				t.Fatalf("after a failed manual retry: %s", del.Status)
			}
		})
	}
}

// The job engine spaces attempts by this schedule (its jitter is tested in the jobs package).
func TestBackoffFollowsSchedule(t *testing.T) {
	for n := 1; n < len(domain.WebhookRetrySchedule); n++ {
		if d, ok := Backoff(n); !ok || d != domain.WebhookRetrySchedule[n] {
			t.Errorf("after attempt %d: %s %v, want %s", n, d, ok, domain.WebhookRetrySchedule[n])
		}
	}
	if _, ok := Backoff(len(domain.WebhookRetrySchedule)); ok {
		t.Error("a ninth attempt was scheduled")
	}
}

// 429 and 503 honour Retry-After (seconds or an HTTP date).
func TestRetryAfterHonoured(t *testing.T) {
	h := newHarness(t, store.SQLite, opts{})
	var date string
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			w.Header().Set("Retry-After", date)
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.WriteHeader(http.StatusOK)
		}
	})
	hook, _ := h.hook(rc.URL, domain.EventAPIKeyCreated)
	h.emit("", nil, nil)
	id := h.deliveries(hook.ID)[0].ID
	h.dispatchNow()
	waitFor(t, "attempt 1", func() bool { return len(h.delivery(hook.ID, id).Attempts) == 1 })
	if next := h.delivery(hook.ID, id).NextAttemptAt; !next.Equal(h.clock.Now().Add(120 * time.Second)) {
		t.Fatalf("after 503 Retry-After: 120, next attempt at %v (now %v)", next, h.clock.Now())
	}
	h.clock.Advance(120 * time.Second)
	date = h.clock.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	h.dispatchNow()
	waitFor(t, "attempt 2", func() bool { return len(h.delivery(hook.ID, id).Attempts) == 2 })
	if next := h.delivery(hook.ID, id).NextAttemptAt; next.Sub(h.clock.Now()) < 59*time.Minute {
		t.Fatalf("after 429 with a date an hour ahead, next attempt in %v", next.Sub(h.clock.Now()))
	}
}

// 410 Gone disables the endpoint (webhook.disabled) and fails what was still queued for it.
func TestGoneDisablesEndpoint(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			h := newHarness(t, d, opts{})
			rc := newReceiver(t, status(http.StatusGone))
			hook, _ := h.hook(rc.URL, domain.EventAPIKeyCreated)
			h.emit("", nil, nil)
			h.dispatchNow()
			waitFor(t, "the endpoint to be disabled", func() bool { return !h.webhook(hook.ID).Enabled })
			w := h.webhook(hook.ID)
			if w.DisabledReason != domain.WebhookDisabledGone {
				t.Fatalf("disabled reason %q", w.DisabledReason)
			}
			if del := h.deliveries(hook.ID)[0]; del.Status != domain.DeliveryFailed || del.Attempts[0].StatusCode != 410 {
				t.Fatalf("delivery %+v", del)
			}
			evs, _ := h.svc.Events.List(context.Background(), h.owner.Actor, domain.EventFilter{Types: []string{domain.EventWebhookDisabled}}, domain.ListParams{})
			if len(evs.Data) != 1 || !strings.Contains(string(evs.Data[0].Data), hook.ID) {
				t.Fatalf("webhook.disabled events: %+v", evs.Data)
			}
			// A disabled endpoint gets nothing new.
			h.emit("", nil, nil)
			if n := len(h.deliveries(hook.ID)); n != 1 {
				t.Fatalf("%d deliveries for a disabled endpoint", n)
			}
		})
	}
}

// An endpoint failing for 5 days without one success is disabled; a success resets the count.
func TestFailingFiveDaysDisables(t *testing.T) {
	h := newHarness(t, store.SQLite, opts{})
	var mu sync.Mutex
	code := 500
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		mu.Lock()
		defer mu.Unlock()
		w.WriteHeader(code)
	})
	setCode := func(c int) { mu.Lock(); code = c; mu.Unlock() }
	hook, _ := h.hook(rc.URL, domain.EventAPIKeyCreated)
	attempt := func() {
		t.Helper()
		n := rc.count()
		h.emit("", nil, nil)
		h.dispatchNow()
		waitFor(t, "an attempt", func() bool { return rc.count() > n && h.disp.InFlight() == 0 })
	}
	attempt() // fails at T0
	h.clock.Advance(3 * 24 * time.Hour)
	setCode(200)
	attempt() // succeeds at T0+3d: no longer failing
	setCode(500)
	h.clock.Advance(time.Hour)
	attempt() // failing since T0+3d+1h
	if w := h.webhook(hook.ID); !w.Enabled || w.FailingSince == nil || !w.FailingSince.Equal(h.clock.Now()) {
		t.Fatalf("after a success and a failure: %+v", w)
	}
	h.clock.Advance(domain.WebhookDisableAfter - time.Minute)
	attempt()
	if !h.webhook(hook.ID).Enabled {
		t.Fatal("disabled before 5 days of failure")
	}
	h.clock.Advance(time.Minute)
	attempt()
	w := h.webhook(hook.ID)
	if w.Enabled || w.DisabledReason != domain.WebhookDisabledFailing {
		t.Fatalf("after 5 days of failure: enabled=%v reason=%q", w.Enabled, w.DisabledReason)
	}
	evs, _ := h.svc.Events.List(context.Background(), h.owner.Actor, domain.EventFilter{Types: []string{domain.EventWebhookDisabled}}, domain.ListParams{})
	if len(evs.Data) != 1 {
		t.Fatalf("%d webhook.disabled events", len(evs.Data))
	}
	// Enabling it again starts afresh.
	w, err := h.svc.Webhooks.Update(context.Background(), h.owner.Actor, hook.ID, service.UpdateWebhookInput{Enabled: ptr(true)})
	if err != nil || !w.Enabled || w.FailingSince != nil || w.DisabledReason != "" {
		t.Fatalf("re-enabled: %v %+v", err, w)
	}
}

// A 3xx is an answer, not a detour: redirects are never followed.
func TestRedirectsNotFollowed(t *testing.T) {
	h := newHarness(t, store.SQLite, opts{})
	elsewhere := newReceiver(t, status(200))
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		http.Redirect(w, r, elsewhere.URL, http.StatusTemporaryRedirect)
	})
	hook, _ := h.hook(rc.URL, domain.EventAPIKeyCreated)
	h.emit("", nil, nil)
	h.dispatchNow()
	waitFor(t, "the attempt", func() bool { return len(h.deliveries(hook.ID)[0].Attempts) == 1 })
	del := h.deliveries(hook.ID)[0]
	if del.Status != domain.DeliveryPending || del.Attempts[0].StatusCode != 307 || !strings.Contains(del.Attempts[0].Error, "redirect") {
		t.Fatalf("after a redirect: %+v", del)
	}
	if elsewhere.count() != 0 {
		t.Fatal("the redirect was followed")
	}
}

// An endpoint that does not answer in time is a failed attempt, retried later.
func TestTimeout(t *testing.T) {
	h := newHarness(t, store.SQLite, opts{Timeout: 200 * time.Millisecond})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	hook, _ := h.hook(rc.URL, domain.EventAPIKeyCreated)
	h.emit("", nil, nil)
	h.dispatchNow()
	waitFor(t, "the attempt", func() bool { return len(h.deliveries(hook.ID)[0].Attempts) == 1 })
	del := h.deliveries(hook.ID)[0]
	if a := del.Attempts[0]; a.StatusCode != 0 || !strings.Contains(a.Error, "timeout") || del.Status != domain.DeliveryPending {
		t.Fatalf("after a timeout: %+v", del)
	}
}

// A hanging endpoint holds at most PerEndpoint workers; a healthy endpoint's deliveries all
// complete while the hanging ones are still stuck.
func TestHangingEndpointDoesNotDelayOthers(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			h := newHarness(t, d, opts{Workers: 4, PerEndpoint: 2, Timeout: time.Minute})
			release := make(chan struct{})
			var hangingDone sync.WaitGroup
			hanging := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
				hangingDone.Add(1)
				defer hangingDone.Done()
				select {
				case <-release:
				case <-r.Context().Done():
				}
			})
			t.Cleanup(func() { close(release) })
			healthy := newReceiver(t, status(200))
			// The hanging endpoint is registered first, so its deliveries are due first.
			hangHook, _ := h.hook(hanging.URL, domain.EventAPIKeyCreated)
			okHook, _ := h.hook(healthy.URL, domain.EventAPIKeyCreated)
			h.start()

			const n = 20
			for i := range n {
				h.emit("", map[string]int{"i": i}, nil)
			}
			waitFor(t, "every healthy delivery", func() bool { return healthy.count() == n })
			if got := hanging.count(); got > 2 {
				t.Fatalf("the hanging endpoint holds %d requests, want at most PerEndpoint=2", got)
			}
			waitFor(t, "healthy deliveries recorded", func() bool {
				for _, del := range h.deliveries(okHook.ID) {
					if del.Status != domain.DeliverySucceeded {
						return false
					}
				}
				return true
			})
			for _, del := range h.deliveries(hangHook.ID) {
				if len(del.Attempts) != 0 {
					t.Fatalf("a hanging delivery completed first: %+v", del)
				}
			}
		})
	}
}

// One workspace's many hanging endpoints hold at most PerWorkspace workers together: another
// workspace's deliveries all complete meanwhile (with PerEndpoint alone, three hanging
// endpoints would hold every worker).
func TestOneWorkspaceCannotHoldEveryWorker(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			h := newHarness(t, d, opts{Workers: 6, PerEndpoint: 2, PerWorkspace: 3, Timeout: time.Minute})
			release := make(chan struct{})
			hanging := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
				select {
				case <-release:
				case <-r.Context().Done():
				}
			})
			t.Cleanup(func() { close(release) })
			for range 3 {
				h.hook(hanging.URL, domain.EventAPIKeyCreated)
			}
			other := servicetest.NewOwner(t, h.svc)
			healthy := newReceiver(t, status(200))
			if _, _, err := h.svc.Webhooks.Create(context.Background(), other.Actor, service.CreateWebhookInput{URL: healthy.URL,
				EventTypes: []string{domain.EventAPIKeyCreated}}); err != nil {
				t.Fatal(err)
			}
			for i := range 5 { // the hanging workspace's deliveries are due first
				h.emit("", map[string]int{"i": i}, nil)
			}
			h.start()
			waitFor(t, "the hanging workspace's attempts", func() bool { return hanging.count() >= 3 })
			const n = 10
			for i := range n {
				if err := h.st.Tx(context.Background(), func(tx *store.Tx) error {
					_, err := h.svc.Record(context.Background(), tx, other.Workspace.ID, domain.EventAPIKeyCreated, nil, map[string]int{"i": i})
					return err
				}); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, "every delivery of the other workspace", func() bool { return healthy.count() == n })
			if got := hanging.count(); got != 3 {
				t.Fatalf("the hanging workspace holds %d requests, want PerWorkspace=3", got)
			}
		})
	}
}

// Endpoints get what they subscribe to: types, "*" and the instance filter.
func TestSubscriptionFilters(t *testing.T) {
	h := newHarness(t, store.SQLite, opts{})
	rc := newReceiver(t, status(200))
	keys, _ := h.hook(rc.URL, domain.EventAPIKeyRevoked)
	all, _ := h.hook(rc.URL)
	inst := "inst_01jc0000000000000000000001"
	h.addInstance(inst)
	w, _, err := h.svc.Webhooks.Create(context.Background(), h.owner.Actor, service.CreateWebhookInput{URL: rc.URL,
		EventTypes: []string{"*"}, InstanceID: &inst})
	if err != nil {
		t.Fatal(err)
	}
	h.emit(domain.EventAPIKeyCreated, nil, nil)
	h.emit(domain.EventAPIKeyRevoked, nil, nil)
	h.emit(domain.EventAPIKeyCreated, nil, &inst)
	other := "inst_01jc0000000000000000000002"
	h.emit(domain.EventAPIKeyCreated, nil, &other)
	count := func(id string) int { return len(h.deliveries(id)) }
	if count(keys.ID) != 1 || count(w.ID) != 1 {
		t.Fatalf("typed endpoint got %d, instance endpoint got %d; want 1 and 1", count(keys.ID), count(w.ID))
	}
	if n := count(all.ID); n < 4 {
		t.Fatalf("the * endpoint got %d deliveries", n)
	}
}

// POST /webhooks/{id}/test reaches that endpoint only, signed like any delivery.
func TestTestDelivery(t *testing.T) {
	h := newHarness(t, store.SQLite, opts{})
	target := newReceiver(t, status(200))
	bystander := newReceiver(t, status(200))
	hook, secret := h.hook(target.URL, domain.EventAPIKeyCreated)
	h.hook(bystander.URL) // "*": its own webhook.created comes first
	h.start()
	waitFor(t, "the bystander's own creation event", func() bool { return bystander.count() == 1 })
	n := bystander.count()
	del, err := h.svc.Webhooks.Test(context.Background(), h.owner.Actor, hook.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the test delivery", func() bool { return target.count() == 1 })
	got := target.get(0)
	if err := verify(t, secret, got, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got.Body), `"type":"webhook.test"`) || got.Header.Get("webhook-id") != del.EventID {
		t.Fatalf("test delivery %s", got.Body)
	}
	waitFor(t, "success recorded", func() bool { return h.delivery(hook.ID, del.ID).Status == domain.DeliverySucceeded })
	if bystander.count() != n {
		t.Fatal("another endpoint received the test event")
	}
}

// Events over 256 KB are refused where they are recorded, with nothing stored.
func TestOversizedEventRefused(t *testing.T) {
	h := newHarness(t, store.SQLite, opts{})
	rc := newReceiver(t, status(200))
	h.hook(rc.URL)
	_, err := h.tryEmit("", map[string]string{"blob": strings.Repeat("a", domain.MaxEventPayload)}, nil)
	if e := domain.ErrorOf(err); e == nil || e.Reason != "event_too_large" {
		t.Fatalf("oversized event: %v", err)
	}
	evs, _ := h.svc.Events.List(context.Background(), h.owner.Actor, domain.EventFilter{Types: []string{domain.EventAPIKeyCreated}}, domain.ListParams{})
	if len(evs.Data) != 0 {
		t.Fatal("the oversized event was stored")
	}
	if _, err := h.tryEmit("", map[string]string{"blob": strings.Repeat("a", domain.MaxEventPayload-1024)}, nil); err != nil {
		t.Fatalf("an event just under the limit: %v", err)
	}
}

// A delivery whose lease expired (its worker died) is claimed again; one that is leased is not.
func TestExpiredLeaseReclaimed(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			h := newHarness(t, d, opts{LeaseDuration: 30 * time.Second})
			rc := newReceiver(t, status(200))
			hook, _ := h.hook(rc.URL, domain.EventAPIKeyCreated)
			h.emit("", nil, nil)
			// A worker elsewhere claims it and dies.
			now := h.clock.Now()
			dead, _, err := h.st.ClaimJobs(context.Background(), store.ClaimJobsParams{Kind: domain.JobWebhookDelivery, Now: now,
				LeaseUntil: now.Add(30 * time.Second), Token: "dead-replica/1", Limit: 10})
			if err != nil || len(dead) != 1 {
				t.Fatalf("claim: %v %d", err, len(dead))
			}
			h.dispatchNow()
			if h.disp.InFlight() != 0 {
				t.Fatal("a leased delivery was claimed again")
			}
			h.clock.Advance(30*time.Second - time.Millisecond)
			h.dispatchNow()
			if h.disp.InFlight() != 0 {
				t.Fatal("claimed before the lease expired")
			}
			h.clock.Advance(time.Millisecond)
			h.dispatchNow()
			waitFor(t, "the reclaimed delivery", func() bool { return h.deliveries(hook.ID)[0].Status == domain.DeliverySucceeded })
			if rc.count() != 1 || len(h.deliveries(hook.ID)[0].Attempts) != 1 {
				t.Fatalf("%d requests", rc.count())
			}
			// The dead worker's late report changes nothing.
			err = h.st.Tx(context.Background(), func(tx *store.Tx) error {
				owned, err := tx.OwnedJobs(context.Background(), []store.JobLease{{ID: dead[0].ID, Token: dead[0].Token}})
				if owned[dead[0].ID] {
					t.Error("a lost lease is still held")
				}
				return err
			})
			if err != nil || h.deliveries(hook.ID)[0].Status != domain.DeliverySucceeded {
				t.Fatalf("after the late report: %v %+v", err, h.deliveries(hook.ID)[0])
			}
		})
	}
}

// While an attempt is in flight its worker renews the lease, so another worker never takes
// the delivery over, however long the endpoint takes (no concurrent double send).
func TestLeaseRenewedWhileInFlight(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			h := newHarness(t, d, opts{LeaseDuration: 300 * time.Millisecond, Timeout: time.Minute})
			other := h.replica(opts{LeaseDuration: 300 * time.Millisecond, Timeout: time.Minute})
			release := make(chan struct{})
			rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					<-release
				}
			})
			hook, _ := h.hook(rc.URL, domain.EventAPIKeyCreated)
			h.emit("", nil, nil)
			h.start()
			waitFor(t, "the first request", func() bool { return rc.count() == 1 })
			// Well past the original lease; the holder is alive and keeps renewing.
			start := h.clock.Advance(10 * time.Second)
			id := h.deliveries(hook.ID)[0].ID
			waitFor(t, "a renewal", func() bool {
				j, err := h.st.Job(context.Background(), id)
				return err == nil && j.LockedUntil != nil && j.LockedUntil.After(start)
			})
			ctx := context.Background()
			other.dispatch(ctx, ctx)
			if other.InFlight() != 0 {
				t.Fatal("another worker took over a delivery whose holder is alive")
			}
			close(release)
			waitFor(t, "success", func() bool { return h.deliveries(hook.ID)[0].Status == domain.DeliverySucceeded })
			if rc.count() != 1 {
				t.Fatalf("%d requests, want 1", rc.count())
			}
		})
	}
}

// Two replicas on one database (in one process) deliver each event once.
func TestConcurrentReplicasDeliverOnce(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			h := newHarness(t, d, opts{Workers: 8})
			other := h.replica(opts{Workers: 8})
			a, b := newReceiver(t, status(200)), newReceiver(t, status(200))
			hookA, _ := h.hook(a.URL, domain.EventAPIKeyCreated)
			hookB, _ := h.hook(b.URL, domain.EventAPIKeyCreated)
			const n = 60
			for i := range n {
				h.emit("", map[string]int{"i": i}, nil)
			}
			h.start()
			if err := other.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			done := func(id string) bool {
				ds := h.deliveries(id)
				for _, d := range ds {
					if d.Status != domain.DeliverySucceeded {
						return false
					}
				}
				return len(ds) == n
			}
			waitFor(t, "every delivery", func() bool { return done(hookA.ID) && done(hookB.ID) })
			for name, rc := range map[string]*receiver{"A": a, "B": b} {
				seen := map[string]int{}
				for _, r := range rc.all() {
					seen[r.Header.Get("webhook-id")]++
				}
				if len(seen) != n || rc.count() != n {
					t.Fatalf("receiver %s: %d requests for %d distinct events, want %d each once", name, rc.count(), len(seen), n)
				}
			}
		})
	}
}

// Without the allow-list, a loopback endpoint (say, a name that resolved to 127.0.0.1 after
// it was registered) is refused when dialed, and the attempt says why.
func TestSSRFRefusedAtDialTime(t *testing.T) {
	h := newHarness(t, store.SQLite, opts{AllowList: []string{}})
	rc := newReceiver(t, status(200))
	// Registration allowed it (the harness admits 127.0.0.1), but the sender may not dial it.
	hook, _ := h.hook(rc.URL, domain.EventAPIKeyCreated)
	h.emit("", nil, nil)
	h.dispatchNow()
	waitFor(t, "the attempt", func() bool { return len(h.deliveries(hook.ID)[0].Attempts) == 1 })
	a := h.deliveries(hook.ID)[0].Attempts[0]
	if rc.count() != 0 || a.StatusCode != 0 || !strings.Contains(a.Error, "non-public address") {
		t.Fatalf("attempt to loopback without the allow-list: %+v (receiver got %d)", a, rc.count())
	}
}

// Close lets attempts in flight finish for a grace period, then aborts them and hands their
// deliveries back at once (no waiting for the lease), without recording a failed attempt.
func TestCloseHandsBackInFlightDeliveries(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			h := newHarness(t, d, opts{LeaseDuration: time.Hour, Timeout: time.Minute, ShutdownGrace: 50 * time.Millisecond})
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					select {
					case <-release:
					case <-r.Context().Done():
					}
				}
			})
			hook, _ := h.hook(rc.URL, domain.EventAPIKeyCreated)
			h.emit("", nil, nil)
			h.start()
			waitFor(t, "the first request", func() bool { return rc.count() == 1 })
			h.disp.Close()
			del := h.deliveries(hook.ID)[0]
			if del.Status != domain.DeliveryPending || len(del.Attempts) != 0 {
				t.Fatalf("after shutdown: %+v", del)
			}
			next := h.replica(opts{})
			next.dispatch(context.Background(), context.Background())
			waitFor(t, "the next process to deliver it", func() bool { return h.deliveries(hook.ID)[0].Status == domain.DeliverySucceeded })
		})
	}
}

// A delivery being attempted right now cannot be retried (409 delivery_in_progress); once
// its attempt is recorded it can, and the retry is one more attempt.
func TestRetryWhileInFlightConflicts(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			h := newHarness(t, d, opts{Timeout: time.Minute})
			release := make(chan struct{})
			rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					<-release
				}
			})
			hook, _ := h.hook(rc.URL, domain.EventAPIKeyCreated)
			h.emit("", nil, nil)
			id := h.deliveries(hook.ID)[0].ID
			h.dispatchNow()
			waitFor(t, "the first request", func() bool { return rc.count() == 1 })
			_, err := h.svc.Webhooks.Retry(context.Background(), h.owner.Actor, hook.ID, id)
			if e := domain.ErrorOf(err); e == nil || e.Code != domain.CodeConflict || e.Reason != "delivery_in_progress" {
				t.Fatalf("retry while in flight: %v", err)
			}
			close(release)
			waitFor(t, "success", func() bool { return h.delivery(hook.ID, id).Status == domain.DeliverySucceeded })
			waitFor(t, "the worker to be free", func() bool { return h.disp.InFlight() == 0 })
			if _, err := h.svc.Webhooks.Retry(context.Background(), h.owner.Actor, hook.ID, id); err != nil {
				t.Fatal(err)
			}
			h.dispatchNow()
			waitFor(t, "the retried attempt", func() bool { return len(h.delivery(hook.ID, id).Attempts) == 2 })
			if got := h.delivery(hook.ID, id); got.Status != domain.DeliverySucceeded || rc.count() != 2 {
				t.Fatalf("after the retry: %+v, %d requests", got, rc.count())
			}
		})
	}
}

// An endpoint, or a workflow tool's subscription, deleted while an attempt to it is in
// flight took the delivery and its log with it: whatever the endpoint then answers, the
// attempt is not recorded, quietly (nothing logged above debug), and its job ends there (not
// retried), on both databases.
func TestDeletedWhileInFlightEndsQuietly(t *testing.T) {
	for _, d := range storetest.Dialects {
		for _, kind := range []string{domain.WebhookKindEndpoint, domain.WebhookKindSubscription} {
			for _, code := range []int{http.StatusOK, http.StatusInternalServerError, http.StatusGone} {
				t.Run(fmt.Sprintf("%s/%s/%d", d, kind, code), func(t *testing.T) {
					ctx := context.Background()
					logs := &logBuffer{}
					h := newHarness(t, d, opts{Timeout: time.Minute, Logger: logs.logger()})
					arrived, deleted := make(chan struct{}), make(chan struct{})
					var once sync.Once
					release := func() { once.Do(func() { close(deleted) }) }
					t.Cleanup(release)
					rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
						if n == 1 {
							close(arrived)
							select {
							case <-deleted:
							case <-r.Context().Done():
							}
						}
						w.WriteHeader(code)
					})
					var id string
					var remove func() error
					if kind == domain.WebhookKindEndpoint {
						hook, _ := h.hook(rc.URL, domain.EventAPIKeyCreated)
						id, remove = hook.ID, func() error { return h.svc.Webhooks.Delete(ctx, h.owner.Actor, hook.ID) }
					} else {
						sub := h.subscription(rc.URL, domain.EventAPIKeyCreated)
						id, remove = sub.ID, func() error { return h.svc.Subscriptions.Delete(ctx, h.owner.Actor, sub.ID) }
					}
					h.emit("", nil, nil)
					ds, err := h.st.Deliveries(ctx, h.owner.Workspace.ID, id, "", 10)
					if err != nil || len(ds) != 1 {
						t.Fatalf("deliveries: %v %d", err, len(ds))
					}
					h.dispatchNow()
					select {
					case <-arrived:
					case <-time.After(10 * time.Second):
						t.Fatal("the attempt never arrived")
					}
					if err := remove(); err != nil {
						t.Fatal(err)
					}
					release()
					waitFor(t, "the attempt to end", func() bool { return h.disp.InFlight() == 0 })

					if lines := logs.atLeast(t, slog.LevelInfo); len(lines) != 0 {
						t.Fatalf("logged:\n%s", strings.Join(lines, "\n"))
					}
					if j, err := h.st.Job(ctx, ds[0].ID); !domain.IsCode(err, domain.CodeNotFound) {
						t.Fatalf("the delivery's job is still there: %+v (%v)", j, err)
					}
					// Nothing is attempted again, however long one waits.
					h.clock.Advance(24 * time.Hour)
					h.dispatchNow()
					waitFor(t, "idle", func() bool { return h.disp.InFlight() == 0 })
					if n := rc.count(); n != 1 {
						t.Fatalf("%d requests, want 1", n)
					}
				})
			}
		}
	}
}
