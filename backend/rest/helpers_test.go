package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/gorilla/mux"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/sandbox"
	"github.com/switchboard-dev/switchboard/backend/hooks"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/automation"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/shortlink"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// testClock is the injected clock: tests move time instead of sleeping.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock {
	return &testClock{t: time.Date(2025, 4, 8, 9, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is a real service on a real database, served by the real router (wrapped as the app
// wraps it) on a loopback server. Every response its client receives is checked against
// the OpenAPI document.
type env struct {
	t      *testing.T
	svc    *service.Service
	store  *store.Store
	clock  *testClock
	srv    *httptest.Server
	client *http.Client
	router *mux.Router
	doc    *openapi3.T
	owner  servicetest.Owner
	links  *links.Links
	auto   *automation.Automation
}

// eachDialect runs fn against SQLite and PostgreSQL.
func eachDialect(t *testing.T, fn func(t *testing.T, d store.Dialect)) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, d) })
	}
}

// baseURL is the service's own origin in tests (Options.BaseURL).
const baseURL = "http://switchboard.test:8080"

func newEnv(t *testing.T, d store.Dialect, opts rest.Options) *env {
	t.Helper()
	clock := newTestClock()
	svc, st := servicetest.New(t, d, service.Config{Clock: clock, LastUsedFlush: time.Hour})
	return newEnvOn(t, svc, st, clock, opts)
}

// newEnvOn is newEnv on a service built by the test (whose clock is clock).
func newEnvOn(t *testing.T, svc *service.Service, st *store.Store, clock *testClock, opts rest.Options) *env {
	t.Helper()
	if opts.BaseURL == "" {
		opts.BaseURL = baseURL
	}
	if opts.Clock == nil {
		opts.Clock = clock
	}
	if opts.RateLimit == 0 {
		opts.RateLimit, opts.Burst = 1000, 1000 // tests of the limit set their own
	}
	if opts.Messaging == nil {
		// As the app wires it, but with no job engine: nothing runs in the background
		// (messaging tests start one, messaging_test.go).
		opts.Messaging = messaging.New(svc, channels.NewRegistry(sandbox.New()), messaging.Config{})
	}
	if opts.Links == nil {
		opts.Links = links.New(svc, links.Config{ShortBase: baseURL + "/l"})
		opts.Links.Start()
		t.Cleanup(opts.Links.Close)
	}
	if opts.Automation == nil {
		opts.Automation = automation.New(svc, opts.Messaging, opts.Links,
			automation.Config{HooksBase: baseURL + "/hooks", Policy: ssrf.MustPolicy("127.0.0.1")})
	}
	h, router := rest.NewWithRouter(svc, opts)
	app := http.NewServeMux() // mounted as the app mounts it
	app.Handle(hooks.Prefix, httpx.RequestID(hooks.Handler(opts.Automation, svc.Logger())))
	app.Handle(rest.Prefix+"/", httpx.RequestID(h))
	app.Handle("/l/", shortlink.Handler(opts.Links, "/l/", svc.Logger()))
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)

	e := &env{t: t, svc: svc, store: st, clock: clock, srv: srv, router: router, links: opts.Links, auto: opts.Automation}
	e.doc = loadDocument(t, srv.URL)
	e.client = &http.Client{Transport: &validatingTransport{t: t, env: e, base: http.DefaultTransport}}
	e.owner = servicetest.NewOwner(t, svc)
	return e
}

func loadDocument(t *testing.T, server string) *openapi3.T {
	t.Helper()
	res, err := http.Get(server + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("load OpenAPI document: %v", err)
	}
	return doc
}

// response is a received response with its body read.
type response struct {
	*http.Response
	body []byte
}

// do sends a request. secret "" sends no Authorization header; body, when not nil, is
// sent as JSON (a []byte or string is sent as is). headers are name, value pairs.
func (e *env) do(method, path, secret string, body any, headers ...string) *response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return &response{Response: res, body: raw}
}

func (r *response) json(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, r.body)
	}
	return v
}

// want fails the test unless the response has status.
func (r *response) want(t *testing.T, status int) *response {
	t.Helper()
	if r.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d: %s", r.Request.Method, r.Request.URL.Path, r.StatusCode, status, r.body)
	}
	return r
}

