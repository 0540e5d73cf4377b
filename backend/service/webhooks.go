package service

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
)

var _ [MaxPageLimit - MaxWebhooksPerWorkspace]struct{} // fails to compile if the cap exceeds a page

// Webhooks manages webhook endpoints and their deliveries. Every recorded event enqueues one
// delivery per subscribed endpoint in its own transaction (a webhook.delivery job each);
// sending them is the webhook package's job handler, registered by the composition root.
type Webhooks struct {
	s      *Service
	box    secretBox
	policy *ssrf.Policy
	// enabled caches each workspace's enabled endpoints for fanning events out (a query
	// per event otherwise); every change to an endpoint invalidates it on every replica.
	enabled hookCache
}

// invalidateWebhooks drops a workspace's cached endpoints (argument: the workspace id).
const invalidateWebhooks = "webhooks"

// hookCache holds enabled endpoints per workspace. A load that raced with an invalidation
// is not kept (generation check), and entries expire, as a safety net, after hookCacheTTL.
type hookCache struct {
	mu  sync.Mutex
	gen map[string]uint64
	// epoch moves on purgeAll; a load's generation is gen[ws]+epoch, so either kind of
	// invalidation makes a racing load's result stale.
	epoch uint64
	m     map[string]hookEntry
}

type hookEntry struct {
	hooks []domain.Webhook
	gen   uint64
	at    time.Time
}

const hookCacheTTL = time.Minute

func (c *hookCache) get(ws string, now time.Time) ([]domain.Webhook, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[ws]
	if ok && e.gen == c.gen[ws]+c.epoch && now.Sub(e.at) < hookCacheTTL {
		return e.hooks, 0, true
	}
	return nil, c.gen[ws] + c.epoch, false
}

func (c *hookCache) put(ws string, gen uint64, hooks []domain.Webhook, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen[ws]+c.epoch != gen {
		return // invalidated while loading
	}
	if c.m == nil {
		c.m = map[string]hookEntry{}
	}
	c.m[ws] = hookEntry{hooks, gen, now}
}

func (c *hookCache) invalidate(ws string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == nil {
		c.gen = map[string]uint64{}
	}
	c.gen[ws]++
	delete(c.m, ws)
}

// purgeAll drops every workspace's endpoints (invalidations may have been missed).
func (c *hookCache) purgeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	clear(c.m)
}

// Input limits for webhook endpoints.
const (
	MaxWebhookURLLength         = 2048
	MaxWebhookDescriptionLength = 500
	MaxWebhookEventTypes        = 100
	// MaxWebhooksPerWorkspace bounds endpoints (every event fans out to each of them). It
	// is at most MaxPageLimit, so one page lists them all (checked below at compile time).
	MaxWebhooksPerWorkspace = 100
	// MaxPreviousWebhookSecrets bounds the replaced secrets that still sign (each for 24 h
	// after its rotation), so a delivery carries at most this many signatures plus one.
	MaxPreviousWebhookSecrets = 5
	webhookSecretPrefix       = "whsec_"
	webhookSecretBytes        = 32
)

func newWebhooks(s *Service) *Webhooks {
	w := &Webhooks{s: s, box: s.box, policy: s.cfg.TargetPolicy}
	if w.policy == nil {
		w.policy = ssrf.MustPolicy()
	}
	s.AddEventSink(w.enqueue)
	s.OnInvalidate(invalidateWebhooks, w.enabled.invalidate)
	s.OnResync(w.enabled.purgeAll)
	return w
}

// enabledHooks returns the workspace's enabled endpoints: from the cache, unless this
// transaction changed them (then as the transaction sees them).
func (w *Webhooks) enabledHooks(ctx context.Context, tx *store.Tx, e domain.Event) ([]domain.Webhook, error) {
	if tx.Marked(invalidateWebhooks + ":" + e.WorkspaceID) {
		return tx.EnabledWebhooks(ctx, e.WorkspaceID)
	}
	now := w.s.cfg.Clock.Now()
	hooks, gen, ok := w.enabled.get(e.WorkspaceID, now)
	if ok {
		return hooks, nil
	}
	// Read through the transaction, never the pool: with every pooled connection held by a
	// transaction waiting here, a read from the pool would wait for ever (all requests
	// recording events at once, the cache expiring under them).
	hooks, err := tx.EnabledWebhooks(ctx, e.WorkspaceID)
	if err != nil {
		return nil, err
	}
	w.enabled.put(e.WorkspaceID, gen, hooks, now)
	return hooks, nil
}

