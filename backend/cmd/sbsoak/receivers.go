package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// hookReceiver is the webhook endpoint: it verifies every request with the Standard
// Webhooks library and counts deliveries by webhook-id. Requests under /churn (the
// endpoints the traffic creates and deletes) are answered and counted apart.
type hookReceiver struct {
	URL      string
	srv      *http.Server
	mu       sync.Mutex
	secret   string
	ready    chan struct{} // closed once the secret is known
	byID     map[string]int
	requests int
	bad      []string
	churn    int
}

func newHookReceiver() (*hookReceiver, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rc := &hookReceiver{URL: "http://" + l.Addr().String(), byID: map[string]int{}, ready: make(chan struct{})}
	rc.srv = &http.Server{Handler: http.HandlerFunc(rc.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = rc.srv.Serve(l) }()
	return rc, nil
}

func (rc *hookReceiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	if strings.HasPrefix(r.URL.Path, "/churn") {
		rc.mu.Lock()
		rc.churn++
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
		return
	}
	// The first deliveries may come before the secret is known (it is in the answer to
	// the endpoint's creation): they wait for it.
	select {
	case <-rc.ready:
	case <-time.After(10 * time.Second):
		http.Error(w, "no secret yet", http.StatusServiceUnavailable)
		return
	}
	rc.mu.Lock()
	rc.requests++
	secret := rc.secret
	rc.mu.Unlock()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err == nil {
		err = wh.Verify(body, r.Header)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err != nil {
		rc.bad = append(rc.bad, fmt.Sprintf("%s: %v", r.Header.Get("webhook-id"), err))
		w.WriteHeader(http.StatusBadRequest) // a real receiver refuses it
		return
	}
	rc.byID[r.Header.Get("webhook-id")]++
	w.WriteHeader(http.StatusNoContent)
}

func (rc *hookReceiver) setSecret(s string) {
	rc.mu.Lock()
	rc.secret = s
	rc.mu.Unlock()
	close(rc.ready)
}

func (rc *hookReceiver) snapshot() (requests int, byID map[string]int, bad []string, churn int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	byID = make(map[string]int, len(rc.byID))
	for k, v := range rc.byID {
		byID[k] = v
	}
	return rc.requests, byID, append([]string(nil), rc.bad...), rc.churn
}

func (rc *hookReceiver) close() { _ = rc.srv.Close() }

// subscriber holds a graphql-transport-ws `events` subscription with the key. When the
// server ends the stream (error or complete) it subscribes again with after: the last id
// received; when the connection breaks it dials again and does the same.
type subscriber struct {
	wsURL, key string

	mu          sync.Mutex
	byID        map[string]int
	last        string
	resumes     int      // streams ended by the server and resumed
	reconnects  int      // connections lost and dialled again
	streamEnds  []string // what the server said when it ended a stream
	connErrs    []string
	conn        *websocket.Conn
	stopped     bool
	lastMessage time.Time
	done        chan struct{}
}

func newSubscriber(base, key string) *subscriber {
	return &subscriber{wsURL: "ws" + strings.TrimPrefix(base, "http") + "/graphql", key: key,
		byID: map[string]int{}, done: make(chan struct{})}
}

const subscriptionQuery = `subscription($after: ID) { events(after: $after) { id type } }`

// dial connects and starts the subscription (after the last id received, if any); it
// returns once the server has registered it.
func (s *subscriber) dial() (*websocket.Conn, error) {
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 5 * time.Second}
	ws, _, err := d.Dial(s.wsURL, nil)
	if err != nil {
		return nil, err
	}
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := ws.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"authorization": "Bearer " + s.key}}); err != nil {
		ws.Close()
		return nil, err
	}
	var ack struct{ Type string }
	if err := ws.ReadJSON(&ack); err != nil || ack.Type != "connection_ack" {
		ws.Close()
		return nil, fmt.Errorf("connection_init: %v %+v", err, ack)
	}
	if err := s.start(ws, "1"); err != nil {
		ws.Close()
		return nil, err
	}
	// The subscription is registered once the server has read the message; a ping round
	// trip proves it (messages are handled in order).
	if err := ws.WriteJSON(map[string]any{"type": "ping"}); err != nil {
		ws.Close()
		return nil, err
	}
	_ = ws.SetReadDeadline(time.Time{})
	return ws, nil
}

func (s *subscriber) start(ws *websocket.Conn, id string) error {
	s.mu.Lock()
	vars := map[string]any{}
	if s.last != "" {
		vars["after"] = s.last
	}
	s.mu.Unlock()
	return ws.WriteJSON(map[string]any{"id": id, "type": "subscribe", "payload": map[string]any{"query": subscriptionQuery, "variables": vars}})
}

// run reads until stop; it is started once the first dial succeeded.
func (s *subscriber) run(ws *websocket.Conn) {
	defer close(s.done)
	s.mu.Lock()
	s.conn = ws
	s.mu.Unlock()
	cur, next := "1", 2 // the operation running, the next operation id
	for {
		var msg struct {
			ID      string          `json:"id"`
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		err := ws.ReadJSON(&msg)
		if err != nil {
			ws.Close()
			if s.isStopped() {
				return
			}
			s.mu.Lock()
			s.reconnects++
			s.connErrs = append(s.connErrs, err.Error())
			s.mu.Unlock()
			for {
				time.Sleep(200 * time.Millisecond)
				if s.isStopped() {
					return
				}
				if ws, err = s.dial(); err == nil {
					break
				}
			}
			s.mu.Lock()
			s.conn = ws
			s.mu.Unlock()
			cur = "1"
			continue
		}
		switch msg.Type {
		case "next":
			var p struct {
				Data struct {
					Events struct {
						ID string `json:"id"`
					} `json:"events"`
				} `json:"data"`
				Errors []gqlError `json:"errors"`
			}
			_ = json.Unmarshal(msg.Payload, &p)
			s.mu.Lock()
			s.lastMessage = time.Now()
			if id := p.Data.Events.ID; id != "" {
				s.byID[id]++
				s.last = id
			} else if len(p.Errors) > 0 {
				s.streamEnds = append(s.streamEnds, "next with errors: "+string(msg.Payload))
			}
			s.mu.Unlock()
		case "error", "complete":
			// The server ended the stream: resume after the last event received.
			if msg.ID != cur {
				continue // an operation already given up (an error may be followed by complete)
			}
			s.mu.Lock()
			s.resumes++
			s.streamEnds = append(s.streamEnds, msg.Type+" "+string(msg.Payload))
			s.mu.Unlock()
			if s.isStopped() {
				continue
			}
			cur = fmt.Sprint(next)
			next++
			_ = s.start(ws, cur)
		case "ping":
			_ = ws.WriteJSON(map[string]any{"type": "pong"})
		}
	}
}

func (s *subscriber) isStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

func (s *subscriber) stop() {
	s.mu.Lock()
	s.stopped = true
	c := s.conn
	s.mu.Unlock()
	if c != nil {
		c.Close()
	}
	<-s.done
}

func (s *subscriber) snapshot() (byID map[string]int, resumes, reconnects int, ends, connErrs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	byID = make(map[string]int, len(s.byID))
	for k, v := range s.byID {
		byID[k] = v
	}
	return byID, s.resumes, s.reconnects, append([]string(nil), s.streamEnds...), append([]string(nil), s.connErrs...)
}
