package app_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// edge is the real app with a console session and a models:read key, for the rules both API
// transports apply alike (the shared API edge).
type edge struct {
	t       *testing.T
	srv     *httptest.Server
	console *http.Client // carries the session cookie
	secret  string
}

func newEdge(t *testing.T, cfg app.Config) *edge {
	t.Helper()
	_, srv := newAppWith(t, storetest.URL(t, "sqlite"), cfg)
	return signedUpEdge(t, srv, "models:read")
}

// signedUpEdge signs a console user up on srv, opens the workspace and creates a key with
// the scope.
func signedUpEdge(t *testing.T, srv *httptest.Server, scope string) *edge {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	e := &edge{t: t, srv: srv, console: &http.Client{Jar: jar}}
	e.gql(e.console, `mutation { signUp(input: {email: "ada@example.com", password: "correct horse battery", name: "Ada"}) { user { id } } }`)
	e.gql(e.console, `mutation { ensureWorkspace { id } }`)
	_, _, body := e.gql(e.console, `mutation { createApiKey(input: {name: "cli", scopes: ["`+scope+`"]}) { secret } }`)
	var out struct {
		Data struct {
			CreateAPIKey struct{ Secret string } `json:"createApiKey"`
		}
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Data.CreateAPIKey.Secret == "" {
		t.Fatalf("createApiKey: %v %s", err, body)
	}
	e.secret = out.Data.CreateAPIKey.Secret
	return e
}

// request sends a request; headers are name, value pairs (a name may repeat).
func (e *edge) request(client *http.Client, method, path, body string, headers ...string) (*http.Response, []byte) {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, e.srv.URL+path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

func (e *edge) rest(path string, headers ...string) (*http.Response, []byte) {
	e.t.Helper()
	return e.request(http.DefaultClient, "GET", path, "", headers...)
}

// gql posts one operation with the client (and headers) and returns the first error's
// extensions.code ("" when none).
func (e *edge) gql(client *http.Client, query string, headers ...string) (*http.Response, string, []byte) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query})
	resp, raw := e.request(client, "POST", "/graphql", string(body), headers...)
	return resp, gqlCode(e.t, raw), raw
}

func gqlCode(t *testing.T, raw []byte) string {
	t.Helper()
	var out struct {
		Errors []struct {
			Message    string
			Extensions map[string]any
		}
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("not a GraphQL response: %s", raw)
	}
	if len(out.Errors) == 0 {
		return ""
	}
	c, _ := out.Errors[0].Extensions["code"].(string)
	return c
}

func restCode(t *testing.T, raw []byte) string {
	t.Helper()
	var out struct{ Error struct{ Code string } }
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("not a REST error: %s", raw)
	}
	return out.Error.Code
}

// A key has one token bucket, spent by /api/v1 and /graphql alike; a console session is not
// key-limited.
func TestRateLimitSharedByBothTransports(t *testing.T) {
	cfg, _ := app.FromEnv(func(string) string { return "" })
	cfg.RateLimit, cfg.RateBurst = 0.001, 4 // no refill during the test
	e := newEdge(t, cfg)
	bearer := "Bearer " + e.secret
	const query = `{ models { id } }`

	remaining := func(resp *http.Response) string { return resp.Header.Get("x-ratelimit-remaining") }
	if resp, _ := e.rest("/api/v1/models", "Authorization", bearer); resp.StatusCode != 200 || remaining(resp) != "3" {
		t.Fatalf("REST 1: %d, remaining %q", resp.StatusCode, remaining(resp))
	}
	if resp, code, raw := e.gql(http.DefaultClient, query, "Authorization", bearer); resp.StatusCode != 200 || code != "" || remaining(resp) != "2" {
		t.Fatalf("GraphQL 1: %d %s, remaining %q", resp.StatusCode, raw, remaining(resp))
	}
	if resp, _ := e.rest("/api/v1/models", "Authorization", bearer); resp.StatusCode != 200 || remaining(resp) != "1" {
		t.Fatalf("REST 2: %d, remaining %q", resp.StatusCode, remaining(resp))
	}
	if resp, code, raw := e.gql(http.DefaultClient, query, "Authorization", bearer); resp.StatusCode != 200 || code != "" || remaining(resp) != "0" {
		t.Fatalf("GraphQL 2: %d %s, remaining %q", resp.StatusCode, raw, remaining(resp))
	}

	// The bucket is empty for both.
	resp, raw := e.rest("/api/v1/models", "Authorization", bearer)
	if resp.StatusCode != 429 || restCode(t, raw) != "rate_limit_exceeded" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("REST when empty: %d %s (Retry-After %q)", resp.StatusCode, raw, resp.Header.Get("Retry-After"))
	}
	resp, code, raw := e.gql(http.DefaultClient, query, "Authorization", bearer)
	if resp.StatusCode != 429 || code != "RATE_LIMITED" || resp.Header.Get("Retry-After") == "" ||
		resp.Header.Get("x-ratelimit-limit") != "4" || remaining(resp) != "0" || resp.Header.Get("x-ratelimit-reset") == "" {
		t.Fatalf("GraphQL when empty: %d %s, headers %v", resp.StatusCode, raw, resp.Header)
	}
	if !bytes.Contains(raw, []byte(`"reason":"rate_limit_exceeded"`)) {
		t.Fatalf("GraphQL refusal without the REST code as reason: %s", raw)
	}

	// The console session is not limited by any key's bucket (nor by one of its own).
	for i := range 6 {
		resp, code, raw := e.gql(e.console, `{ viewer { user { id } } }`)
		if resp.StatusCode != 200 || code != "" || resp.Header.Get("x-ratelimit-limit") != "" {
			t.Fatalf("session call %d: %d %s, headers %v", i, resp.StatusCode, raw, resp.Header)
		}
	}
}

