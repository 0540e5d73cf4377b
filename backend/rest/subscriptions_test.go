package rest_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/webhook"
)

// newDeliveringEnv is newEnv with deliveries running as the app runs them (a job engine
// with the webhook sender, on the real clock), and 127.0.0.1 allow-listed for registration
// and dialing, as an operator would for a local n8n.
func newDeliveringEnv(t *testing.T, d store.Dialect) *env {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, st := servicetest.New(t, d, service.Config{LastUsedFlush: time.Hour, TargetPolicy: ssrf.MustPolicy("127.0.0.1")})
	engine := jobs.New(st, jobs.Config{Logger: quiet})
	sender := webhook.New(st, svc.Webhooks, webhook.Config{Logger: quiet, Policy: ssrf.MustPolicy("127.0.0.1"), Workers: 4})
	engine.Register(sender.Kind())
	if err := engine.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(engine.Close)
	return newEnvOn(t, svc, st, newTestClock(), rest.Options{Clock: domain.SystemClock{}})
}

// zapReceiver is a workflow tool's hook URL: it records what it receives and answers with
// the status it is set to.
type zapReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	status   int
	requests []zapRequest
}

type zapRequest struct {
	header http.Header
	body   []byte
}

func newZapReceiver(t *testing.T) *zapReceiver {
	rc := &zapReceiver{status: http.StatusOK}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.requests = append(rc.requests, zapRequest{r.Header.Clone(), body})
		status := rc.status
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *zapReceiver) answer(status int) {
	rc.mu.Lock()
	rc.status = status
	rc.mu.Unlock()
}

func (rc *zapReceiver) received() []zapRequest {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.requests)
}

var newSubscription = map[string]any{
	"target_url":  "https://hooks.zapier.com/hooks/standard/1234567/abcdef0123456789/",
	"event_types": []string{"api_key.created"},
	"description": "Zap: new key",
}

