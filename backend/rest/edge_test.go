package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Idempotency keys are shared by the workspace's keys, but a replay is an answer of the
// operation: a key without the operation's scope gets 403, never another key's response
// (here a webhook's signing secret), and its refusal is not kept for the keys that have it.
func TestIdempotencyReplayNeedsTheScope(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, full := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		_, narrow := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)

		first := e.do("POST", "/api/v1/webhooks", full, newHook, "Idempotency-Key", "create-1").want(t, http.StatusCreated)
		res := e.do("POST", "/api/v1/webhooks", narrow, newHook, "Idempotency-Key", "create-1")
		got := res.wantError(t, http.StatusForbidden, "insufficient_scope")
		if msg, _ := got["message"].(string); !strings.Contains(msg, "webhooks:write") {
			t.Errorf("message %q does not name the scope", msg)
		}
		if res.Header.Get("Idempotent-Replayed") != "" || strings.Contains(string(res.body), "whsec_") {
			t.Fatalf("a key without webhooks:write got the replay: %s", res.body)
		}
		// The key with the scope still gets its replay.
		again := e.do("POST", "/api/v1/webhooks", full, newHook, "Idempotency-Key", "create-1").want(t, http.StatusCreated)
		if again.Header.Get("Idempotent-Replayed") != "true" || string(again.body) != string(first.body) {
			t.Errorf("replay for the key with the scope: %s", again.body)
		}

		// A refusal for want of scope is not kept: the key with the scope runs the request.
		e.do("POST", "/api/v1/webhooks", narrow, newHook, "Idempotency-Key", "create-2").
			wantError(t, http.StatusForbidden, "insufficient_scope")
		res = e.do("POST", "/api/v1/webhooks", full, newHook, "Idempotency-Key", "create-2").want(t, http.StatusCreated)
		if res.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("the narrow key's 403 was replayed to the full key: %s", res.body)
		}
	})
}

// An operation can need more than its route's scope: creating an endpoint that creates links
// needs links:write besides automation:write, and its response holds the endpoint's URL and
// signing secret. A replay answers only a key holding every scope of the key that made the
// request, so a key with the route's scope alone cannot get them by repeating the request.
func TestIdempotencyReplayNeedsTheFirstCallersScopes(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, maker := e.owner.NewKey(t, e.svc, domain.ScopeAutomationWrite, domain.ScopeLinksWrite)
		_, autoOnly := e.owner.NewKey(t, e.svc, domain.ScopeAutomationWrite)
		_, wider := e.owner.NewKey(t, e.svc, domain.ScopeAutomationWrite, domain.ScopeLinksWrite, domain.ScopeLinksRead)
		body := map[string]any{"name": "Links", "verification": "standard_webhooks",
			"action": map[string]any{"type": "create_link", "url": "{{payload.url}}"}}

		first := e.do("POST", "/api/v1/automation/endpoints", maker, body, "Idempotency-Key", "ep-1").want(t, http.StatusCreated)
		secret, _ := first.json(t)["secret"].(string)
		if secret == "" {
			t.Fatalf("the endpoint has no secret: %s", first.body)
		}
		res := e.do("POST", "/api/v1/automation/endpoints", autoOnly, body, "Idempotency-Key", "ep-1")
		got := res.wantError(t, http.StatusForbidden, "insufficient_scope")
		if msg, _ := got["message"].(string); !strings.Contains(msg, "links:write") || got["param"] != "Idempotency-Key" {
			t.Errorf("refusal %v does not name the missing scope and the header", got)
		}
		if strings.Contains(string(res.body), secret) || strings.Contains(string(res.body), "/hooks/") {
			t.Fatalf("the replay leaked the endpoint: %s", res.body)
		}
		// A key with every scope of the first (and more) gets the replay, as does the first.
		for _, key := range []string{wider, maker} {
			again := e.do("POST", "/api/v1/automation/endpoints", key, body, "Idempotency-Key", "ep-1").want(t, http.StatusCreated)
			if again.Header.Get("Idempotent-Replayed") != "true" || string(again.body) != string(first.body) {
				t.Errorf("replay for a key with the scopes: %s", again.body)
			}
		}
		// Nothing was created by the refused call.
		_, reader := e.owner.NewKey(t, e.svc, domain.ScopeAutomationRead)
		if n := len(e.do("GET", "/api/v1/automation/endpoints", reader, nil).want(t, http.StatusOK).json(t)["data"].([]any)); n != 1 {
			t.Errorf("%d endpoints, want 1", n)
		}
	})
}

