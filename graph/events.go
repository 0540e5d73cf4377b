package graph

import (
	"context"
	"encoding/json"

	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/graph/model"
)

func (r *queryResolver) Events(ctx context.Context, types []string, first *int, after *string) (*model.EventConnection, error) {
	page, err := r.svc.Events.List(ctx, actor(ctx), domain.EventFilter{Types: types},
		domain.ListParams{Limit: first, After: deref(after)})
	if err != nil {
		return nil, httpx.RenameParam(err, "limit", "first")
	}
	return &model.EventConnection{Nodes: page.Data, HasMore: page.HasMore, NextCursor: optional(page.NextCursor)}, nil
}

func (r *queryResolver) Event(ctx context.Context, id string) (*domain.Event, error) {
	e, err := r.svc.Events.Get(ctx, actor(ctx), id)
	if err != nil {
		return nil, err
	}
	return &e, nil
}

func (r *queryResolver) EventTypes(ctx context.Context) ([]model.EventType, error) {
	infos, err := r.svc.Events.Types(ctx, actor(ctx))
	if err != nil {
		return nil, err
	}
	out := make([]model.EventType, len(infos))
	for i, info := range infos {
		sample, err := json.Marshal(info.Sample)
		if err != nil {
			return nil, domain.Internal(err)
		}
		out[i] = model.EventType{Type: info.Type, Description: info.Description, Sample: sample}
	}
	return out, nil
}

func (r *subscriptionResolver) Events(ctx context.Context, types []string, instanceID *string, after *string) (<-chan *domain.Event, error) {
	stream, err := r.svc.Events.Subscribe(ctx, actor(ctx), domain.EventFilter{Types: types, InstanceID: deref(instanceID)}, deref(after))
	if err != nil {
		return nil, err
	}
	out := make(chan *domain.Event)
	go func() {
		defer close(out)
		for e := range stream.C {
			select {
			case out <- &e:
			case <-ctx.Done():
				return
			}
		}
		// The service ended the stream (a slow subscriber, a revoked key or session): tell
		// the client why instead of completing silently.
		if err := stream.Err(); err != nil && ctx.Err() == nil {
			transport.AddSubscriptionError(ctx, presentError(ctx, r.opts.Logger, err))
		}
	}()
	return out, nil
}