// changed invalidates the workspace's cached endpoints on every replica once tx commits; the
// rest of tx reads them itself.
func (w *Webhooks) changed(ctx context.Context, tx *store.Tx, workspaceID string) error {
	tx.Mark(invalidateWebhooks + ":" + workspaceID)
	return w.s.Invalidate(ctx, tx, invalidateWebhooks, workspaceID)
}

// enqueue is an event sink: in the transaction that records e, it queues one delivery per
// enabled endpoint of the workspace that subscribes to it.
func (w *Webhooks) enqueue(ctx context.Context, tx *store.Tx, e domain.Event) error {
	hooks, err := w.enabledHooks(ctx, tx, e)
	if err != nil {
		return err
	}
	now := w.s.cfg.Clock.Now()
	var ds []store.NewDelivery
	for _, h := range hooks {
		if h.Subscribed(e) {
			ds = append(ds, store.NewDelivery{ID: domain.NewID(domain.PrefixDelivery), WebhookID: h.ID,
				WorkspaceID: e.WorkspaceID, EventID: e.ID, EventType: e.Type,
				MaxAttempts: len(domain.WebhookRetrySchedule), DueAt: now, CreatedAt: now})
		}
	}
	return insertDeliveries(ctx, tx, now, ds...)
}

// insertDeliveries stores deliveries and their jobs (the job's id is the delivery's).
func insertDeliveries(ctx context.Context, tx *store.Tx, now time.Time, ds ...store.NewDelivery) error {
	if len(ds) == 0 {
		return nil
	}
	if err := tx.InsertDeliveries(ctx, ds); err != nil {
		return err
	}
	js := make([]jobs.NewJob, len(ds))
	for i, d := range ds {
		js[i] = deliveryJob(d.ID, d.WorkspaceID, d.WebhookID, d.DueAt, 0, d.MaxAttempts)
	}
	return jobs.Enqueue(ctx, tx, now, js...)
}

// deliveryJob is a delivery's job: limited per endpoint (its concurrency key) and per
// workspace (its group), so neither one slow endpoint nor one tenant's many can hold every
// worker.
func deliveryJob(id, workspaceID, webhookID string, due time.Time, attempts, maxAttempts int) jobs.NewJob {
	return jobs.NewJob{ID: id, Kind: domain.JobWebhookDelivery, Payload: "{}", RunAt: due, Attempts: attempts,
		MaxAttempts: maxAttempts, ConcurrencyKey: domain.WebhookConcurrencyKey(webhookID), GroupKey: workspaceID}
}