// A key without an operation's scope is refused before its input is read: 403 whatever the
// body or query holds, never the 400 that would tell it the operation's input rules.
func TestScopeIsCheckedBeforeInput(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, reader := e.owner.NewKey(t, e.svc, domain.ScopeLinksRead)
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/api/v1/links", map[string]any{"bogus": 1}},
		{"POST", "/api/v1/links", map[string]any{"url": "javascript:alert(1)"}},
		{"PATCH", "/api/v1/links/lnk_01jc0000000000000000000001?bogus=1", map[string]any{}},
		{"DELETE", "/api/v1/links/bulk?ids=", nil},
		{"POST", "/api/v1/webhooks", map[string]any{"url": "not a url"}},
	} {
		got := e.do(c.method, c.path, reader, c.body).wantError(t, http.StatusForbidden, "insufficient_scope")
		if got["param"] != nil {
			t.Errorf("%s %s: the refusal names a field: %v", c.method, c.path, got)
		}
	}
	// With the scope, the same input is what is refused.
	_, writer := e.owner.NewKey(t, e.svc, domain.ScopeLinksWrite)
	e.do("POST", "/api/v1/links", writer, map[string]any{"bogus": 1}).wantError(t, http.StatusBadRequest, "validation_failed")
}

// A preflight allows every method the API has (PUT /links/ext_{id} included) and the
// headers the page asks for, such as the OpenAI SDKs' own X-Stainless-* headers: a browser
// refuses a call whose method or headers the preflight does not list.
func TestCORSPreflightAllowsEveryMethodAndTheRequestedHeaders(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		preflight := func(path, method, headers string) http.Header {
			t.Helper()
			return e.do("OPTIONS", path, "", nil, "Origin", "https://app.example.com",
				"Access-Control-Request-Method", method, "Access-Control-Request-Headers", headers).
				want(t, http.StatusNoContent).Header
		}
		allowed := func(list, item string) bool {
			for _, v := range strings.Split(list, ",") {
				if strings.EqualFold(strings.TrimSpace(v), item) {
					return true
				}
			}
			return false
		}

		for path, item := range e.doc.Paths.Map() {
			for method := range item.Operations() {
				if h := preflight(strings.NewReplacer("{", "", "}", "").Replace(path), method, "authorization"); !allowed(h.Get("Access-Control-Allow-Methods"), method) {
					t.Errorf("preflight for %s %s: Access-Control-Allow-Methods %q", method, path, h.Get("Access-Control-Allow-Methods"))
				}
			}
		}

		sdk := "authorization,x-stainless-arch,x-stainless-lang,x-stainless-os,x-stainless-package-version,x-stainless-retry-count,x-stainless-runtime,x-stainless-runtime-version"
		h := preflight("/api/v1/models", "GET", sdk)
		for _, name := range strings.Split(sdk, ",") {
			if !allowed(h.Get("Access-Control-Allow-Headers"), name) {
				t.Errorf("Access-Control-Allow-Headers %q lacks %s", h.Get("Access-Control-Allow-Headers"), name)
			}
		}
		if h.Get("Access-Control-Allow-Credentials") != "" {
			t.Error("credentials allowed")
		}
		// Anything that is not a list of header names gets the API's own list.
		h = preflight("/api/v1/models", "GET", "authorization, bad header, (x)")
		if got := h.Get("Access-Control-Allow-Headers"); strings.Contains(got, "bad") || !allowed(got, "Idempotency-Key") {
			t.Errorf("Access-Control-Allow-Headers %q", got)
		}
	})
}

// Allowed origins are kept as browsers send Origin: a default port given with the origin
// still matches, and a pattern (which would never match) is refused when the key is made.
func TestAllowedOriginsAreStoredAsBrowsersSendThem(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		create := func(origins ...string) (string, error) {
			_, secret, err := e.svc.Keys.Create(context.Background(), e.owner.Actor, service.CreateKeyInput{
				Name: "browser", Scopes: []string{"models:read"}, AllowedOrigins: origins})
			return secret, err
		}
		secret, err := create("https://app.example.com:443", "HTTP://Localhost:80/", "http://localhost:3000", "https://[::1]:443")
		if err != nil {
			t.Fatal(err)
		}
		for _, origin := range []string{"https://app.example.com", "http://localhost", "http://localhost:3000", "https://[::1]"} {
			e.do("GET", "/api/v1/models", secret, nil, "Origin", origin).want(t, http.StatusOK)
		}
		e.do("GET", "/api/v1/models", secret, nil, "Origin", "https://app.example.com:8443").
			wantError(t, http.StatusForbidden, "origin_not_allowed")

		_, err = create("https://*.example.com")
		if e := domain.ErrorOf(err); e.Code != domain.CodeInvalid || e.Param != "allowed_origins" || !strings.Contains(e.Message, "patterns") {
			t.Errorf("a pattern: %v", err)
		}
	})
}

