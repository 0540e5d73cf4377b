package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/sandbox"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/automation"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
	"github.com/switchboard-dev/switchboard/graph"
)

// These tests send the same null over REST's PATCH and GraphQL's update mutation, on the
// same service, and check that both transports give the same outcome: what null does to
// a field is the service's rule (a field an object cannot be without is refused, naming
// it; the others are removed or reset), so neither transport may decide it on its own.

// twoTransports is the real /api/v1 and /graphql handlers on one service, with the
// messaging (sandbox, and a job engine that connects instances), short-link and automation
// surfaces, and an API key with every scope that both accept.
type twoTransports struct {
	*harness
	owner servicetest.Owner
	key   string
}

func eachTransportsDialect(t *testing.T, fn func(t *testing.T, h *twoTransports)) {
	t.Helper()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, newTwoTransports(t, d)) })
	}
}

func newTwoTransports(t *testing.T, d store.Dialect) *twoTransports {
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
	for _, k := range msg.Kinds(messaging.Workers{Send: 1, Events: 1, Connect: 1}) {
		engine.Register(k)
	}
	if err := engine.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(engine.Close)
	mux.Handle("/graphql", graph.NewHandler(svc, graph.Options{Messaging: msg, Links: lnk, Automation: auto}))
	mux.Handle(rest.Prefix+"/", rest.New(svc, rest.Options{Messaging: msg, Links: lnk, Automation: auto}))
	owner := servicetest.NewOwner(t, svc)
	_, key := owner.NewKey(t, svc, domain.ScopeAll)
	return &twoTransports{harness: &harness{svc: svc, srv: srv}, owner: owner, key: key}
}

// rest calls the REST API with key; body is a JSON string or a value to encode.
func (h *twoTransports) rest(t *testing.T, key, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, _ := json.Marshal(b)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, h.srv.URL+rest.Prefix+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %d %q is not a JSON object", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// create makes an object over REST and returns it.
func (h *twoTransports) create(t *testing.T, path string, body map[string]any) map[string]any {
	t.Helper()
	status, out := h.rest(t, h.key, "POST", path, body)
	if status != http.StatusCreated {
		t.Fatalf("POST %s: %d %v", path, status, out)
	}
	return out
}

// get reads an object over REST.
func (h *twoTransports) get(t *testing.T, path string) map[string]any {
	t.Helper()
	status, out := h.rest(t, h.key, "GET", path, nil)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %v", path, status, out)
	}
	return out
}

// update is one surface's update over both transports: REST's PATCH path (also the
// object's GET) and GraphQL's mutation, whose input is $in (the object's ids in vars).
type update struct {
	path     string
	mutation string
	vars     map[string]any
}

// graphQL runs u's mutation with in as its input.
func (h *twoTransports) graphQL(t *testing.T, u update, in map[string]any) gqlResponse {
	t.Helper()
	vars := map[string]any{"in": in}
	for k, v := range u.vars {
		vars[k] = v
	}
	_, r := h.post(t, u.mutation, vars, withKey(h.key))
	return r
}

// refusedAlike sends field as null over REST and over GraphQL: both refuse it with the same
// message, naming the field (REST: 400 validation_failed, param; GraphQL: INVALID,
// extensions.field in camelCase), and the object stays as it was.
func (h *twoTransports) refusedAlike(t *testing.T, u update, field string) {
	t.Helper()
	before := h.get(t, u.path)
	status, out := h.rest(t, h.key, "PATCH", u.path, `{"`+field+`":null}`)
	e, _ := out["error"].(map[string]any)
	if status != http.StatusBadRequest || e["code"] != "validation_failed" || e["param"] != field {
		t.Fatalf("REST %s: null: %d %v", field, status, out)
	}
	r := h.graphQL(t, u, map[string]any{camel(field): nil})
	if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != camel(field) || r.Errors[0].Message != e["message"] {
		t.Fatalf("GraphQL %s: null: %+v, want INVALID on %s with REST's message %q", camel(field), r.Errors, camel(field), e["message"])
	}
	if after := h.get(t, u.path); !reflect.DeepEqual(after, before) {
		t.Fatalf("%s: null changed the object:\nbefore %v\nafter  %v", field, before, after)
	}
}

