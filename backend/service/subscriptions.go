package service

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Subscriptions are workflow tools' outbound subscriptions (the REST hooks pattern of Zapier,
// n8n and Make). A subscription is a webhook endpoint of kind subscription: the same SSRF
// rules on its target, the same signing (a whsec_ secret shown once), the same deliveries,
// retries and 5-day disabling. What differs: the tool creates and deletes it through the
// automation scopes, webhook endpoints' APIs never show it (nor these APIs an endpoint), a
// target answering 410 Gone unsubscribes it (it is deleted), and it has no settings to
// change (a tool deletes it and subscribes again).
type Subscriptions struct {
	s *Service
	w *Webhooks
}

var _ [MaxPageLimit - MaxSubscriptionsPerWorkspace]struct{} // fails to compile if the cap exceeds a page

// MaxSubscriptionsPerWorkspace bounds a workspace's subscriptions, apart from its webhook
// endpoints (a workflow tool makes one per workflow, and should not crowd out the endpoints
// a developer registers), so an event fans out to at most MaxWebhooksPerWorkspace +
// MaxSubscriptionsPerWorkspace targets. One page lists them all.
const MaxSubscriptionsPerWorkspace = 100

// CreateSubscriptionInput is a new subscription.
type CreateSubscriptionInput struct {
	TargetURL   string
	EventTypes  []string
	Description string
}

// Create subscribes TargetURL to the event types (or "*") and returns the subscription with
// its signing secret (whsec_...), shown this once. Zapier ignores it; n8n and Make users can
// verify deliveries with it.
func (sb *Subscriptions) Create(ctx context.Context, a Actor, in CreateSubscriptionInput) (domain.Subscription, string, error) {
	wsID, err := requireWorkspace(a, domain.ScopeAutomationWrite)
	if err != nil {
		return domain.Subscription{}, "", err
	}
	now := sb.s.cfg.Clock.Now()
	hook := domain.Webhook{ID: domain.NewID(domain.PrefixSubscript), WorkspaceID: wsID, Kind: domain.WebhookKindSubscription,
		Enabled: true, CreatedAt: now, UpdatedAt: now}
	if hook.URL, err = sb.w.validateURL("target_url", in.TargetURL); err != nil {
		return domain.Subscription{}, "", err
	}
	if hook.EventTypes, err = validateWebhookEventTypes(in.EventTypes); err != nil {
		return domain.Subscription{}, "", err
	}
	if hook.Description, err = validateDescription(in.Description); err != nil {
		return domain.Subscription{}, "", err
	}
	secret := newWebhookSecret()
	stored, err := sb.w.box.seal(secret)
	if err != nil {
		return domain.Subscription{}, "", domain.Internal(err)
	}
	sub := hook.Subscription()
	err = sb.s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.LockWorkspace(ctx, wsID); err != nil { // the count below stays true until commit
			return err
		}
		n, err := tx.CountWebhooks(ctx, wsID, domain.WebhookKindSubscription)
		if err != nil {
			return err
		}
		if n >= MaxSubscriptionsPerWorkspace {
			return &domain.Error{Code: domain.CodeInvalid, Reason: "subscription_limit_reached",
				Message: fmt.Sprintf("a workspace can have at most %d subscriptions; delete one first", MaxSubscriptionsPerWorkspace)}
		}
		if err := tx.CreateWebhook(ctx, hook, stored); err != nil {
			return err
		}
		if err := sb.w.changed(ctx, tx, wsID); err != nil {
			return err
		}
		_, err = sb.s.record(ctx, tx, wsID, domain.EventSubscriptionCreated, nil, sub.Object())
		return err
	})
	if err != nil {
		return domain.Subscription{}, "", err
	}
	return sub, secret, nil
}

