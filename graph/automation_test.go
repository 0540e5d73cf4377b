package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/sandbox"
	"github.com/switchboard-dev/switchboard/backend/hooks"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/automation"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/shortlink"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
	"github.com/switchboard-dev/switchboard/graph"
)

// newAutomationHarness is the real /graphql handler with the automation surface (and the
// messaging and short-link surfaces its actions use), the real /hooks/ handler tools POST
// to, and a running job engine that runs the actions, as in the binary.
func newAutomationHarness(t *testing.T, d store.Dialect) *harness {
	t.Helper()
	svc, st := servicetest.New(t, d, service.Config{SecretsKey: []byte("0123456789abcdef0123456789abcdef")})
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	msg := messaging.New(svc, channels.NewRegistry(sandbox.New()), messaging.Config{})
	lnk := links.New(svc, links.Config{ShortBase: srv.URL + "/l"})
	lnk.Start()
	t.Cleanup(lnk.Close)
	auto := automation.New(svc, msg, lnk, automation.Config{HooksBase: srv.URL + "/hooks"})
	engine := jobs.New(st, jobs.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PollInterval: 50 * time.Millisecond})
	for _, k := range msg.Kinds(messaging.Workers{Send: 2, Events: 2, Connect: 1}) {
		engine.Register(k)
	}
	engine.Register(auto.Kind(4))
	if err := engine.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(engine.Close)
	mux.Handle("/graphql", graph.NewHandler(svc, graph.Options{Messaging: msg, Links: lnk, Automation: auto}))
	mux.Handle(hooks.Prefix, hooks.Handler(auto, svc.Logger()))
	mux.Handle("/l/", shortlink.Handler(lnk, "/l/", svc.Logger()))
	return &harness{svc: svc, srv: srv}
}

func eachAutomationDialect(t *testing.T, fn func(t *testing.T, h *harness)) {
	t.Helper()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, newAutomationHarness(t, d)) })
	}
}

const endpointFields = `id name url verification schema enabled createdAt updatedAt
	action { type instanceId to text mediaUrl url slug title metadata targetUrl }`

type endpoint struct {
	ID, Name, URL, Verification string
	Schema                      json.RawMessage
	Action                      *struct {
		Type                                                        string
		InstanceID, To, Text, MediaURL, URL, Slug, Title, TargetURL *string
		Metadata                                                    map[string]string
	}
	Enabled              bool
	CreatedAt, UpdatedAt string
}

type endpointPayload struct {
	Endpoint endpoint
	Secret   *string
}

type automationCall struct {
	ID, EndpointID, ReceivedAt string
	Payload                    json.RawMessage
}

type automationRun struct {
	ID, EndpointID, CallID, ActionType, Status string
	Input, Output                              json.RawMessage
	Error                                      *string
	Attempts, DurationMs                       int
}

func (h *harness) createEndpoint(t *testing.T, in map[string]any, opts ...option) endpointPayload {
	t.Helper()
	_, r := h.post(t, `mutation($in: CreateAutomationEndpointInput!) { createAutomationEndpoint(input: $in) {
		secret endpoint { `+endpointFields+` } } }`, map[string]any{"in": in}, opts...)
	var data struct{ CreateAutomationEndpoint endpointPayload }
	r.decode(t, &data)
	return data.CreateAutomationEndpoint
}

func (h *harness) updateEndpoint(t *testing.T, id string, in map[string]any, opts ...option) endpointPayload {
	t.Helper()
	_, r := h.post(t, `mutation($id: ID!, $in: UpdateAutomationEndpointInput!) { updateAutomationEndpoint(id: $id, input: $in) {
		secret endpoint { `+endpointFields+` } } }`, map[string]any{"id": id, "in": in}, opts...)
	var data struct{ UpdateAutomationEndpoint endpointPayload }
	r.decode(t, &data)
	return data.UpdateAutomationEndpoint
}