// wantError fails the test unless the response is the error envelope with status and code.
func (r *response) wantError(t *testing.T, status int, code string) map[string]any {
	t.Helper()
	r.want(t, status)
	e, _ := r.json(t)["error"].(map[string]any)
	if e == nil || e["code"] != code {
		t.Fatalf("%s %s: want error code %q, got %s", r.Request.Method, r.Request.URL.Path, code, r.body)
	}
	return e
}

// validatingTransport checks every response a test receives: it carries X-Request-Id, an
// error body names the same request id, and the body and status validate against the
// OpenAPI document for the operation the router matched (undocumented statuses fail); and
// the request of every success validates against the document too.
type validatingTransport struct {
	t    *testing.T
	env  *env
	base http.RoundTripper
}

func (v *validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := v.base.RoundTrip(req)
	if err != nil {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	v.check(req, res, body)
	return res, nil
}

var muxVarPattern = regexp.MustCompile(`\{([^:}]+):[^}]*\}`)

// openAPIPath turns a mux path template into the document's path ({id:.+} → {id}).
func openAPIPath(template string) string { return muxVarPattern.ReplaceAllString(template, "{$1}") }

func (v *validatingTransport) check(req *http.Request, res *http.Response, body []byte) {
	t := v.t
	t.Helper()
	what := req.Method + " " + req.URL.Path
	reqID := res.Header.Get("X-Request-Id")
	if reqID == "" {
		t.Errorf("%s: no X-Request-Id header", what)
	}
	if req.Method == http.MethodHead {
		// GET's answer without its body (the document describes GET): status and headers only.
		if len(body) != 0 {
			t.Errorf("%s: %d body bytes in an answer to HEAD", what, len(body))
		}
		return
	}
	if res.StatusCode >= 400 {
		var envelope struct {
			Error struct {
				RequestID string `json:"request_id"`
			} `json:"error"`
		}
		// A replayed answer (Idempotency-Key) is the first response byte for byte, so it names
		// the request that produced it.
		replayed := res.Header.Get("Idempotent-Replayed") == "true"
		if err := json.Unmarshal(body, &envelope); err != nil || envelope.Error.RequestID == "" ||
			(envelope.Error.RequestID != reqID && !replayed) {
			t.Errorf("%s: error body's request_id %q, want the X-Request-Id %q: %s", what, envelope.Error.RequestID, reqID, body)
		}
	}
	if req.Method == http.MethodOptions {
		return // preflights are answered before routing and carry no body
	}

	var match mux.RouteMatch
	if !v.env.router.Match(req, &match) || match.MatchErr != nil {
		// Unknown route or method: no operation, but still the error envelope.
		v.validateSchema(what, "Error", body)
		return
	}
	template, _ := match.Route.GetPathTemplate()
	path := openAPIPath(template)
	item := v.env.doc.Paths.Find(path)
	var op *openapi3.Operation
	if item != nil {
		op = item.GetOperation(req.Method)
	}
	if op == nil {
		t.Errorf("%s: the router serves %s %s but the OpenAPI document does not describe it", what, req.Method, path)
		return
	}
	route := &routers.Route{Spec: v.env.doc, Path: path, PathItem: item, Method: req.Method, Operation: op}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: match.Vars, Route: route},
		Status:                 res.StatusCode,
		Header:                 res.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s: response %d does not match the OpenAPI document: %v\nbody: %s", what, res.StatusCode, err, body)
	}

	// A request the API accepted must be one the document allows: its parameters and body
	// validate against the operation (the decoder is not more lenient than the schema).
	if res.StatusCode < 300 {
		reqIn := *in.RequestValidationInput
		reqIn.Request = req.Clone(req.Context())
		if req.GetBody != nil {
			reqIn.Request.Body, _ = req.GetBody()
		}
		reqIn.Options = &openapi3filter.Options{MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
		if err := openapi3filter.ValidateRequest(context.Background(), &reqIn); err != nil {
			t.Errorf("%s: the API accepted a request the OpenAPI document does not allow: %v", what, err)
		}
	}
}

func (v *validatingTransport) validateSchema(what, schema string, body []byte) {
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		v.t.Errorf("%s: body is not JSON: %v: %s", what, err, body)
		return
	}
	s := v.env.doc.Components.Schemas[schema]
	if err := s.Value.VisitJSON(value, openapi3.EnableJSONSchema2020()); err != nil {
		v.t.Errorf("%s: body does not match schema %s: %v\nbody: %s", what, schema, err, body)
	}
}
