// Package channelstest holds what the channel drivers' tests share: a host that records what
// a driver emits, and a file server standing in for the sites outbound media is fetched from.
package channelstest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
)

// Host is the service's side of a driver's Bind, as far as driver tests need it: it keeps
// what the driver emits and knows no instance by address.
type Host struct {
	mu     sync.Mutex
	events []channels.Event
}

// Emit records events.
func (h *Host) Emit(_ context.Context, _ time.Duration, events ...channels.Event) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, events...)
	return nil
}

// InstanceByAddress finds nothing.
func (h *Host) InstanceByAddress(context.Context, string, string, string) (string, bool, error) {
	return "", false, nil
}

// Events returns a copy of everything emitted so far.
func (h *Host) Events() []channels.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]channels.Event(nil), h.events...)
}

// Files serves the files outbound messages name by media.url, and counts requests.
type Files struct {
	srv   *httptest.Server
	mu    sync.Mutex
	files map[string]file
	hits  int
}

type file struct {
	content []byte
	ctype   string
	status  int
}

// NewFiles starts a file server, closed when the test ends.
func NewFiles(t *testing.T) *Files {
	t.Helper()
	h := &Files{files: map[string]file{}}
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
			if f.ctype != "" {
				w.Header().Set("Content-Type", f.ctype)
			}
			_, _ = w.Write(f.content)
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// Add serves content at path with the content type (sniffed when empty) and returns its URL.
func (h *Files) Add(path string, content []byte, ctype string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.files[path] = file{content: content, ctype: ctype}
	return h.srv.URL + path
}

// Fail makes path answer status and returns its URL.
func (h *Files) Fail(path string, status int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.files[path] = file{status: status}
	return h.srv.URL + path
}

// Requests counts the requests served so far, failed ones included.
func (h *Files) Requests() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits
}

// Client is a plain HTTP client for the server (a driver's SSRF-guarded client refuses
// its loopback address).
func (h *Files) Client() *http.Client { return h.srv.Client() }

// Close stops the server early: fetches then fail as a network error would.
func (h *Files) Close() { h.srv.Close() }
