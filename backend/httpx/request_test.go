package httpx

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/service"
)

// RequestID puts one state per request in the context: its id (the one echoed in
// X-Request-Id) and the actor authentication records in it; without a recorded actor,
// ActorFrom falls back to one put in the context with service.WithActor.
func TestRequestState(t *testing.T) {
	var id string
	var got, fallback service.Actor
	var ok, fallbackOK bool
	h := RequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id = RequestIDFrom(r.Context())
		if _, ok := ActorFrom(r.Context()); ok {
			t.Error("an actor before authentication")
		}
		fallback, fallbackOK = ActorFrom(service.WithActor(r.Context(), service.Actor{KeyID: "key_2"}))
		RequestFrom(r.Context()).SetActor(service.Actor{KeyID: "key_1", WorkspaceID: "ws_1"})
		got, ok = ActorFrom(r.Context())
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if !strings.HasPrefix(id, "req_") || len(id) != 30 || rec.Header().Get("X-Request-Id") != id {
		t.Errorf("request id %q, header %q", id, rec.Header().Get("X-Request-Id"))
	}
	if !ok || got.KeyID != "key_1" || got.WorkspaceID != "ws_1" {
		t.Errorf("recorded actor %+v %v", got, ok)
	}
	if !fallbackOK || fallback.KeyID != "key_2" {
		t.Errorf("actor from the context %+v %v", fallback, fallbackOK)
	}
	if RequestFrom(httptest.NewRequest("GET", "/", nil).Context()) != nil || RequestIDFrom(t.Context()) != "" {
		t.Error("a request state outside RequestID")
	}
}
