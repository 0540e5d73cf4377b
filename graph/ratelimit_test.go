package graph_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/graph"
)

// A key's calls on /graphql spend its token bucket (the one /api/v1 shares when the app
// passes the same limiter): over HTTP a refusal is 429 with Retry-After and RATE_LIMITED, and
// opening a subscription connection with the key costs a token too (close 4429 when empty).
func TestKeyRateLimit(t *testing.T) {
	limiter := httpx.NewLimiter(nil, 0.001, 3) // no refill during the test
	h := newHarness(t, store.SQLite, graph.Options{Limiter: limiter})
	token, _ := h.owner(t)
	_, secret := h.createKey(t, token, "models:read", "events:read")

	resp, r := h.post(t, `{ models { id } }`, nil, withKey(secret))
	if resp.StatusCode != 200 || r.code(t) != "" || resp.Header.Get("x-ratelimit-remaining") != "2" || resp.Header.Get("x-ratelimit-limit") != "3" {
		t.Fatalf("first call: %d %+v, headers %v", resp.StatusCode, r.Errors, resp.Header)
	}
	if resp, r = h.get(t, `{ models { id } }`, withKey(secret)); resp.StatusCode != 200 || r.code(t) != "" {
		t.Fatalf("GET: %d %+v", resp.StatusCode, r.Errors)
	}
	h.dialWS(t).init(t, map[string]any{"authorization": "Bearer " + secret}) // the third token

	resp, r = h.post(t, `{ models { id } }`, nil, withKey(secret))
	if resp.StatusCode != http.StatusTooManyRequests || r.code(t) != "RATE_LIMITED" || resp.Header.Get("Retry-After") == "" ||
		r.Errors[0].Extensions["reason"] != "rate_limit_exceeded" {
		t.Fatalf("empty bucket over HTTP: %d %+v, headers %v", resp.StatusCode, r.Errors, resp.Header)
	}

	c := h.dialWS(t)
	raw, _ := json.Marshal(map[string]any{"authorization": "Bearer " + secret})
	c.send(t, wsMessage{Type: "connection_init", Payload: raw})
	for {
		m, err := c.read(t, 10*time.Second)
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != 4429 {
				t.Fatalf("empty bucket over the websocket: want close 4429, got %v", err)
			}
			break
		}
		if m.Type == "connection_ack" {
			t.Fatal("connection acknowledged with an empty bucket")
		}
	}

	// The console session is not key-limited.
	if resp, r := h.post(t, `{ models { id } }`, nil, withSession(token)); resp.StatusCode != 200 || r.code(t) != "" {
		t.Fatalf("session: %d %+v", resp.StatusCode, r.Errors)
	}
}

// Queries and mutations sent over a websocket spend the key's bucket as HTTP requests do (one
// connection used to carry any number for the one token its opening cost), and a key revoked
// while its connection is open can do nothing more on it.
func TestWebsocketOperationsAreLimitedAndChecked(t *testing.T) {
	limiter := httpx.NewLimiter(nil, 0.001, 4) // no refill during the test
	h := newHarness(t, store.SQLite, graph.Options{Limiter: limiter})
	token, _ := h.owner(t)
	_, secret := h.createKey(t, token, "models:read")
	c := h.dialWS(t)
	c.init(t, map[string]any{"authorization": "Bearer " + secret}) // the first token
	result := func(id string) gqlResponse {
		t.Helper()
		m := c.expect(t, "next")
		var r gqlResponse
		if err := json.Unmarshal(m.Payload, &r); err != nil || m.ID != id {
			t.Fatalf("%s: %s %s", id, m.ID, m.Payload)
		}
		if m := c.expect(t, "complete"); m.ID != id {
			t.Fatalf("complete for %q, want %q", m.ID, id)
		}
		return r
	}
	for i := range 3 {
		id := fmt.Sprint("q", i)
		c.subscribe(t, id, `{ models { id } }`, nil)
		if r := result(id); len(r.Errors) > 0 {
			t.Fatalf("query %d: %+v", i, r.Errors)
		}
	}
	c.subscribe(t, "over", `{ models { id } }`, nil)
	if r := result("over"); r.code(t) != "RATE_LIMITED" {
		t.Fatalf("a query with the bucket empty: %+v", r.Errors)
	}

	// Revoked, on a fresh bucket: the open connection is refused too, as REST is.
	h2 := newHarness(t, store.SQLite, graph.Options{})
	token2, _ := h2.owner(t)
	keyID, secret := h2.createKey(t, token2, "models:read")
	c = h2.dialWS(t)
	c.init(t, map[string]any{"authorization": "Bearer " + secret})
	c.subscribe(t, "before", `{ models { id } }`, nil)
	if r := result("before"); len(r.Errors) > 0 {
		t.Fatalf("before the revocation: %+v", r.Errors)
	}
	if _, r := h2.post(t, `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, map[string]any{"id": keyID}, withSession(token2)); len(r.Errors) > 0 {
		t.Fatalf("revoke: %+v", r.Errors)
	}
	c.subscribe(t, "after", `{ models { id } }`, nil)
	if r := result("after"); r.code(t) != "UNAUTHENTICATED" || r.Errors[0].Extensions["reason"] != "credential_revoked" {
		t.Fatalf("a query after the revocation: %+v", r.Errors)
	}
}