// Rules of the API edge that /api/v1 and /graphql apply alike.
func TestAPIEdgeRulesOnBothTransports(t *testing.T) {
	cfg, _ := app.FromEnv(func(string) string { return "" })
	e := newEdge(t, cfg)
	bearer := "Bearer " + e.secret

	t.Run("responses carry nosniff", func(t *testing.T) {
		for name, resp := range map[string]*http.Response{
			"REST ok":           first(e.rest("/api/v1/models", "Authorization", bearer)),
			"REST error":        first(e.rest("/api/v1/models")),
			"REST unknown path": first(e.rest("/api/v1/nope")),
			"REST public":       first(e.rest("/api/v1/openapi.json")),
			"GraphQL ok":        first3(e.gql(http.DefaultClient, `{ models { id } }`, "Authorization", bearer)),
			"GraphQL refused":   first3(e.gql(http.DefaultClient, `{ models { id } }`, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")),
		} {
			if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("%s: X-Content-Type-Options %q", name, got)
			}
		}
	})

	t.Run("two Authorization headers are refused", func(t *testing.T) {
		resp, raw := e.rest("/api/v1/models", "Authorization", bearer, "Authorization", bearer)
		if resp.StatusCode != 400 || restCode(t, raw) != "multiple_authorization_headers" {
			t.Fatalf("REST: %d %s", resp.StatusCode, raw)
		}
		// Even when one of them is a valid key and the other is junk, in either order.
		resp, raw = e.rest("/api/v1/models", "Authorization", "Bearer junk", "Authorization", bearer)
		if resp.StatusCode != 400 || restCode(t, raw) != "multiple_authorization_headers" {
			t.Fatalf("REST, junk first: %d %s", resp.StatusCode, raw)
		}
		resp, code, raw := e.gql(http.DefaultClient, `{ models { id } }`, "Authorization", bearer, "Authorization", bearer)
		if resp.StatusCode != 400 || code != "INVALID" || !bytes.Contains(raw, []byte("multiple_authorization_headers")) {
			t.Fatalf("GraphQL: %d %s", resp.StatusCode, raw)
		}
		// A session cookie does not make the second header acceptable.
		resp, code, raw = e.gql(e.console, `{ viewer { user { id } } }`, "Authorization", bearer, "Authorization", bearer)
		if resp.StatusCode != 400 || code != "INVALID" {
			t.Fatalf("GraphQL with a session: %d %s", resp.StatusCode, raw)
		}
	})

	t.Run("no key at all says the key is missing", func(t *testing.T) {
		resp, raw := e.rest("/api/v1/models")
		var body struct {
			Error struct{ Code, Message string }
		}
		_ = json.Unmarshal(raw, &body)
		if resp.StatusCode != 401 || body.Error.Code != "missing_api_key" ||
			!strings.Contains(body.Error.Message, "No API key") || strings.Contains(body.Error.Message, "invalid") {
			t.Fatalf("REST without a key: %d %s", resp.StatusCode, raw)
		}
		// Other failures keep one message for all.
		resp, raw = e.rest("/api/v1/models", "Authorization", "Bearer sb_live_nope")
		if resp.StatusCode != 401 || restCode(t, raw) != "invalid_api_key" || !bytes.Contains(raw, []byte("invalid, revoked or expired")) {
			t.Fatalf("REST with a bad key: %d %s", resp.StatusCode, raw)
		}
	})

	t.Run("event types need an authenticated caller on both", func(t *testing.T) {
		if resp, raw := e.rest("/api/v1/event-types"); resp.StatusCode != 401 || restCode(t, raw) != "missing_api_key" {
			t.Fatalf("REST anonymous: %d %s", resp.StatusCode, raw)
		}
		if resp, raw := e.rest("/api/v1/event-types", "Authorization", bearer); resp.StatusCode != 200 {
			t.Fatalf("REST with a models:read key: %d %s", resp.StatusCode, raw)
		}
		if _, code, raw := e.gql(http.DefaultClient, `{ eventTypes { type } }`); code != "UNAUTHENTICATED" || bytes.Contains(raw, []byte("api_key.created")) {
			t.Fatalf("GraphQL anonymous: %s", raw)
		}
		if _, code, raw := e.gql(http.DefaultClient, `{ eventTypes { type } }`, "Authorization", bearer); code != "" || !bytes.Contains(raw, []byte("api_key.created")) {
			t.Fatalf("GraphQL with a key: %s", raw)
		}
		if _, code, raw := e.gql(e.console, `{ eventTypes { type } }`); code != "" || !bytes.Contains(raw, []byte("api_key.created")) {
			t.Fatalf("GraphQL with a session: %s", raw)
		}
	})

	t.Run("a key given twice is refused, naming it", func(t *testing.T) {
		_, _, created := e.gql(e.console, `mutation { createApiKey(input: {name: "hooks", scopes: ["webhooks:read", "webhooks:write"]}) { secret } }`)
		var key struct {
			Data struct {
				CreateAPIKey struct{ Secret string } `json:"createApiKey"`
			}
		}
		if err := json.Unmarshal(created, &key); err != nil || key.Data.CreateAPIKey.Secret == "" {
			t.Fatalf("createApiKey: %v %s", err, created)
		}
		bearer := "Bearer " + key.Data.CreateAPIKey.Secret
		resp, raw := e.request(http.DefaultClient, "POST", "/api/v1/webhooks",
			`{"url":"https://hooks.example.com/a","url":"https://hooks.example.com/b","event_types":["*"]}`,
			"Authorization", bearer, "Content-Type", "application/json")
		if resp.StatusCode != 400 || restCode(t, raw) != "validation_failed" || !bytes.Contains(raw, []byte(`"param":"url"`)) {
			t.Fatalf("REST: %d %s", resp.StatusCode, raw)
		}
		resp, raw = e.request(http.DefaultClient, "POST", "/graphql",
			`{"query":"mutation($in: CreateWebhookInput!) { createWebhook(input: $in) { webhook { id } } }",`+
				`"variables":{"in":{"url":"https://hooks.example.com/a","url":"https://hooks.example.com/b","eventTypes":["*"]}}}`,
			"Authorization", bearer)
		if resp.StatusCode != 400 || gqlCode(t, raw) != "INVALID" || !bytes.Contains(raw, []byte(`"field":"variables.in.url"`)) {
			t.Fatalf("GraphQL: %d %s", resp.StatusCode, raw)
		}
		if _, raw := e.rest("/api/v1/webhooks", "Authorization", bearer); bytes.Contains(raw, []byte("hooks.example.com")) {
			t.Fatalf("a refused request created a webhook: %s", raw)
		}
	})

	t.Run("a GraphQL batch gets a short fixed message", func(t *testing.T) {
		const secretish = "sb_live_do_not_echo_me"
		for _, body := range []string{
			`[{"query":"{ models { id } }"},{"query":"{ viewer { user { id } } }","variables":{"x":"` + secretish + `"}}]`,
			"  \n[" + `{"query":"` + secretish + `"}]`,
		} {
			resp, raw := e.request(http.DefaultClient, "POST", "/graphql", body, "Authorization", bearer)
			if resp.StatusCode != 400 || gqlCode(t, raw) != "INVALID" || bytes.Contains(raw, []byte(secretish)) ||
				!bytes.Contains(raw, []byte("batched requests are not supported; send one operation per request")) {
				t.Fatalf("batch: %d %s", resp.StatusCode, raw)
			}
		}
		// Nor is any other body that is not one JSON object echoed.
		for _, body := range []string{`"` + secretish + `"`, `{"query": "` + secretish, `{"query":"{ models { id } }"} {"x":"` + secretish + `"}`} {
			resp, raw := e.request(http.DefaultClient, "POST", "/graphql", body, "Authorization", bearer)
			if resp.StatusCode != 400 || gqlCode(t, raw) != "INVALID" || bytes.Contains(raw, []byte(secretish)) {
				t.Fatalf("body %q: %d %s", body, resp.StatusCode, raw)
			}
		}
	})
}

func first(r *http.Response, _ []byte) *http.Response            { return r }
func first3(r *http.Response, _ string, _ []byte) *http.Response { return r }

// Paths under /api/v1 that are not clean, and /api/v1 itself, get the API's JSON 404, not
// the mux's redirect with an HTML body (which clients following redirects would take for
// the cleaned path's answer).
func TestUncleanAPIPathsAreNotFound(t *testing.T) {
	cfg, _ := app.FromEnv(func(string) string { return "" })
	e := newEdge(t, cfg)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"/api/v1", "/api/v1//me", "/api/v1/./me", "/api/v1/x/../me"} {
		resp, body := e.request(noFollow, "GET", p, "", "Authorization", "Bearer "+e.secret)
		var out struct {
			Error struct{ Code string } `json:"error"`
		}
		if resp.StatusCode != http.StatusNotFound || json.Unmarshal(body, &out) != nil || out.Error.Code == "" {
			t.Errorf("GET %s: %d %s, want a JSON 404", p, resp.StatusCode, body)
		}
	}
}
