// Package integration runs real switchboard processes (two replicas on loopback ports
// against one fresh PostgreSQL database) and checks that they behave as one service: events
// cross replicas, revocations take effect everywhere, and webhook workers share the work
// without losing or duplicating a delivery, even when one replica is killed (-9).
package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// binary is the switchboard executable built once for every test.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "switchboard-it-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "switchboard")
	build := exec.Command("go", "build", "-o", binary, "../cmd/switchboard")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build switchboard:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// replica is one running `switchboard serve` process.
type replica struct {
	t    *testing.T
	name string
	base string
	cmd  *exec.Cmd
	logs *lockedBuffer
	done chan struct{}
}

// lease is the job lease the replicas run with: the production default, whose heartbeat
// lets a killed replica's work be taken over within seconds.
const lease = app.DefaultWebhookLease

// startReplica runs the binary against dbURL and waits until it is ready.
func startReplica(t *testing.T, name, dbURL string, env ...string) *replica {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	r := &replica{t: t, name: name, base: "http://" + addr, logs: &lockedBuffer{}, done: make(chan struct{})}
	r.cmd = exec.Command(binary, "serve", "--addr", addr, "--database-url", dbURL, "--base-url", r.base)
	r.cmd.Env = append(os.Environ(),
		"SWITCHBOARD_WEBHOOK_ALLOWLIST=127.0.0.1",
		"SWITCHBOARD_LOG_LEVEL=warn",
		"SWITCHBOARD_RATE_LIMIT=1000", "SWITCHBOARD_RATE_BURST=1000",
		"SWITCHBOARD_MEDIA_STORE=file://"+filepath.ToSlash(t.TempDir()),
		"SWITCHBOARD_SECRETS_KEY=integration-test-secrets-key", // replicas sign media URLs alike
	)
	r.cmd.Env = append(r.cmd.Env, env...)
	r.cmd.Stdout, r.cmd.Stderr = r.logs, r.logs
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		r.kill()
		if t.Failed() {
			t.Logf("replica %s output:\n%s", name, r.logs.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(r.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return r
			}
		}
		select {
		case <-r.done:
			t.Fatalf("replica %s exited:\n%s", name, r.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica %s not ready:\n%s", name, r.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill ends the process at once, as a crash would (SIGKILL: no shutdown, no flush).
func (r *replica) kill() {
	if r.cmd.Process != nil {
		_ = r.cmd.Process.Signal(syscall.SIGKILL)
		<-r.done
	}
}

// owner is a console user with a workspace and a full-access API key.
type owner struct {
	session *http.Client // carries the console session cookie
	key     string
	keyID   string
}

// signUp goes through the console's journey on replica r: sign up, open the workspace,
// create a key.
func signUp(t *testing.T, r *replica) owner {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	o := owner{session: &http.Client{Jar: jar, Timeout: 10 * time.Second}}
	email := fmt.Sprintf("it-%d@example.com", time.Now().UnixNano())
	r.graphql(t, o.session, "", `mutation($i: SignUpInput!) { signUp(input: $i) { user { id } } }`,
		map[string]any{"i": map[string]any{"email": email, "password": "correct horse battery", "name": "Integration"}})
	r.graphql(t, o.session, "", `mutation { ensureWorkspace { id } }`, nil)
	var created struct {
		CreateAPIKey struct {
			Secret string `json:"secret"`
			APIKey struct {
				ID string `json:"id"`
			} `json:"apiKey"`
		} `json:"createApiKey"`
	}
	r.graphql(t, o.session, "", `mutation { createApiKey(input: {name: "it", scopes: ["*"]}) { secret apiKey { id } } }`, nil, &created)
	o.key, o.keyID = created.CreateAPIKey.Secret, created.CreateAPIKey.APIKey.ID
	if o.key == "" {
		t.Fatal("no key secret returned")
	}
	return o
}

// graphql runs an operation on r with client c (and a Bearer key when key is set),
// failing the test on errors, and decodes data into out[0] if given.
func (r *replica) graphql(t *testing.T, c *http.Client, key, query string, vars map[string]any, out ...any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, r.base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		Data   json.RawMessage `json:"data"`
		Errors []any           `json:"errors"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Errors) > 0 {
		t.Fatalf("graphql on %s: %d %s", r.name, resp.StatusCode, raw)
	}
	if len(out) > 0 {
		if err := json.Unmarshal(res.Data, out[0]); err != nil {
			t.Fatal(err)
		}
	}
}

// rest calls /api/v1 on r with the key and returns the status and body.
func (r *replica) rest(t *testing.T, key, method, path string, in any) (int, []byte) {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, r.base+path, body)
	req.Header.Set("Authorization", "Bearer "+key)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

func (r *replica) mustREST(t *testing.T, key, method, path string, in any, out any) {
	t.Helper()
	code, raw := r.rest(t, key, method, path, in)
	if code >= 300 {
		t.Fatalf("%s %s on %s: %d %s", method, path, r.name, code, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
}

type webhookCreated struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

type delivery struct {
	ID       string `json:"id"`
	EventID  string `json:"event_id"`
	Status   string `json:"status"`
	Attempts []struct {
		StatusCode *int    `json:"status_code"`
		Error      *string `json:"error"`
	} `json:"attempts"`
}

func (r *replica) deliveries(t *testing.T, key, hookID string) []delivery {
	t.Helper()
	var out []delivery
	after := ""
	for {
		var page struct {
			Data       []delivery `json:"data"`
			HasMore    bool       `json:"has_more"`
			NextCursor string     `json:"next_cursor"`
		}
		path := "/api/v1/webhooks/" + hookID + "/deliveries?limit=100"
		if after != "" {
			path += "&after=" + after
		}
		r.mustREST(t, key, http.MethodGet, path, nil, &page)
		out = append(out, page.Data...)
		if !page.HasMore {
			return out
		}
		after = page.NextCursor
	}
}

// hookReceiver is a webhook endpoint on loopback that verifies every request with the
// Standard Webhooks reference library and counts deliveries by webhook-id.
type hookReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	secret   string
	byID     map[string]int
	requests int
	bad      []string
	hold     func(n int, r *http.Request) // called before answering 200
}

func newHookReceiver(t *testing.T) *hookReceiver {
	rc := &hookReceiver{byID: map[string]int{}}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.requests++
		n := rc.requests
		secret, hold := rc.secret, rc.hold
		rc.mu.Unlock()
		if secret != "" {
			wh, _ := standardwebhooks.NewWebhook(secret)
			if err := wh.Verify(body, r.Header); err != nil {
				rc.mu.Lock()
				rc.bad = append(rc.bad, err.Error())
				rc.mu.Unlock()
			}
		}
		if hold != nil {
			hold(n, r)
		}
		if r.Context().Err() != nil {
			return // the sender is gone (killed): it never got an answer, so this was no delivery
		}
		rc.mu.Lock()
		rc.byID[r.Header.Get("webhook-id")]++
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *hookReceiver) setSecret(s string) {
	rc.mu.Lock()
	rc.secret = s
	rc.mu.Unlock()
}

func (rc *hookReceiver) snapshot() (requests int, byID map[string]int, bad []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	byID = make(map[string]int, len(rc.byID))
	for k, v := range rc.byID {
		byID[k] = v
	}
	return rc.requests, byID, append([]string(nil), rc.bad...)
}

func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A replica killed with -9 in the middle of a delivery loses nothing: once its lease
// expires, another replica sends the delivery again (same webhook-id), and it succeeds.
func TestKilledReplicaDeliveryFinishedByOther(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	a := startReplica(t, "A", db)
	o := signUp(t, a)

	rc := newHookReceiver(t)
	firstArrived := make(chan string, 1)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	rc.hold = func(n int, r *http.Request) {
		if n == 1 { // the first request hangs: A is killed while it is in flight
			firstArrived <- r.Header.Get("webhook-id")
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}
	var hook webhookCreated
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": rc.URL + "/hook", "event_types": []string{"webhook.updated"}}, &hook)
	rc.setSecret(hook.Secret)
	var test delivery
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/webhooks/"+hook.ID+"/test", map[string]any{}, &test)

	var msgID string
	select {
	case msgID = <-firstArrived:
	case <-time.After(10 * time.Second):
		t.Fatalf("replica A never sent the delivery:\n%s", a.logs.String())
	}
	if msgID != test.EventID {
		t.Fatalf("webhook-id %s, want the test event %s", msgID, test.EventID)
	}
	a.kill()
	killedAt := time.Now()

	b := startReplica(t, "B", db)
	waitFor(t, 30*time.Second, "replica B to deliver A's work", func() bool {
		_, byID, _ := rc.snapshot()
		return byID[test.EventID] == 1
	})
	took := time.Since(killedAt)
	if took < lease/2 {
		t.Errorf("redelivered %s after the kill, before A's lease (%s) could have expired", took, lease)
	}
	if took > lease+5*time.Second {
		t.Errorf("redelivered %s after the kill: the takeover should follow the lease (%s) within seconds", took, lease)
	}
	t.Logf("taken over %s after the kill (lease %s)", took.Round(100*time.Millisecond), lease)
	waitFor(t, 10*time.Second, "the delivery to be recorded as succeeded", func() bool {
		ds := b.deliveries(t, o.key, hook.ID)
		return len(ds) == 1 && ds[0].Status == "succeeded"
	})
	ds := b.deliveries(t, o.key, hook.ID)
	if len(ds[0].Attempts) != 1 || ds[0].Attempts[0].StatusCode == nil || *ds[0].Attempts[0].StatusCode != 204 {
		t.Fatalf("delivery log: %+v", ds[0])
	}
	if _, _, bad := rc.snapshot(); len(bad) > 0 {
		t.Fatalf("signatures rejected by the reference verifier: %v", bad)
	}
}

// With workers on both replicas claiming from one table, every event is delivered exactly
// once (by webhook-id), whichever replica recorded it.
func TestNoDoubleDeliveryAcrossReplicas(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	a := startReplica(t, "A", db)
	b := startReplica(t, "B", db)
	o := signUp(t, a)

	rc := newHookReceiver(t)
	rc.hold = func(int, *http.Request) { time.Sleep(5 * time.Millisecond) } // a receiver with some latency
	var hook webhookCreated
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": rc.URL, "event_types": []string{"webhook.updated"}}, &hook)
	rc.setSecret(hook.Secret)

	// Events recorded on both replicas: each update is a webhook.updated event delivered to
	// the endpoint itself; test events go to it whatever it subscribes to.
	const n = 60
	var wg sync.WaitGroup
	for i := range n {
		r := a
		if i%2 == 1 {
			r = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%3 == 0 {
				r.mustREST(t, o.key, http.MethodPost, "/api/v1/webhooks/"+hook.ID+"/test", map[string]any{}, nil)
			} else {
				r.mustREST(t, o.key, http.MethodPatch, "/api/v1/webhooks/"+hook.ID, map[string]any{"description": fmt.Sprintf("update %d", i)}, nil)
			}
		}()
	}
	wg.Wait()
	waitFor(t, 60*time.Second, "every delivery to succeed", func() bool {
		ds := a.deliveries(t, o.key, hook.ID)
		for _, d := range ds {
			if d.Status != "succeeded" {
				return false
			}
		}
		return len(ds) == n
	})
	requests, byID, bad := rc.snapshot()
	if len(bad) > 0 {
		t.Fatalf("signatures rejected: %v", bad)
	}
	for id, c := range byID {
		if c != 1 {
			t.Errorf("event %s delivered %d times", id, c)
		}
	}
	if requests != n || len(byID) != n {
		t.Fatalf("%d requests for %d distinct events, want %d each once", requests, len(byID), n)
	}
}

// An event created through replica A reaches a GraphQL subscription held on replica B.
func TestEventReachesSubscriptionOnOtherReplica(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	a := startReplica(t, "A", db)
	b := startReplica(t, "B", db)
	o := signUp(t, a)

	ws := subscribe(t, b, o.key, `subscription { events(types: ["webhook.created"]) { id type workspaceId data } }`)
	var hook webhookCreated
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": "https://example.com/hook", "event_types": []string{"*"}}, &hook)

	var msg struct {
		Type    string `json:"type"`
		Payload struct {
			Data struct {
				Events struct {
					ID   string          `json:"id"`
					Type string          `json:"type"`
					Data json.RawMessage `json:"data"`
				} `json:"events"`
			} `json:"data"`
		} `json:"payload"`
	}
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := ws.ReadJSON(&msg); err != nil {
		t.Fatalf("no event on replica B: %v", err)
	}
	ev := msg.Payload.Data.Events
	if msg.Type != "next" || ev.Type != "webhook.created" || !strings.Contains(string(ev.Data), hook.ID) {
		t.Fatalf("subscription message: %+v", msg)
	}
}

// subscribe opens a graphql-transport-ws connection to r with the key and starts query.
func subscribe(t *testing.T, r *replica, key, query string) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 5 * time.Second}
	ws, resp, err := d.Dial("ws"+strings.TrimPrefix(r.base, "http")+"/graphql", nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("websocket to %s: %v (%d)", r.name, err, status)
	}
	t.Cleanup(func() { ws.Close() })
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := ws.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"authorization": "Bearer " + key}}); err != nil {
		t.Fatal(err)
	}
	var ack struct{ Type string }
	if err := ws.ReadJSON(&ack); err != nil || ack.Type != "connection_ack" {
		t.Fatalf("connection_init: %v %+v", err, ack)
	}
	if err := ws.WriteJSON(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": query}}); err != nil {
		t.Fatal(err)
	}
	// The subscription is registered once the server has read the message; a ping round
	// trip proves it has (messages are handled in order).
	if err := ws.WriteJSON(map[string]any{"type": "ping"}); err != nil {
		t.Fatal(err)
	}
	var pong struct{ Type string }
	if err := ws.ReadJSON(&pong); err != nil || pong.Type != "pong" {
		t.Fatalf("ping: %v %+v", err, pong)
	}
	return ws
}

// A key revoked through replica A is refused by replica B within a second (the revocation
// purges every replica's key cache by notification).
func TestKeyRevokedOnOneReplicaRefusedByOther(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	a := startReplica(t, "A", db)
	b := startReplica(t, "B", db)
	o := signUp(t, a)

	// B has verified (and cached) the key.
	if code, raw := b.rest(t, o.key, http.MethodGet, "/api/v1/me", nil); code != http.StatusOK {
		t.Fatalf("GET /api/v1/me on B: %d %s", code, raw)
	}
	a.graphql(t, o.session, "", `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, map[string]any{"id": o.keyID})
	revoked := time.Now()
	var code int
	var raw []byte
	waitFor(t, 5*time.Second, "B to refuse the revoked key", func() bool {
		code, raw = b.rest(t, o.key, http.MethodGet, "/api/v1/me", nil)
		return code == http.StatusUnauthorized
	})
	if took := time.Since(revoked); took > time.Second {
		t.Errorf("B refused the revoked key only after %s", took)
	}
	if !strings.Contains(string(raw), "revoked_api_key") {
		t.Errorf("401 body: %s", raw)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A replica started with SWITCHBOARD_WEBHOOK_WORKERS=0 serves the API and queues deliveries
// but sends none; a replica with workers, started later, sends them.
func TestAPIOnlyReplicaSendsNothing(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	api := startReplica(t, "api-only", db, "SWITCHBOARD_WEBHOOK_WORKERS=0")
	o := signUp(t, api)
	rc := newHookReceiver(t)
	var hook webhookCreated
	api.mustREST(t, o.key, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": rc.URL, "event_types": []string{"webhook.updated"}}, &hook)
	rc.setSecret(hook.Secret)
	var test delivery
	api.mustREST(t, o.key, http.MethodPost, "/api/v1/webhooks/"+hook.ID+"/test", map[string]any{}, &test)
	time.Sleep(2 * time.Second) // the API replica polls every second: two rounds
	if n, _, _ := rc.snapshot(); n != 0 {
		t.Fatalf("the API-only replica sent %d requests", n)
	}
	if ds := api.deliveries(t, o.key, hook.ID); len(ds) != 1 || ds[0].Status != "pending" {
		t.Fatalf("queued delivery: %+v", ds)
	}
	startReplica(t, "worker", db)
	waitFor(t, 15*time.Second, "the worker replica to deliver", func() bool {
		ds := api.deliveries(t, o.key, hook.ID)
		return len(ds) == 1 && ds[0].Status == "succeeded"
	})
	if _, byID, bad := rc.snapshot(); byID[test.EventID] != 1 || len(bad) > 0 {
		t.Fatalf("deliveries by id %v, bad signatures %v", byID, bad)
	}
}