// Disable turns an endpoint off in tx because deliveries to it fail (reason says how),
// fails its queued deliveries and records webhook.disabled (automation.subscription_disabled
// for a subscription). A subscription whose target answered 410 Gone is deleted instead:
// the workflow tool has unsubscribed. An endpoint already disabled, or gone, is left as it
// is.
func (w *Webhooks) Disable(ctx context.Context, tx *store.Tx, workspaceID, id, reason string, now time.Time) error {
	h, err := tx.Endpoint(ctx, workspaceID, id)
	if domain.IsCode(err, domain.CodeNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	if h.Kind == domain.WebhookKindSubscription && reason == domain.WebhookDisabledGone {
		w.s.log.Info("subscription unsubscribed: its target answered 410 Gone", "subscription_id", id)
		return w.s.Subscriptions.delete(ctx, tx, h.Subscription(), domain.SubscriptionTargetGone, now)
	}
	changed, err := tx.DisableWebhook(ctx, id, reason, now)
	if err != nil || !changed {
		return err
	}
	if err := w.changed(ctx, tx, workspaceID); err != nil {
		return err
	}
	if err := failQueued(ctx, tx, id); err != nil {
		return err
	}
	h.Enabled, h.DisabledReason, h.UpdatedAt = false, reason, now
	w.s.log.Info("webhook endpoint disabled", "webhook_id", id, "kind", h.Kind, "reason", reason)
	if h.Kind == domain.WebhookKindSubscription {
		_, err = w.s.record(ctx, tx, workspaceID, domain.EventSubscriptionDisabled, nil, h.Subscription().Object())
		return err
	}
	_, err = w.s.record(ctx, tx, workspaceID, domain.EventWebhookDisabled, nil, h.Object())
	return err
}

// failQueued fails an endpoint's deliveries that are waiting (not being attempted).
func failQueued(ctx context.Context, tx *store.Tx, webhookID string) error {
	ids, err := tx.CancelQueuedJobs(ctx, domain.JobWebhookDelivery, domain.WebhookConcurrencyKey(webhookID))
	if err != nil {
		return err
	}
	return tx.FailDeliveries(ctx, ids)
}

// CreateWebhookInput is a new endpoint. Enabled defaults to true.
type CreateWebhookInput struct {
	URL         string
	Description string
	EventTypes  []string
	InstanceID  *string
	Enabled     *bool
}

// UpdateWebhookInput changes the fields that are set. An empty InstanceID removes the
// instance filter. Enabling a disabled endpoint clears its disabled reason.
type UpdateWebhookInput struct {
	URL, Description *string
	EventTypes       *[]string
	InstanceID       *string
	Enabled          *bool
	// Remove names the fields an update sent as null: an endpoint cannot be without its
	// url, event_types or enabled; null removes the description or the instance_id filter.
	// REST's PATCH and GraphQL's updateWebhook fill it alike.
	Remove map[string]bool
}

// Create registers an endpoint and returns it with its signing secret (whsec_...), which is
// shown this once (it can be rotated, never read back).
func (w *Webhooks) Create(ctx context.Context, a Actor, in CreateWebhookInput) (domain.Webhook, string, error) {
	wsID, err := requireWorkspace(a, domain.ScopeWebhooksWrite)
	if err != nil {
		return domain.Webhook{}, "", err
	}
	now := w.s.cfg.Clock.Now()
	hook := domain.Webhook{ID: domain.NewID(domain.PrefixWebhook), WorkspaceID: wsID, Kind: domain.WebhookKindEndpoint,
		Enabled: true, CreatedAt: now, UpdatedAt: now}
	if hook.URL, err = w.validateURL("url", in.URL); err != nil {
		return domain.Webhook{}, "", err
	}
	if hook.Description, err = validateDescription(in.Description); err != nil {
		return domain.Webhook{}, "", err
	}
	if hook.EventTypes, err = validateWebhookEventTypes(in.EventTypes); err != nil {
		return domain.Webhook{}, "", err
	}
	if hook.InstanceID, err = validateInstanceFilter(in.InstanceID); err != nil {
		return domain.Webhook{}, "", err
	}
	if in.Enabled != nil && !*in.Enabled {
		hook.Enabled, hook.DisabledReason = false, disabledManually
	}
	secret := newWebhookSecret()
	stored, err := w.box.seal(secret)
	if err != nil {
		return domain.Webhook{}, "", domain.Internal(err)
	}
	err = w.s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.LockWorkspace(ctx, wsID); err != nil { // the count below stays true until commit
			return err
		}
		n, err := tx.CountWebhooks(ctx, wsID, domain.WebhookKindEndpoint)
		if err != nil {
			return err
		}
		if n >= MaxWebhooksPerWorkspace {
			return &domain.Error{Code: domain.CodeInvalid, Reason: "webhook_limit_reached",
				Message: fmt.Sprintf("a workspace can have at most %d webhook endpoints; delete one first", MaxWebhooksPerWorkspace)}
		}
		if err := checkInstance(ctx, tx, wsID, hook.InstanceID); err != nil {
			return err
		}
		if err := tx.CreateWebhook(ctx, hook, stored); err != nil {
			return err
		}
		if err := w.changed(ctx, tx, wsID); err != nil {
			return err
		}
		_, err = w.s.record(ctx, tx, wsID, domain.EventWebhookCreated, nil, hook.Object())
		return err
	})
	if err != nil {
		return domain.Webhook{}, "", err
	}
	return hook, secret, nil
}

// disabledManually is the reason shown for an endpoint disabled through the API.
const disabledManually = "Disabled manually."

// List returns the workspace's endpoints, newest first.
func (w *Webhooks) List(ctx context.Context, a Actor, p domain.ListParams) (domain.Page[domain.Webhook], error) {
	wsID, err := requireWorkspace(a, domain.ScopeWebhooksRead)
	if err != nil {
		return domain.Page[domain.Webhook]{}, err
	}
	limit, err := pageLimit(p)
	if err != nil {
		return domain.Page[domain.Webhook]{}, err
	}
	if err := CheckCursor(p.After, domain.PrefixWebhook); err != nil {
		return domain.Page[domain.Webhook]{}, err
	}
	rows, err := w.s.store.Webhooks(ctx, wsID, p.After, limit)
	if err != nil {
		return domain.Page[domain.Webhook]{}, err
	}
	return pageOf(rows, limit, func(h domain.Webhook) string { return h.ID }), nil
}

// Get returns one endpoint of the workspace.
func (w *Webhooks) Get(ctx context.Context, a Actor, id string) (domain.Webhook, error) {
	wsID, err := requireWorkspace(a, domain.ScopeWebhooksRead)
	if err != nil {
		return domain.Webhook{}, err
	}
	return w.s.store.Webhook(ctx, wsID, id)
}

