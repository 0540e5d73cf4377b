package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

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
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/webhook"
)

// newAutomationEnv is newEnv with the automation surface as the app wires it: messaging,
// links and a running job engine (action runs, sends), on the real clock.
func newAutomationEnv(t *testing.T, d store.Dialect) *env {
	t.Helper()
	svc, st := servicetest.New(t, d, service.Config{LastUsedFlush: time.Hour})
	msg := messaging.New(svc, channels.NewRegistry(sandbox.New()), messaging.Config{})
	lnk := links.New(svc, links.Config{ShortBase: baseURL + "/l"})
	lnk.Start()
	t.Cleanup(lnk.Close)
	auto := automation.New(svc, msg, lnk, automation.Config{HooksBase: baseURL + "/hooks", Policy: ssrf.MustPolicy("127.0.0.1")})
	engine := jobs.New(st, jobs.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	for _, k := range msg.Kinds(messaging.DefaultWorkers) {
		engine.Register(k)
	}
	engine.Register(auto.Kind(4))
	if err := engine.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(engine.Close)
	return newEnvOn(t, svc, st, newTestClock(), rest.Options{Messaging: msg, Links: lnk, Automation: auto,
		Clock: domain.SystemClock{}, RateLimit: 1e6, Burst: 1e6})
}

// publish posts body to an endpoint's public URL (headers: name, value pairs).
func (e *env) publish(t *testing.T, url, contentType string, body []byte, headers ...string) (int, map[string]any, http.Header) {
	t.Helper()
	path := strings.TrimPrefix(url, baseURL)
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+path, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return res.StatusCode, out, res.Header
}

func errCode(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func TestPublishingEndpoint(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		ep := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Orders"}).want(t, 201).json(t)
		url := ep["url"].(string)
		if !strings.HasPrefix(url, baseURL+"/hooks/") || len(strings.TrimPrefix(url, baseURL+"/hooks/")) < 22 || ep["secret"] != nil {
			t.Fatalf("created %v", ep)
		}
		id := ep["id"].(string)

		status, out, _ := e.publish(t, url, "application/json", []byte(`{"order_id":"A-1","total":12.5}`))
		if status != 202 || !strings.HasPrefix(out["id"].(string), "evt_") {
			t.Fatalf("publish: %d %v", status, out)
		}
		callID := out["id"].(string)
		calls := e.do("GET", "/api/v1/automation/endpoints/"+id+"/calls", secret, nil).want(t, 200).json(t)["data"].([]any)
		if len(calls) != 1 || calls[0].(map[string]any)["payload"].(map[string]any)["order_id"] != "A-1" {
			t.Fatalf("calls %v", calls)
		}
		ev := e.do("GET", "/api/v1/events/"+callID, secret, nil).want(t, 200).json(t)
		if ev["type"] != "automation.published" || ev["data"].(map[string]any)["payload"].(map[string]any)["total"] != 12.5 {
			t.Fatalf("event %v", ev)
		}

		// A retried call (same Idempotency-Key, or same webhook-id) is one call.
		_, first, _ := e.publish(t, url, "application/json", []byte(`{"n":1}`), "Idempotency-Key", "k-1")
		status, again, h := e.publish(t, url, "application/json", []byte(`{"n":1}`), "Idempotency-Key", "k-1")
		if status != 202 || again["id"] != first["id"] || h.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay: %d %v %v", status, again, first)
		}
		if status, out, _ := e.publish(t, url, "application/json", []byte(`{"n":99}`), "Idempotency-Key", "k-1"); status != 409 || errCode(out) != "idempotency_conflict" {
			t.Fatalf("same key, another payload: %d %v", status, out)
		}
		// The same payload re-encoded by the sender (spacing, key order, escapes) is the same.
		if status, out, _ := e.publish(t, url, "application/json", []byte(` { "n" : 1 } `), "Idempotency-Key", "k-1"); status != 202 || out["id"] != first["id"] {
			t.Fatalf("the same payload re-encoded: %d %v", status, out)
		}
		_, w1, _ := e.publish(t, url, "application/json", []byte(`{"n":2,"s":"é"}`), "webhook-id", "msg_1")
		_, w2, _ := e.publish(t, url, "application/json", []byte(`{"s":"\u00e9", "n":2}`), "webhook-id", "msg_1")
		if w1["id"] != w2["id"] {
			t.Fatal("a retried webhook-id made two calls")
		}
		// A conflict names the header the key came in.
		if status, out, _ := e.publish(t, url, "application/json", []byte(`{"n":3}`), "webhook-id", "msg_1"); status != 409 ||
			errCode(out) != "idempotency_conflict" || out["error"].(map[string]any)["param"] != "webhook-id" {
			t.Fatalf("same webhook-id, another payload: %d %v", status, out)
		}
		// A form becomes an object.
		status, form, _ := e.publish(t, url, "application/x-www-form-urlencoded", []byte("name=Ada&tag=a&tag=b"))
		if status != 202 {
			t.Fatalf("form: %d %v", status, form)
		}
		calls = e.do("GET", "/api/v1/automation/endpoints/"+id+"/calls?limit=1", secret, nil).want(t, 200).json(t)["data"].([]any)
		if p := calls[0].(map[string]any)["payload"].(map[string]any); p["name"] != "Ada" || len(p["tag"].([]any)) != 2 {
			t.Fatalf("form payload %v", p)
		}
		if n := len(e.do("GET", "/api/v1/automation/endpoints/"+id+"/calls", secret, nil).json(t)["data"].([]any)); n != 4 {
			t.Fatalf("%d calls, want 4", n)
		}

		// Refusals store nothing.
		for _, c := range []struct {
			ct     string
			body   []byte
			status int
			code   string
		}{
			{"application/json", []byte(`{"broken"`), 400, "validation_failed"},
			{"text/plain", []byte(`hello`), 415, "unsupported_media_type"},
			{"application/x-www-form-urlencoded", []byte("name=Ad%E9"), 400, "validation_failed"}, // Latin-1 é: not UTF-8
			{"application/json", append(append([]byte(`{"x":"`), bytes.Repeat([]byte("a"), 1<<20)...), '"', '}'), 413, "payload_too_large"},
		} {
			if status, out, _ := e.publish(t, url, c.ct, c.body); status != c.status || errCode(out) != c.code {
				t.Errorf("%s: %d %v, want %d %s", c.ct, status, out, c.status, c.code)
			}
		}
		if n := len(e.do("GET", "/api/v1/automation/endpoints/"+id+"/calls", secret, nil).json(t)["data"].([]any)); n != 4 {
			t.Fatalf("%d calls after refusals, want 4", n)
		}
		// HTML counts at its size: "<", ">" and "&" are kept as they are in the event, not as
		// six-byte escapes (which made 60 KB of HTML a 350 KB event, refused).
		html := []byte(`{"html":"` + strings.Repeat("<p>a & b</p>", 12_000) + `"}`) // 144 KB
		status, out, _ = e.publish(t, url, "application/json", html)
		if status != 202 {
			t.Fatalf("144 KB of HTML: %d %v", status, out)
		}
		raw := e.do("GET", "/api/v1/events/"+out["id"].(string), secret, nil).want(t, 200).body
		if !bytes.Contains(raw, []byte(`"html":"<p>a & b</p><p>`)) || len(raw) > len(html)+2000 {
			t.Fatalf("the event of an HTML payload (%d bytes): %.200s", len(raw), raw)
		}
		if status, out, _ := e.publish(t, baseURL+"/hooks/nope", "application/json", []byte(`{}`)); status != 404 || errCode(out) != "not_found" {
			t.Fatalf("unknown token: %d %v", status, out)
		}
		res, err := http.Get(e.srv.URL + strings.TrimPrefix(url, baseURL))
		if err != nil || res.StatusCode != 405 {
			t.Fatalf("GET: %v %v", err, res.StatusCode)
		}

		// Rotating the token retires the old URL at once; disabling or deleting answers 404.
		rotated := e.do("POST", "/api/v1/automation/endpoints/"+id+"/rotate-token", secret, nil).want(t, 200).json(t)
		if status, _, _ := e.publish(t, url, "application/json", []byte(`{}`)); status != 404 {
			t.Fatalf("old URL after rotation: %d", status)
		}
		newURL := rotated["url"].(string)
		if status, _, _ := e.publish(t, newURL, "application/json", []byte(`{}`)); status != 202 {
			t.Fatalf("new URL: %d", status)
		}
		// Endpoint events never carry the token (they reach every webhook and events:read key).
		for _, ev := range e.do("GET", "/api/v1/events?type=automation.endpoint_created,automation.endpoint_updated", secret, nil).
			want(t, 200).json(t)["data"].([]any) {
			if u := ev.(map[string]any)["data"].(map[string]any)["url"]; u != baseURL+"/hooks/{token}" {
				t.Fatalf("an endpoint event shows the url %v", u)
			}
		}
		e.do("PATCH", "/api/v1/automation/endpoints/"+id, secret, map[string]any{"enabled": false}).want(t, 200)
		if status, _, _ := e.publish(t, newURL, "application/json", []byte(`{}`)); status != 404 {
			t.Fatalf("disabled: %d", status)
		}
		e.do("POST", "/api/v1/automation/endpoints/"+id+"/test", secret, map[string]any{"payload": map[string]any{}}).
			wantError(t, 409, "endpoint_disabled")
		e.do("DELETE", "/api/v1/automation/endpoints/"+id, secret, nil).want(t, 200)
		e.do("GET", "/api/v1/automation/endpoints/"+id, secret, nil).wantError(t, 404, "not_found")
	})
}