// List returns the workspace's subscriptions, newest first.
func (sb *Subscriptions) List(ctx context.Context, a Actor, p domain.ListParams) (domain.Page[domain.Subscription], error) {
	wsID, err := requireWorkspace(a, domain.ScopeAutomationRead)
	if err != nil {
		return domain.Page[domain.Subscription]{}, err
	}
	limit, err := pageLimit(p)
	if err != nil {
		return domain.Page[domain.Subscription]{}, err
	}
	if err := CheckCursor(p.After, domain.PrefixSubscript); err != nil {
		return domain.Page[domain.Subscription]{}, err
	}
	rows, err := sb.s.store.Subscriptions(ctx, wsID, p.After, limit)
	if err != nil {
		return domain.Page[domain.Subscription]{}, err
	}
	return pageOf(rows, limit, func(s domain.Subscription) string { return s.ID }), nil
}

// Get returns one subscription of the workspace.
func (sb *Subscriptions) Get(ctx context.Context, a Actor, id string) (domain.Subscription, error) {
	wsID, err := requireWorkspace(a, domain.ScopeAutomationRead)
	if err != nil {
		return domain.Subscription{}, err
	}
	return sb.s.store.Subscription(ctx, wsID, id)
}

// Delete unsubscribes: the subscription goes with its delivery log, and what was queued for
// it is not sent.
func (sb *Subscriptions) Delete(ctx context.Context, a Actor, id string) error {
	return sb.s.Mutate(ctx, a, domain.ScopeAutomationWrite, func(c Change) error {
		// Held first, as Webhooks.Delete does: an attempt being recorded holds it too.
		sub, err := c.Tx.SubscriptionForUpdate(ctx, c.WorkspaceID, id)
		if err != nil {
			return err
		}
		return sb.delete(ctx, c.Tx, sub, domain.SubscriptionUnsubscribed, c.Now)
	})
}

// delete removes a subscription in tx and records automation.subscription_deleted with the
// reason (unsubscribed through the API, or its target answered 410 Gone).
func (sb *Subscriptions) delete(ctx context.Context, tx *store.Tx, sub domain.Subscription, reason string, now time.Time) error {
	if _, err := tx.CancelQueuedJobs(ctx, domain.JobWebhookDelivery, domain.WebhookConcurrencyKey(sub.ID)); err != nil {
		return err
	}
	if err := tx.DeleteWebhook(ctx, sub.WorkspaceID, sub.ID); err != nil {
		return err
	}
	if err := sb.w.changed(ctx, tx, sub.WorkspaceID); err != nil {
		return err
	}
	sub.UpdatedAt = now
	_, err := sb.s.record(ctx, tx, sub.WorkspaceID, domain.EventSubscriptionDeleted, nil,
		domain.SubscriptionDeleted{SubscriptionObject: sub.Object(), Reason: reason})
	return err
}

// subscriptionEventTypes is the subscriptions' table of event types.
var subscriptionEventTypes = []EventType{
	{domain.EventSubscriptionCreated, "A workflow tool subscribed to events (REST hooks).",
		func(now time.Time) any { return sampleSubscription(now, "").Object() }},
	{domain.EventSubscriptionDeleted, "A subscription was deleted: the tool unsubscribed (reason unsubscribed), or its target " +
		"answered 410 Gone (reason target_gone).",
		func(now time.Time) any {
			return domain.SubscriptionDeleted{SubscriptionObject: sampleSubscription(now, "").Object(),
				Reason: domain.SubscriptionUnsubscribed}
		}},
	{domain.EventSubscriptionDisabled, "A subscription was disabled: its target failed for 5 days without a success. " +
		"It receives nothing more; delete it and subscribe again.",
		func(now time.Time) any { return sampleSubscription(now, domain.WebhookDisabledFailing).Object() }},
}

var _ = RegisterEventTypes(subscriptionEventTypes...)

func sampleSubscription(now time.Time, disabledReason string) domain.Subscription {
	return domain.Subscription{ID: "sub_01jc0000000000000000000000", WorkspaceID: "ws_01jc0000000000000000000000",
		TargetURL: "https://hooks.zapier.com/hooks/standard/1234567/abcdef0123456789/", Description: "Zap: new message",
		EventTypes: []string{"message.received"}, Enabled: disabledReason == "", DisabledReason: disabledReason,
		CreatedAt: now, UpdatedAt: now}
}