// Update changes an endpoint. Disabling it fails its pending deliveries (they can be
// retried after enabling it again).
func (w *Webhooks) Update(ctx context.Context, a Actor, id string, in UpdateWebhookInput) (domain.Webhook, error) {
	wsID, err := requireWorkspace(a, domain.ScopeWebhooksWrite)
	if err != nil {
		return domain.Webhook{}, err
	}
	if err := CannotRemove("", in.Remove, "url", "event_types", "enabled"); err != nil {
		return domain.Webhook{}, err
	}
	if in.Remove["description"] {
		in.Description = new("")
	}
	if in.Remove["instance_id"] {
		in.InstanceID = new("")
	}
	var next domain.Webhook
	if in.URL != nil {
		if next.URL, err = w.validateURL("url", *in.URL); err != nil {
			return domain.Webhook{}, err
		}
	}
	if in.Description != nil {
		if next.Description, err = validateDescription(*in.Description); err != nil {
			return domain.Webhook{}, err
		}
	}
	if in.EventTypes != nil {
		if next.EventTypes, err = validateWebhookEventTypes(*in.EventTypes); err != nil {
			return domain.Webhook{}, err
		}
	}
	if in.InstanceID != nil && *in.InstanceID != "" {
		if next.InstanceID, err = validateInstanceFilter(in.InstanceID); err != nil {
			return domain.Webhook{}, err
		}
	}
	now := w.s.cfg.Clock.Now()
	var hook domain.Webhook
	err = w.s.store.Tx(ctx, func(tx *store.Tx) error {
		if hook, err = tx.Webhook(ctx, wsID, id); err != nil {
			return err
		}
		if in.URL != nil {
			hook.URL = next.URL
		}
		if in.Description != nil {
			hook.Description = next.Description
		}
		if in.EventTypes != nil {
			hook.EventTypes = next.EventTypes
		}
		if in.InstanceID != nil {
			if err := checkInstance(ctx, tx, wsID, next.InstanceID); err != nil {
				return err
			}
			hook.InstanceID = next.InstanceID
		}
		disabling := false
		if in.Enabled != nil && *in.Enabled != hook.Enabled {
			hook.Enabled = *in.Enabled
			if hook.Enabled {
				hook.DisabledReason, hook.FailingSince = "", nil
			} else {
				hook.DisabledReason, disabling = disabledManually, true
			}
		}
		hook.UpdatedAt = now
		if err := tx.UpdateWebhook(ctx, hook); err != nil {
			return err
		}
		if err := w.changed(ctx, tx, hook.WorkspaceID); err != nil {
			return err
		}
		if disabling {
			if err := failQueued(ctx, tx, hook.ID); err != nil {
				return err
			}
		}
		_, err := w.s.record(ctx, tx, wsID, domain.EventWebhookUpdated, nil, hook.Object())
		return err
	})
	if err != nil {
		return domain.Webhook{}, err
	}
	return hook, nil
}

// Delete removes an endpoint and its delivery log. Pending deliveries are not sent; an
// attempt in flight meanwhile ends without being recorded.
func (w *Webhooks) Delete(ctx context.Context, a Actor, id string) error {
	return w.s.Mutate(ctx, a, domain.ScopeWebhooksWrite, func(c Change) error {
		// Held first, before its jobs and deliveries, in the order recording attempts takes them.
		hook, err := c.Tx.WebhookForUpdate(ctx, c.WorkspaceID, id)
		if err != nil {
			return err
		}
		if _, err := c.Tx.CancelQueuedJobs(ctx, domain.JobWebhookDelivery, domain.WebhookConcurrencyKey(id)); err != nil {
			return err
		}
		if err := c.Tx.DeleteWebhook(ctx, c.WorkspaceID, id); err != nil {
			return err
		}
		if err := w.changed(ctx, c.Tx, c.WorkspaceID); err != nil {
			return err
		}
		hook.UpdatedAt = c.Now
		_, err = w.s.record(ctx, c.Tx, c.WorkspaceID, domain.EventWebhookDeleted, nil, hook.Object())
		return err
	})
}