// The document's 401 names every code a refused key gets, as a client switching on `code`
// needs them all.
func TestOpenAPIUnauthorizedNamesEveryCode(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	desc := ""
	if d := e.doc.Components.Responses["Unauthorized"].Value.Description; d != nil {
		desc = *d
	}
	for _, code := range []string{"missing_api_key", "invalid_api_key", "revoked_api_key", "expired_api_key"} {
		if !strings.Contains(desc, "`"+code+"`") {
			t.Errorf("the Unauthorized response does not name %s: %s", code, desc)
		}
	}
}

// An operation without a request body refuses one with fields, naming the first, as every
// other operation refuses an unknown field: a setting it does not have must not pass
// silently. No body, or an empty object (some clients send one on every POST), is fine.
func TestOperationWithoutBodyRefusesFields(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		hook := e.do("POST", "/api/v1/webhooks", secret, newHook).want(t, http.StatusCreated).json(t)
		rotate := "/api/v1/webhooks/" + hook["id"].(string) + "/rotate-secret"

		got := e.do("POST", rotate, secret, `{"expire_previous_now":true}`).wantError(t, http.StatusBadRequest, "validation_failed")
		if got["param"] != "expire_previous_now" {
			t.Errorf("param %v", got["param"])
		}
		e.do("POST", rotate, secret, `[1]`).wantError(t, http.StatusBadRequest, "validation_failed")
		rotated := func() int {
			return len(e.do("GET", "/api/v1/events?type=webhook.secret_rotated", secret, nil).want(t, http.StatusOK).json(t)["data"].([]any))
		}
		if n := rotated(); n != 0 {
			t.Errorf("refused requests rotated the secret %d times", n)
		}

		e.do("POST", rotate, secret, nil).want(t, http.StatusOK)
		e.do("POST", rotate, secret, " {} ").want(t, http.StatusOK)
		if n := rotated(); n != 2 {
			t.Errorf("%d rotations, want 2", n)
		}
	})
}

// The NUL character is refused wherever it is in a body, naming where, and changes nothing
// (PostgreSQL cannot store it: a link title or a webhook description with it was a 500);
// in a query parameter it is a 400 too.
func TestNULCharacterIsRefused(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		for _, c := range []struct{ path, body, param string }{
			{"/api/v1/links", `{"url":"https://example.com/","title":"a\u0000b"}`, "title"},
			{"/api/v1/links", `{"url":"https://example.com/","metadata":{"k":["x","a\u0000"]}}`, "metadata.k[1]"},
			{"/api/v1/webhooks", `{"url":"https://example.com/h","event_types":["*"],"description":"a\u0000b"}`, "description"},
		} {
			got := e.do("POST", c.path, secret, c.body).wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != c.param {
				t.Errorf("POST %s %s: param %v (%v)", c.path, c.body, got["param"], got["message"])
			}
		}
		if n := len(e.do("GET", "/api/v1/links", secret, nil).want(t, http.StatusOK).json(t)["data"].([]any)); n != 0 {
			t.Errorf("%d links stored by refused calls", n)
		}
		e.do("GET", "/api/v1/links?search=a%00b", secret, nil).wantError(t, http.StatusBadRequest, "validation_failed")
	})
}

// /hooks takes a tool's JSON as it comes, a NUL escape included (the /api/v1 edge refuses
// one): the call is stored on both databases and read back with the escape, in the calls
// list and in its automation.published event.
func TestHooksKeepNULEscapes(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		ep := e.do("POST", "/api/v1/automation/endpoints", secret, map[string]any{"name": "Orders"}).want(t, 201).json(t)
		if status, out, _ := e.publish(t, ep["url"].(string), "application/json", []byte(`{"note":"a\u0000b"}`)); status != 202 {
			t.Fatalf("JSON with a NUL escape: %d %v", status, out)
		}
		calls := e.do("GET", "/api/v1/automation/endpoints/"+ep["id"].(string)+"/calls", secret, nil).want(t, 200).json(t)["data"].([]any)
		if len(calls) != 1 || calls[0].(map[string]any)["payload"].(map[string]any)["note"] != "a\x00b" {
			t.Fatalf("calls %v", calls)
		}
		events := e.do("GET", "/api/v1/events?type=automation.published", secret, nil).want(t, 200).json(t)["data"].([]any)
		if len(events) != 1 || events[0].(map[string]any)["data"].(map[string]any)["payload"].(map[string]any)["note"] != "a\x00b" {
			t.Fatalf("events %v", events)
		}
		// The test call is an /api/v1 body: the edge refuses the NUL there, naming where it is.
		got := e.do("POST", "/api/v1/automation/endpoints/"+ep["id"].(string)+"/test", secret,
			map[string]any{"payload": map[string]any{"note": "a\x00b"}}).wantError(t, 400, "validation_failed")
		if got["param"] != "payload.note" {
			t.Errorf("param %v", got["param"])
		}
	})
}