// A workflow tool subscribes, receives a real event signed like a webhook (verified with the
// Standard Webhooks library) in the envelope the sample endpoint shows, and is unsubscribed
// when its target answers 410 Gone.
func TestSubscriptionJourney(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newDeliveringEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAutomationRead, domain.ScopeAutomationWrite, domain.ScopeEventsRead)
		rc := newZapReceiver(t)

		// The connection test, then the subscription.
		e.do("GET", "/api/v1/me", secret, nil).want(t, http.StatusOK)
		created := e.do("POST", "/api/v1/automation/subscriptions", secret, map[string]any{
			"target_url": rc.URL + "/zap", "event_types": []string{"api_key.created"}, "description": "Zap: new key",
		}).want(t, http.StatusCreated).json(t)
		id, _ := created["id"].(string)
		signing, _ := created["secret"].(string)
		if !strings.HasPrefix(id, "sub_") || !strings.HasPrefix(signing, "whsec_") || created["object"] != "automation_subscription" ||
			created["target_url"] != rc.URL+"/zap" || created["enabled"] != true || created["disabled_reason"] != nil {
			t.Fatalf("created: %v", created)
		}

		// Read back and listed, never with the secret.
		got := e.do("GET", "/api/v1/automation/subscriptions/"+id, secret, nil).want(t, http.StatusOK).json(t)
		delete(created, "secret")
		if mustJSON(got) != mustJSON(created) {
			t.Errorf("get %v\ncreate %v", got, created)
		}
		list := e.do("GET", "/api/v1/automation/subscriptions", secret, nil).want(t, http.StatusOK).json(t)
		if data := list["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != id || list["has_more"] != false {
			t.Errorf("list: %v", list)
		}

		// A real event: creating a key records api_key.created, delivered signed.
		e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)
		eventually(t, "the delivery of api_key.created", func() bool { return len(rc.received()) == 1 })
		delivered := rc.received()[0]
		wh, err := standardwebhooks.NewWebhook(signing)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(delivered.body, delivered.header); err != nil {
			t.Fatalf("the delivery does not verify with the subscription's secret: %v", err)
		}
		var live map[string]json.RawMessage
		if err := json.Unmarshal(delivered.body, &live); err != nil {
			t.Fatal(err)
		}
		if string(live["type"]) != `"api_key.created"` || delivered.header.Get("webhook-id") != unquote(live["id"]) {
			t.Errorf("delivered %s with webhook-id %s", delivered.body, delivered.header.Get("webhook-id"))
		}

		// The sample has the live envelope's keys, and its data the live data's keys.
		var samples []map[string]json.RawMessage
		raw := e.do("GET", "/api/v1/event-types/api_key.created/sample", secret, nil).want(t, http.StatusOK).body
		if err := json.Unmarshal(raw, &samples); err != nil || len(samples) != 1 {
			t.Fatalf("sample: %v: %s", err, raw)
		}
		if k, want := sortedKeys(samples[0]), sortedKeys(live); !slices.Equal(k, want) {
			t.Errorf("sample envelope keys %v, live %v", k, want)
		}
		var sampleData, liveData map[string]json.RawMessage
		_ = json.Unmarshal(samples[0]["data"], &sampleData)
		_ = json.Unmarshal(live["data"], &liveData)
		if k, want := sortedKeys(sampleData), sortedKeys(liveData); len(k) == 0 || !slices.Equal(k, want) {
			t.Errorf("sample data keys %v, live %v", k, want)
		}
		if string(samples[0]["workspace_id"]) != string(live["workspace_id"]) {
			t.Errorf("sample workspace %s, live %s", samples[0]["workspace_id"], live["workspace_id"])
		}

		// The target answers 410 Gone: the subscription is deleted, with an event that says why.
		rc.answer(http.StatusGone)
		e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)
		eventually(t, "the unsubscription", func() bool {
			return e.do("GET", "/api/v1/automation/subscriptions/"+id, secret, nil).StatusCode == http.StatusNotFound
		})
		e.do("GET", "/api/v1/automation/subscriptions/"+id, secret, nil).wantError(t, http.StatusNotFound, "not_found")
		if n := len(rc.received()); n != 2 {
			t.Errorf("%d requests to the target, want 2", n)
		}
		log := e.do("GET", "/api/v1/events?type=automation.subscription_created,automation.subscription_deleted", secret, nil).
			want(t, http.StatusOK).json(t)
		evs := log["data"].([]any)
		if len(evs) != 2 {
			t.Fatalf("subscription events: %v", evs)
		}
		gone := evs[0].(map[string]any) // newest first
		data := gone["data"].(map[string]any)
		if gone["type"] != "automation.subscription_deleted" || data["id"] != id || data["reason"] != "target_gone" {
			t.Errorf("deletion event: %v", gone)
		}
	})
}