// RotateSecret gives the endpoint a new signing secret, returned this once. The secret it
// replaces keeps signing every delivery for WebhookSecretOverlap (24 h, until the returned
// time), and so does each secret an earlier rotation replaced, until its own expiry: receivers
// can switch without losing a message however often the secret is rotated. At most
// MaxPreviousWebhookSecrets replaced secrets sign at once; a rotation beyond that is refused
// (409 rotation_limit_reached) rather than cutting one off before the time it was promised.
func (w *Webhooks) RotateSecret(ctx context.Context, a Actor, id string) (domain.Webhook, string, time.Time, error) {
	secret := newWebhookSecret()
	stored, err := w.box.seal(secret)
	if err != nil {
		return domain.Webhook{}, "", time.Time{}, domain.Internal(err)
	}
	var hook domain.Webhook
	var until time.Time
	err = w.s.Mutate(ctx, a, domain.ScopeWebhooksWrite, func(c Change) error {
		if hook, err = c.Tx.Webhook(ctx, c.WorkspaceID, id); err != nil {
			return err
		}
		current, err := c.Tx.WebhookSecretsForUpdate(ctx, c.WorkspaceID, id)
		if err != nil {
			return err
		}
		if live := liveSecrets(current.Previous, c.Now); len(live) >= MaxPreviousWebhookSecrets {
			oldest := live[len(live)-1].ExpiresAt
			return &domain.Error{Code: domain.CodeConflict, Reason: "rotation_limit_reached",
				Message: fmt.Sprintf("the endpoint already has %d replaced secrets still signing its deliveries (each for 24 hours after "+
					"the rotation that replaced it), the most it may have; the oldest stops at %s: rotate again after that",
					len(live), oldest.UTC().Format(time.RFC3339))}
		}
		until = c.Now.Add(domain.WebhookSecretOverlap)
		if err := c.Tx.RotateWebhookSecret(ctx, c.WorkspaceID, id, stored, until, c.Now); err != nil {
			return err
		}
		hook.UpdatedAt = c.Now
		_, err = w.s.record(ctx, c.Tx, c.WorkspaceID, domain.EventWebhookRotated, nil, hook.Object())
		return err
	})
	if err != nil {
		return domain.Webhook{}, "", time.Time{}, err
	}
	return hook, secret, until, nil
}

// liveSecrets are the previous secrets still signing at now, in their order (the latest
// expiry first).
func liveSecrets(previous []store.PreviousSecret, now time.Time) []store.PreviousSecret {
	var live []store.PreviousSecret
	for _, p := range previous {
		if now.Before(p.ExpiresAt) {
			live = append(live, p)
		}
	}
	return live
}

// Deliveries lists an endpoint's deliveries, newest first, each with its attempts. A
// cursor older than the deliveries' retention is refused (410 cursor_expired).
func (w *Webhooks) Deliveries(ctx context.Context, a Actor, webhookID string, p domain.ListParams) (domain.Page[domain.Delivery], error) {
	wsID, err := requireWorkspace(a, domain.ScopeWebhooksRead)
	if err != nil {
		return domain.Page[domain.Delivery]{}, err
	}
	limit, err := pageLimit(p)
	if err != nil {
		return domain.Page[domain.Delivery]{}, err
	}
	if err := CheckCursor(p.After, domain.PrefixDelivery); err != nil {
		return domain.Page[domain.Delivery]{}, err
	}
	if _, err := w.s.store.Webhook(ctx, wsID, webhookID); err != nil {
		return domain.Page[domain.Delivery]{}, err
	}
	if err := w.s.store.CheckCursor(ctx, store.TableDeliveries, p.After); err != nil {
		return domain.Page[domain.Delivery]{}, err
	}
	rows, err := w.s.store.Deliveries(ctx, wsID, webhookID, p.After, limit)
	if err != nil {
		return domain.Page[domain.Delivery]{}, err
	}
	return pageOf(rows, limit, func(d domain.Delivery) string { return d.ID }), nil
}

// Delivery returns one delivery of an endpoint.
func (w *Webhooks) Delivery(ctx context.Context, a Actor, webhookID, deliveryID string) (domain.Delivery, error) {
	wsID, err := requireWorkspace(a, domain.ScopeWebhooksRead)
	if err != nil {
		return domain.Delivery{}, err
	}
	return w.s.store.Delivery(ctx, wsID, webhookID, deliveryID)
}

var errDeliveryInProgress = &domain.Error{Code: domain.CodeConflict, Reason: "delivery_in_progress",
	Message: "this delivery is being attempted right now; try again in a moment"}

var errWebhookDisabled = &domain.Error{Code: domain.CodeConflict, Reason: "webhook_disabled",
	Message: "the webhook endpoint is disabled; enable it first"}