func TestPublishingVerification(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAutomationRead, domain.ScopeAutomationWrite)
	sw := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Signed", "verification": "standard_webhooks"}).
		want(t, 201).json(t)
	whsec, _ := sw["secret"].(string)
	if !strings.HasPrefix(whsec, "whsec_") {
		t.Fatalf("created %v", sw)
	}
	if got := e.do("GET", "/api/v1/automation/endpoints/"+sw["id"].(string), secret, nil).json(t); got["secret"] != nil {
		t.Fatal("the secret is shown once")
	}
	body := []byte(`{"event":"order.paid"}`)
	signed := func(key string, at time.Time) []string {
		sig, err := webhook.Sign([]string{key}, "msg_abc", at, body)
		if err != nil {
			t.Fatal(err)
		}
		return []string{"webhook-id", "msg_abc", "webhook-timestamp", itoa(at.Unix()), "webhook-signature", sig}
	}
	url := sw["url"].(string)
	if status, out, _ := e.publish(t, url, "application/json", body, signed(whsec, e.clock.Now())...); status != 202 {
		t.Fatalf("signed: %d %v", status, out)
	}
	for what, h := range map[string][]string{
		"unsigned":      nil,
		"another key":   signed("whsec_"+strings.Repeat("A", 32), e.clock.Now()),
		"an hour early": signed(whsec, e.clock.Now().Add(-time.Hour)),
	} {
		if status, out, _ := e.publish(t, url, "application/json", body, h...); status != 401 || errCode(out) != "invalid_signature" {
			t.Errorf("%s: %d %v", what, status, out)
		}
	}
	rot := e.do("POST", "/api/v1/automation/endpoints/"+sw["id"].(string)+"/rotate-secret", secret, nil).want(t, 200).json(t)
	if status, _, _ := e.publish(t, url, "application/json", body, signed(whsec, e.clock.Now())...); status != 401 {
		t.Fatalf("the old secret after rotation: %d", status)
	}
	if status, _, _ := e.publish(t, url, "application/json", body, signed(rot["secret"].(string), e.clock.Now())...); status != 202 {
		t.Fatalf("the new secret: %d", status)
	}

	ht := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Token", "verification": "header_token"}).
		want(t, 201).json(t)
	tok := ht["secret"].(string)
	if status, _, _ := e.publish(t, ht["url"].(string), "application/json", body, "X-Switchboard-Token", tok); status != 202 {
		t.Fatalf("header token: %d", status)
	}
	if status, out, _ := e.publish(t, ht["url"].(string), "application/json", body, "X-Switchboard-Token", tok+"x"); status != 401 || errCode(out) != "invalid_token" {
		t.Fatalf("wrong header token: %d %v", status, out)
	}
	plain := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Open"}).want(t, 201).json(t)
	e.do("POST", "/api/v1/automation/endpoints/"+plain["id"].(string)+"/rotate-secret", secret, nil).wantError(t, 409, "no_verification")
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestPublishingSchema(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	schema := map[string]any{"type": "object", "required": []string{"order_id"}, "properties": map[string]any{
		"order_id": map[string]any{"type": "string"},
		"customer": map[string]any{"type": "object", "properties": map[string]any{"phone": map[string]any{"type": "string", "pattern": "^\\+[0-9]+$"}}},
	}}
	ep := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Typed", "schema": schema}).want(t, 201).json(t)
	url := ep["url"].(string)
	if status, _, _ := e.publish(t, url, "application/json", []byte(`{"order_id":"A-1","customer":{"phone":"+1555"}}`)); status != 202 {
		t.Fatalf("valid: %d", status)
	}
	status, out, _ := e.publish(t, url, "application/json", []byte(`{"order_id":"A-1","customer":{"phone":"call me"}}`))
	if status != 422 || errCode(out) != "schema_mismatch" || out["error"].(map[string]any)["param"] != "/customer/phone" {
		t.Fatalf("bad phone: %d %v", status, out)
	}
	if status, out, _ := e.publish(t, url, "application/json", []byte(`{"customer":{}}`)); status != 422 || errCode(out) != "schema_mismatch" {
		t.Fatalf("missing order_id: %d %v", status, out)
	}
	bad := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Bad", "schema": map[string]any{"type": 12}}).
		wantError(t, 400, "validation_failed")
	// It says what is wrong and where, without a server path, the URL the schema is compiled
	// under or the validator's nesting.
	if msg := bad["message"].(string); strings.Contains(msg, "file:") || strings.Contains(msg, "switchboard.invalid") ||
		strings.Contains(msg, "metaschema") || strings.Contains(msg, "\n") || !strings.Contains(msg, "at '/type'") {
		t.Fatalf("the refusal: %q", msg)
	}
	e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Remote", "schema": map[string]any{"$ref": "https://example.com/s.json"}}).
		wantError(t, 400, "validation_failed")
}

