package rest_test

import (
	"context"
	"encoding/json"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// wellFormedKey builds a secret in the documented key format with a valid checksum, so the
// server has to look it up to know it does not exist.
func wellFormedKey() string {
	body := "sb_live_" + strings.Repeat("Zx9", 10) + "Q7"
	sum := crc32.ChecksumIEEE([]byte(body))
	check := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		check[i] = base62[sum%62]
		sum /= 62
	}
	return body + string(check)
}

// flipLast changes a secret's last character, breaking its checksum.
func flipLast(secret string) string {
	last := secret[len(secret)-1]
	repl := byte('A')
	if last == 'A' {
		repl = 'B'
	}
	return secret[:len(secret)-1] + string(repl)
}

func TestAuthMatrix(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		ctx := context.Background()

		_, valid := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		revokedKey, revoked := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		if _, err := e.svc.Keys.Revoke(ctx, e.owner.Actor, revokedKey.ID); err != nil {
			t.Fatal(err)
		}
		exp := e.clock.Now().Add(time.Hour)
		_, expired, err := e.svc.Keys.Create(ctx, e.owner.Actor, service.CreateKeyInput{
			Name: "short-lived", Scopes: []string{"*"}, ExpiresAt: &exp})
		if err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(2 * time.Hour)

		if got := e.do("GET", "/api/v1/models", valid, nil).want(t, http.StatusOK); got.Header.Get("x-ratelimit-limit") == "" {
			t.Fatal("authenticated response without rate-limit headers")
		}

		cases := []struct {
			name, authorization, code string
		}{
			{"missing header", "", "missing_api_key"},
			{"wrong scheme", "Basic " + valid, "invalid_api_key"},
			{"bearer without key", "Bearer ", "invalid_api_key"},
			{"malformed", "Bearer not-a-key", "invalid_api_key"},
			{"bad checksum", "Bearer " + flipLast(valid), "invalid_api_key"},
			{"unknown", "Bearer " + wellFormedKey(), "invalid_api_key"},
			{"revoked", "Bearer " + revoked, "revoked_api_key"},
			{"expired", "Bearer " + expired, "expired_api_key"},
		}
		var first map[string]any
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res := e.do("GET", "/api/v1/models", "", nil, "Authorization", c.authorization)
				got := res.wantError(t, http.StatusUnauthorized, c.code)
				if got["type"] != "authentication_error" || got["param"] != nil {
					t.Errorf("type %v, param %v", got["type"], got["param"])
				}
				if res.Header.Get("WWW-Authenticate") == "" {
					t.Error("401 without WWW-Authenticate")
				}
				if res.Header.Get("x-ratelimit-limit") != "" {
					t.Error("unauthenticated response with rate-limit headers")
				}
				if c.code == "missing_api_key" {
					// Nothing to hide from a caller who sent nothing: the message says what is missing.
					if msg, _ := got["message"].(string); !strings.Contains(msg, "No API key") || strings.Contains(msg, "invalid") {
						t.Errorf("missing key: message %q does not say the key is missing", msg)
					}
					return
				}
				// The bodies are identical apart from code and request id.
				delete(got, "code")
				delete(got, "request_id")
				if first == nil {
					first = got
				} else if a, b := mustJSON(first), mustJSON(got); a != b {
					t.Errorf("401 bodies differ:\n%s\n%s", a, b)
				}
			})
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestScopes(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, eventsOnly := e.owner.NewKey(t, e.svc, domain.ScopeEventsRead)
		_, modelsOnly := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)

		cases := []struct {
			path, secret, scope string
		}{
			{"/api/v1/models", eventsOnly, "models:read"},
			{"/api/v1/models/gpt-4o", eventsOnly, "models:read"},
			{"/api/v1/events", modelsOnly, "events:read"},
			{"/api/v1/events/evt_01jr8c4a9fz3x1w7v5t3r1p9n7", modelsOnly, "events:read"},
		}
		for _, c := range cases {
			got := e.do("GET", c.path, c.secret, nil).wantError(t, http.StatusForbidden, "insufficient_scope")
			if got["type"] != "permission_error" || !strings.Contains(got["message"].(string), c.scope) {
				t.Errorf("GET %s: want a permission_error naming %s, got %v", c.path, c.scope, got)
			}
		}
		// Any valid key may read its own description and the event types.
		e.do("GET", "/api/v1/me", eventsOnly, nil).want(t, http.StatusOK)
		e.do("GET", "/api/v1/event-types", modelsOnly, nil).want(t, http.StatusOK)
	})
}

func TestZeroQueriesOnceKeyIsCached(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)
		e.do("GET", "/api/v1/models", secret, nil).want(t, http.StatusOK) // loads the key once

		before := e.store.Queries()
		const n = 50
		for i := 0; i < n; i++ {
			e.do("GET", "/api/v1/models", secret, nil).want(t, http.StatusOK)
		}
		if q := e.store.Queries() - before; q != 0 {
			t.Fatalf("%d authenticated requests ran %d database queries, want 0", n, q)
		}
	})
}