// Retry queues a delivery for one more attempt now. A failed or succeeded delivery gets one
// attempt; a pending one keeps its remaining retries and is just brought forward.
func (w *Webhooks) Retry(ctx context.Context, a Actor, webhookID, deliveryID string) (domain.Delivery, error) {
	wsID, err := requireWorkspace(a, domain.ScopeWebhooksWrite)
	if err != nil {
		return domain.Delivery{}, err
	}
	now := w.s.cfg.Clock.Now()
	var d domain.Delivery
	err = w.s.store.Tx(ctx, func(tx *store.Tx) error {
		hook, err := tx.Webhook(ctx, wsID, webhookID)
		if err != nil {
			return err
		}
		if !hook.Enabled {
			return errWebhookDisabled
		}
		prev, err := tx.Delivery(ctx, wsID, webhookID, deliveryID)
		if err != nil {
			return err
		}
		attempts := len(prev.Attempts)
		fresh := deliveryJob(deliveryID, wsID, webhookID, now, attempts, attempts+1)
		fresh.CreatedAt = now
		if err := tx.RequeueJob(ctx, deliveryID, 1, now, fresh); err != nil {
			if domain.IsCode(err, domain.CodeConflict) {
				return errDeliveryInProgress
			}
			return err
		}
		tx.AnnounceWake(jobs.ChannelJobs, domain.JobWebhookDelivery)
		if err := tx.RequeueDelivery(ctx, deliveryID, now); err != nil {
			return err
		}
		d, err = tx.Delivery(ctx, wsID, webhookID, deliveryID)
		return err
	})
	if err != nil {
		return domain.Delivery{}, err
	}
	return d, nil
}

// MaxRecoverBatch bounds the deliveries one Recover call sends again; a caller with more
// calls again (those sent are pending now, so the next call takes the following ones).
const MaxRecoverBatch = 1000

// Recovery is what Recover did: how many failed deliveries it queued, and whether more of
// the range are left for another call.
type Recovery struct {
	Queued  int
	HasMore bool
}

// Recover sends again, now, every failed delivery of an endpoint created in [since, until)
// (until zero: up to now), oldest first, up to MaxRecoverBatch: each gets one more attempt, as a
// manual Retry gives it, with the same webhook-id. It is what an endpoint that was down
// (and disabled, then enabled again) needs to catch up. Deliveries older than their
// retention are gone; a delivery being attempted at that moment is left as it is.
func (w *Webhooks) Recover(ctx context.Context, a Actor, webhookID string, since, until time.Time) (Recovery, error) {
	wsID, err := requireWorkspace(a, domain.ScopeWebhooksWrite)
	if err != nil {
		return Recovery{}, err
	}
	now := w.s.cfg.Clock.Now()
	switch {
	case since.IsZero():
		return Recovery{}, domain.Invalid("since", "since is required: the time from which failed deliveries are sent again")
	case since.After(now):
		return Recovery{}, domain.Invalid("since", "since is in the future")
	case !until.IsZero() && !since.Before(until):
		return Recovery{}, domain.Invalid("since", "since must be before until")
	}
	if until.IsZero() {
		until = now.Add(time.Hour) // every delivery so far
	}
	var out Recovery
	err = w.s.store.Tx(ctx, func(tx *store.Tx) error {
		hook, err := tx.Webhook(ctx, wsID, webhookID)
		if err != nil {
			return err
		}
		if !hook.Enabled {
			return errWebhookDisabled
		}
		failed, err := tx.FailedDeliveries(ctx, wsID, webhookID, since, until, MaxRecoverBatch+1)
		if err != nil {
			return err
		}
		if out.HasMore = len(failed) > MaxRecoverBatch; out.HasMore {
			failed = failed[:MaxRecoverBatch]
		}
		for _, d := range failed {
			fresh := deliveryJob(d.ID, wsID, webhookID, now, d.Attempts, d.Attempts+1)
			fresh.CreatedAt = now
			if err := tx.RequeueJob(ctx, d.ID, 1, now, fresh); domain.IsCode(err, domain.CodeConflict) {
				continue // being attempted right now
			} else if err != nil {
				return err
			}
			if err := tx.RequeueDelivery(ctx, d.ID, now); err != nil {
				return err
			}
			out.Queued++
		}
		if out.Queued > 0 {
			tx.AnnounceWake(jobs.ChannelJobs, domain.JobWebhookDelivery)
		}
		return nil
	})
	if err != nil {
		return Recovery{}, err
	}
	return out, nil
}