func TestActionRuns(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newAutomationEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		inst := e.connectedInstance(t, secret, "Shop")

		var mu sync.Mutex
		var forwarded []*http.Request
		var forwardedBody []string
		target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			forwarded, forwardedBody = append(forwarded, r), append(forwardedBody, string(b))
			mu.Unlock()
			w.WriteHeader(204)
		}))
		defer target.Close()

		mk := func(name string, action map[string]any) (string, string) {
			ep := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": name, "action": action}).want(t, 201).json(t)
			return ep["id"].(string), ep["url"].(string)
		}
		waitRun := func(id string) map[string]any {
			t.Helper()
			var run map[string]any
			eventually(t, "a finished run of "+id, func() bool {
				runs := e.do("GET", "/api/v1/automation/endpoints/"+id+"/runs", secret, nil).want(t, 200).json(t)["data"].([]any)
				if len(runs) == 0 {
					return false
				}
				run = runs[0].(map[string]any)
				return run["status"] != "queued"
			})
			return run
		}
		payload := []byte(`{"order_id":"A-7","customer":{"phone":"+15557654321","name":"Ada"},"url":"https://example.com/track/A-7"}`)

		sendID, sendURL := mk("Send", map[string]any{"type": "send_message", "instance_id": inst["id"],
			"to": "{{payload.customer.phone}}", "text": "Hi {{payload.customer.name}}, order {{payload.order_id}} shipped"})
		e.publish(t, sendURL, "application/json", payload)
		run := waitRun(sendID)
		msgID, _ := run["output"].(map[string]any)["message_id"].(string)
		if run["status"] != "succeeded" || msgID == "" || run["input"].(map[string]any)["text"] != "Hi Ada, order A-7 shipped" {
			t.Fatalf("send run %v", run)
		}
		m := e.do("GET", "/api/v1/instances/"+inst["id"].(string)+"/messages/"+msgID, secret, nil).want(t, 200).json(t)
		if m["to"] != "+15557654321" || m["text"] != "Hi Ada, order A-7 shipped" {
			t.Fatalf("message %v", m)
		}

		linkID, linkURL := mk("Link", map[string]any{"type": "create_link", "url": "{{payload.url}}", "slug": "track-{{payload.order_id}}",
			"metadata": map[string]any{"order": "{{payload.order_id}}"}})
		e.publish(t, linkURL, "application/json", payload)
		run = waitRun(linkID)
		if run["status"] != "succeeded" || run["output"].(map[string]any)["short_url"] != baseURL+"/l/track-A-7" {
			t.Fatalf("link run %v", run)
		}
		e.do("GET", "/api/v1/links/"+run["output"].(map[string]any)["link_id"].(string), secret, nil).want(t, 200)

		// The replica that ran it died before the job's own outcome was written: the job runs
		// again, finds the run recorded, and does nothing (no second link, no second event).
		runID := run["id"].(string)
		if err := e.store.Tx(context.Background(), func(tx *store.Tx) error {
			return jobs.Enqueue(context.Background(), tx, e.clock.Now(),
				jobs.NewJob{ID: runID, Kind: domain.JobAutomationAction, Payload: "{}", MaxAttempts: 6})
		}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the job run again to be done", func() bool {
			_, err := e.store.Job(context.Background(), runID)
			return domain.IsCode(err, domain.CodeNotFound)
		})
		if again := waitRun(linkID); again["status"] != "succeeded" || again["updated_at"] != run["updated_at"] {
			t.Fatalf("run after its job ran again: %v", again)
		}

		fwdID, fwdURL := mk("Forward", map[string]any{"type": "forward", "target_url": target.URL + "/in"})
		_, call, _ := e.publish(t, fwdURL, "application/json", payload)
		run = waitRun(fwdID)
		mu.Lock()
		if run["status"] != "succeeded" || len(forwarded) != 1 || forwardedBody[0] != string(payload) ||
			forwarded[0].Header.Get("Idempotency-Key") != call["id"] {
			t.Fatalf("forward run %v, received %v", run, forwardedBody)
		}
		mu.Unlock()

		// A template reading a field the payload lacks fails the run, saying which; nothing is sent.
		missID, missURL := mk("Missing", map[string]any{"type": "send_message", "instance_id": inst["id"],
			"to": "{{payload.customer.phone}}", "text": "Your code is {{payload.code}}"})
		e.publish(t, missURL, "application/json", payload)
		run = waitRun(missID)
		if run["status"] != "failed" || !strings.Contains(run["error"].(string), "payload.code") || run["output"] != nil {
			t.Fatalf("missing field run %v", run)
		}
		failed := e.do("GET", "/api/v1/events?type=automation.action_failed", secret, nil).want(t, 200).json(t)["data"].([]any)
		ok := e.do("GET", "/api/v1/events?type=automation.action_succeeded", secret, nil).want(t, 200).json(t)["data"].([]any)
		if len(failed) != 1 || len(ok) != 3 {
			t.Fatalf("%d failed and %d succeeded events, want 1 and 3", len(failed), len(ok))
		}

		samplesMatchLive(t, e, secret, domain.EventAutomationPublished, domain.EventAutomationActionSucceeded,
			domain.EventAutomationActionFailed, domain.EventAutomationEndpointCreated)

		// The same order again: its slug is taken now, so the create_link run fails, saying
		// why, and its transaction keeps nothing (the link and the run commit together).
		e.publish(t, linkURL, "application/json", payload)
		run = waitRun(linkID)
		if run["status"] != "failed" || !strings.Contains(run["error"].(string), "slug") || run["output"] != nil {
			t.Fatalf("second link run %v", run)
		}
		if links := e.do("GET", "/api/v1/links?search=track-A-7", secret, nil).want(t, 200).json(t)["data"].([]any); len(links) != 1 {
			t.Fatalf("%d links for track-A-7, want 1", len(links))
		}

		// Actions that could never run are refused when configured.
		other := servicetest.NewOwner(t, e.svc)
		_, otherSecret := other.NewKey(t, e.svc, domain.ScopeAll)
		theirs := e.do("POST", "/api/v1/instances", otherSecret, map[string]any{"name": "Theirs"}).want(t, 201).json(t)
		for _, c := range []struct {
			action map[string]any
			param  string
		}{
			{map[string]any{"type": "delete_everything"}, "action.type"},
			{map[string]any{"type": "send_message", "instance_id": theirs["id"], "to": "+15551234567", "text": "x"}, "action.instance_id"},
			{map[string]any{"type": "send_message", "instance_id": inst["id"], "to": "{{secrets.key}}", "text": "x"}, "action.to"},
			{map[string]any{"type": "send_message", "instance_id": inst["id"], "to": "+15551234567"}, "action.text"},
			{map[string]any{"type": "create_link", "url": "{{payload.url"}, "action.url"},
			{map[string]any{"type": "forward", "target_url": "http://10.0.0.1/in"}, "action.target_url"},
			{map[string]any{"type": "forward", "target_url": target.URL, "text": "x"}, "action.text"},
			{map[string]any{"type": "forward", "target_url": target.URL + "/{{payload.path}}"}, "action.target_url"},
		} {
			got := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "x", "action": c.action}).
				wantError(t, 400, "validation_failed")
			if got["param"] != c.param {
				t.Errorf("%v: param %v, want %s", c.action, got["param"], c.param)
			}
		}
	})
}

