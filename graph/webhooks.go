package graph

import (
	"context"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/graph/model"
)

// errWebhooksUnavailable answers every webhook operation until the webhook service lands.
var errWebhooksUnavailable = &domain.Error{Code: domain.CodeUnavailable, Reason: "not_implemented",
	Message: "webhooks are not available yet"}

func (r *queryResolver) Webhooks(ctx context.Context) ([]model.Webhook, error) {
	return nil, errWebhooksUnavailable
}

func (r *queryResolver) Webhook(ctx context.Context, id string) (*model.Webhook, error) {
	return nil, errWebhooksUnavailable
}

func (r *queryResolver) WebhookDeliveries(ctx context.Context, webhookID string, first *int, after *string) (*model.DeliveryConnection, error) {
	return nil, errWebhooksUnavailable
}

func (r *mutationResolver) CreateWebhook(ctx context.Context, input model.CreateWebhookInput) (*model.CreateWebhookPayload, error) {
	return nil, errWebhooksUnavailable
}

func (r *mutationResolver) UpdateWebhook(ctx context.Context, id string, input model.UpdateWebhookInput) (*model.Webhook, error) {
	return nil, errWebhooksUnavailable
}

func (r *mutationResolver) DeleteWebhook(ctx context.Context, id string) (bool, error) {
	return false, errWebhooksUnavailable
}

func (r *mutationResolver) RotateWebhookSecret(ctx context.Context, id string) (*model.RotateWebhookSecretPayload, error) {
	return nil, errWebhooksUnavailable
}

func (r *mutationResolver) TestWebhook(ctx context.Context, id string, eventType *string) (*model.WebhookDelivery, error) {
	return nil, errWebhooksUnavailable
}

func (r *mutationResolver) RetryWebhookDelivery(ctx context.Context, webhookID string, deliveryID string) (*model.WebhookDelivery, error) {
	return nil, errWebhooksUnavailable
}