// Test sends a synthetic event of eventType (default webhook.test) to this endpoint only,
// whatever it subscribes to. Its data is the type's sample (for webhook.test, the endpoint
// itself). Test events are not written to the event log, so nothing else sees them.
func (w *Webhooks) Test(ctx context.Context, a Actor, webhookID, eventType string) (domain.Delivery, error) {
	wsID, err := requireWorkspace(a, domain.ScopeWebhooksWrite)
	if err != nil {
		return domain.Delivery{}, err
	}
	if eventType == "" {
		eventType = domain.EventWebhookTest
	}
	now := w.s.cfg.Clock.Now()
	var sample func(time.Time) any
	for _, t := range eventTypeCatalog {
		if t.Type == eventType {
			sample = t.Sample
		}
	}
	if sample == nil {
		return domain.Delivery{}, domain.Invalid("event_type", "unknown event type %q; the event types catalog lists them", truncate(eventType, 64))
	}
	hook, err := w.s.store.Webhook(ctx, wsID, webhookID)
	if err != nil {
		return domain.Delivery{}, err
	}
	if !hook.Enabled {
		return domain.Delivery{}, errWebhookDisabled
	}
	var data any = hook.Object()
	if eventType != domain.EventWebhookTest {
		data = sample(now)
	}
	raw, err := domain.Encode(data)
	if err != nil {
		return domain.Delivery{}, domain.Internal(err)
	}
	e := domain.Event{ID: domain.NewID(domain.PrefixEvent), Type: eventType, Timestamp: now, WorkspaceID: wsID, Data: raw}
	body, err := e.MarshalJSON()
	if err != nil {
		return domain.Delivery{}, domain.Internal(err)
	}
	if err := CheckEventSize(len(body)); err != nil {
		return domain.Delivery{}, err
	}
	payload := string(body)
	nd := store.NewDelivery{ID: domain.NewID(domain.PrefixDelivery), WebhookID: hook.ID, WorkspaceID: wsID,
		EventID: e.ID, EventType: e.Type, Payload: &payload, MaxAttempts: len(domain.WebhookRetrySchedule),
		DueAt: now, CreatedAt: now}
	if err := w.s.store.Tx(ctx, func(tx *store.Tx) error { return insertDeliveries(ctx, tx, now, nd) }); err != nil {
		return domain.Delivery{}, err
	}
	due := now
	return domain.Delivery{ID: nd.ID, WebhookID: hook.ID, WorkspaceID: wsID, EventID: e.ID, EventType: e.Type,
		Status: domain.DeliveryPending, Attempts: []domain.DeliveryAttempt{}, NextAttemptAt: &due, CreatedAt: now}, nil
}

// CheckEventSize refuses an event envelope larger than webhooks carry (256 KB). Its reason,
// event_too_large, says what is too large; each transport decides how to answer it (REST:
// 413 payload_too_large).
func CheckEventSize(n int) error {
	if n > domain.MaxEventPayload {
		return &domain.Error{Code: domain.CodeInvalid, Reason: "event_too_large",
			Message: "the event would be " + byteSize(n) + "; webhook payloads are limited to 256 KB"}
	}
	return nil
}

func byteSize(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1024) }

// SigningSecrets returns the secrets that sign a delivery to the endpoint at time now: the
// current one, then each secret a rotation replaced that has not expired yet (the latest
// replaced first). It is for the delivery engine; secrets never reach a transport.
func (w *Webhooks) SigningSecrets(stored store.StoredSecrets, now time.Time) ([]string, error) {
	cur, err := w.box.open(stored.Current)
	if err != nil {
		return nil, err
	}
	out := []string{cur}
	for _, p := range liveSecrets(stored.Previous, now) {
		prev, err := w.box.open(p.Secret)
		if err != nil {
			return nil, err
		}
		out = append(out, prev)
	}
	return out, nil
}

// validateURL checks a delivery target (the field param of the input): an absolute http(s)
// URL of a host the SSRF policy lets deliveries reach.
func (w *Webhooks) validateURL(param, raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", domain.Invalid(param, "%s is required", param)
	}
	if len(s) > MaxWebhookURLLength {
		return "", domain.Invalid(param, "%s must be at most %d characters", param, MaxWebhookURLLength)
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Hostname() == "" {
		return "", domain.Invalid(param, "%s must be an absolute http or https URL", param)
	}
	if u.User != nil {
		return "", domain.Invalid(param, "%s must not contain a user name or password", param)
	}
	// url.Parse takes any digits as a port; 0 or 99999 could never be dialed, and every
	// delivery would fail.
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", domain.Invalid(param, "%s has an invalid port (1 to 65535)", param)
		}
	}
	if u.Fragment != "" {
		return "", domain.Invalid(param, "%s must not contain a fragment (#...)", param)
	}
	if err := w.policy.CheckURL(u); err != nil {
		return "", domain.Invalid(param, "%s targets a non-public address (%s); webhooks are sent only to public addresses unless the operator allow-lists the host", param, reasonOf(err))
	}
	return s, nil
}

