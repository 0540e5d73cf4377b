package graph_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/graph"
)

func TestCSRFProtection(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		const mutation = `{"query":"mutation { signOut }"}`

		for _, ct := range []string{"application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain", ""} {
			req, _ := http.NewRequest(http.MethodPost, h.url(), strings.NewReader(mutation))
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			withSession(token)(req)
			resp, r := h.send(t, req)
			if resp.StatusCode != http.StatusUnsupportedMediaType || len(r.Errors) != 1 || len(resp.Cookies()) != 0 {
				t.Errorf("POST with Content-Type %q: status %d, %+v", ct, resp.StatusCode, r.Errors)
			}
		}

		// A cross-site page POSTing JSON with the user's cookie.
		for _, hdr := range []map[string]string{
			{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
			{"Origin": "https://evil.example"},
		} {
			opts := []option{withSession(token)}
			for k, v := range hdr {
				opts = append(opts, withHeader(k, v))
			}
			resp, r := h.post(t, `mutation { signOut }`, nil, opts...)
			if resp.StatusCode != http.StatusForbidden || r.code(t) != "FORBIDDEN" || len(resp.Cookies()) != 0 {
				t.Errorf("cross-origin POST %v: status %d, %+v", hdr, resp.StatusCode, r.Errors)
			}
		}

		// A mutation over GET is refused as GraphQL over HTTP says (405, Allow), with a code
		// like every other error, and nothing happened.
		resp, r := h.get(t, `mutation { signOut }`, withSession(token))
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, POST" || r.code(t) != "INVALID" ||
			r.Errors[0].Extensions["reason"] != "method_not_allowed" || len(resp.Cookies()) != 0 {
			t.Errorf("mutation over GET: status %d, Allow %q, %+v", resp.StatusCode, resp.Header.Get("Allow"), r.Errors)
		}

		// The session survived all of that; same-origin requests and GET queries work.
		resp, r = h.get(t, viewerQuery, withSession(token), withHeader("Origin", h.srv.URL), withHeader("Sec-Fetch-Site", "same-origin"))
		var v viewerData
		r.decode(t, &v)
		if resp.StatusCode != http.StatusOK || v.Viewer.User == nil {
			t.Fatalf("GET query: status %d, viewer %+v", resp.StatusCode, v.Viewer)
		}
		_, r = h.post(t, viewerQuery, nil, withSession(token), withHeader("Origin", h.srv.URL), withHeader("Sec-Fetch-Site", "same-origin"))
		r.decode(t, &v)
		if v.Viewer.User == nil {
			t.Fatal("same-origin POST lost the session")
		}
	})
}

// createKeyForOrigins creates a key with events:read usable from the given origins.
func (h *harness) createKeyForOrigins(t *testing.T, token string, origins ...string) string {
	t.Helper()
	_, r := h.post(t, `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { secret } }`,
		map[string]any{"in": map[string]any{"name": "dashboard", "scopes": []string{"events:read"}, "allowedOrigins": origins}},
		withSession(token))
	var data struct {
		CreateAPIKey struct{ Secret string } `json:"createApiKey"`
	}
	r.decode(t, &data)
	return data.CreateAPIKey.Secret
}

