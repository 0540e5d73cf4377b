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

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/channelstest"
	"github.com/switchboard-dev/switchboard/backend/channels/telegram/telegramtest"
)

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
	host  *channelstest.Host
	in    channels.Instance
	wh    *webhook
	files *channelstest.Files
}

const testSecret = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I"

func newEnv(t *testing.T, cfg telegramtest.Config) *env {
	t.Helper()
	e := &env{tg: telegramtest.New(t, cfg), host: &channelstest.Host{}, wh: &webhook{}, files: channelstest.NewFiles(t)}
	// The media host is on 127.0.0.1, which the default (SSRF-guarded) media client
	// refuses: these tests fetch with a plain one.
	e.d = New(Options{ServerURL: e.tg.URL(), MediaClient: e.files.Client()})
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
