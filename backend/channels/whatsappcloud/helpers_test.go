package whatsappcloud

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/channelstest"
	"github.com/switchboard-dev/switchboard/backend/channels/whatsappcloud/wacloudtest"
)

const (
	testAppSecret   = "app-secret-5f2c8e1d9a7b"
	testVerifyToken = "my-chosen-verify-token"
	customer        = "16315551234" // a customer's number as the API writes it
	customerAddress = "+16315551234"
)

type env struct {
	t     *testing.T
	ctx   context.Context
	fake  *wacloudtest.Server
	d     *Driver
	host  *channelstest.Host
	in    channels.Instance
	files *channelstest.Files
}

func newEnv(t *testing.T) *env {
	t.Helper()
	fake := wacloudtest.New(wacloudtest.Config{})
	t.Cleanup(fake.Close)
	d := New(Options{GraphURL: fake.URL, Client: fake.Client(), MediaClient: fake.Client()})
	host := &channelstest.Host{}
	d.Bind(host)
	in := channels.Instance{ID: "ins_1", WorkspaceID: "ws_1",
		Config: map[string]any{ConfigPhoneNumberID: fake.PhoneNumberID},
		Secrets: map[string]string{ConfigAccessToken: fake.AccessToken, ConfigAppSecret: testAppSecret,
			ConfigVerifyToken: testVerifyToken}}
	return &env{t: t, ctx: context.Background(), fake: fake, d: d, host: host, in: in, files: channelstest.NewFiles(t)}
}

// callbackURL serves the driver's Receive over HTTP as the service does (401 for a bad
// signature, 400 for any other error) and collects the events it returns.
func (e *env) callbackURL() (string, func() []channels.Event) {
	var mu sync.Mutex
	var events []channels.Event
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		resp, evs, err := e.d.Receive(r.Context(), e.in, channels.Callback{Method: r.Method, Header: r.Header,
			Query: r.URL.Query(), Body: body})
		switch {
		case errors.Is(err, channels.ErrSignature):
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		case err != nil:
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		events = append(events, evs...)
		mu.Unlock()
		w.Header().Set("Content-Type", resp.ContentType)
		w.WriteHeader(resp.Status)
		_, _ = w.Write(resp.Body)
	}))
	e.t.Cleanup(srv.Close)
	return srv.URL + "/channels/whatsapp_cloud/tok_abc", func() []channels.Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]channels.Event(nil), events...)
	}
}

// receive delivers a signed notification straight to Receive.
func (e *env) receive(body []byte) []channels.Event {
	e.t.Helper()
	resp, events, err := e.d.Receive(e.ctx, e.in, channels.Callback{Method: http.MethodPost,
		Header: http.Header{"X-Hub-Signature-256": {wacloudtest.Sign(testAppSecret, body)}}, Body: body})
	if err != nil {
		e.t.Fatalf("Receive: %v", err)
	}
	if resp.Status != http.StatusOK || string(resp.Body) != "{}" || resp.ContentType != "application/json" {
		e.t.Fatalf("Receive answered %d %s %q, want 200 application/json {}", resp.Status, resp.ContentType, resp.Body)
	}
	return events
}

// jsonEqual compares a recorded body with the JSON the API documents.
func jsonEqual(t *testing.T, got map[string]any, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation: %v", err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("request body\n got %s\nwant %s", g, want)
	}
}