// removedAlike sends field as null over REST to a and over GraphQL to b, two objects made
// alike with the field set: both then read want for the field (over REST), and keep kept.
func (h *twoTransports) removedAlike(t *testing.T, a, b update, field string, want any, kept string) {
	t.Helper()
	beforeA, beforeB := h.get(t, a.path), h.get(t, b.path)
	if reflect.DeepEqual(beforeA[field], want) || !reflect.DeepEqual(beforeA[field], beforeB[field]) {
		t.Fatalf("%s before: %v and %v, want two alike other than %v", field, beforeA[field], beforeB[field], want)
	}
	if status, out := h.rest(t, h.key, "PATCH", a.path, `{"`+field+`":null}`); status != http.StatusOK {
		t.Fatalf("REST %s: null: %d %v", field, status, out)
	}
	if r := h.graphQL(t, b, map[string]any{camel(field): nil}); len(r.Errors) > 0 {
		t.Fatalf("GraphQL %s: null: %+v", camel(field), r.Errors)
	}
	gotA, gotB := h.get(t, a.path), h.get(t, b.path)
	if !reflect.DeepEqual(gotA[field], want) || !reflect.DeepEqual(gotB[field], want) {
		t.Fatalf("%s: null: REST left %#v, GraphQL %#v, want %#v", field, gotA[field], gotB[field], want)
	}
	if !reflect.DeepEqual(gotA[kept], beforeA[kept]) || !reflect.DeepEqual(gotB[kept], beforeB[kept]) {
		t.Fatalf("%s: null changed %s: REST %v, GraphQL %v", field, kept, gotA[kept], gotB[kept])
	}
}

// camel is a field's GraphQL name ("event_types" → "eventTypes").
func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}

// connectedInstance makes a sandbox instance and waits until it is connected.
func (h *twoTransports) connectedInstance(t *testing.T) string {
	t.Helper()
	inst := h.create(t, "/instances", map[string]any{"name": "Support", "config": map[string]any{"auto_pair": true}, "connect": true})
	id := inst["id"].(string)
	eventually(t, "the instance to connect", func() bool { return h.get(t, "/instances/"+id)["status"] == "connected" })
	return id
}

const updateInstanceOp = `mutation($id: ID!, $in: UpdateInstanceInput!) { updateInstance(id: $id, input: $in) { id } }`

// An instance cannot be without its name or its settings; null sets messages_per_second
// back to its default, over both transports.
func TestInstanceUpdateNullAlike(t *testing.T) {
	eachTransportsDialect(t, func(t *testing.T, h *twoTransports) {
		body := map[string]any{"name": "Support", "config": map[string]any{"echo": true}, "messages_per_second": 3}
		a, b := h.create(t, "/instances", body)["id"].(string), h.create(t, "/instances", body)["id"].(string)
		ua := update{"/instances/" + a, updateInstanceOp, map[string]any{"id": a}}
		ub := update{"/instances/" + b, updateInstanceOp, map[string]any{"id": b}}
		for _, f := range []string{"name", "config"} {
			h.refusedAlike(t, ua, f)
		}
		h.removedAlike(t, ua, ub, "messages_per_second", float64(messaging.DefaultMessagesPerSecond), "name")
		// A setting is reset by its own null inside config, over both transports alike.
		if status, out := h.rest(t, h.key, "PATCH", ua.path, `{"config":{"echo":null}}`); status != http.StatusOK {
			t.Fatalf("REST config.echo null: %d %v", status, out)
		}
		if r := h.graphQL(t, ub, map[string]any{"config": map[string]any{"echo": nil}}); len(r.Errors) > 0 {
			t.Fatalf("GraphQL config.echo null: %+v", r.Errors)
		}
		ca, cb := h.get(t, ua.path)["config"], h.get(t, ub.path)["config"]
		if !reflect.DeepEqual(ca, cb) || ca.(map[string]any)["echo"] != false {
			t.Fatalf("config after echo: null: REST %v, GraphQL %v", ca, cb)
		}
	})
}