// Another workspace's endpoints are not found; a key without the scope is refused.
func TestAutomationIsolationAndScopes(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	id := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Mine"}).want(t, 201).json(t)["id"].(string)
	other := servicetest.NewOwner(t, e.svc)
	_, otherSecret := other.NewKey(t, e.svc, domain.ScopeAll)
	base := "/api/v1/automation/endpoints/" + id
	for _, r := range []struct{ method, path string }{{"GET", base}, {"GET", base + "/calls"}, {"GET", base + "/runs"},
		{"DELETE", base}, {"POST", base + "/rotate-token"}, {"POST", base + "/rotate-secret"}} {
		e.do(r.method, r.path, otherSecret, nil).wantError(t, 404, "not_found")
	}
	e.do("PATCH", base, otherSecret, map[string]any{"name": "x"}).wantError(t, 404, "not_found")
	e.do("POST", base+"/test", otherSecret, map[string]any{"payload": map[string]any{}}).wantError(t, 404, "not_found")
	if data := e.do("GET", "/api/v1/automation/endpoints", otherSecret, nil).json(t)["data"].([]any); len(data) != 0 {
		t.Fatalf("the other workspace lists %v", data)
	}
	_, readOnly := e.owner.NewKey(t, e.svc, domain.ScopeAutomationRead)
	e.do("POST", "/api/v1/automation/endpoints", readOnly, map[string]any{"name": "x"}).wantError(t, 403, "insufficient_scope")
	e.do("PATCH", base, readOnly, map[string]any{"name": "x"}).wantError(t, 403, "insufficient_scope")
	e.do("DELETE", base, readOnly, nil).wantError(t, 403, "insufficient_scope")
	e.do("POST", base+"/test", readOnly, map[string]any{"payload": map[string]any{}}).wantError(t, 403, "insufficient_scope")
	// An action acts with the endpoint's authority: configuring one takes the scope it needs.
	_, autoOnly := e.owner.NewKey(t, e.svc, domain.ScopeAutomationRead, domain.ScopeAutomationWrite)
	e.do("POST", "/api/v1/automation/endpoints", autoOnly, map[string]any{"name": "x",
		"action": map[string]any{"type": "create_link", "url": "{{payload.url}}"}}).wantError(t, 403, "insufficient_scope")
	e.do("PATCH", base, autoOnly, map[string]any{"action": map[string]any{"type": "create_link", "url": "{{payload.url}}"}}).
		wantError(t, 403, "insufficient_scope")
	e.do("POST", "/api/v1/automation/endpoints", autoOnly, map[string]any{"name": "x",
		"action": map[string]any{"type": "forward", "target_url": "https://example.com/in"}}).want(t, 201)
	// Nor can such a key make an endpoint that already runs the action run it for the key:
	// no new URL or secret, no switching verification off, no test call. Deleting it is fine.
	linker := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Links", "verification": "header_token",
		"action": map[string]any{"type": "create_link", "url": "{{payload.url}}"}}).want(t, 201).json(t)["id"].(string)
	lbase := "/api/v1/automation/endpoints/" + linker
	for _, c := range []struct {
		path string
		body any
	}{{"/rotate-token", nil}, {"/rotate-secret", nil}, {"/test", map[string]any{"payload": map[string]any{"url": "https://example.com"}}}} {
		e.do("POST", lbase+c.path, autoOnly, c.body).wantError(t, 403, "insufficient_scope")
	}
	e.do("PATCH", lbase, autoOnly, map[string]any{"verification": "none"}).wantError(t, 403, "insufficient_scope")
	if got := e.do("GET", lbase, secret, nil).want(t, 200).json(t); got["verification"] != "header_token" {
		t.Fatalf("the refused PATCH changed the endpoint: %v", got)
	}
	// The URL lets anyone publish: only a key that could change the endpoint reads it.
	for key, want := range map[string]bool{secret: true, autoOnly: false, readOnly: false} {
		got := e.do("GET", lbase, key, nil).want(t, 200).json(t)["url"].(string)
		listed := e.do("GET", "/api/v1/automation/endpoints", key, nil).want(t, 200).json(t)["data"].([]any)
		var inList string
		for _, it := range listed {
			if it.(map[string]any)["id"] == linker {
				inList = it.(map[string]any)["url"].(string)
			}
		}
		if hidden := strings.HasSuffix(got, "/{token}") && strings.HasSuffix(inList, "/{token}"); hidden == want {
			t.Errorf("url read by a key (may read it: %v): %q, listed %q", want, got, inList)
		}
	}
	if got := e.do("GET", base, autoOnly, nil).want(t, 200).json(t)["url"].(string); strings.HasSuffix(got, "{token}") {
		t.Errorf("an endpoint without a scoped action hides its url from an automation:write key: %q", got)
	}
	e.do("DELETE", lbase, autoOnly, nil).want(t, 200)
	_, none := e.owner.NewKey(t, e.svc, domain.ScopeLinksRead)
	for _, p := range []string{"/api/v1/automation/endpoints", base, base + "/calls", base + "/runs"} {
		e.do("GET", p, none, nil).wantError(t, 403, "insufficient_scope")
	}
	// The test call publishes like a real one, without the verification.
	if got := e.do("POST", base+"/test", secret, map[string]any{"payload": map[string]any{"hello": "world"}}).want(t, 202).json(t); !strings.HasPrefix(got["id"].(string), "evt_") {
		t.Fatalf("test %v", got)
	}
}

