package app_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/service/automation"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// The app serves /hooks/{token}, and the token (a secret) never reaches its logs.
func TestHooksServedWithoutLoggingTheToken(t *testing.T) {
	var logs syncBuffer
	a, srv := newAppLogging(t, storetest.URL(t, "sqlite"), &logs)
	owner := servicetest.NewOwner(t, a.Service)
	name := "Orders"
	created, err := a.Automation.Create(context.Background(), owner.Actor, automation.EndpointInput{Name: &name})
	if err != nil {
		t.Fatal(err)
	}
	token := created.Endpoint.Token
	res, err := http.Post(srv.URL+"/hooks/"+token, "application/json", strings.NewReader(`{"order":1}`))
	if err != nil || res.StatusCode != http.StatusAccepted {
		t.Fatalf("publish: %v %v", err, res.StatusCode)
	}
	res.Body.Close()
	srv.Close() // waits for the request to finish, access-log line included
	if out := logs.String(); strings.Contains(out, token) || !strings.Contains(out, "/hooks/{token}") {
		t.Fatalf("the log shows the token, or no hooks line:\n%s", out)
	}
}

// syncBuffer is a buffer the app's goroutines may log to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
