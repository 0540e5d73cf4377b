package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// clock is a settable clock shared with the engine's goroutines.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now().UTC().Truncate(time.Millisecond)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

// harness is a service on a fresh database with a webhook sender on a job engine that may
// reach loopback.
type harness struct {
	t     *testing.T
	svc   *service.Service
	st    *store.Store
	clock *clock
	disp  *node
	owner servicetest.Owner
}

// opts configure a test replica: the sender's settings and its engine's.
type opts struct {
	Workers       int
	PerEndpoint   int
	PerWorkspace  int
	Timeout       time.Duration
	LeaseDuration time.Duration
	ShutdownGrace time.Duration
	AllowList     []string     // nil: 127.0.0.1
	Logger        *slog.Logger // the engine's and the sender's; nil: discarded
}

// node is one replica's delivery machinery: a job engine running the webhook sender.
type node struct {
	engine *jobs.Engine
	sender *Sender
}

func (n *node) Start(ctx context.Context) error { return n.engine.Start(ctx) }

func (n *node) Close() { n.engine.Close() }

// InFlight is how many deliveries this replica holds.
func (n *node) InFlight() int { return n.engine.InFlight(domain.JobWebhookDelivery) }

// dispatch runs one claim round synchronously (the attempts run in the background).
func (n *node) dispatch(ctx, _ context.Context) { n.engine.ClaimNow(ctx, domain.JobWebhookDelivery) }

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// logBuffer keeps what a logger writes (JSON lines, from debug up) for a test to read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// atLeast returns the lines logged at level or above.
func (l *logBuffer) atLeast(t *testing.T, level slog.Level) []string {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var rec struct{ Level slog.Level }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec.Level >= level {
			out = append(out, line)
		}
	}
	return out
}

// newHarness builds the service and a replica (not started: call start, or drive it with
// dispatchNow for step-by-step tests). Registration always admits 127.0.0.1; what the
// sender may dial is o.AllowList.
func newHarness(t *testing.T, d store.Dialect, o opts) *harness {
	t.Helper()
	clk := newClock()
	svc, st := servicetest.New(t, d, service.Config{Clock: clk, TargetPolicy: ssrf.MustPolicy("127.0.0.1")})
	h := &harness{t: t, svc: svc, st: st, clock: clk}
	h.owner = servicetest.NewOwner(t, svc)
	h.disp = h.node(svc, st, o)
	return h
}

func (h *harness) node(svc *service.Service, st *store.Store, o opts) *node {
	if o.AllowList == nil {
		o.AllowList = []string{"127.0.0.1"}
	}
	if o.ShutdownGrace == 0 {
		o.ShutdownGrace = 100 * time.Millisecond
	}
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.Logger == nil {
		o.Logger = quietLogger()
	}
	engine := jobs.New(st, jobs.Config{Clock: h.clock, Logger: o.Logger, Lease: o.LeaseDuration,
		ShutdownGrace: o.ShutdownGrace, Rand: func() float64 { return 0.5 }}) // no jitter: exact schedule
	sender := New(st, svc.Webhooks, Config{Clock: h.clock, Logger: o.Logger, Policy: ssrf.MustPolicy(o.AllowList...),
		Timeout: o.Timeout, Workers: o.Workers, PerEndpoint: o.PerEndpoint, PerWorkspace: o.PerWorkspace})
	engine.Register(sender.Kind())
	n := &node{engine: engine, sender: sender}
	h.t.Cleanup(n.Close)
	return n
}

// replica is a second replica on the same database through its own connection pool and
// service (it shares the clock).
func (h *harness) replica(o opts) *node {
	h.t.Helper()
	st, err := store.Open(context.Background(), h.st.URL())
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { st.Close() })
	svc := service.New(st, service.Config{Clock: h.clock, Logger: quietLogger(), TargetPolicy: ssrf.MustPolicy("127.0.0.1")})
	return h.node(svc, st, o)
}

func ptr[T any](v T) *T { return &v }

func (h *harness) start() {
	h.t.Helper()
	if err := h.disp.Start(context.Background()); err != nil {
		h.t.Fatal(err)
	}
}

