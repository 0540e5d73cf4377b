package graph_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
	"github.com/switchboard-dev/switchboard/graph"
)

// harness is the real /graphql handler on a real service and a fresh database.
type harness struct {
	svc *service.Service
	srv *httptest.Server
}

// eachDialect runs fn against SQLite and PostgreSQL, each with a fresh database.
func eachDialect(t *testing.T, opts graph.Options, fn func(t *testing.T, h *harness)) {
	t.Helper()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			fn(t, newHarness(t, d, opts))
		})
	}
}

func newHarness(t *testing.T, d store.Dialect, opts graph.Options) *harness {
	t.Helper()
	svc, _ := servicetest.New(t, d, service.Config{})
	mux := http.NewServeMux()
	mux.Handle("/graphql", graph.NewHandler(svc, opts))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &harness{svc: svc, srv: srv}
}

func (h *harness) url() string { return h.srv.URL + "/graphql" }

type gqlError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
}

// code is the extensions.code of the only error, or "" when there is none.
func (r gqlResponse) code(t *testing.T) string {
	t.Helper()
	switch len(r.Errors) {
	case 0:
		return ""
	case 1:
		c, _ := r.Errors[0].Extensions["code"].(string)
		return c
	}
	t.Fatalf("want at most one error, got %+v", r.Errors)
	return ""
}

// decode unmarshals the data into v, failing on any error.
func (r gqlResponse) decode(t *testing.T, v any) {
	t.Helper()
	if len(r.Errors) > 0 {
		t.Fatalf("unexpected errors: %+v", r.Errors)
	}
	if err := json.Unmarshal(r.Data, v); err != nil {
		t.Fatalf("decode %s: %v", r.Data, err)
	}
}

type option func(*http.Request)

func withSession(token string) option {
	return func(r *http.Request) { r.AddCookie(&http.Cookie{Name: graph.SessionCookie, Value: token}) }
}

func withKey(secret string) option {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+secret) }
}

func withHeader(k, v string) option {
	return func(r *http.Request) { r.Header.Set(k, v) }
}

// post sends one operation as an application/json POST.
func (h *harness) post(t *testing.T, query string, vars map[string]any, opts ...option) (*http.Response, gqlResponse) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, h.url(), bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for _, o := range opts {
		o(req)
	}
	return h.send(t, req)
}

// get sends one operation as a GET with the query in the URL.
func (h *harness) get(t *testing.T, query string, opts ...option) (*http.Response, gqlResponse) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.url()+"?query="+url.QueryEscape(query), nil)
	for _, o := range opts {
		o(req)
	}
	return h.send(t, req)
}

func (h *harness) send(t *testing.T, req *http.Request) (*http.Response, gqlResponse) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out gqlResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: status %d, body %q is not a GraphQL response", req.Method, req.URL, resp.StatusCode, raw)
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	return resp, out
}

// body returns the response body as a string.
func body(resp *http.Response) string {
	b, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return string(b)
}

// sessionCookie returns the response's session cookie, failing when there is none.
func sessionCookie(t *testing.T, resp *http.Response) *http.Cookie {
	t.Helper()
	for _, c := range resp.Cookies() {
		if c.Name == graph.SessionCookie {
			return c
		}
	}
	t.Fatalf("no %s cookie in %v", graph.SessionCookie, resp.Header.Values("Set-Cookie"))
	return nil
}

var emailSeq atomic.Int64

func newEmail() string { return fmt.Sprintf("user%d@example.com", emailSeq.Add(1)) }

const password = "correct horse battery"

// signUp signs up a new user over GraphQL and returns the session token.
func (h *harness) signUp(t *testing.T) string {
	t.Helper()
	resp, r := h.post(t, `mutation($in: SignUpInput!) { signUp(input: $in) { user { id } } }`, map[string]any{
		"in": map[string]any{"email": newEmail(), "password": password, "name": "Ada"}})
	if len(r.Errors) > 0 {
		t.Fatalf("signUp: %+v", r.Errors)
	}
	return sessionCookie(t, resp).Value
}

// owner signs up a user over GraphQL, opens their workspace and returns the session token
// and the workspace id.
func (h *harness) owner(t *testing.T) (token, workspaceID string) {
	t.Helper()
	token = h.signUp(t)
	_, r := h.post(t, `mutation { ensureWorkspace { id } }`, nil, withSession(token))
	var data struct{ EnsureWorkspace struct{ ID string } }
	r.decode(t, &data)
	return token, data.EnsureWorkspace.ID
}

// createKey creates an API key over GraphQL with the session and returns its id and secret.
func (h *harness) createKey(t *testing.T, token string, scopes ...string) (id, secret string) {
	t.Helper()
	if scopes == nil {
		scopes = []string{"models:read"}
	}
	_, r := h.post(t, `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { secret apiKey { id } } }`,
		map[string]any{"in": map[string]any{"name": "test", "scopes": scopes}}, withSession(token))
	var data struct {
		CreateAPIKey struct {
			Secret string
			APIKey struct{ ID string }
		} `json:"createApiKey"`
	}
	r.decode(t, &data)
	return data.CreateAPIKey.APIKey.ID, data.CreateAPIKey.Secret
}
