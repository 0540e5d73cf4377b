package webhook

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

func (h *harness) subscription(url string, types ...string) domain.Subscription {
	h.t.Helper()
	sub, _, err := h.svc.Subscriptions.Create(context.Background(), h.owner.Actor,
		service.CreateSubscriptionInput{TargetURL: url, EventTypes: types})
	if err != nil {
		h.t.Fatal(err)
	}
	return sub
}

func (h *harness) events(typ string) []domain.Event {
	h.t.Helper()
	page, err := h.svc.Events.List(context.Background(), h.owner.Actor, domain.EventFilter{Types: []string{typ}}, domain.ListParams{})
	if err != nil {
		h.t.Fatal(err)
	}
	return page.Data
}

// A subscription whose target answers 410 Gone is deleted (the workflow tool unsubscribed),
// with automation.subscription_deleted saying so; a webhook endpoint answering 410 on the
// same batch is disabled, as before.
func TestGoneUnsubscribesSubscription(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			h := newHarness(t, d, opts{})
			rc := newReceiver(t, status(http.StatusGone))
			sub := h.subscription(rc.URL+"/zap", domain.EventAPIKeyCreated)
			hook, _ := h.hook(rc.URL+"/hook", domain.EventAPIKeyCreated)
			h.emit("", nil, nil)
			h.dispatchNow()
			waitFor(t, "both attempts", func() bool { return rc.count() == 2 && h.disp.InFlight() == 0 })
			waitFor(t, "the unsubscription", func() bool {
				_, err := h.svc.Subscriptions.Get(context.Background(), h.owner.Actor, sub.ID)
				return domain.IsCode(err, domain.CodeNotFound)
			})
			evs := h.events(domain.EventSubscriptionDeleted)
			if len(evs) != 1 {
				t.Fatalf("%d subscription_deleted events", len(evs))
			}
			var data domain.SubscriptionDeleted
			if err := json.Unmarshal(evs[0].Data, &data); err != nil || data.ID != sub.ID || data.Reason != domain.SubscriptionTargetGone {
				t.Fatalf("subscription_deleted data %s (%v)", evs[0].Data, err)
			}
			if w := h.webhook(hook.ID); w.Enabled || w.DisabledReason != domain.WebhookDisabledGone {
				t.Fatalf("the webhook endpoint: %+v", w)
			}
			// Nothing is queued for the deleted subscription any more.
			h.emit("", nil, nil)
			h.dispatchNow()
			waitFor(t, "idle", func() bool { return h.disp.InFlight() == 0 })
			if n := rc.count(); n != 2 {
				t.Fatalf("%d requests, want 2", n)
			}
		})
	}
}

// A subscription failing for 5 days is disabled, not deleted: it stays listed with its
// reason (automation.subscription_disabled) until the tool or a user deletes it.
func TestSubscriptionFailingFiveDaysIsDisabled(t *testing.T) {
	h := newHarness(t, store.SQLite, opts{})
	rc := newReceiver(t, status(http.StatusInternalServerError))
	sub := h.subscription(rc.URL, domain.EventAPIKeyCreated)
	attempt := func() {
		t.Helper()
		n := rc.count()
		h.emit("", nil, nil)
		h.dispatchNow()
		waitFor(t, "an attempt", func() bool { return rc.count() > n && h.disp.InFlight() == 0 })
	}
	attempt()
	h.clock.Advance(domain.WebhookDisableAfter)
	attempt()
	got, err := h.svc.Subscriptions.Get(context.Background(), h.owner.Actor, sub.ID)
	if err != nil || got.Enabled || got.DisabledReason != domain.WebhookDisabledFailing {
		t.Fatalf("after 5 days of failure: %+v (%v)", got, err)
	}
	evs := h.events(domain.EventSubscriptionDisabled)
	if len(evs) != 1 {
		t.Fatalf("%d subscription_disabled events", len(evs))
	}
	var data domain.SubscriptionObject
	if err := json.Unmarshal(evs[0].Data, &data); err != nil || data.ID != sub.ID || data.Enabled || data.DisabledReason == nil {
		t.Fatalf("subscription_disabled data %s (%v)", evs[0].Data, err)
	}
	if n := len(h.events(domain.EventWebhookDisabled)); n != 0 {
		t.Fatalf("%d webhook.disabled events for a subscription", n)
	}
	// A disabled subscription gets nothing new.
	h.clock.Advance(time.Minute)
	n := rc.count()
	h.emit("", nil, nil)
	h.dispatchNow()
	waitFor(t, "idle", func() bool { return h.disp.InFlight() == 0 })
	if rc.count() != n {
		t.Fatal("a disabled subscription received a delivery")
	}
}