// An Idempotency-Key header sent empty, or twice, is refused naming the header, and nothing
// is done: the client meant the request to be safe to retry, so it is not run as if the
// header were absent.
func TestIdempotencyKeyEmptyOrRepeatedIsRefused(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	body, _ := json.Marshal(newHook)
	for _, keys := range [][]string{{""}, {"a", "b"}} {
		req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/webhooks", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+secret)
		req.Header.Set("Content-Type", "application/json")
		req.Header["Idempotency-Key"] = keys
		res, err := e.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		got := (&response{Response: res, body: raw}).wantError(t, http.StatusBadRequest, "validation_failed")
		if got["param"] != "Idempotency-Key" {
			t.Errorf("%q: param %v", keys, got["param"])
		}
	}
	if n := len(e.do("GET", "/api/v1/webhooks", secret, nil).want(t, http.StatusOK).json(t)["data"].([]any)); n != 0 {
		t.Errorf("%d webhooks created by refused requests", n)
	}
}

// A key given twice in one object is refused, naming it by its path: JSON decoders keep
// the last one, so the request would silently mean something other than what was sent.
func TestDuplicateKeysAreRefused(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	for body, param := range map[string]string{
		`{"url":"https://example.com/a","url":"https://example.com/b"}`:                                         "url",
		`{"url":"https://example.com/a","metadata":{"k":1,"k":2}}`:                                              "metadata.k",
		`{"url":"https://example.com/a","utm":{"source":"x"},"tags":["a"],"utm":{"source":"y"}}`:                "utm",
		`{"links":[{"url":"https://example.com/a"},{"url":"https://example.com/b","slug":"x1y","slug":"x2y"}]}`: "links[1].slug",
	} {
		path := "/api/v1/links"
		if strings.HasPrefix(body, `{"links"`) {
			path = "/api/v1/links/bulk"
		}
		got := e.do("POST", path, secret, body).wantError(t, http.StatusBadRequest, "validation_failed")
		if got["param"] != param {
			t.Errorf("%s: param %v, want %s", body, got["param"], param)
		}
	}
	// The same key in different objects is fine.
	e.do("POST", "/api/v1/links", secret, `{"url":"https://example.com/a","metadata":{"url":"x","k":{"url":"y"}},"tags":["url","url"]}`).
		want(t, http.StatusCreated)
	if n := len(e.do("GET", "/api/v1/links", secret, nil).want(t, http.StatusOK).json(t)["data"].([]any)); n != 1 {
		t.Errorf("%d links, want the one valid request's", n)
	}
}

// A links cursor is a link of this workspace's list: another workspace's link id is refused
// (with sort=clicks it would have paged by that link's click count, telling whoever knew
// its id how popular it is); a deleted link of ours still pages on.
func TestLinkCursorOfAnotherWorkspaceIsRefused(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, mine := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		other := servicetest.NewOwner(t, e.svc)
		_, theirs := other.NewKey(t, e.svc, domain.ScopeAll)
		var ids []string
		for i := range 3 {
			ids = append(ids, e.do("POST", "/api/v1/links", mine, map[string]any{"url": fmt.Sprintf("https://example.com/%d", i)}).
				want(t, http.StatusCreated).json(t)["id"].(string))
		}
		foreign := e.do("POST", "/api/v1/links", theirs, map[string]any{"url": "https://example.com/x"}).want(t, http.StatusCreated).json(t)["id"].(string)
		for _, sort := range []string{"created", "clicks"} {
			got := e.do("GET", "/api/v1/links?sort="+sort+"&after="+foreign, mine, nil).wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != "after" {
				t.Errorf("sort=%s: param %v", sort, got["param"])
			}
		}
		e.do("DELETE", "/api/v1/links/"+ids[2], mine, nil).want(t, http.StatusOK)
		page := e.do("GET", "/api/v1/links?after="+ids[2], mine, nil).want(t, http.StatusOK).json(t)["data"].([]any)
		if len(page) != 2 || page[0].(map[string]any)["id"] != ids[1] {
			t.Errorf("after a deleted link of ours: %v", page)
		}
	})
}

// A number where a whole number goes is refused saying what is wrong with it (it is a
// number: "must be a number" was no help).
func TestWholeNumberFieldsSayWhatIsWrong(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	for body, says := range map[string]string{
		`{"url":"https://example.com","max_clicks":1.5}`:                  "max_clicks must be a whole number, not 1.5",
		`{"url":"https://example.com","max_clicks":99999999999999999999}`: "max_clicks is out of range (99999999999999999999)",
		`{"url":"https://example.com","max_clicks":"ten"}`:                "max_clicks must be a number",
	} {
		got := e.do("POST", "/api/v1/links", secret, body).wantError(t, http.StatusBadRequest, "validation_failed")
		if got["param"] != "max_clicks" || got["message"] != says {
			t.Errorf("%s: %v, want %q", body, got, says)
		}
	}
}
