package graph_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/graph"
)

const eventsSubscription = `subscription($types: [String!], $after: ID) {
	events(types: $types, after: $after) { id type timestamp workspaceId data }
}`

type event struct {
	ID          string
	Type        string
	Timestamp   string
	WorkspaceID string
	Data        map[string]any
}

// lastEventID is the id of the newest event of the session's workspace.
func (h *harness) lastEventID(t *testing.T, token string) string {
	t.Helper()
	_, r := h.post(t, `{ events(first: 1) { nodes { id } } }`, nil, withSession(token))
	var data struct {
		Events struct{ Nodes []struct{ ID string } }
	}
	r.decode(t, &data)
	if len(data.Events.Nodes) == 0 {
		t.Fatal("workspace has no events")
	}
	return data.Events.Nodes[0].ID
}

// nextEvent waits for the next event of subscription id.
func (c *wsClient) nextEvent(t *testing.T, id string) event {
	t.Helper()
	m := c.expect(t, "next")
	if m.ID != id {
		t.Fatalf("next for subscription %q, want %q", m.ID, id)
	}
	var p struct {
		Data   struct{ Events event }
		Errors []gqlError
	}
	if err := json.Unmarshal(m.Payload, &p); err != nil || len(p.Errors) > 0 {
		t.Fatalf("next payload %s: %v", m.Payload, err)
	}
	return p.Data.Events
}

func (h *harness) revokeKey(t *testing.T, token, id string) {
	t.Helper()
	_, r := h.post(t, `mutation($id: ID!) { revokeApiKey(id: $id) { status } }`, map[string]any{"id": id}, withSession(token))
	var data struct {
		RevokeAPIKey struct{ Status string } `json:"revokeApiKey"`
	}
	r.decode(t, &data)
	if data.RevokeAPIKey.Status != "REVOKED" {
		t.Fatalf("revoke: %+v", data)
	}
}

func TestSubscriptionWithKeyInConnectionInit(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		tokenA, wsA := h.owner(t)
		tokenB, _ := h.owner(t)
		_, keyA := h.createKey(t, tokenA, "events:read")
		after := h.lastEventID(t, tokenA)

		c := h.dialWS(t)
		c.init(t, map[string]any{"authorization": "Bearer " + keyA})
		c.subscribe(t, "1", eventsSubscription, map[string]any{"after": after})

		// Workspace B's event happens first; it must never reach A's subscriber.
		idB, _ := h.createKey(t, tokenB)
		idA, secretA := h.createKey(t, tokenA)

		e := c.nextEvent(t, "1")
		if e.Type != "api_key.created" || e.WorkspaceID != wsA || !strings.HasPrefix(e.ID, "evt_") {
			t.Fatalf("first event = %+v, want workspace %s's api_key.created", e, wsA)
		}
		if _, err := time.Parse(time.RFC3339, e.Timestamp); err != nil {
			t.Errorf("timestamp %q: %v", e.Timestamp, err)
		}
		raw, _ := json.Marshal(e.Data)
		if !strings.Contains(string(raw), idA) || strings.Contains(string(raw), idB) {
			t.Errorf("event data %s should name key %s only", raw, idA)
		}
		if strings.Contains(string(raw), secretA) {
			t.Fatal("the key secret is in the event")
		}

		h.revokeKey(t, tokenB, idB)
		h.revokeKey(t, tokenA, idA)
		if e := c.nextEvent(t, "1"); e.Type != "api_key.revoked" || e.WorkspaceID != wsA {
			t.Fatalf("second event = %+v, want workspace %s's api_key.revoked", e, wsA)
		}

		// The client completes the subscription.
		c.send(t, wsMessage{ID: "1", Type: "complete"})
		if m := c.expect(t, "complete"); m.ID != "1" {
			t.Fatalf("complete for %q", m.ID)
		}
	})
}

func TestSubscriptionWithSessionCookie(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		tokenA, wsA := h.owner(t)
		tokenB, _ := h.owner(t)
		after := h.lastEventID(t, tokenA)

		// A browser sends the cookie and its own origin with the upgrade request.
		c := h.dialWS(t, withSession(tokenA), withHeader("Origin", h.srv.URL))
		c.init(t, nil)
		c.subscribe(t, "s", eventsSubscription, map[string]any{"types": []string{"api_key.revoked"}, "after": after})

		idB, _ := h.createKey(t, tokenB)
		h.revokeKey(t, tokenB, idB)
		idA, _ := h.createKey(t, tokenA) // filtered out by type
		h.revokeKey(t, tokenA, idA)

		e := c.nextEvent(t, "s")
		if e.Type != "api_key.revoked" || e.WorkspaceID != wsA || !strings.Contains(jsonString(e.Data), idA) {
			t.Fatalf("event = %+v, want the revocation of %s in %s", e, idA, wsA)
		}
	})
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Revoking the key a subscription was opened with ends it at once, and the client is told why.
func TestSubscriptionEndsWhenItsKeyIsRevoked(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		id, key := h.createKey(t, token, "events:read")
		c := h.dialWS(t)
		c.init(t, map[string]any{"authorization": "Bearer " + key})
		c.subscribe(t, "1", eventsSubscription, nil)
		h.revokeKey(t, token, id)
		// Whether the subscription started before the revocation committed (an "error"
		// message ends it) or after (the connection was authenticated earlier; the subscribe
		// is refused with an error result), the client learns why.
		for {
			m, err := c.read(t, 10*time.Second)
			if err != nil {
				t.Fatalf("no error message after revocation: %v", err)
			}
			if m.Type == "next" && !strings.Contains(string(m.Payload), `"errors"`) {
				continue // events already on their way (the key's creation, its revocation)
			}
			if !strings.Contains(string(m.Payload), `"credential_revoked"`) || !strings.Contains(string(m.Payload), `"UNAUTHENTICATED"`) {
				t.Fatalf("got %s %s, want UNAUTHENTICATED credential_revoked", m.Type, m.Payload)
			}
			return
		}
	})
}