// Calls arriving together are stored together (group commit) and each 202 still means one
// stored call with its event and, for an endpoint with an action, its run; a keyed retry
// among them is answered from the first, and a bad call among them fails alone.
func TestConcurrentCallsEachStored(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newAutomationEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
		defer target.Close()
		plain := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Plain"}).want(t, 201).json(t)
		fwd := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Fwd",
			"action": map[string]any{"type": "forward", "target_url": target.URL}}).want(t, 201).json(t)

		const n = 120
		ids := make([]string, n)
		codes := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				url, body, headers := plain["url"].(string), fmt.Sprintf(`{"n":%d}`, i), []string{}
				switch {
				case i%2 == 1:
					url = fwd["url"].(string)
				case i%10 == 0:
					headers = []string{"Idempotency-Key", "same-key"} // one stored, the rest replayed
					body = `{"n":"keyed"}`
				case i == 4:
					body = `{"n": broken`
				}
				code, out, _ := e.publish(t, url, "application/json", []byte(body), headers...)
				codes[i] = code
				ids[i], _ = out["id"].(string)
			}()
		}
		wg.Wait()
		keyed := map[string]bool{}
		accepted := 0
		for i, code := range codes {
			switch {
			case i == 4:
				if code != 400 {
					t.Fatalf("the broken call: %d", code)
				}
			case code != 202:
				t.Fatalf("call %d: %d", i, code)
			case i%2 == 0 && i%10 == 0:
				keyed[ids[i]] = true
			default:
				accepted++
			}
		}
		if len(keyed) != 1 {
			t.Fatalf("a keyed call stored %d times: %v", len(keyed), keyed)
		}
		count := func(path string) int {
			total, after := 0, ""
			for {
				res := e.do("GET", path+"?limit=100&after="+after, secret, nil).want(t, 200).json(t)
				data := res["data"].([]any)
				total += len(data)
				if res["has_more"] != true {
					return total
				}
				after = res["next_cursor"].(string)
			}
		}
		calls := count("/api/v1/automation/endpoints/"+plain["id"].(string)+"/calls") +
			count("/api/v1/automation/endpoints/"+fwd["id"].(string)+"/calls")
		if calls != accepted+1 {
			t.Fatalf("%d calls stored, want %d", calls, accepted+1)
		}
		if runs := count("/api/v1/automation/endpoints/" + fwd["id"].(string) + "/runs"); runs != n/2 {
			t.Fatalf("%d runs, want %d", runs, n/2)
		}
		published := 0
		after := ""
		for {
			res := e.do("GET", "/api/v1/events?type=automation.published&limit=100&after="+after, secret, nil).want(t, 200).json(t)
			data := res["data"].([]any)
			published += len(data)
			if res["has_more"] != true {
				break
			}
			after = res["next_cursor"].(string)
		}
		if published != accepted+1 {
			t.Fatalf("%d automation.published events, want %d", published, accepted+1)
		}
	})
}