// A key may be used from a foreign (trusted) origin only when it lists that origin, as on
// /api/v1.
func TestKeyAllowedOrigins(t *testing.T) {
	opts := graph.Options{TrustedOrigins: []string{"https://dash.example.com", "https://other.example.com"}}
	eachDialect(t, opts, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		secret := h.createKeyForOrigins(t, token, "https://dash.example.com")
		const q = `{ events { nodes { id } } }`
		crossSite := func(origin string) []option {
			return []option{withKey(secret), withHeader("Origin", origin), withHeader("Sec-Fetch-Site", "cross-site")}
		}

		resp, r := h.post(t, q, nil, crossSite("https://dash.example.com")...)
		if resp.StatusCode != http.StatusOK || len(r.Errors) > 0 {
			t.Fatalf("listed origin: status %d, %+v", resp.StatusCode, r.Errors)
		}
		resp, r = h.post(t, q, nil, crossSite("https://other.example.com")...)
		if resp.StatusCode != http.StatusForbidden || r.code(t) != "FORBIDDEN" || r.Errors[0].Extensions["reason"] != "origin_not_allowed" {
			t.Fatalf("unlisted origin: status %d, %+v", resp.StatusCode, r.Errors)
		}
		// The service's own origin and non-browser callers need no listing.
		if _, r := h.post(t, q, nil, withKey(secret), withHeader("Origin", h.srv.URL)); len(r.Errors) > 0 {
			t.Fatalf("own origin: %+v", r.Errors)
		}
		if _, r := h.post(t, q, nil, withKey(secret)); len(r.Errors) > 0 {
			t.Fatalf("no origin: %+v", r.Errors)
		}

		// The same rule holds for a key sent in connection_init.
		c, _, err := h.tryDialWS(t, withHeader("Origin", "https://dash.example.com"))
		if err != nil {
			t.Fatal(err)
		}
		c.init(t, map[string]any{"authorization": "Bearer " + secret})
		c, _, err = h.tryDialWS(t, withHeader("Origin", "https://other.example.com"))
		if err != nil {
			t.Fatal(err)
		}
		c.initRefused(t, map[string]any{"authorization": "Bearer " + secret})
	})
}

func TestComplexityLimit(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		// 200 aliases of a 3-field selection: complexity 600 > the default 500.
		var q strings.Builder
		q.WriteString("{")
		for i := range 200 {
			fmt.Fprintf(&q, " a%d: scopes { presets { id } }", i)
		}
		q.WriteString(" }")
		_, r := h.post(t, q.String(), nil)
		if r.code(t) != "COMPLEXITY_LIMIT_EXCEEDED" {
			t.Fatalf("complex query: %+v", r.Errors)
		}
		// 100 aliases (300) are fine.
		q.Reset()
		q.WriteString("{")
		for i := range 100 {
			fmt.Fprintf(&q, " a%d: scopes { presets { id } }", i)
		}
		q.WriteString(" }")
		if _, r := h.post(t, q.String(), nil); len(r.Errors) > 0 {
			t.Fatalf("query within the limit: %+v", r.Errors)
		}
	})
}

func TestDepthLimit(t *testing.T) {
	eachDialect(t, graph.Options{DepthLimit: 2}, func(t *testing.T, h *harness) {
		_, r := h.post(t, `{ viewer { user { id } } }`, nil)
		if r.code(t) != "DEPTH_LIMIT_EXCEEDED" {
			t.Fatalf("deep query: %+v", r.Errors)
		}
		// Fragments count too.
		_, r = h.post(t, `query { viewer { ...V } } fragment V on Viewer { workspace { id } }`, nil)
		if r.code(t) != "DEPTH_LIMIT_EXCEEDED" {
			t.Fatalf("deep query through a fragment: %+v", r.Errors)
		}
		if _, r := h.post(t, `{ scopes { presets } }`, nil); r.code(t) != "GRAPHQL_VALIDATION_FAILED" {
			t.Fatalf("invalid query: %+v", r.Errors)
		}
		if _, r := h.post(t, `{ viewer { user } }`, nil); r.code(t) != "GRAPHQL_VALIDATION_FAILED" {
			t.Fatalf("invalid query: %+v", r.Errors)
		}
		_, token, err := h.svc.Users.SignUp(context.Background(), service.SignUpInput{Email: newEmail(), Password: password, Name: "Ada"}, service.ClientInfo{})
		if err != nil {
			t.Fatal(err)
		}
		if _, r := h.post(t, `{ eventTypes { type } }`, nil, withSession(token)); len(r.Errors) > 0 {
			t.Fatalf("shallow query: %+v", r.Errors)
		}
	})
}