// Unsubscribing through the API, and what each API sees: subscriptions and webhook
// endpoints live in one table, but neither API shows the other's.
func TestSubscriptionsAndWebhooksApart(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAutomationRead, domain.ScopeAutomationWrite,
			domain.ScopeWebhooksRead, domain.ScopeWebhooksWrite, domain.ScopeEventsRead)
		sub := e.do("POST", "/api/v1/automation/subscriptions", secret, newSubscription).want(t, http.StatusCreated).json(t)["id"].(string)
		hook := e.do("POST", "/api/v1/webhooks", secret, newHook).want(t, http.StatusCreated).json(t)["id"].(string)

		hooks := e.do("GET", "/api/v1/webhooks", secret, nil).want(t, http.StatusOK).json(t)["data"].([]any)
		if len(hooks) != 1 || hooks[0].(map[string]any)["id"] != hook {
			t.Errorf("webhooks list: %v", hooks)
		}
		subs := e.do("GET", "/api/v1/automation/subscriptions", secret, nil).want(t, http.StatusOK).json(t)["data"].([]any)
		if len(subs) != 1 || subs[0].(map[string]any)["id"] != sub {
			t.Errorf("subscriptions list: %v", subs)
		}
		e.do("GET", "/api/v1/webhooks/"+sub, secret, nil).wantError(t, http.StatusNotFound, "not_found")
		e.do("PATCH", "/api/v1/webhooks/"+sub, secret, map[string]any{"enabled": false}).wantError(t, http.StatusNotFound, "not_found")
		e.do("DELETE", "/api/v1/webhooks/"+sub, secret, nil).wantError(t, http.StatusNotFound, "not_found")
		e.do("GET", "/api/v1/webhooks/"+sub+"/deliveries", secret, nil).wantError(t, http.StatusNotFound, "not_found")
		e.do("GET", "/api/v1/automation/subscriptions/"+hook, secret, nil).wantError(t, http.StatusNotFound, "not_found")
		e.do("DELETE", "/api/v1/automation/subscriptions/"+hook, secret, nil).wantError(t, http.StatusNotFound, "not_found")

		del := e.do("DELETE", "/api/v1/automation/subscriptions/"+sub, secret, nil).want(t, http.StatusOK).json(t)
		if del["id"] != sub || del["deleted"] != true || del["object"] != "automation_subscription" {
			t.Errorf("deleted: %v", del)
		}
		e.do("GET", "/api/v1/automation/subscriptions/"+sub, secret, nil).wantError(t, http.StatusNotFound, "not_found")
		e.do("DELETE", "/api/v1/automation/subscriptions/"+sub, secret, nil).wantError(t, http.StatusNotFound, "not_found")
		e.do("GET", "/api/v1/webhooks/"+hook, secret, nil).want(t, http.StatusOK)

		log := e.do("GET", "/api/v1/events?type=automation.subscription_deleted", secret, nil).want(t, http.StatusOK).json(t)
		evs := log["data"].([]any)
		if len(evs) != 1 || evs[0].(map[string]any)["data"].(map[string]any)["reason"] != "unsubscribed" {
			t.Errorf("deletion events: %v", evs)
		}
	})
}

// Another workspace's subscription is invisible: 404 exactly like a missing one.
func TestSubscriptionsIsolation(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		other := servicetest.NewOwner(t, e.svc)
		_, mine := e.owner.NewKey(t, e.svc, domain.ScopeAutomationRead, domain.ScopeAutomationWrite)
		_, theirs := other.NewKey(t, e.svc, domain.ScopeAutomationRead, domain.ScopeAutomationWrite)
		id := e.do("POST", "/api/v1/automation/subscriptions", theirs, newSubscription).want(t, http.StatusCreated).json(t)["id"].(string)

		got := e.do("GET", "/api/v1/automation/subscriptions/"+id, mine, nil).wantError(t, http.StatusNotFound, "not_found")
		missing := e.do("GET", "/api/v1/automation/subscriptions/sub_01jr8d0c3b5n7q9s1u3w5y7a9c", mine, nil).
			wantError(t, http.StatusNotFound, "not_found")
		if got["message"] != missing["message"] {
			t.Errorf("another workspace's subscription is told apart from a missing one: %q vs %q", got["message"], missing["message"])
		}
		e.do("DELETE", "/api/v1/automation/subscriptions/"+id, mine, nil).wantError(t, http.StatusNotFound, "not_found")
		if data := e.do("GET", "/api/v1/automation/subscriptions", mine, nil).want(t, http.StatusOK).json(t)["data"].([]any); len(data) != 0 {
			t.Errorf("workspace A lists B's subscriptions: %v", data)
		}
		e.do("GET", "/api/v1/automation/subscriptions/"+id, theirs, nil).want(t, http.StatusOK) // still there
	})
}