func TestSubscriptionWithoutScopeIsForbidden(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		_, key := h.createKey(t, token, "models:read")
		c := h.dialWS(t)
		c.init(t, map[string]any{"authorization": "Bearer " + key})
		c.subscribe(t, "1", eventsSubscription, nil)
		m, err := c.read(t, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(m.Payload), `"FORBIDDEN"`) || !strings.Contains(string(m.Payload), "events:read") {
			t.Fatalf("got %s %s, want FORBIDDEN naming events:read", m.Type, m.Payload)
		}
	})
}

func TestWebsocketAuthentication(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		keyID, key := h.createKey(t, token, "events:read")

		// No credentials at all, a malformed key, an unknown key: refused with 4403.
		h.dialWS(t).initRefused(t, nil)
		h.dialWS(t).initRefusedWith(t, map[string]any{"authorization": "Bearer nonsense"}, "Forbidden: invalid_api_key")
		h.dialWS(t).initRefused(t, map[string]any{"authorization": "Basic " + key})
		// (The last character changed: "x", unless it already is one.)
		last := "x"
		if strings.HasSuffix(key, "x") {
			last = "y"
		}
		h.dialWS(t).initRefused(t, map[string]any{"authorization": "Bearer " + key[:len(key)-1] + last})

		// A revoked key is refused at once, the close reason saying so.
		h.revokeKey(t, token, keyID)
		h.dialWS(t).initRefusedWith(t, map[string]any{"authorization": "Bearer " + key}, "Forbidden: revoked_api_key")

		// A stale cookie is no credential either.
		h.dialWS(t, withSession("sbs_stale")).initRefused(t, nil)
	})
}

func TestCrossOriginWebsocketRefused(t *testing.T) {
	eachDialect(t, graph.Options{TrustedOrigins: []string{"https://dash.example.com"}}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		_, resp, err := h.tryDialWS(t, withSession(token), withHeader("Origin", "https://evil.example"))
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("cross-origin upgrade: err %v, response %v; want 403", err, resp)
		}
		// A trusted origin may connect.
		c, _, err := h.tryDialWS(t, withSession(token), withHeader("Origin", "https://dash.example.com"))
		if err != nil {
			t.Fatalf("trusted origin refused: %v", err)
		}
		c.init(t, nil)
	})
}

func TestSubscriptionOverHTTPRefused(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		_, r := h.post(t, eventsSubscription, nil, withSession(token))
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["reason"] != "websocket_required" {
			t.Fatalf("subscription over POST: %+v", r.Errors)
		}
	})
}

func TestEventsQuery(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, ws := h.owner(t)
		h.createKey(t, token)
		_, r := h.post(t, `{ events(types: ["workspace.created"]) { nodes { id type workspaceId data } hasMore nextCursor } }`, nil, withSession(token))
		var data struct {
			Events struct {
				Nodes      []event
				HasMore    bool
				NextCursor *string
			}
		}
		r.decode(t, &data)
		if len(data.Events.Nodes) != 1 || data.Events.Nodes[0].Type != "workspace.created" || data.Events.Nodes[0].WorkspaceID != ws {
			t.Fatalf("events = %+v", data.Events)
		}
		id := data.Events.Nodes[0].ID

		// The same range as REST's ?limit= (0 is refused, not taken as the default).
		for _, first := range []string{"101", "0", "-1"} {
			_, r = h.post(t, `{ events(first: `+first+`) { nodes { id } } }`, nil, withSession(token))
			if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "first" || !strings.HasPrefix(r.Errors[0].Message, "first ") {
				t.Fatalf("events(first: %s): %+v", first, r.Errors)
			}
		}
		_, r = h.post(t, `{ events(types: ["no.such.type"]) { nodes { id } } }`, nil, withSession(token))
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "types" {
			t.Fatalf("unknown type: %+v", r.Errors)
		}

		_, r = h.post(t, `query($id: ID!) { event(id: $id) { id type } }`, map[string]any{"id": id}, withSession(token))
		var one struct{ Event event }
		r.decode(t, &one)
		if one.Event.ID != id {
			t.Fatalf("event = %+v", one.Event)
		}

		// Another workspace's event is not found.
		other, _ := h.owner(t)
		_, r = h.post(t, `query($id: ID!) { event(id: $id) { id } }`, map[string]any{"id": id}, withSession(other))
		if r.code(t) != "NOT_FOUND" {
			t.Fatalf("other workspace's event: %+v", r.Errors)
		}

		// The catalog needs a caller (the same rule as GET /api/v1/event-types).
		_, r = h.post(t, `{ eventTypes { type } }`, nil)
		if r.code(t) != "UNAUTHENTICATED" {
			t.Fatalf("anonymous eventTypes: %+v", r.Errors)
		}
		_, r = h.post(t, `{ eventTypes { type description sample } }`, nil, withSession(token))
		var types struct {
			EventTypes []struct {
				Type, Description string
				Sample            map[string]any
			}
		}
		r.decode(t, &types)
		found := false
		for _, et := range types.EventTypes {
			found = found || et.Type == "api_key.created" && et.Sample != nil
		}
		if !found {
			t.Fatalf("eventTypes lacks api_key.created: %+v", types)
		}
	})
}
