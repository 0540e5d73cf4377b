package wsgorilla_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/testserver"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"

	"github.com/switchboard-dev/switchboard/graph/wsgorilla"
)

const transportWS = "graphql-transport-ws"

type msg struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// newServer serves gqlgen's test schema over the websocket transport on our implementation.
func newServer(t *testing.T, ws transport.Websocket) (*testserver.TestServer, *httptest.Server) {
	t.Helper()
	gql := testserver.New()
	if ws.Implementation == nil {
		ws.Implementation = wsgorilla.New(wsgorilla.Options{})
	}
	gql.AddTransport(ws)
	srv := httptest.NewServer(gql)
	t.Cleanup(srv.Close)
	return gql, srv
}

func wsURL(srv *httptest.Server) string { return "ws" + strings.TrimPrefix(srv.URL, "http") }

func dial(t *testing.T, srv *httptest.Server, header http.Header, protocols ...string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{Subprotocols: protocols, HandshakeTimeout: 5 * time.Second}
	c, resp, err := d.Dial(wsURL(srv), header)
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, resp, err
}

func send(t *testing.T, c *websocket.Conn, m msg) {
	t.Helper()
	if err := c.WriteJSON(m); err != nil {
		t.Fatalf("write %s: %v", m.Type, err)
	}
}

func read(t *testing.T, c *websocket.Conn) msg {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var m msg
	if err := c.ReadJSON(&m); err != nil {
		t.Fatalf("read: %v", err)
	}
	return m
}

func expect(t *testing.T, c *websocket.Conn, typ string) msg {
	t.Helper()
	m := read(t, c)
	if m.Type != typ {
		t.Fatalf("got message %+v (payload %s), want type %q", m, m.Payload, typ)
	}
	return m
}

// initConn dials with graphql-transport-ws and completes connection_init/ack.
func initConn(t *testing.T, srv *httptest.Server) *websocket.Conn {
	t.Helper()
	c, _, err := dial(t, srv, nil, transportWS)
	if err != nil {
		t.Fatal(err)
	}
	if c.Subprotocol() != transportWS {
		t.Fatalf("subprotocol %q, want %q", c.Subprotocol(), transportWS)
	}
	send(t, c, msg{Type: "connection_init"})
	expect(t, c, "connection_ack")
	return c
}

func TestGraphQLTransportWSSubscription(t *testing.T) {
	gql, srv := newServer(t, transport.Websocket{})
	c := initConn(t, srv)

	send(t, c, msg{ID: "1", Type: "subscribe", Payload: json.RawMessage(`{"query":"subscription { name }"}`)})
	for range 2 {
		gql.SendNextSubscriptionMessage()
		m := expect(t, c, "next")
		if m.ID != "1" || string(m.Payload) != `{"data":{"name":"test"}}` {
			t.Fatalf("next = %+v, payload %s", m, m.Payload)
		}
	}

	// A client ping is answered with a pong.
	send(t, c, msg{Type: "ping"})
	expect(t, c, "pong")

	// The server completes the operation.
	gql.SendCompleteSubscriptionMessage()
	if m := expect(t, c, "complete"); m.ID != "1" {
		t.Fatalf("complete for %q, want 1", m.ID)
	}

	// A query runs over the socket too and completes by itself.
	send(t, c, msg{ID: "2", Type: "subscribe", Payload: json.RawMessage(`{"query":"{ name }"}`)})
	if m := expect(t, c, "next"); string(m.Payload) != `{"data":{"name":"test"}}` {
		t.Fatalf("query payload %s", m.Payload)
	}
	expect(t, c, "complete")

	// The client stops a running subscription; the server completes it.
	send(t, c, msg{ID: "3", Type: "subscribe", Payload: json.RawMessage(`{"query":"subscription { name }"}`)})
	gql.SendNextSubscriptionMessage()
	expect(t, c, "next")
	send(t, c, msg{ID: "3", Type: "complete"})
	if m := expect(t, c, "complete"); m.ID != "3" {
		t.Fatalf("complete for %q, want 3", m.ID)
	}

	// A normal close from the client ends the connection cleanly.
	if err := c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye")); err != nil {
		t.Fatal(err)
	}
}