// PATCH removes the schema or the action with null, as documented (and as GraphQL's
// updateAutomationEndpoint does), and refuses null for what an endpoint cannot be without.
func TestEndpointPatchNull(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		ep := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Orders",
			"schema": map[string]any{"type": "object", "required": []string{"order_id"}},
			"action": map[string]any{"type": "forward", "target_url": "https://example.com/orders"}}).want(t, 201).json(t)
		id, url := ep["id"].(string), ep["url"].(string)
		if status, out, _ := e.publish(t, url, "application/json", []byte(`{"x":1}`)); status != 422 || errCode(out) != "schema_mismatch" {
			t.Fatalf("before: %d %v", status, out)
		}

		for _, field := range []string{"name", "verification", "enabled"} {
			e.do("PATCH", "/api/v1/automation/endpoints/"+id, secret, []byte(`{"`+field+`":null}`)).wantError(t, 400, "validation_failed")
		}
		got := e.do("PATCH", "/api/v1/automation/endpoints/"+id, secret, []byte(`{"schema":null}`)).want(t, 200).json(t)
		if got["schema"] != nil || got["action"] == nil || got["name"] != "Orders" {
			t.Fatalf("schema: null: %v", got)
		}
		if status, out, _ := e.publish(t, url, "application/json", []byte(`{"x":1}`)); status != 202 {
			t.Fatalf("a call after the schema was removed: %d %v", status, out)
		}
		got = e.do("PATCH", "/api/v1/automation/endpoints/"+id, secret, []byte(`{"action":null}`)).want(t, 200).json(t)
		if got["action"] != nil || got["schema"] != nil {
			t.Fatalf("action: null: %v", got)
		}
		got = e.do("GET", "/api/v1/automation/endpoints/"+id, secret, nil).want(t, 200).json(t)
		if got["action"] != nil || got["schema"] != nil || got["name"] != "Orders" || got["enabled"] != true {
			t.Fatalf("stored: %v", got)
		}
	})
}