const updateGroupOp = `mutation($inst: ID!, $id: ID!, $in: UpdateGroupInput!) { updateGroup(instanceId: $inst, id: $id, input: $in) { id } }`

// A group cannot be without its subject; null removes its description, over both
// transports.
func TestGroupUpdateNullAlike(t *testing.T) {
	eachTransportsDialect(t, func(t *testing.T, h *twoTransports) {
		inst := h.connectedInstance(t)
		body := map[string]any{"subject": "Launch", "description": "Release coordination", "participants": []string{"+15551230001"}}
		path := "/instances/" + inst + "/groups"
		a, b := h.create(t, path, body)["id"].(string), h.create(t, path, body)["id"].(string)
		ua := update{path + "/" + a, updateGroupOp, map[string]any{"inst": inst, "id": a}}
		ub := update{path + "/" + b, updateGroupOp, map[string]any{"inst": inst, "id": b}}
		h.refusedAlike(t, ua, "subject")
		h.removedAlike(t, ua, ub, "description", "", "subject")
	})
}

const updateContactOp = `mutation($inst: ID!, $id: ID!, $in: UpdateContactInput!) { updateContact(instanceId: $inst, id: $id, input: $in) { id } }`

// A contact can be without each field it can change (its address is not one of them): null
// removes the name, the labels or the attributes, over both transports.
func TestContactUpdateNullAlike(t *testing.T) {
	eachTransportsDialect(t, func(t *testing.T, h *twoTransports) {
		inst := h.create(t, "/instances", map[string]any{"name": "Support"})["id"].(string)
		path := "/instances/" + inst + "/contacts"
		contact := func(address string) update {
			c := h.create(t, path, map[string]any{"address": address, "name": "Ada", "labels": []string{"vip"},
				"attributes": map[string]any{"plan": "pro"}})
			id := c["id"].(string)
			return update{path + "/" + id, updateContactOp, map[string]any{"inst": inst, "id": id}}
		}
		ua, ub := contact("+15551230001"), contact("+15551230002")
		h.removedAlike(t, ua, ub, "name", "", "labels")
		h.removedAlike(t, ua, ub, "labels", []any{}, "attributes")
		h.removedAlike(t, ua, ub, "attributes", map[string]any{}, "address")
	})
}

const updateWebhookOp = `mutation($id: ID!, $in: UpdateWebhookInput!) { updateWebhook(id: $id, input: $in) { id } }`

// A webhook endpoint cannot be without its url, event types or enabled; null removes the
// description and the instance filter, over both transports. GraphQL's refusal of a null
// eventTypes said "eventTypes cannot be removed" where REST says "event_types ...".
func TestWebhookUpdateNullAlike(t *testing.T) {
	eachTransportsDialect(t, func(t *testing.T, h *twoTransports) {
		inst := h.create(t, "/instances", map[string]any{"name": "Support"})["id"].(string)
		body := map[string]any{"url": "https://hooks.example.com/switchboard", "description": "orders",
			"event_types": []string{"*"}, "instance_id": inst}
		a, b := h.create(t, "/webhooks", body)["id"].(string), h.create(t, "/webhooks", body)["id"].(string)
		ua := update{"/webhooks/" + a, updateWebhookOp, map[string]any{"id": a}}
		ub := update{"/webhooks/" + b, updateWebhookOp, map[string]any{"id": b}}
		for _, f := range []string{"url", "event_types", "enabled"} {
			h.refusedAlike(t, ua, f)
		}
		h.removedAlike(t, ua, ub, "description", "", "url")
		h.removedAlike(t, ua, ub, "instance_id", nil, "event_types")
	})
}

const updateEndpointOp = `mutation($id: ID!, $in: UpdateAutomationEndpointInput!) { updateAutomationEndpoint(id: $id, input: $in) { secret } }`

