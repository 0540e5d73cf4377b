package automation

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Calls lists an endpoint's accepted calls with their payloads, newest first.
func (a *Automation) Calls(ctx context.Context, ac service.Actor, id string, pp domain.ListParams) (domain.Page[domain.Published], error) {
	ws, err := service.RequireWorkspace(ac, domain.ScopeAutomationRead)
	if err != nil {
		return domain.Page[domain.Published]{}, err
	}
	limit, err := service.PageLimit(pp)
	if err != nil {
		return domain.Page[domain.Published]{}, err
	}
	if err := service.CheckCursor(pp.After, domain.PrefixEvent); err != nil {
		return domain.Page[domain.Published]{}, err
	}
	if err := a.st.CheckCursor(ctx, store.TableCalls, pp.After); err != nil {
		return domain.Page[domain.Published]{}, err
	}
	p, err := load(ctx, a.st, ws, id)
	if err != nil {
		return domain.Page[domain.Published]{}, err
	}
	rows, err := a.st.Calls(ctx, p.ID, pp.After, limit+1)
	if err != nil {
		return domain.Page[domain.Published]{}, err
	}
	return service.PageOf(rows, limit, func(c domain.Published) string { return c.ID }), nil
}

// Runs lists an endpoint's action runs, newest first.
func (a *Automation) Runs(ctx context.Context, ac service.Actor, id string, pp domain.ListParams) (domain.Page[domain.Run], error) {
	ws, err := service.RequireWorkspace(ac, domain.ScopeAutomationRead)
	if err != nil {
		return domain.Page[domain.Run]{}, err
	}
	limit, err := service.PageLimit(pp)
	if err != nil {
		return domain.Page[domain.Run]{}, err
	}
	if err := service.CheckCursor(pp.After, domain.PrefixRun); err != nil {
		return domain.Page[domain.Run]{}, err
	}
	if err := a.st.CheckCursor(ctx, store.TableRuns, pp.After); err != nil {
		return domain.Page[domain.Run]{}, err
	}
	p, err := load(ctx, a.st, ws, id)
	if err != nil {
		return domain.Page[domain.Run]{}, err
	}
	rows, err := a.st.Runs(ctx, p.ID, pp.After, limit+1)
	if err != nil {
		return domain.Page[domain.Run]{}, err
	}
	return service.PageOf(rows, limit, func(r domain.Run) string { return r.ID }), nil
}

// Test publishes a payload to an endpoint as its owner (the console's "send test payload"):
// everything a real call does but the verification, which needs the secret the console
// never has.
func (a *Automation) Test(ctx context.Context, ac service.Actor, id string, payload json.RawMessage) (domain.Published, error) {
	ws, err := service.RequireWorkspace(ac, domain.ScopeAutomationWrite)
	if err != nil {
		return domain.Published{}, err
	}
	p, err := load(ctx, a.st, ws, id)
	if err != nil {
		return domain.Published{}, err
	}
	if err := requireEndpointScope(ac, p); err != nil {
		return domain.Published{}, err
	}
	if !p.Enabled {
		return domain.Published{}, &domain.Error{Code: domain.CodeConflict, Reason: "endpoint_disabled",
			Message: "this endpoint is disabled: enable it to publish to it"}
	}
	// A test publishes a JSON object (REST's payload field and GraphQL's JSON scalar alike).
	payload = bytes.TrimSpace(payload)
	if len(payload) == 0 || string(payload) == "null" {
		return domain.Published{}, domain.Invalid("payload", "payload is required")
	}
	if payload[0] != '{' {
		return domain.Published{}, domain.Invalid("payload", "payload must be a JSON object")
	}
	if len(payload) > MaxPayloadBytes {
		return domain.Published{}, &domain.Error{Code: domain.CodeInvalid, Reason: "payload_too_large", Param: "payload",
			Message: "a payload is at most 1 MB"}
	}
	token, err := a.s.Open(p.SealedToken)
	if err != nil {
		return domain.Published{}, domain.Internal(err)
	}
	c, _, err := a.publish(ctx, token, Call{Token: token, ContentType: "application/json", Body: payload}, false)
	if err != nil {
		return c, renameBody(err)
	}
	return c, nil
}

// renameBody names the test's payload where a call's error names the body.
func renameBody(err error) error {
	e := domain.ErrorOf(err)
	if e.Code == domain.CodeInternal {
		return err
	}
	out := *e
	if out.Param == "" {
		out.Param = "payload"
	} else {
		out.Param = "payload" + out.Param
	}
	return &out
}