func reasonOf(err error) string {
	var b *ssrf.BlockedError
	if errors.As(err, &b) {
		return b.Why
	}
	return "not allowed"
}

func validateDescription(raw string) (string, error) {
	d := strings.TrimSpace(raw)
	if !utf8.ValidString(d) {
		return "", domain.Invalid("description", "description must be valid UTF-8")
	}
	if utf8.RuneCountInString(d) > MaxWebhookDescriptionLength {
		return "", domain.Invalid("description", "description must be at most %d characters", MaxWebhookDescriptionLength)
	}
	return d, nil
}

func validateWebhookEventTypes(types []string) ([]string, error) {
	if len(types) == 0 {
		return nil, domain.Invalid("event_types", `choose at least one event type, or "*" for all`)
	}
	if len(types) > MaxWebhookEventTypes {
		return nil, domain.Invalid("event_types", "at most %d event types", MaxWebhookEventTypes)
	}
	seen := map[string]bool{}
	var out []string
	for _, raw := range types {
		t := strings.TrimSpace(raw)
		if t != "*" && !knownEventType(t) {
			return nil, domain.Invalid("event_types", "unknown event type %q; the event types catalog lists them", truncate(raw, 64))
		}
		if t == domain.EventWebhookTest {
			return nil, domain.Invalid("event_types", "%s is only sent when a webhook endpoint is tested; it needs no subscription", t)
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if seen["*"] {
		return []string{"*"}, nil
	}
	return out, nil
}

func validateInstanceFilter(id *string) (*string, error) {
	if id == nil || *id == "" {
		return nil, nil
	}
	v := strings.TrimSpace(*id)
	if !domain.HasPrefix(v, domain.PrefixInstance) {
		return nil, domain.Invalid("instance_id", "instance_id must be an instance id (inst_...)")
	}
	return &v, nil
}

// checkInstance refuses an instance filter naming no instance of the workspace (another
// workspace's is answered alike): such an endpoint would never receive anything.
func checkInstance(ctx context.Context, tx *store.Tx, wsID string, id *string) error {
	if id == nil {
		return nil
	}
	if _, err := tx.Instance(ctx, wsID, *id); err != nil {
		if domain.IsCode(err, domain.CodeNotFound) {
			return domain.Invalid("instance_id", "instance_id must be an instance of this workspace")
		}
		return err
	}
	return nil
}

// newWebhookSecret returns whsec_ + base64 of 32 random bytes (Standard Webhooks format).
func newWebhookSecret() string {
	b := make([]byte, webhookSecretBytes)
	_, _ = rand.Read(b)
	return webhookSecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// webhookEventTypes is the webhooks' table of event types.
var webhookEventTypes = []EventType{
	{domain.EventWebhookCreated, "A webhook endpoint was created.",
		func(now time.Time) any { return sampleHook(now, true, "").Object() }},
	{domain.EventWebhookUpdated, "A webhook endpoint was changed (including enabled or disabled by a user).",
		func(now time.Time) any { return sampleHook(now, true, "").Object() }},
	{domain.EventWebhookDeleted, "A webhook endpoint was deleted.",
		func(now time.Time) any { return sampleHook(now, true, "").Object() }},
	{domain.EventWebhookRotated, "A webhook endpoint's signing secret was rotated; the previous secret signs too for 24 hours.",
		func(now time.Time) any { return sampleHook(now, true, "").Object() }},
	{domain.EventWebhookDisabled, "A webhook endpoint was disabled automatically: it answered 410 Gone, or failed for 5 days without a success.",
		func(now time.Time) any { return sampleHook(now, false, domain.WebhookDisabledGone).Object() }},
	{domain.EventWebhookTest, "A test event, sent only to the webhook endpoint being tested; its data is the endpoint.",
		func(now time.Time) any { return sampleHook(now, true, "").Object() }},
}

var _ = RegisterEventTypes(webhookEventTypes...)

func sampleHook(now time.Time, enabled bool, reason string) domain.Webhook {
	inst := "inst_01jc0000000000000000000000"
	return domain.Webhook{ID: "wh_01jc0000000000000000000000", WorkspaceID: "ws_01jc0000000000000000000000",
		URL: "https://example.com/webhooks/switchboard", Description: "Order system",
		EventTypes: []string{"message.received", "link.clicked"}, InstanceID: &inst, Enabled: enabled,
		DisabledReason: reason, CreatedAt: now, UpdatedAt: now}
}

// NewSigningSecret returns a fresh Standard Webhooks secret (whsec_…), as endpoints get.
func NewSigningSecret() string { return newWebhookSecret() }