// An automation endpoint cannot be without its name, verification or enabled; null removes
// the schema or the action, over both transports. GraphQL read a null name, verification or
// enabled as left out (the endpoint unchanged, a success) where REST and the docs refuse it.
func TestAutomationEndpointUpdateNullAlike(t *testing.T) {
	eachTransportsDialect(t, func(t *testing.T, h *twoTransports) {
		body := map[string]any{"name": "Orders", "verification": "header_token",
			"schema": map[string]any{"type": "object", "required": []string{"order_id"}},
			"action": map[string]any{"type": "create_link", "url": "{{payload.url}}"}}
		a, b := h.create(t, "/automation/endpoints", body)["id"].(string), h.create(t, "/automation/endpoints", body)["id"].(string)
		ua := update{"/automation/endpoints/" + a, updateEndpointOp, map[string]any{"id": a}}
		ub := update{"/automation/endpoints/" + b, updateEndpointOp, map[string]any{"id": b}}
		for _, f := range []string{"name", "verification", "enabled"} {
			h.refusedAlike(t, ua, f)
		}
		// The same in a literal, which gqlgen reads apart from variables.
		_, r := h.post(t, `mutation($id: ID!) { updateAutomationEndpoint(id: $id, input: {name: null}) { secret } }`,
			map[string]any{"id": a}, withKey(h.key))
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "name" {
			t.Fatalf("name: null in a literal: %+v", r.Errors)
		}
		h.removedAlike(t, ua, ub, "schema", nil, "action")
		h.removedAlike(t, ua, ub, "action", nil, "verification")
	})
}

// A key without the update's scope is refused (403 over REST, FORBIDDEN over GraphQL)
// whatever it sends, a null the service would refuse included: GraphQL answered INVALID
// for a null name, subject or url, telling such a key the input's rules.
func TestUpdateNullNeedsTheScopeFirst(t *testing.T) {
	eachTransportsDialect(t, func(t *testing.T, h *twoTransports) {
		inst := h.connectedInstance(t)
		group := h.create(t, "/instances/"+inst+"/groups", map[string]any{"subject": "Launch", "participants": []string{"+15551230001"}})["id"].(string)
		hook := h.create(t, "/webhooks", map[string]any{"url": "https://hooks.example.com/switchboard", "event_types": []string{"*"}})["id"].(string)
		ep := h.create(t, "/automation/endpoints", map[string]any{"name": "Orders"})["id"].(string)
		_, reader := h.owner.NewKey(t, h.svc, domain.ScopeInstancesRead, domain.ScopeGroupsRead, domain.ScopeWebhooksRead,
			domain.ScopeAutomationRead)
		for _, c := range []struct {
			u     update
			field string
		}{
			{update{"/instances/" + inst, updateInstanceOp, map[string]any{"id": inst}}, "name"},
			{update{"/instances/" + inst + "/groups/" + group, updateGroupOp, map[string]any{"inst": inst, "id": group}}, "subject"},
			{update{"/webhooks/" + hook, updateWebhookOp, map[string]any{"id": hook}}, "url"},
			{update{"/automation/endpoints/" + ep, updateEndpointOp, map[string]any{"id": ep}}, "name"},
		} {
			status, out := h.rest(t, reader, "PATCH", c.u.path, `{"`+c.field+`":null}`)
			if e, _ := out["error"].(map[string]any); status != http.StatusForbidden || e["code"] != "insufficient_scope" {
				t.Errorf("REST %s %s: null: %d %v", c.u.path, c.field, status, out)
			}
			vars := map[string]any{"in": map[string]any{camel(c.field): nil}}
			for k, v := range c.u.vars {
				vars[k] = v
			}
			if _, r := h.post(t, c.u.mutation, vars, withKey(reader)); r.code(t) != "FORBIDDEN" {
				t.Errorf("GraphQL %s %s: null: %+v", c.u.path, c.field, r.Errors)
			}
		}
	})
}
