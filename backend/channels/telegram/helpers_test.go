package telegram

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/telegram/telegramtest"
)

// recordingHost is the service's side of the driver, as far as these tests need it: it
// keeps what the driver emits.
type recordingHost struct {
	mu     sync.Mutex
	events []channels.Event
}

func (h *recordingHost) Emit(_ context.Context, _ time.Duration, evs ...channels.Event) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, evs...)
	return nil
}

func (h *recordingHost) InstanceByAddress(context.Context, string, string, string) (string, bool, error) {
	return "", false, nil
}

func (h *recordingHost) emitted() []channels.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]channels.Event(nil), h.events...)
}

// webhook is the instance's callback endpoint, answering as the service does: 401 for a
// bad secret, 400 for a malformed update, else the driver's response. It keeps the events.
type webhook struct {
	mu     sync.Mutex
	events []channels.Event
	errs   []error
}

func (wh *webhook) take() ([]channels.Event, []error) {
	wh.mu.Lock()
	defer wh.mu.Unlock()
	evs, errs := wh.events, wh.errs
	wh.events, wh.errs = nil, nil
	return evs, errs
}

type env struct {
	d     *Driver
	tg    *telegramtest.Server
	host  *recordingHost
	in    channels.Instance
	wh    *webhook
	files *mediaHost
}

// mediaHost serves the files outbound messages name by media.url, and counts requests.
type mediaHost struct {
	srv   *httptest.Server
	mu    sync.Mutex
	files map[string]hostedFile
	hits  int
}

type hostedFile struct {
	content []byte
	ctype   string
	status  int
}

func newMediaHost(t *testing.T) *mediaHost {
	t.Helper()
	h := &mediaHost{files: map[string]hostedFile{}}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		f, ok := h.files[r.URL.Path]
		h.hits++
		h.mu.Unlock()
		switch {
		case !ok:
			http.NotFound(w, r)
		case f.status != 0:
			http.Error(w, http.StatusText(f.status), f.status)
		default:
			w.Header().Set("Content-Type", f.ctype)
			_, _ = w.Write(f.content)
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// add serves content at path and returns its URL.
func (h *mediaHost) add(path string, content []byte, ctype string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.files[path] = hostedFile{content: content, ctype: ctype}
	return h.srv.URL + path
}

// fail makes path answer status.
func (h *mediaHost) fail(path string, status int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.files[path] = hostedFile{status: status}
	return h.srv.URL + path
}

func (h *mediaHost) requests() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits
}

const testSecret = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I"

func newEnv(t *testing.T, cfg telegramtest.Config) *env {
	t.Helper()
	e := &env{tg: telegramtest.New(t, cfg), host: &recordingHost{}, wh: &webhook{}, files: newMediaHost(t)}
	// The media host is on 127.0.0.1, which the default (SSRF-guarded) media client
	// refuses: these tests fetch with a plain one.
	e.d = New(Options{ServerURL: e.tg.URL(), MediaClient: e.files.srv.Client()})
	e.d.Bind(e.host)
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		resp, evs, err := e.d.Receive(r.Context(), e.in, channels.Callback{Method: r.Method, Header: r.Header,
			Query: r.URL.Query(), Body: body})
		e.wh.mu.Lock()
		e.wh.events = append(e.wh.events, evs...)
		if err != nil {
			e.wh.errs = append(e.wh.errs, err)
		}
		e.wh.mu.Unlock()
		switch {
		case errors.Is(err, channels.ErrSignature):
			w.WriteHeader(http.StatusUnauthorized)
		case err != nil:
			w.WriteHeader(http.StatusBadRequest)
		default:
			w.Header().Set("Content-Type", resp.ContentType)
			w.WriteHeader(resp.Status)
			_, _ = w.Write(resp.Body)
		}
	}))
	t.Cleanup(cb.Close)
	e.in = channels.Instance{ID: "inst_tg1", WorkspaceID: "ws_1", Address: "@" + telegramtest.DefaultUsername,
		Secrets: map[string]string{ConfigToken: e.tg.Token()}, CallbackURL: cb.URL + "/channels/telegram/tok_abc",
		CallbackSecret: testSecret}
	return e
}

// connected is an env whose instance has connected (its webhook is set).
func connected(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, telegramtest.Config{})
	if _, err := e.d.Connect(context.Background(), e.in, false); err != nil {
		t.Fatalf("connect: %v", err)
	}
	return e
}

// lastCall is the last call of method, which must have been made.
func (e *env) lastCall(t *testing.T, method string) telegramtest.Call {
	t.Helper()
	c, ok := e.tg.LastCall(method)
	if !ok {
		t.Fatalf("%s was not called; calls: %v", method, methods(e.tg.Calls()))
	}
	return c
}

func methods(cs []telegramtest.Call) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Method)
	}
	return out
}

func wantParams(t *testing.T, c telegramtest.Call, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got, ok := c.Params[k]; !ok || got != v {
			t.Errorf("%s %s = %q (set: %v), want %q", c.Method, k, got, ok, v)
		}
	}
}

func noToken(t *testing.T, err error, token string) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), token) {
		t.Errorf("error shows the token: %v", err)
	}
	secret := token[strings.Index(token, ":")+1:]
	if err != nil && strings.Contains(err.Error(), secret) {
		t.Errorf("error shows the token's secret part: %v", err)
	}
}