// A JSON body must be UTF-8 on both databases: PostgreSQL refused other bytes while SQLite
// stored them and served them back as invalid JSON (calls, events, webhook deliveries).
func TestPublishRefusesInvalidUTF8(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		ep := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Orders"}).want(t, 201).json(t)
		status, out, _ := e.publish(t, ep["url"].(string), "application/json", []byte("{\"name\":\"caf\xe9\"}"))
		if status != 400 || errCode(out) != "validation_failed" {
			t.Fatalf("latin-1 JSON: %d %v", status, out)
		}
		if status, out, _ := e.publish(t, ep["url"].(string), "application/json", []byte(`{"name":"café \u00e9"}`)); status != 202 {
			t.Fatalf("UTF-8 JSON: %d %v", status, out)
		}
		// A byte-order mark before the JSON (Windows PowerShell, .NET) is ignored, as RFC 8259
		// allows; the stored payload starts at the JSON.
		if status, out, _ := e.publish(t, ep["url"].(string), "application/json", []byte("\xef\xbb\xbf{\"bom\":true}")); status != 202 {
			t.Fatalf("JSON after a byte-order mark: %d %v", status, out)
		}
		res := e.do("GET", "/api/v1/automation/endpoints/"+ep["id"].(string)+"/calls", secret, nil).want(t, 200)
		if !utf8.Valid(res.body) {
			t.Fatalf("the calls list is not UTF-8: %q", res.body)
		}
		calls := res.json(t)["data"].([]any)
		if len(calls) != 2 || calls[0].(map[string]any)["payload"].(map[string]any)["bom"] != true {
			t.Fatalf("calls %v, want 2, the newest with the payload after the mark", calls)
		}
		// A test needs a payload.
		e.do("POST", "/api/v1/automation/endpoints/"+ep["id"].(string)+"/test", secret, map[string]any{}).
			wantError(t, 400, "validation_failed")
	})
}