// Each operation needs its scope; the sample, like the event types, any valid key.
func TestSubscriptionScopes(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, readOnly := e.owner.NewKey(t, e.svc, domain.ScopeAutomationRead)
		_, writeOnly := e.owner.NewKey(t, e.svc, domain.ScopeAutomationWrite)
		_, webhooks := e.owner.NewKey(t, e.svc, domain.ScopeWebhooksRead, domain.ScopeWebhooksWrite)
		const sub = "/api/v1/automation/subscriptions/sub_01jr8d0c3b5n7q9s1u3w5y7a9c"
		cases := []struct {
			method, path, secret, scope string
			body                        any
		}{
			{"POST", "/api/v1/automation/subscriptions", readOnly, "automation:write", newSubscription},
			{"POST", "/api/v1/automation/subscriptions", webhooks, "automation:write", newSubscription},
			{"DELETE", sub, readOnly, "automation:write", nil},
			{"GET", "/api/v1/automation/subscriptions", writeOnly, "automation:read", nil},
			{"GET", "/api/v1/automation/subscriptions", webhooks, "automation:read", nil},
			{"GET", sub, writeOnly, "automation:read", nil},
		}
		for _, c := range cases {
			got := e.do(c.method, c.path, c.secret, c.body).wantError(t, http.StatusForbidden, "insufficient_scope")
			if got["type"] != "permission_error" || !strings.Contains(got["message"].(string), c.scope) {
				t.Errorf("%s %s: want a permission_error naming %s, got %v", c.method, c.path, c.scope, got)
			}
		}
		if data := e.do("GET", "/api/v1/automation/subscriptions", readOnly, nil).want(t, http.StatusOK).json(t)["data"].([]any); len(data) != 0 {
			t.Errorf("refused creations were stored: %v", data)
		}
		e.do("GET", "/api/v1/event-types/api_key.created/sample", webhooks, nil).want(t, http.StatusOK)
		e.do("GET", "/api/v1/event-types/api_key.created/sample", "", nil).wantError(t, http.StatusUnauthorized, "missing_api_key")
		e.do("GET", "/api/v1/automation/subscriptions", "", nil).wantError(t, http.StatusUnauthorized, "missing_api_key")
	})
}

// Bad input is 400 naming the field, and stores nothing.
func TestSubscriptionBadInput(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAutomationRead, domain.ScopeAutomationWrite)
		with := func(k string, v any) map[string]any {
			m := maps.Clone(newSubscription)
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
			return m
		}
		cases := []struct {
			name  string
			body  any
			param string
		}{
			{"no target", with("target_url", nil), "target_url"},
			{"empty target", with("target_url", " "), "target_url"},
			{"not http", with("target_url", "ftp://hooks.example.com/zap"), "target_url"},
			{"relative", with("target_url", "/zap"), "target_url"},
			{"credentials", with("target_url", "https://user:pw@hooks.example.com/zap"), "target_url"},
			{"loopback", with("target_url", "http://127.0.0.1:5678/webhook"), "target_url"},
			{"private", with("target_url", "http://10.0.0.7/webhook"), "target_url"},
			{"metadata", with("target_url", "http://169.254.169.254/latest/meta-data/"), "target_url"},
			{"loopback spelled as a number", with("target_url", "http://2130706433/"), "target_url"},
			{"too long", with("target_url", "https://hooks.example.com/"+strings.Repeat("a", 2048)), "target_url"},
			{"no event types", with("event_types", nil), "event_types"},
			{"empty event types", with("event_types", []string{}), "event_types"},
			{"unknown event type", with("event_types", []string{"link.exploded"}), "event_types"},
			{"the test event", with("event_types", []string{"webhook.test"}), "event_types"},
			{"event types not a list", with("event_types", "api_key.created"), "event_types"},
			{"description too long", with("description", strings.Repeat("x", 501)), "description"},
			{"unknown field", with("url", "https://hooks.example.com/zap"), "url"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				got := e.do("POST", "/api/v1/automation/subscriptions", secret, c.body).wantError(t, http.StatusBadRequest, "validation_failed")
				if got["param"] != c.param {
					t.Errorf("param %v, want %s (%v)", got["param"], c.param, got["message"])
				}
			})
		}
		if data := e.do("GET", "/api/v1/automation/subscriptions", secret, nil).want(t, http.StatusOK).json(t)["data"].([]any); len(data) != 0 {
			t.Fatalf("refused subscriptions were stored: %v", data)
		}
		e.do("GET", "/api/v1/automation/subscriptions?after=wh_01jr8d0c3b5n7q9s1u3w5y7a9c", secret, nil).
			wantError(t, http.StatusBadRequest, "validation_failed")

		// "*" subscribes to every type (and stands alone).
		all := e.do("POST", "/api/v1/automation/subscriptions", secret, with("event_types", []string{"api_key.created", "*"})).
			want(t, http.StatusCreated).json(t)
		if mustJSON(all["event_types"]) != `["*"]` {
			t.Errorf("event_types %v", all["event_types"])
		}
	})
}

