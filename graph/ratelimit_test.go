package graph_test

import (
	"encoding/json"
	"errors"
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