func TestInitFuncRejectionClosesConnection(t *testing.T) {
	_, srv := newServer(t, transport.Websocket{
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			if p.Authorization() != "Bearer good" {
				ctx = transport.WithWebsocketCloseCode(ctx, 4403)
				return transport.AppendCloseReason(ctx, "Forbidden"), nil, errors.New("unauthenticated")
			}
			return ctx, nil, nil
		},
	})

	c, _, err := dial(t, srv, nil, transportWS)
	if err != nil {
		t.Fatal(err)
	}
	send(t, c, msg{Type: "connection_init", Payload: json.RawMessage(`{"authorization":"Bearer bad"}`)})
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) {
				t.Fatalf("want a close frame, got %v", err)
			}
			if ce.Code != 4403 || ce.Text != "Forbidden" {
				t.Fatalf("closed with %d %q, want 4403 Forbidden", ce.Code, ce.Text)
			}
			break
		}
		if strings.Contains(string(data), "connection_ack") {
			t.Fatalf("connection acknowledged despite bad credentials: %s", data)
		}
	}

	c2, _, err := dial(t, srv, nil, transportWS)
	if err != nil {
		t.Fatal(err)
	}
	send(t, c2, msg{Type: "connection_init", Payload: json.RawMessage(`{"authorization":"Bearer good"}`)})
	expect(t, c2, "connection_ack")
}

func TestSubprotocolNegotiation(t *testing.T) {
	_, srv := newServer(t, transport.Websocket{})
	for _, tc := range []struct {
		offered []string
		want    string
	}{
		{[]string{transportWS}, transportWS},
		{[]string{"graphql-ws"}, "graphql-ws"},
		{[]string{transportWS, "graphql-ws"}, transportWS}, // the client's preference wins
		{[]string{"graphql-ws", transportWS}, "graphql-ws"},
		{[]string{"unknown", transportWS}, transportWS},
		{[]string{"unknown"}, ""},
		{nil, ""},
	} {
		c, resp, err := dial(t, srv, nil, tc.offered...)
		if err != nil {
			t.Fatalf("offered %v: %v", tc.offered, err)
		}
		if got := c.Subprotocol(); got != tc.want {
			t.Errorf("offered %v: negotiated %q, want %q", tc.offered, got, tc.want)
		}
		if got := resp.Header.Get("Sec-Websocket-Protocol"); got != tc.want {
			t.Errorf("offered %v: response header %q, want %q", tc.offered, got, tc.want)
		}
		_ = c.Close()
	}
}

func TestOriginCheck(t *testing.T) {
	impl := wsgorilla.New(wsgorilla.Options{CheckOrigin: wsgorilla.SameOriginOr("https://dash.example.com")})
	_, srv := newServer(t, transport.Websocket{Implementation: impl})

	for _, tc := range []struct {
		origin string
		ok     bool
	}{
		{"", true},      // not a browser
		{srv.URL, true}, // same origin
		{"https://dash.example.com", true},
		{"HTTPS://DASH.example.com", true},
		{"https://evil.example", false},
		{"http://dash.example.com", false}, // scheme matters
		{"https://dash.example.com.evil.example", false},
		{"null", false},
	} {
		h := http.Header{}
		if tc.origin != "" {
			h.Set("Origin", tc.origin)
		}
		c, resp, err := dial(t, srv, h, transportWS)
		if tc.ok {
			if err != nil {
				t.Errorf("origin %q refused: %v", tc.origin, err)
				continue
			}
			send(t, c, msg{Type: "connection_init"})
			expect(t, c, "connection_ack")
			_ = c.Close()
			continue
		}
		if err == nil {
			_ = c.Close()
			t.Errorf("origin %q: upgrade accepted, want refusal", tc.origin)
			continue
		}
		if resp == nil || resp.StatusCode == http.StatusSwitchingProtocols {
			t.Errorf("origin %q: want an HTTP error response, got %v", tc.origin, err)
		}
	}
}

func TestServerPingAndMissingPong(t *testing.T) {
	_, srv := newServer(t, transport.Websocket{PingPongInterval: 50 * time.Millisecond})

	// A client that answers pings stays connected across several intervals.
	c := initConn(t, srv)
	for range 4 {
		expect(t, c, "ping")
		send(t, c, msg{Type: "pong"})
	}
	send(t, c, msg{Type: "ping"})
	for {
		if m := read(t, c); m.Type == "pong" {
			break
		}
	}

	// A client that never answers is dropped by the read deadline (2 intervals).
	silent := initConn(t, srv)
	_ = silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		var m msg
		if err := silent.ReadJSON(&m); err != nil {
			var ne interface{ Timeout() bool }
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("silent client was not disconnected")
			}
			return // the server closed the connection
		}
		if m.Type != "ping" {
			t.Fatalf("unexpected %+v", m)
		}
	}
}