// dispatchNow runs one claim round synchronously (the attempts run in the background).
func (h *harness) dispatchNow() {
	ctx := context.Background()
	h.disp.dispatch(ctx, ctx)
}

// hook registers an endpoint for url subscribed to types and returns it with its secret.
func (h *harness) hook(url string, types ...string) (domain.Webhook, string) {
	h.t.Helper()
	if len(types) == 0 {
		types = []string{"*"}
	}
	w, secret, err := h.svc.Webhooks.Create(context.Background(), h.owner.Actor, service.CreateWebhookInput{URL: url, EventTypes: types})
	if err != nil {
		h.t.Fatal(err)
	}
	return w, secret
}

// emit records an event of type typ (default api_key.created) the way every surface does.
func (h *harness) emit(typ string, data any, instanceID *string) domain.Event {
	h.t.Helper()
	e, err := h.tryEmit(typ, data, instanceID)
	if err != nil {
		h.t.Fatal(err)
	}
	return e
}

func (h *harness) tryEmit(typ string, data any, instanceID *string) (domain.Event, error) {
	if typ == "" {
		typ = domain.EventAPIKeyCreated
	}
	var e domain.Event
	err := h.st.Tx(context.Background(), func(tx *store.Tx) error {
		var err error
		e, err = h.svc.Record(context.Background(), tx, h.owner.Workspace.ID, typ, instanceID, data)
		return err
	})
	return e, err
}

func (h *harness) deliveries(hookID string) []domain.Delivery {
	h.t.Helper()
	page, err := h.svc.Webhooks.Deliveries(context.Background(), h.owner.Actor, hookID, domain.ListParams{Limit: domain.Limit(100)})
	if err != nil {
		h.t.Fatal(err)
	}
	return page.Data
}

func (h *harness) delivery(hookID, id string) domain.Delivery {
	h.t.Helper()
	d, err := h.svc.Webhooks.Delivery(context.Background(), h.owner.Actor, hookID, id)
	if err != nil {
		h.t.Fatal(err)
	}
	return d
}

func (h *harness) webhook(id string) domain.Webhook {
	h.t.Helper()
	w, err := h.svc.Webhooks.Get(context.Background(), h.owner.Actor, id)
	if err != nil {
		h.t.Fatal(err)
	}
	return w
}

// waitFor polls a condition reached asynchronously (an HTTP request landing). Schedules
// are driven by the fake clock; only the network is waited on.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// receiver is a real HTTP endpoint on loopback that records what it receives.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	requests []received
	respond  func(w http.ResponseWriter, r *http.Request, n int) // n: 1-based request count
}

type received struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

func newReceiver(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, n int)) *receiver {
	rc := &receiver{respond: respond}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.requests = append(rc.requests, received{r.Header.Clone(), body, time.Now()})
		n := len(rc.requests)
		rc.mu.Unlock()
		if rc.respond != nil {
			rc.respond(w, r, n)
		}
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.requests)
}

func (rc *receiver) get(i int) received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.requests[i]
}

func (rc *receiver) all() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.requests...)
}

// verify checks a received request with the Standard Webhooks reference library.
func verify(t *testing.T, secret string, r received, checkTimestamp bool) error {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if checkTimestamp {
		return wh.Verify(r.Body, r.Header)
	}
	return wh.VerifyIgnoringTimestamp(r.Body, r.Header)
}

func status(code int) func(w http.ResponseWriter, r *http.Request, n int) {
	return func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(code) }
}

// addInstance stores a bare instance of the owner's workspace: an endpoint's instance
// filter must name one.
func (h *harness) addInstance(id string) {
	h.t.Helper()
	ctx := context.Background()
	err := h.st.Tx(ctx, func(tx *store.Tx) error {
		return tx.CreateInstance(ctx, store.StoredInstance{Instance: domain.Instance{ID: id, WorkspaceID: h.owner.Workspace.ID,
			Name: "test", Channel: "sandbox", Status: domain.InstanceDisconnected, CreatedAt: h.clock.Now(), UpdatedAt: h.clock.Now()}})
	})
	if err != nil {
		h.t.Fatal(err)
	}
}
