package graph

import (
	"context"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/graph/model"
)

// Workflow tools' outbound subscriptions (REST hooks). Named apart from the GraphQL
// Subscription type (live events, events.go).

// AutomationSubscriptions lists every subscription of the workspace, newest first: a
// workspace has at most service.MaxSubscriptionsPerWorkspace, so one page holds them all.
func (r *queryResolver) AutomationSubscriptions(ctx context.Context) ([]model.AutomationSubscription, error) {
	page, err := r.svc.Subscriptions.List(ctx, actor(ctx), domain.ListParams{Limit: domain.Limit(service.MaxSubscriptionsPerWorkspace)})
	if err != nil {
		return nil, err
	}
	out := make([]model.AutomationSubscription, len(page.Data))
	for i, s := range page.Data {
		out[i] = toAutomationSubscription(s)
	}
	return out, nil
}

func (r *queryResolver) AutomationSubscription(ctx context.Context, id string) (*model.AutomationSubscription, error) {
	s, err := r.svc.Subscriptions.Get(ctx, actor(ctx), id)
	if err != nil {
		return nil, err
	}
	return ptr(toAutomationSubscription(s)), nil
}

func (r *mutationResolver) CreateAutomationSubscription(ctx context.Context, input model.CreateAutomationSubscriptionInput) (*model.CreateAutomationSubscriptionPayload, error) {
	s, secret, err := r.svc.Subscriptions.Create(ctx, actor(ctx), service.CreateSubscriptionInput{
		TargetURL:   input.TargetURL,
		EventTypes:  input.EventTypes,
		Description: deref(input.Description),
	})
	if err != nil {
		return nil, err
	}
	return &model.CreateAutomationSubscriptionPayload{Secret: secret, Subscription: ptr(toAutomationSubscription(s))}, nil
}

func (r *mutationResolver) DeleteAutomationSubscription(ctx context.Context, id string) (bool, error) {
	if err := r.svc.Subscriptions.Delete(ctx, actor(ctx), id); err != nil {
		return false, err
	}
	return true, nil
}

// toAutomationSubscription converts a subscription for output, with the same null rules as
// REST's object. It never carries the signing secret.
func toAutomationSubscription(s domain.Subscription) model.AutomationSubscription {
	o := s.Object()
	return model.AutomationSubscription{
		ID:             s.ID,
		TargetURL:      s.TargetURL,
		Description:    s.Description,
		EventTypes:     o.EventTypes,
		Enabled:        s.Enabled,
		DisabledReason: o.DisabledReason,
		CreatedAt:      s.CreatedAt,
		UpdatedAt:      s.UpdatedAt,
	}
}
