package graph

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/graph/model"
)

// Webhooks lists every endpoint of the workspace, newest first: a workspace has at most
// service.MaxWebhooksPerWorkspace, so one page holds them all.
func (r *queryResolver) Webhooks(ctx context.Context) ([]model.Webhook, error) {
	page, err := r.svc.Webhooks.List(ctx, actor(ctx), domain.ListParams{Limit: domain.Limit(service.MaxWebhooksPerWorkspace)})
	if err != nil {
		return nil, err
	}
	out := make([]model.Webhook, len(page.Data))
	for i, h := range page.Data {
		out[i] = toWebhook(h)
	}
	return out, nil
}

func (r *queryResolver) Webhook(ctx context.Context, id string) (*model.Webhook, error) {
	h, err := r.svc.Webhooks.Get(ctx, actor(ctx), id)
	if err != nil {
		return nil, err
	}
	return ptr(toWebhook(h)), nil
}

func (r *queryResolver) WebhookDeliveries(ctx context.Context, webhookID string, first *int, after *string) (*model.DeliveryConnection, error) {
	page, err := r.svc.Webhooks.Deliveries(ctx, actor(ctx), webhookID, domain.ListParams{Limit: first, After: deref(after)})
	if err != nil {
		return nil, httpx.RenameParam(err, "limit", "first")
	}
	conn := &model.DeliveryConnection{Nodes: make([]model.WebhookDelivery, len(page.Data)),
		HasMore: page.HasMore, NextCursor: optional(page.NextCursor)}
	for i, d := range page.Data {
		conn.Nodes[i] = toDelivery(d)
	}
	return conn, nil
}

func (r *mutationResolver) CreateWebhook(ctx context.Context, input model.CreateWebhookInput) (*model.CreateWebhookPayload, error) {
	h, secret, err := r.svc.Webhooks.Create(ctx, actor(ctx), service.CreateWebhookInput{
		URL:         input.URL,
		Description: deref(input.Description),
		EventTypes:  input.EventTypes,
		InstanceID:  input.InstanceID,
		Enabled:     input.Enabled,
	})
	if err != nil {
		return nil, err
	}
	return &model.CreateWebhookPayload{Secret: secret, Webhook: ptr(toWebhook(h))}, nil
}

// UpdateWebhook changes the fields that are given; the fields given as null follow the
// service's rules, as in REST's PATCH.
func (r *mutationResolver) UpdateWebhook(ctx context.Context, id string, input model.UpdateWebhookInput) (*model.Webhook, error) {
	in := service.UpdateWebhookInput{URL: input.URL.Value(), Description: input.Description.Value(),
		InstanceID: input.InstanceID.Value(), Enabled: input.Enabled.Value(), Remove: nullFields(ctx, "input")}
	if types := input.EventTypes.Value(); types != nil {
		in.EventTypes = &types
	}
	h, err := r.svc.Webhooks.Update(ctx, actor(ctx), id, in)
	if err != nil {
		return nil, err
	}
	return ptr(toWebhook(h)), nil
}

func (r *mutationResolver) DeleteWebhook(ctx context.Context, id string) (bool, error) {
	if err := r.svc.Webhooks.Delete(ctx, actor(ctx), id); err != nil {
		return false, err
	}
	return true, nil
}

func (r *mutationResolver) RotateWebhookSecret(ctx context.Context, id string) (*model.RotateWebhookSecretPayload, error) {
	h, secret, until, err := r.svc.Webhooks.RotateSecret(ctx, actor(ctx), id)
	if err != nil {
		return nil, err
	}
	return &model.RotateWebhookSecretPayload{Secret: secret, Webhook: ptr(toWebhook(h)), PreviousSecretExpiresAt: until}, nil
}

func (r *mutationResolver) TestWebhook(ctx context.Context, id string, eventType *string) (*model.WebhookDelivery, error) {
	d, err := r.svc.Webhooks.Test(ctx, actor(ctx), id, deref(eventType))
	if err != nil {
		return nil, httpx.RenameParam(err, "event_type", "eventType")
	}
	return ptr(toDelivery(d)), nil
}

func (r *mutationResolver) RetryWebhookDelivery(ctx context.Context, webhookID string, deliveryID string) (*model.WebhookDelivery, error) {
	d, err := r.svc.Webhooks.Retry(ctx, actor(ctx), webhookID, deliveryID)
	if err != nil {
		return nil, err
	}
	return ptr(toDelivery(d)), nil
}

func (r *mutationResolver) RecoverWebhookDeliveries(ctx context.Context, webhookID string, since time.Time, until *time.Time) (*model.WebhookRecovery, error) {
	var to time.Time
	if until != nil {
		to = *until
	}
	rec, err := r.svc.Webhooks.Recover(ctx, actor(ctx), webhookID, since, to)
	if err != nil {
		return nil, err
	}
	return &model.WebhookRecovery{WebhookID: webhookID, Queued: rec.Queued, HasMore: rec.HasMore}, nil
}

// toWebhook converts an endpoint for output, with the same null rules as REST's object.
// It never carries a signing secret.
func toWebhook(h domain.Webhook) model.Webhook {
	o := h.Object()
	return model.Webhook{
		ID:             h.ID,
		URL:            h.URL,
		Description:    h.Description,
		EventTypes:     o.EventTypes,
		InstanceID:     h.InstanceID,
		Enabled:        h.Enabled,
		DisabledReason: o.DisabledReason,
		CreatedAt:      h.CreatedAt,
		UpdatedAt:      h.UpdatedAt,
	}
}

// toDelivery converts a delivery and its attempts, with the same null rules as REST's.
func toDelivery(d domain.Delivery) model.WebhookDelivery {
	out := model.WebhookDelivery{
		ID:            d.ID,
		WebhookID:     d.WebhookID,
		EventID:       d.EventID,
		EventType:     d.EventType,
		Status:        d.Status,
		Attempts:      make([]model.DeliveryAttempt, len(d.Attempts)),
		NextAttemptAt: d.NextAttemptAt,
		CreatedAt:     d.CreatedAt,
	}
	for i, a := range d.Attempts {
		o := a.Object()
		out.Attempts[i] = model.DeliveryAttempt{AttemptedAt: a.AttemptedAt, StatusCode: o.StatusCode,
			LatencyMs: a.LatencyMS, ResponseBody: o.ResponseBody, Error: o.Error}
	}
	return out
}