func TestRevocationTakesEffectOnTheNextRequest(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		key, secret := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)
		e.do("GET", "/api/v1/models", secret, nil).want(t, http.StatusOK) // cached now

		if _, err := e.svc.Keys.Revoke(context.Background(), e.owner.Actor, key.ID); err != nil {
			t.Fatal(err)
		}
		// No waiting: the replica that revoked the key must refuse it at once, not when its
		// own LISTEN connection hears the notification (that is for the other replicas).
		res := e.do("GET", "/api/v1/models", secret, nil)
		if res.StatusCode == http.StatusOK {
			t.Fatal("a revoked key was accepted by the very next request: the revoking replica must purge " +
				"its key cache when the revocation commits (tx.AfterCommit in service.Keys.Revoke), " +
				"not only on the cross-replica notification")
		}
		res.wantError(t, http.StatusUnauthorized, "revoked_api_key")
	})
}

func TestWorkspaceIsolation(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		other := servicetest.NewOwner(t, e.svc)
		_, mine := e.owner.NewKey(t, e.svc, domain.ScopeEventsRead)
		_, theirs := other.NewKey(t, e.svc, domain.ScopeEventsRead)

		list := e.do("GET", "/api/v1/events", theirs, nil).want(t, http.StatusOK).json(t)
		data := list["data"].([]any)
		if len(data) == 0 {
			t.Fatal("workspace B has no events")
		}
		theirEvent := data[0].(map[string]any)["id"].(string)

		// A's key never sees B's event: 404, exactly as for an id that does not exist.
		got := e.do("GET", "/api/v1/events/"+theirEvent, mine, nil).wantError(t, http.StatusNotFound, "not_found")
		missing := e.do("GET", "/api/v1/events/evt_01jr8c4a9fz3x1w7v5t3r1p9n7", mine, nil).wantError(t, http.StatusNotFound, "not_found")
		if got["message"] != missing["message"] {
			t.Errorf("another workspace's event is told apart from a missing one: %q vs %q", got["message"], missing["message"])
		}
		for _, ev := range e.do("GET", "/api/v1/events?limit=100", mine, nil).want(t, http.StatusOK).json(t)["data"].([]any) {
			if ws := ev.(map[string]any)["workspace_id"]; ws != e.owner.Workspace.ID {
				t.Fatalf("A's list holds an event of workspace %v", ws)
			}
		}
		e.do("GET", "/api/v1/events/"+theirEvent, theirs, nil).want(t, http.StatusOK)
	})
}

func TestRateLimit(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{RateLimit: 1, Burst: 3})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)
		_, other := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)

		for i, remaining := range []string{"2", "1", "0"} {
			res := e.do("GET", "/api/v1/models", secret, nil).want(t, http.StatusOK)
			if got := res.Header.Get("x-ratelimit-limit"); got != "3" {
				t.Errorf("request %d: x-ratelimit-limit %q, want 3", i, got)
			}
			if got := res.Header.Get("x-ratelimit-remaining"); got != remaining {
				t.Errorf("request %d: x-ratelimit-remaining %q, want %s", i, got, remaining)
			}
			if got := res.Header.Get("x-ratelimit-reset"); got != []string{"1", "2", "3"}[i] {
				t.Errorf("request %d: x-ratelimit-reset %q (seconds until full)", i, got)
			}
		}
		res := e.do("GET", "/api/v1/models", secret, nil)
		got := res.wantError(t, http.StatusTooManyRequests, "rate_limit_exceeded")
		if got["type"] != "rate_limit_error" {
			t.Errorf("type %v", got["type"])
		}
		if res.Header.Get("Retry-After") != "1" || res.Header.Get("x-ratelimit-remaining") != "0" {
			t.Errorf("Retry-After %q, remaining %q", res.Header.Get("Retry-After"), res.Header.Get("x-ratelimit-remaining"))
		}
		// Each key has its own bucket.
		e.do("GET", "/api/v1/models", other, nil).want(t, http.StatusOK)

		// Time refills the bucket: one token per second.
		e.clock.Advance(time.Second)
		e.do("GET", "/api/v1/models", secret, nil).want(t, http.StatusOK)
		e.do("GET", "/api/v1/models", secret, nil).wantError(t, http.StatusTooManyRequests, "rate_limit_exceeded")
		e.clock.Advance(10 * time.Second)
		res = e.do("GET", "/api/v1/models", secret, nil).want(t, http.StatusOK)
		if res.Header.Get("x-ratelimit-remaining") != "2" {
			t.Errorf("after a long pause: remaining %q, want 2 (the bucket holds 3)", res.Header.Get("x-ratelimit-remaining"))
		}
		// The document needs no key and is not limited.
		for i := 0; i < 5; i++ {
			e.do("GET", "/api/v1/openapi.json", "", nil).want(t, http.StatusOK)
		}
	})
}

