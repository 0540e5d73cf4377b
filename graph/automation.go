package graph

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/service/automation"
	"github.com/switchboard-dev/switchboard/graph/model"
)

// This file holds the automation surface's resolvers for inbound publishing endpoints:
// the endpoints, their calls and action runs. Each decodes its input, calls one method of
// automation.Automation and converts the result with the same null rules as REST's objects
// (domain.PublisherObject, domain.PublishedObject, domain.RunObject). Enums are the REST
// strings in upper case (standard_webhooks is STANDARD_WEBHOOKS).

func (r *queryResolver) AutomationEndpoints(ctx context.Context, first *int, after *string) (*model.AutomationEndpointConnection, error) {
	page, err := r.auto.List(ctx, actor(ctx), domain.ListParams{Limit: first, After: deref(after)})
	if err != nil {
		return nil, httpx.RenameParam(err, "limit", "first")
	}
	conn := &model.AutomationEndpointConnection{Nodes: make([]model.AutomationEndpoint, len(page.Data)), HasMore: page.HasMore,
		NextCursor: optional(page.NextCursor)}
	for i, p := range page.Data {
		conn.Nodes[i] = r.toEndpoint(p)
	}
	return conn, nil
}

func (r *queryResolver) AutomationEndpoint(ctx context.Context, id string) (*model.AutomationEndpoint, error) {
	p, err := r.auto.Get(ctx, actor(ctx), id)
	if err != nil {
		return nil, err
	}
	return ptr(r.toEndpoint(p)), nil
}

func (r *queryResolver) AutomationCalls(ctx context.Context, endpointID string, first *int, after *string) (*model.AutomationCallConnection, error) {
	page, err := r.auto.Calls(ctx, actor(ctx), endpointID, domain.ListParams{Limit: first, After: deref(after)})
	if err != nil {
		return nil, httpx.RenameParam(err, "limit", "first")
	}
	conn := &model.AutomationCallConnection{Nodes: make([]model.AutomationCall, len(page.Data)), HasMore: page.HasMore,
		NextCursor: optional(page.NextCursor)}
	for i, c := range page.Data {
		conn.Nodes[i] = toCall(c)
	}
	return conn, nil
}

func (r *queryResolver) AutomationRuns(ctx context.Context, endpointID string, first *int, after *string) (*model.AutomationRunConnection, error) {
	page, err := r.auto.Runs(ctx, actor(ctx), endpointID, domain.ListParams{Limit: first, After: deref(after)})
	if err != nil {
		return nil, httpx.RenameParam(err, "limit", "first")
	}
	conn := &model.AutomationRunConnection{Nodes: make([]model.AutomationRun, len(page.Data)), HasMore: page.HasMore,
		NextCursor: optional(page.NextCursor)}
	for i, run := range page.Data {
		o := run.Object()
		conn.Nodes[i] = model.AutomationRun{ID: o.ID, EndpointID: o.EndpointID, CallID: o.CallID,
			ActionType: model.AutomationActionType(strings.ToUpper(o.ActionType)), Status: o.Status, Input: run.Input,
			Output: run.Output, Error: o.Error, Attempts: o.Attempts, DurationMs: int(o.DurationMS), CreatedAt: run.CreatedAt,
			UpdatedAt: run.UpdatedAt}
	}
	return conn, nil
}

func (r *mutationResolver) CreateAutomationEndpoint(ctx context.Context, input model.CreateAutomationEndpointInput) (*model.AutomationEndpointPayload, error) {
	in := automation.EndpointInput{Name: &input.Name, Verification: verification(input.Verification), Schema: input.Schema,
		Enabled: input.Enabled}
	if input.Action != nil {
		act, err := actionInput(input.Action)
		if err != nil {
			return nil, err
		}
		in.Action = act
	}
	return r.endpointPayload(r.auto.Create(ctx, actor(ctx), in))
}