func TestReadLimit(t *testing.T) {
	limit := int64(512)
	_, srv := newServer(t, transport.Websocket{PayloadReadLimit: &limit})
	c := initConn(t, srv)
	big := `{"query":"{ name }","variables":{"x":"` + strings.Repeat("a", 1024) + `"}}`
	send(t, c, msg{ID: "1", Type: "subscribe", Payload: json.RawMessage(big)})
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, _, err := c.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) && ce.Code != websocket.CloseMessageTooBig {
			t.Fatalf("close code %d, want %d", ce.Code, websocket.CloseMessageTooBig)
		}
		var ne interface{ Timeout() bool }
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("oversized message did not close the connection")
		}
		return
	}
}

// TestConcurrentWrites drives WriteJSON from many goroutines at once; gorilla panics on
// concurrent writers, and the race detector watches the rest.
func TestConcurrentWrites(t *testing.T) {
	accepted := make(chan transport.WebsocketConn, 1)
	impl := wsgorilla.New(wsgorilla.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := impl.Accept(w, r, transport.WebsocketAcceptOptions{ResponseHeader: http.Header{}, Subprotocols: []string{transportWS}})
		if err != nil {
			t.Errorf("accept: %v", err)
			return
		}
		accepted <- c
	}))
	t.Cleanup(srv.Close)

	c, _, err := dial(t, srv, nil, transportWS)
	if err != nil {
		t.Fatal(err)
	}
	sc := <-accepted
	defer sc.Close()

	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := sc.WriteJSON(map[string]int{"w": w, "i": i}); err != nil {
					t.Errorf("write: %v", err)
					return
				}
			}
		}()
	}
	got := 0
	for got < writers*each {
		var m map[string]int
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if err := c.ReadJSON(&m); err != nil {
			t.Fatalf("after %d messages: %v", got, err)
		}
		got++
	}
	wg.Wait()

	if err := sc.WriteClose(websocket.CloseNormalClosure, strings.Repeat("x", 200)); err != nil {
		t.Fatalf("write close with a long reason: %v", err)
	}
	_, _, err = c.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseNormalClosure {
		t.Fatalf("want normal close, got %v", err)
	}
	if err := sc.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	_ = sc.Close() // idempotent
}

// TestPeerCloseIsErrWebsocketClosed checks the contract the transport relies on to tell a
// normal hang-up from a failure.
func TestPeerCloseIsErrWebsocketClosed(t *testing.T) {
	accepted := make(chan transport.WebsocketConn, 1)
	impl := wsgorilla.New(wsgorilla.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := impl.Accept(w, r, transport.WebsocketAcceptOptions{ResponseHeader: http.Header{"X-Test": {"yes"}}})
		if err != nil {
			t.Errorf("accept: %v", err)
			return
		}
		accepted <- c
	}))
	t.Cleanup(srv.Close)

	c, resp, err := dial(t, srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("X-Test") != "yes" {
		t.Error("response header from accept options not sent")
	}
	sc := <-accepted
	defer sc.Close()
	_ = c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
	if _, _, err := sc.NextReader(); !errors.Is(err, transport.ErrWebsocketClosed) {
		t.Fatalf("NextReader after a normal close: %v, want ErrWebsocketClosed", err)
	}
}

// A subscribe with the id of an operation under way closes the connection with 4409, as
// graphql-transport-ws says (gqlgen would run both, every event then arriving twice under one
// id); an id is free again once the server has completed its operation.
func TestSubscribeWithAnActiveIDCloses4409(t *testing.T) {
	gql, srv := newServer(t, transport.Websocket{})
	c := initConn(t, srv)
	send(t, c, msg{ID: "q", Type: "subscribe", Payload: json.RawMessage(`{"query":"{ name }"}`)})
	expect(t, c, "next")
	expect(t, c, "complete")
	// "q" completed: reusing it is fine.
	send(t, c, msg{ID: "q", Type: "subscribe", Payload: json.RawMessage(`{"query":"subscription { name }"}`)})
	gql.SendNextSubscriptionMessage()
	if m := expect(t, c, "next"); m.ID != "q" {
		t.Fatalf("next for %q", m.ID)
	}
	send(t, c, msg{ID: "q", Type: "subscribe", Payload: json.RawMessage(`{"query":"subscription { name }"}`)})
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, _, err := c.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != 4409 || ce.Text != "Subscriber for q already exists" {
			t.Fatalf("want close 4409, got %v", err)
		}
		return
	}
}