func (h *harness) endpoints(t *testing.T, vars map[string]any, opts ...option) []endpoint {
	t.Helper()
	_, r := h.post(t, `query($first: Int, $after: String) { automationEndpoints(first: $first, after: $after) {
		nodes { `+endpointFields+` } hasMore nextCursor } }`, vars, opts...)
	var data struct{ AutomationEndpoints struct{ Nodes []endpoint } }
	r.decode(t, &data)
	return data.AutomationEndpoints.Nodes
}

func (h *harness) calls(t *testing.T, id string, opts ...option) []automationCall {
	t.Helper()
	_, r := h.post(t, `query($id: ID!) { automationCalls(endpointId: $id) { nodes { id endpointId payload receivedAt } hasMore } }`,
		map[string]any{"id": id}, opts...)
	var data struct {
		AutomationCalls struct{ Nodes []automationCall }
	}
	r.decode(t, &data)
	return data.AutomationCalls.Nodes
}

func (h *harness) runs(t *testing.T, id string, opts ...option) []automationRun {
	t.Helper()
	_, r := h.post(t, `query($id: ID!) { automationRuns(endpointId: $id) {
		nodes { id endpointId callId actionType status input output error attempts durationMs createdAt updatedAt } hasMore } }`,
		map[string]any{"id": id}, opts...)
	var data struct {
		AutomationRuns struct{ Nodes []automationRun }
	}
	r.decode(t, &data)
	return data.AutomationRuns.Nodes
}

// finishedRuns waits until every run of the endpoint has finished (none queued), and
// returns them, newest first.
func (h *harness) finishedRuns(t *testing.T, id string, want int, opts ...option) []automationRun {
	t.Helper()
	var got []automationRun
	eventually(t, "the runs of "+id, func() bool {
		got = h.runs(t, id, opts...)
		if len(got) != want {
			return false
		}
		for _, r := range got {
			if r.Status == "queued" {
				return false
			}
		}
		return true
	})
	return got
}