// UpdateAutomationEndpoint changes the given fields; the fields given as null follow the
// service's rules, as in REST's PATCH (null removes the schema or the action, and is refused
// for name, verification and enabled).
func (r *mutationResolver) UpdateAutomationEndpoint(ctx context.Context, id string, input model.UpdateAutomationEndpointInput) (*model.AutomationEndpointPayload, error) {
	in := automation.EndpointInput{Name: input.Name, Verification: verification(input.Verification), Enabled: input.Enabled,
		Schema: input.Schema.Value(), Remove: nullFields(ctx, "input")}
	if act := input.Action.Value(); act != nil {
		a, err := actionInput(act)
		if err != nil {
			return nil, err
		}
		in.Action = a
	}
	return r.endpointPayload(r.auto.Update(ctx, actor(ctx), id, in))
}

func (r *mutationResolver) DeleteAutomationEndpoint(ctx context.Context, id string) (*model.AutomationEndpoint, error) {
	p, err := r.auto.Delete(ctx, actor(ctx), id)
	if err != nil {
		return nil, err
	}
	return ptr(r.toEndpoint(p)), nil
}

func (r *mutationResolver) RotateAutomationEndpointToken(ctx context.Context, id string) (*model.AutomationEndpoint, error) {
	p, err := r.auto.RotateToken(ctx, actor(ctx), id)
	if err != nil {
		return nil, err
	}
	return ptr(r.toEndpoint(p)), nil
}

func (r *mutationResolver) RotateAutomationEndpointSecret(ctx context.Context, id string) (*model.AutomationEndpointPayload, error) {
	return r.endpointPayload(r.auto.RotateSecret(ctx, actor(ctx), id))
}

func (r *mutationResolver) TestAutomationEndpoint(ctx context.Context, id string, payload json.RawMessage) (*model.AutomationCall, error) {
	c, err := r.auto.Test(ctx, actor(ctx), id, payload)
	if err != nil {
		return nil, err
	}
	return ptr(toCall(c)), nil
}

func (r *Resolver) endpointPayload(c automation.Created, err error) (*model.AutomationEndpointPayload, error) {
	if err != nil {
		return nil, err
	}
	return &model.AutomationEndpointPayload{Endpoint: ptr(r.toEndpoint(c.Endpoint)), Secret: optional(c.Secret)}, nil
}

// toEndpoint converts an endpoint for output: its URL, never its secret.
func (r *Resolver) toEndpoint(p domain.Publisher) model.AutomationEndpoint {
	o := r.auto.Object(p)
	out := model.AutomationEndpoint{ID: o.ID, Name: o.Name, URL: o.URL,
		Verification: model.AutomationVerification(strings.ToUpper(o.Verification)), Enabled: o.Enabled,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	if o.Schema != nil {
		out.Schema = *o.Schema
	}
	if a := o.Action; a != nil {
		out.Action = &model.AutomationAction{Type: model.AutomationActionType(strings.ToUpper(a.Type)),
			InstanceID: optional(a.InstanceID), To: optional(a.To), Text: optional(a.Text), MediaURL: optional(a.MediaURL),
			URL: optional(a.URL), Slug: optional(a.Slug), Title: optional(a.Title), TargetURL: optional(a.TargetURL)}
		if len(a.Metadata) > 0 {
			out.Action.Metadata, _ = json.Marshal(a.Metadata)
		}
	}
	return out
}

func toCall(c domain.Published) model.AutomationCall {
	return model.AutomationCall{ID: c.ID, EndpointID: c.EndpointID, Payload: c.Payload, ReceivedAt: c.ReceivedAt}
}

func verification(v *model.AutomationVerification) *string {
	if v == nil {
		return nil
	}
	return ptr(strings.ToLower(string(*v)))
}

// actionInput decodes an action; its metadata must be a JSON object of strings.
func actionInput(in *model.AutomationActionInput) (*domain.Action, error) {
	out := &domain.Action{Type: strings.ToLower(string(in.Type)), InstanceID: deref(in.InstanceID), To: deref(in.To),
		Text: deref(in.Text), MediaURL: deref(in.MediaURL), URL: deref(in.URL), Slug: deref(in.Slug), Title: deref(in.Title),
		TargetURL: deref(in.TargetURL)}
	if raw := strings.TrimSpace(string(in.Metadata)); raw != "" && raw != "null" {
		if err := json.Unmarshal(in.Metadata, &out.Metadata); err != nil {
			return nil, domain.Invalid("action.metadata", "action.metadata is a JSON object of strings")
		}
	}
	return out, nil
}