func TestIntrospectionToggle(t *testing.T) {
	const q = `{ __schema { queryType { name } } }`
	t.Run("off by default", func(t *testing.T) {
		eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
			if _, r := h.post(t, q, nil); len(r.Errors) == 0 {
				t.Fatal("introspection answered while disabled")
			}
			// No "did you mean" hints either.
			_, r := h.post(t, `{ viewr { user { id } } }`, nil)
			if len(r.Errors) == 0 || strings.Contains(r.Errors[0].Message, "Did you mean") {
				t.Fatalf("typo: %+v", r.Errors)
			}
		})
	})
	t.Run("on", func(t *testing.T) {
		eachDialect(t, graph.Options{Introspection: true}, func(t *testing.T, h *harness) {
			_, r := h.post(t, q, nil)
			var data struct {
				Schema struct{ QueryType struct{ Name string } } `json:"__schema"`
			}
			r.decode(t, &data)
			if data.Schema.QueryType.Name != "Query" {
				t.Fatalf("introspection = %+v", data)
			}
		})
	})
}

func TestBodyLimit(t *testing.T) {
	eachDialect(t, graph.Options{MaxBodyBytes: 1024}, func(t *testing.T, h *harness) {
		resp, r := h.post(t, `{ viewer { user { id } } }`, map[string]any{"pad": strings.Repeat("x", 2048)})
		if resp.StatusCode != http.StatusRequestEntityTooLarge || len(r.Errors) == 0 {
			t.Fatalf("oversized body: status %d, %+v", resp.StatusCode, r.Errors)
		}
	})
}

// Input the schema's scalars and enums refuse carries code INVALID like any bad input, and a
// body whose members are of the wrong type is refused without being repeated back.
func TestInputRefusalsHaveCodes(t *testing.T) {
	h := newHarness(t, store.SQLite, graph.Options{})
	token, _ := h.owner(t)
	s := withSession(token)
	for name, c := range map[string]struct {
		query string
		vars  map[string]any
	}{
		"an unknown enum value": {`query($s: LinkSort) { links(sort: $s) { nodes { id } } }`, map[string]any{"s": "clicks"}},
		"a Time variable":       {`query($t: Time) { links(createdAfter: $t) { nodes { id } } }`, map[string]any{"t": "yesterday"}},
		"a Time literal":        {`{ links(createdAfter: "2030-01-01") { nodes { id } } }`, nil},
	} {
		if _, r := h.post(t, c.query, c.vars, s); r.code(t) != "INVALID" {
			t.Errorf("%s: %+v", name, r.Errors)
		}
	}
	body := `{"query":"{ shortLinkBase }","variables":[1]}`
	req, _ := http.NewRequest(http.MethodPost, h.url(), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, r := h.send(t, req)
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || r.code(t) != "INVALID" || r.Errors[0].Extensions["reason"] != "invalid_body" ||
		r.Errors[0].Extensions["field"] != "variables" || strings.Contains(string(raw), "shortLinkBase") {
		t.Fatalf("variables that are not an object: %d %s", resp.StatusCode, raw)
	}
}

// A websocket handshake whose Upgrade header a proxy dropped is told so (400
// websocket_upgrade_missing), not answered as a GET query without a query.
func TestHandshakeWithoutUpgradeIsNamed(t *testing.T) {
	h := newHarness(t, store.SQLite, graph.Options{})
	req, _ := http.NewRequest(http.MethodGet, h.url(), nil)
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	req.Header.Set("Sec-WebSocket-Version", "13")
	resp, r := h.send(t, req)
	if resp.StatusCode != http.StatusBadRequest || r.code(t) != "INVALID" || r.Errors[0].Extensions["reason"] != "websocket_upgrade_missing" {
		t.Fatalf("%d %+v", resp.StatusCode, r.Errors)
	}
}