func TestOriginRules(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		ctx := context.Background()
		newKey := func(origins ...string) string {
			_, secret, err := e.svc.Keys.Create(ctx, e.owner.Actor, service.CreateKeyInput{
				Name: "browser", Scopes: []string{"models:read"}, AllowedOrigins: origins})
			if err != nil {
				t.Fatal(err)
			}
			return secret
		}
		noList := newKey()
		listed := newKey("https://app.example.com")
		anyOrigin := newKey("*")

		cases := []struct {
			name, secret, origin string
			ok                   bool
		}{
			{"no Origin (not a browser)", noList, "", true},
			{"key without a list, foreign origin", noList, "https://evil.example", false},
			{"key without a list, the service's own origin", noList, baseURL, true},
			{"listed origin", listed, "https://app.example.com", true},
			{"listed origin, other case", listed, "https://APP.example.com", true},
			{"unlisted origin", listed, "https://app.example.com:8443", false},
			{"star", anyOrigin, "https://anything.example", true},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res := e.do("GET", "/api/v1/models", c.secret, nil, "Origin", c.origin)
				if c.ok {
					res.want(t, http.StatusOK)
				} else {
					got := res.wantError(t, http.StatusForbidden, "origin_not_allowed")
					if got["type"] != "permission_error" {
						t.Errorf("type %v", got["type"])
					}
				}
				if c.origin != "" && res.Header.Get("Access-Control-Allow-Origin") == "" {
					t.Error("a browser could not read this response: no Access-Control-Allow-Origin")
				}
			})
		}
	})
}

func TestCORSPreflight(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		res := e.do("OPTIONS", "/api/v1/models", "", nil,
			"Origin", "https://app.example.com",
			"Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "authorization, content-type, idempotency-key")
		res.want(t, http.StatusNoContent)
		h := res.Header
		if h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("allow-origin %q, allow-credentials %q", h.Get("Access-Control-Allow-Origin"), h.Get("Access-Control-Allow-Credentials"))
		}
		for _, want := range []string{"Authorization", "Content-Type", "Idempotency-Key"} {
			if !strings.Contains(h.Get("Access-Control-Allow-Headers"), want) {
				t.Errorf("Access-Control-Allow-Headers %q lacks %s", h.Get("Access-Control-Allow-Headers"), want)
			}
		}
		if !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") {
			t.Errorf("Access-Control-Allow-Methods %q", h.Get("Access-Control-Allow-Methods"))
		}

		// Actual responses let the page read the request id and the rate-limit state.
		res = e.do("GET", "/api/v1/models", "", nil, "Origin", "https://app.example.com")
		res.wantError(t, http.StatusUnauthorized, "missing_api_key")
		expose := strings.ToLower(res.Header.Get("Access-Control-Expose-Headers"))
		for _, want := range []string{"x-request-id", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} {
			if !strings.Contains(expose, want) {
				t.Errorf("Access-Control-Expose-Headers %q lacks %s", expose, want)
			}
		}
	})
}

// Mounted without httpx.RequestID, the handler still gives every response a request id.
func TestRequestIDWithoutTheAppMiddleware(t *testing.T) {
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	h := rest.New(svc, rest.Options{})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/models", nil))
	var body struct {
		Error struct {
			Code      string `json:"code"`
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	id := rec.Header().Get("X-Request-Id")
	if rec.Code != http.StatusUnauthorized || body.Error.Code != "missing_api_key" || id == "" || body.Error.RequestID != id {
		t.Fatalf("%d %q %s", rec.Code, id, rec.Body)
	}
}

func TestRequestIDAndRouting(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)

		// A sane caller id is kept; the error body names it (checked for every response).
		res := e.do("GET", "/api/v1/models", "", nil, "X-Request-Id", "trace-1234")
		if res.Header.Get("X-Request-Id") != "trace-1234" {
			t.Errorf("X-Request-Id %q", res.Header.Get("X-Request-Id"))
		}
		if id := e.do("GET", "/api/v1/models", secret, nil).Header.Get("X-Request-Id"); !strings.HasPrefix(id, "req_") {
			t.Errorf("generated request id %q", id)
		}

		e.do("GET", "/api/v1/nothing-here", secret, nil).wantError(t, http.StatusNotFound, "route_not_found")
		e.do("GET", "/api/v1/models/", secret, nil).wantError(t, http.StatusNotFound, "route_not_found")
		res = e.do("DELETE", "/api/v1/models", secret, nil)
		res.wantError(t, http.StatusMethodNotAllowed, "method_not_allowed")
		if res.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("Allow %q, want GET, HEAD", res.Header.Get("Allow"))
		}

		// HEAD wherever GET is: the same status and headers, no body; the same key rules.
		head := e.do("HEAD", "/api/v1/models", secret, nil)
		get := e.do("GET", "/api/v1/models", secret, nil)
		if head.StatusCode != 200 || len(head.body) != 0 || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
			t.Errorf("HEAD /models: %d, %d body bytes, Content-Type %q", head.StatusCode, len(head.body), head.Header.Get("Content-Type"))
		}
		if res := e.do("HEAD", "/api/v1/models", "", nil); res.StatusCode != http.StatusUnauthorized || len(res.body) != 0 {
			t.Errorf("HEAD without a key: %d", res.StatusCode)
		}
	})
}
