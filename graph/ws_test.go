package graph_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// wsClient speaks graphql-transport-ws, as the console's graphql-ws client does.
type wsClient struct {
	c *websocket.Conn
}

type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// dialWS opens a websocket to /graphql; options set the upgrade request's headers.
func (h *harness) dialWS(t *testing.T, opts ...option) *wsClient {
	t.Helper()
	c, resp, err := h.tryDialWS(t, opts...)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial: %v (status %d)", err, status)
	}
	return c
}

func (h *harness) tryDialWS(t *testing.T, opts ...option) (*wsClient, *http.Response, error) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.url(), nil)
	for _, o := range opts {
		o(req)
	}
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 5 * time.Second}
	c, resp, err := d.Dial("ws"+strings.TrimPrefix(h.url(), "http"), req.Header)
	if err != nil {
		return nil, resp, err
	}
	t.Cleanup(func() { _ = c.Close() })
	if c.Subprotocol() != "graphql-transport-ws" {
		t.Fatalf("negotiated %q", c.Subprotocol())
	}
	return &wsClient{c: c}, resp, nil
}

func (c *wsClient) send(t *testing.T, m wsMessage) {
	t.Helper()
	if err := c.c.WriteJSON(m); err != nil {
		t.Fatalf("send %s: %v", m.Type, err)
	}
}

// read returns the next message that is not a keep-alive ping.
func (c *wsClient) read(t *testing.T, timeout time.Duration) (wsMessage, error) {
	t.Helper()
	for {
		_ = c.c.SetReadDeadline(time.Now().Add(timeout))
		var m wsMessage
		if err := c.c.ReadJSON(&m); err != nil {
			return m, err
		}
		if m.Type == "ping" {
			c.send(t, wsMessage{Type: "pong"})
			continue
		}
		return m, nil
	}
}

func (c *wsClient) expect(t *testing.T, typ string) wsMessage {
	t.Helper()
	m, err := c.read(t, 10*time.Second)
	if err != nil {
		t.Fatalf("waiting for %s: %v", typ, err)
	}
	if m.Type != typ {
		t.Fatalf("got %s %s, want %s", m.Type, m.Payload, typ)
	}
	return m
}

// init sends connection_init with payload and waits for the ack.
func (c *wsClient) init(t *testing.T, payload map[string]any) {
	t.Helper()
	var raw json.RawMessage
	if payload != nil {
		raw, _ = json.Marshal(payload)
	}
	c.send(t, wsMessage{Type: "connection_init", Payload: raw})
	c.expect(t, "connection_ack")
}

// initRefused sends connection_init and expects the server to close with 4403.
func (c *wsClient) initRefused(t *testing.T, payload map[string]any) {
	t.Helper()
	c.initRefusedWith(t, payload, "")
}

// initRefusedWith is initRefused that also wants the close reason to end with reason.
func (c *wsClient) initRefusedWith(t *testing.T, payload map[string]any, reason string) {
	t.Helper()
	var raw json.RawMessage
	if payload != nil {
		raw, _ = json.Marshal(payload)
	}
	c.send(t, wsMessage{Type: "connection_init", Payload: raw})
	for {
		m, err := c.read(t, 10*time.Second)
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != 4403 || !strings.HasSuffix(ce.Text, reason) {
				t.Fatalf("want close 4403 (reason …%s), got %v", reason, err)
			}
			return
		}
		if m.Type == "connection_ack" {
			t.Fatal("connection acknowledged without valid credentials")
		}
	}
}

func (c *wsClient) subscribe(t *testing.T, id, query string, vars map[string]any) {
	t.Helper()
	p, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	c.send(t, wsMessage{ID: id, Type: "subscribe", Payload: p})
}