// isNull tells a JSON null (or an absent value) apart.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// publish POSTs a tool's call to an endpoint's URL.
func publish(t *testing.T, url, body string, header ...string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// The console's journey: create an endpoint whose action makes a short link from the
// payload, send a test payload, have a tool call its URL, watch the calls and the runs
// (one that fails naming the missing field), change it, rotate its URL and secret, and
// delete it.
func TestAutomationFlow(t *testing.T) {
	eachAutomationDialect(t, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		s := withSession(token)

		created := h.createEndpoint(t, map[string]any{"name": " Orders ", "verification": "HEADER_TOKEN",
			"action": map[string]any{"type": "CREATE_LINK", "url": "{{payload.url}}", "title": "Order {{payload.order.id}}",
				"metadata": map[string]any{"source": "{{endpoint.name}}"}}}, s)
		e := created.Endpoint
		if !strings.HasPrefix(e.ID, "pub_") || e.Name != "Orders" || !strings.HasPrefix(e.URL, h.srv.URL+"/hooks/") ||
			e.Verification != "HEADER_TOKEN" || !isNull(e.Schema) || !e.Enabled || e.Action == nil || e.Action.Type != "CREATE_LINK" ||
			deref(e.Action.URL) != "{{payload.url}}" || deref(e.Action.Title) != "Order {{payload.order.id}}" ||
			e.Action.Metadata["source"] != "{{endpoint.name}}" || e.Action.To != nil || e.Action.Slug != nil || e.Action.TargetURL != nil {
			t.Fatalf("created %+v", e)
		}
		if created.Secret == nil || !strings.HasPrefix(*created.Secret, "sbt_") {
			t.Fatalf("secret %v", created.Secret)
		}
		secret := *created.Secret

		// The list and the endpoint show the URL again, never the secret.
		if got := h.endpoints(t, nil, s); len(got) != 1 || got[0].ID != e.ID || got[0].URL != e.URL {
			t.Fatalf("list %+v", got)
		}
		_, r := h.post(t, `query($id: ID!) { automationEndpoint(id: $id) { `+endpointFields+` } }`, map[string]any{"id": e.ID}, s)
		var one struct{ AutomationEndpoint endpoint }
		r.decode(t, &one)
		if one.AutomationEndpoint.URL != e.URL || one.AutomationEndpoint.Action == nil {
			t.Fatalf("endpoint %+v", one)
		}
		_, r = h.post(t, `query($id: ID!) { automationEndpoint(id: $id) { secret } }`, map[string]any{"id": e.ID}, s)
		if r.code(t) != "GRAPHQL_VALIDATION_FAILED" {
			t.Fatalf("secret field: %+v", r.Errors)
		}

		// A test payload from the console, then a tool's call with the header token.
		const testCall = `mutation($id: ID!, $payload: JSON!) { testAutomationEndpoint(id: $id, payload: $payload) {
			id endpointId payload receivedAt } }`
		_, r = h.post(t, testCall, map[string]any{"id": e.ID, "payload": map[string]any{"url": "https://example.com/t", "order": map[string]any{"id": 6}}}, s)
		var tested struct{ TestAutomationEndpoint automationCall }
		r.decode(t, &tested)
		if tc := tested.TestAutomationEndpoint; !strings.HasPrefix(tc.ID, "evt_") || tc.EndpointID != e.ID || tc.ReceivedAt == "" ||
			!strings.Contains(string(tc.Payload), `"https://example.com/t"`) {
			t.Fatalf("test call %+v", tc)
		}
		if code, _ := publish(t, e.URL, `{"url":"https://example.com/x","order":{"id":7}}`); code != http.StatusUnauthorized {
			t.Fatalf("call without the header token: %d", code)
		}
		code, body := publish(t, e.URL, `{"url":"https://example.com/x","order":{"id":7}}`, automation.HeaderToken, secret)
		callID, _ := body["id"].(string)
		if code != http.StatusAccepted || !strings.HasPrefix(callID, "evt_") {
			t.Fatalf("call: %d %v", code, body)
		}
		calls := h.calls(t, e.ID, s)
		if len(calls) != 2 || calls[0].ID != callID || calls[1].ID != tested.TestAutomationEndpoint.ID ||
			string(calls[0].Payload) != `{"url":"https://example.com/x","order":{"id":7}}` {
			t.Fatalf("calls %+v", calls)
		}

		// Both runs succeed; the newest made a link from the tool's payload.
		runs := h.finishedRuns(t, e.ID, 2, s)
		run := runs[0]
		if run.CallID != callID || run.Status != "succeeded" || run.ActionType != "CREATE_LINK" || run.Error != nil ||
			run.Attempts != 1 || runs[1].Status != "succeeded" || !strings.HasPrefix(run.ID, "run_") || run.EndpointID != e.ID {
			t.Fatalf("runs %+v", runs)
		}
		var input struct {
			URL, Title string
			Metadata   map[string]string
		}
		var output struct {
			LinkID   string `json:"link_id"`
			ShortURL string `json:"short_url"`
		}
		if json.Unmarshal(run.Input, &input) != nil || json.Unmarshal(run.Output, &output) != nil {
			t.Fatalf("run input %s output %s", run.Input, run.Output)
		}
		if input.URL != "https://example.com/x" || input.Title != "Order 7" || input.Metadata["source"] != "Orders" {
			t.Fatalf("run input %s", run.Input)
		}
		if !strings.HasPrefix(output.LinkID, "lnk_") || !strings.HasPrefix(output.ShortURL, h.srv.URL+"/l/") {
			t.Fatalf("run output %s", run.Output)
		}
		_, r = h.post(t, `query($id: ID!) { link(id: $id) { url title metadata } }`, map[string]any{"id": output.LinkID}, s)
		var made struct {
			Link struct {
				URL, Title string
				Metadata   map[string]string
			}
		}
		r.decode(t, &made)
		if made.Link.URL != "https://example.com/x" || made.Link.Title != "Order 7" || made.Link.Metadata["source"] != "Orders" {
			t.Fatalf("link made by the run: %+v", made)
		}

		// A payload without the field a template reads: the run fails, saying which.
		_, r = h.post(t, testCall, map[string]any{"id": e.ID, "payload": map[string]any{"note": "no url"}}, s)
		r.decode(t, &tested)
		runs = h.finishedRuns(t, e.ID, 3, s)
		if runs[0].Status != "failed" || runs[0].Error == nil || !strings.Contains(*runs[0].Error, "payload.url") || !isNull(runs[0].Output) {
			t.Fatalf("failed run %+v", runs[0])
		}

		// Update: a schema, no action, no verification (no secret); a payload the schema
		// refuses names where, as a JSON pointer under payload.
		up := h.updateEndpoint(t, e.ID, map[string]any{"name": "Orders v2", "verification": "NONE", "action": nil,
			"schema": map[string]any{"type": "object", "required": []string{"url"}, "properties": map[string]any{"url": map[string]any{"type": "string"}}}}, s)
		if up.Secret != nil || up.Endpoint.Name != "Orders v2" || up.Endpoint.Verification != "NONE" || up.Endpoint.Action != nil ||
			!strings.Contains(string(up.Endpoint.Schema), `"required":["url"]`) || up.Endpoint.URL != e.URL {
			t.Fatalf("updated %+v", up)
		}
		_, r = h.post(t, testCall, map[string]any{"id": e.ID, "payload": map[string]any{"url": 5, "order_id": 1}}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "payload/url" || r.Errors[0].Extensions["reason"] != "schema_mismatch" {
			t.Fatalf("schema mismatch: %+v", r.Errors)
		}
		if code, _ := publish(t, e.URL, `{"url":"https://example.com/y"}`); code != http.StatusAccepted {
			t.Fatalf("call without verification: %d", code)
		}
		// Absent fields are kept; null removes the schema.
		up = h.updateEndpoint(t, e.ID, map[string]any{"schema": nil}, s)
		if !isNull(up.Endpoint.Schema) || up.Endpoint.Name != "Orders v2" {
			t.Fatalf("schema removed %+v", up)
		}

		_, r = h.post(t, `mutation($id: ID!) { rotateAutomationEndpointSecret(id: $id) { secret } }`, map[string]any{"id": e.ID}, s)
		if r.code(t) != "CONFLICT" || r.Errors[0].Extensions["reason"] != "no_verification" {
			t.Fatalf("rotate secret without verification: %+v", r.Errors)
		}
		up = h.updateEndpoint(t, e.ID, map[string]any{"verification": "STANDARD_WEBHOOKS"}, s)
		if up.Secret == nil || !strings.HasPrefix(*up.Secret, "whsec_") {
			t.Fatalf("new verification kind: %+v", up)
		}
		_, r = h.post(t, `mutation($id: ID!) { rotateAutomationEndpointSecret(id: $id) { secret endpoint { id } } }`, map[string]any{"id": e.ID}, s)
		var rotated struct{ RotateAutomationEndpointSecret endpointPayload }
		r.decode(t, &rotated)
		if s := rotated.RotateAutomationEndpointSecret.Secret; s == nil || !strings.HasPrefix(*s, "whsec_") || *s == *up.Secret {
			t.Fatalf("rotated secret %+v", rotated)
		}

		// A new URL: the old one answers 404 at once.
		_, r = h.post(t, `mutation($id: ID!) { rotateAutomationEndpointToken(id: $id) { id url } }`, map[string]any{"id": e.ID}, s)
		var moved struct{ RotateAutomationEndpointToken endpoint }
		r.decode(t, &moved)
		newURL := moved.RotateAutomationEndpointToken.URL
		if newURL == e.URL || !strings.HasPrefix(newURL, h.srv.URL+"/hooks/") {
			t.Fatalf("rotated url %q", newURL)
		}
		if code, _ := publish(t, e.URL, `{}`); code != http.StatusNotFound {
			t.Fatalf("old url: %d", code)
		}

		// Disabled, then deleted: its URL answers 404 and it is gone.
		if up := h.updateEndpoint(t, e.ID, map[string]any{"enabled": false, "verification": "NONE"}, s); up.Endpoint.Enabled {
			t.Fatalf("disabled %+v", up)
		}
		if code, _ := publish(t, newURL, `{}`); code != http.StatusNotFound {
			t.Fatalf("disabled endpoint: %d", code)
		}
		_, r = h.post(t, `mutation($id: ID!) { deleteAutomationEndpoint(id: $id) { id name } }`, map[string]any{"id": e.ID}, s)
		var deleted struct{ DeleteAutomationEndpoint endpoint }
		r.decode(t, &deleted)
		if deleted.DeleteAutomationEndpoint.ID != e.ID || deleted.DeleteAutomationEndpoint.Name != "Orders v2" {
			t.Fatalf("deleted %+v", deleted)
		}
		for name, q := range map[string]string{
			"endpoint": `query($id: ID!) { automationEndpoint(id: $id) { id } }`,
			"calls":    `query($id: ID!) { automationCalls(endpointId: $id) { nodes { id } } }`,
		} {
			_, r = h.post(t, q, map[string]any{"id": e.ID}, s)
			if r.code(t) != "NOT_FOUND" {
				t.Errorf("%s after delete: %+v", name, r.Errors)
			}
		}
		if got := h.endpoints(t, nil, s); len(got) != 0 {
			t.Fatalf("list after delete: %+v", got)
		}
	})
}

// Bad input is refused with the field named in camelCase, and nothing is stored.
func TestAutomationInvalidInput(t *testing.T) {
	eachAutomationDialect(t, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		s := withSession(token)
		const create = `mutation($in: CreateAutomationEndpointInput!) { createAutomationEndpoint(input: $in) { endpoint { id } } }`
		link := func(extra map[string]any) map[string]any {
			a := map[string]any{"type": "CREATE_LINK", "url": "{{payload.url}}"}
			for k, v := range extra {
				a[k] = v
			}
			return a
		}
		for name, c := range map[string]struct {
			in    map[string]any
			code  string
			field string
		}{
			"blank name":        {map[string]any{"name": "  "}, "INVALID", "name"},
			"long name":         {map[string]any{"name": strings.Repeat("n", 201)}, "INVALID", "name"},
			"bad schema":        {map[string]any{"name": "x", "schema": map[string]any{"type": 5}}, "INVALID", "schema"},
			"link without url":  {map[string]any{"name": "x", "action": map[string]any{"type": "CREATE_LINK"}}, "INVALID", "action.url"},
			"unknown template":  {map[string]any{"name": "x", "action": link(map[string]any{"title": "{{env.HOME}}"})}, "INVALID", "action.title"},
			"unclosed template": {map[string]any{"name": "x", "action": link(map[string]any{"slug": "{{payload.id"})}, "INVALID", "action.slug"},
			"field of another":  {map[string]any{"name": "x", "action": link(map[string]any{"to": "+15550100"})}, "INVALID", "action.to"},
			"metadata numbers":  {map[string]any{"name": "x", "action": link(map[string]any{"metadata": map[string]any{"n": 1}})}, "INVALID", "action.metadata"},
			"unknown instance": {map[string]any{"name": "x", "action": map[string]any{"type": "SEND_MESSAGE", "instanceId": "inst_nope",
				"to": "{{payload.phone}}", "text": "hi"}}, "INVALID", "action.instanceId"},
			"forward to ftp": {map[string]any{"name": "x", "action": map[string]any{"type": "FORWARD", "targetUrl": "ftp://example.com/"}},
				"INVALID", "action.targetUrl"},
		} {
			_, r := h.post(t, create, map[string]any{"in": c.in}, s)
			if r.code(t) != c.code || r.Errors[0].Extensions["field"] != c.field {
				t.Errorf("%s: %+v", name, r.Errors)
			}
		}
		_, r := h.post(t, create, map[string]any{"in": map[string]any{"name": "x", "verification": "HMAC"}}, s)
		if len(r.Errors) == 0 || !strings.Contains(r.Errors[0].Message, "AutomationVerification") {
			t.Errorf("unknown verification: %+v", r.Errors)
		}
		if got := h.endpoints(t, nil, s); len(got) != 0 {
			t.Fatalf("stored after refusals: %+v", got)
		}

		e := h.createEndpoint(t, map[string]any{"name": "Keep me"}, s).Endpoint
		_, r = h.post(t, `mutation($id: ID!) { updateAutomationEndpoint(id: $id, input: {name: ""}) { endpoint { id } } }`, map[string]any{"id": e.ID}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "name" {
			t.Fatalf("update name: %+v", r.Errors)
		}
		_, r = h.post(t, `{ automationEndpoints(first: 0) { nodes { id } } }`, nil, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "first" {
			t.Fatalf("first: 0: %+v", r.Errors)
		}
		_, r = h.post(t, `query($id: ID!) { automationRuns(endpointId: $id, first: 101) { nodes { id } } }`, map[string]any{"id": e.ID}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "first" {
			t.Fatalf("runs first: 101: %+v", r.Errors)
		}
		_, r = h.post(t, `query($id: ID!) { automationCalls(endpointId: $id, after: "lnk_x") { nodes { id } } }`, map[string]any{"id": e.ID}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "after" {
			t.Fatalf("calls after another kind of cursor: %+v", r.Errors)
		}
		// A test publishes a JSON object, as REST's payload field requires: nothing is stored
		// for another JSON value.
		for _, payload := range []any{[]any{1}, "text", 5} {
			_, r = h.post(t, `mutation($id: ID!, $p: JSON!) { testAutomationEndpoint(id: $id, payload: $p) { id } }`,
				map[string]any{"id": e.ID, "p": payload}, s)
			if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "payload" {
				t.Errorf("test with payload %v: %+v", payload, r.Errors)
			}
		}
		if got := h.calls(t, e.ID, s); len(got) != 0 {
			t.Fatalf("calls stored by refused tests: %+v", got)
		}
		if got := h.endpoints(t, nil, s); len(got) != 1 || got[0].Name != "Keep me" {
			t.Fatalf("after refused update: %+v", got)
		}
	})
}

// Keys need automation:read and automation:write; another workspace's endpoints do not
// exist.
func TestAutomationAccess(t *testing.T) {
	eachAutomationDialect(t, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		s := withSession(token)
		e := h.createEndpoint(t, map[string]any{"name": "Mine", "verification": "HEADER_TOKEN"}, s).Endpoint

		writes := map[string]string{
			"create":        `mutation { createAutomationEndpoint(input: {name: "x"}) { endpoint { id } } }`,
			"update":        `mutation($id: ID!) { updateAutomationEndpoint(id: $id, input: {name: "x"}) { endpoint { id } } }`,
			"delete":        `mutation($id: ID!) { deleteAutomationEndpoint(id: $id) { id } }`,
			"rotate token":  `mutation($id: ID!) { rotateAutomationEndpointToken(id: $id) { id } }`,
			"rotate secret": `mutation($id: ID!) { rotateAutomationEndpointSecret(id: $id) { secret } }`,
			"test":          `mutation($id: ID!) { testAutomationEndpoint(id: $id, payload: {a: 1}) { id } }`,
		}
		reads := map[string]string{
			"endpoint": `query($id: ID!) { automationEndpoint(id: $id) { id } }`,
			"calls":    `query($id: ID!) { automationCalls(endpointId: $id) { nodes { id } } }`,
			"runs":     `query($id: ID!) { automationRuns(endpointId: $id) { nodes { id } } }`,
		}

		_, reader := h.createKey(t, token, "automation:read")
		if got := h.endpoints(t, nil, withKey(reader)); len(got) != 1 || got[0].ID != e.ID {
			t.Fatalf("with automation:read: %+v", got)
		}
		for name, q := range reads {
			if _, r := h.post(t, q, map[string]any{"id": e.ID}, withKey(reader)); len(r.Errors) > 0 {
				t.Errorf("%s with automation:read: %+v", name, r.Errors)
			}
		}
		for name, q := range writes {
			_, r := h.post(t, q, map[string]any{"id": e.ID}, withKey(reader))
			if r.code(t) != "FORBIDDEN" || r.Errors[0].Extensions["reason"] != "insufficient_scope" ||
				!strings.Contains(r.Errors[0].Message, "automation:write") {
				t.Errorf("%s without automation:write: %+v", name, r.Errors)
			}
		}
		_, other := h.createKey(t, token, "links:read")
		_, r := h.post(t, `{ automationEndpoints { nodes { id } } }`, nil, withKey(other))
		if r.code(t) != "FORBIDDEN" || !strings.Contains(r.Errors[0].Message, "automation:read") {
			t.Fatalf("without automation:read: %+v", r.Errors)
		}
		_, writer := h.createKey(t, token, "automation:write", "automation:read")
		if got := h.createEndpoint(t, map[string]any{"name": "By key"}, withKey(writer)); !strings.HasPrefix(got.Endpoint.ID, "pub_") {
			t.Fatalf("with automation:write: %+v", got)
		}
		_, r = h.post(t, `{ automationEndpoints { nodes { id } } }`, nil)
		if r.code(t) != "UNAUTHENTICATED" {
			t.Fatalf("signed out: %+v", r.Errors)
		}

		// Another workspace: not found, for reads and writes.
		otherToken, _ := h.owner(t)
		o := withSession(otherToken)
		for _, set := range []map[string]string{reads, writes} {
			for name, q := range set {
				if name == "create" {
					continue
				}
				_, r = h.post(t, q, map[string]any{"id": e.ID}, o)
				if r.code(t) != "NOT_FOUND" {
					t.Errorf("%s of another workspace's endpoint: %+v", name, r.Errors)
				}
			}
		}
		if got := h.endpoints(t, nil, o); len(got) != 0 {
			t.Fatalf("other workspace sees %+v", got)
		}
		_, r = h.post(t, `query($id: ID!) { automationEndpoint(id: $id) { name url } }`, map[string]any{"id": e.ID}, s)
		var still struct{ AutomationEndpoint endpoint }
		r.decode(t, &still)
		if still.AutomationEndpoint.Name != "Mine" || still.AutomationEndpoint.URL != e.URL {
			t.Fatalf("after the other workspace's attempts: %+v", still)
		}
		if calls := h.calls(t, e.ID, s); len(calls) != 0 {
			t.Fatalf("calls after the other workspace's test: %+v", calls)
		}
	})
}

// Automation lists cost the rows they may return, like every list; the console's detail
// page (an endpoint with a page of calls and a page of runs) passes.
func TestAutomationComplexity(t *testing.T) {
	h := newAutomationHarness(t, store.SQLite)
	token, _ := h.owner(t)
	s := withSession(token)
	for name, q := range map[string]string{
		"25 pages of endpoints": aliased(25, "automationEndpoints { nodes { id } }"),
		"5 pages of 100 calls":  aliased(5, `automationCalls(endpointId: "pub_x", first: 100) { nodes { id } }`),
		"5 pages of 100 runs":   aliased(5, `automationRuns(endpointId: "pub_x", first: 100) { nodes { id } }`),
	} {
		resp, r := h.post(t, q, nil, s)
		if r.code(t) != "COMPLEXITY_LIMIT_EXCEEDED" || resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, %+v", name, resp.StatusCode, r.Errors)
		}
	}
	e := h.createEndpoint(t, map[string]any{"name": "Detail"}, s).Endpoint
	_, r := h.post(t, `query($id: ID!) { automationEndpoint(id: $id) { `+endpointFields+` }
		automationCalls(endpointId: $id) { nodes { id endpointId payload receivedAt } hasMore nextCursor }
		automationRuns(endpointId: $id) { nodes { id callId actionType status input output error attempts durationMs createdAt updatedAt }
			hasMore nextCursor } }`, map[string]any{"id": e.ID}, s)
	if len(r.Errors) > 0 {
		t.Fatalf("the detail page: %+v", r.Errors)
	}
}