// Subscriptions have their own cap, apart from webhook endpoints'.
func TestSubscriptionLimit(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAutomationRead, domain.ScopeAutomationWrite, domain.ScopeWebhooksWrite)
	for i := 0; i < service.MaxSubscriptionsPerWorkspace; i++ {
		e.do("POST", "/api/v1/automation/subscriptions", secret, newSubscription).want(t, http.StatusCreated)
	}
	e.do("POST", "/api/v1/automation/subscriptions", secret, newSubscription).wantError(t, http.StatusBadRequest, "subscription_limit_reached")
	e.do("POST", "/api/v1/webhooks", secret, newHook).want(t, http.StatusCreated)
	page := e.do("GET", "/api/v1/automation/subscriptions?limit=100", secret, nil).want(t, http.StatusOK).json(t)
	if n := len(page["data"].([]any)); n != service.MaxSubscriptionsPerWorkspace || page["has_more"] != false {
		t.Errorf("one page of %d, has_more %v", n, page["has_more"])
	}
}

// The sample is a list of one event in the live envelope, in the caller's workspace, with
// the type's catalog sample as data.
func TestEventTypeSample(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)
		catalog := e.do("GET", "/api/v1/event-types", secret, nil).want(t, http.StatusOK).json(t)["data"].([]any)
		if len(catalog) == 0 {
			t.Fatal("no event types")
		}
		for _, item := range catalog {
			typ := item.(map[string]any)
			var got []map[string]any
			raw := e.do("GET", "/api/v1/event-types/"+typ["type"].(string)+"/sample", secret, nil).want(t, http.StatusOK).body
			if err := json.Unmarshal(raw, &got); err != nil || len(got) != 1 {
				t.Fatalf("%s: %v: %s", typ["type"], err, raw)
			}
			ev := got[0]
			if k := sortedKeys(ev); !slices.Equal(k, []string{"data", "id", "timestamp", "type", "workspace_id"}) {
				t.Errorf("%s: envelope keys %v", typ["type"], k)
			}
			if ev["type"] != typ["type"] || ev["workspace_id"] != e.owner.Workspace.ID || !strings.HasPrefix(ev["id"].(string), "evt_") ||
				mustJSON(ev["data"]) != mustJSON(typ["sample"]) {
				t.Errorf("%s: sample %v, catalog %v", typ["type"], ev, typ)
			}
			// An inbound call's id is its event's, in samples as live: a Zap that keys on
			// data.id finds the same value as the envelope's.
			if typ["type"] == domain.EventAutomationPublished {
				if data := ev["data"].(map[string]any); data["id"] != ev["id"] {
					t.Errorf("automation.published sample: data.id %v, envelope id %v", data["id"], ev["id"])
				}
			}
		}
		e.do("GET", "/api/v1/event-types/no.such/sample", secret, nil).wantError(t, http.StatusNotFound, "not_found")
	})
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func unquote(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
