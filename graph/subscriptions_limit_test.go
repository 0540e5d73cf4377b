package graph_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/graph"
)

// nextFromAll reads one event for each of ids, in any order, and fails on anything else.
func (c *wsClient) nextFromAll(t *testing.T, ids map[string]bool) {
	t.Helper()
	seen := map[string]bool{}
	for len(seen) < len(ids) {
		m := c.expect(t, "next")
		if !ids[m.ID] || seen[m.ID] {
			t.Fatalf("next for %q: %s", m.ID, m.Payload)
		}
		if strings.Contains(string(m.Payload), `"errors"`) {
			t.Fatalf("subscription %s failed: %s", m.ID, m.Payload)
		}
		seen[m.ID] = true
	}
}

// One websocket carries at most MaxSubscriptionsPerConnection subscriptions: the next
// subscribe is answered with an error naming the limit, while the others keep receiving
// and the connection stays usable; completing one frees its slot.
func TestSubscriptionsPerConnectionAreCapped(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		_, key := h.createKey(t, token, "events:read")
		c := h.dialWS(t)
		c.init(t, map[string]any{"authorization": "Bearer " + key})
		// From the last event: each gets the next one whether it starts before or after.
		vars := map[string]any{"types": []string{"api_key.created"}, "after": h.lastEventID(t, token)}
		open := map[string]bool{}
		for i := 1; i <= graph.MaxSubscriptionsPerConnection; i++ {
			id := fmt.Sprint(i)
			c.subscribe(t, id, eventsSubscription, vars)
			open[id] = true
		}
		// Every one is live (so the next subscribe is the one beyond the cap).
		h.createKey(t, token)
		c.nextFromAll(t, open)

		over := fmt.Sprint(graph.MaxSubscriptionsPerConnection + 1)
		c.subscribe(t, over, eventsSubscription, vars)
		m := c.expect(t, "next")
		var p struct{ Errors []gqlError }
		if err := json.Unmarshal(m.Payload, &p); err != nil || m.ID != over || len(p.Errors) != 1 {
			t.Fatalf("subscribe %s: got %s %s", over, m.ID, m.Payload)
		}
		e := p.Errors[0]
		if e.Extensions["code"] != "RATE_LIMITED" || e.Extensions["reason"] != "connection_subscription_limit_reached" ||
			!strings.Contains(e.Message, fmt.Sprint(graph.MaxSubscriptionsPerConnection)) {
			t.Fatalf("refusal: %+v", e)
		}
		if m := c.expect(t, "complete"); m.ID != over {
			t.Fatalf("complete for %q, want %q", m.ID, over)
		}

		// The first ones still receive, and nothing more comes for the refused one.
		h.createKey(t, token)
		c.nextFromAll(t, open)

		// Completing one frees a slot.
		c.send(t, wsMessage{ID: "1", Type: "complete"})
		if m := c.expect(t, "complete"); m.ID != "1" {
			t.Fatalf("complete for %q", m.ID)
		}
		delete(open, "1")
		c.subscribe(t, "again", eventsSubscription, map[string]any{"types": []string{"api_key.created"}, "after": h.lastEventID(t, token)})
		open["again"] = true
		h.createKey(t, token)
		c.nextFromAll(t, open)
	})
}

// A key that expires ends the subscriptions opened with it, and the client is told why.
func TestSubscriptionEndsWhenItsKeyExpires(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		expires := time.Now().Add(6 * time.Second) // room for the first event on a busy machine
		_, r := h.post(t, `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { secret } }`,
			map[string]any{"in": map[string]any{"name": "short-lived", "scopes": []string{"events:read"},
				"expiresAt": expires.UTC().Format(time.RFC3339Nano)}}, withSession(token))
		var data struct {
			CreateAPIKey struct{ Secret string } `json:"createApiKey"`
		}
		r.decode(t, &data)
		c := h.dialWS(t)
		c.init(t, map[string]any{"authorization": "Bearer " + data.CreateAPIKey.Secret})
		// From the last event: the next one arrives whether the subscription starts before
		// or after it is recorded.
		c.subscribe(t, "1", eventsSubscription, map[string]any{"types": []string{"api_key.created"}, "after": h.lastEventID(t, token)})
		h.createKey(t, token)
		if e := c.nextEvent(t, "1"); e.Type != "api_key.created" {
			t.Fatalf("got %+v", e)
		}
		for {
			m, err := c.read(t, 10*time.Second)
			if err != nil {
				t.Fatalf("no error message after expiry: %v", err)
			}
			if m.Type == "next" && !strings.Contains(string(m.Payload), `"errors"`) {
				continue
			}
			if m.ID != "1" || !strings.Contains(string(m.Payload), `"credential_expired"`) || !strings.Contains(string(m.Payload), `"UNAUTHENTICATED"`) {
				t.Fatalf("got %s %s, want UNAUTHENTICATED credential_expired", m.Type, m.Payload)
			}
			break
		}
		if time.Now().Before(expires) {
			t.Fatal("the subscription ended before the key expired")
		}
	})
}
