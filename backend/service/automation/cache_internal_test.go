package automation

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// An endpoint read from the database just before its token was rotated (a /hooks call
// racing the rotation) is not cached: kept, the old URL would go on working on this
// replica until the endpoint's next change.
func TestEndpointLoadedBeforeAChangeIsNotCached(t *testing.T) {
	ctx := context.Background()
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	a := New(svc, nil, nil, Config{HooksBase: "http://switchboard.test/hooks"})
	owner := servicetest.NewOwner(t, svc)
	name, kind := "Orders", domain.VerifyNone
	c, err := a.Create(ctx, owner.Actor, EndpointInput{Name: &name, Verification: &kind})
	if err != nil {
		t.Fatal(err)
	}
	token := c.Endpoint.Token
	hash := service.HashToken(token)

	// The call reads the endpoint (cache empty) ...
	a.mu.RLock()
	gen := a.gen
	a.mu.RUnlock()
	p, err := a.st.PublisherByTokenHash(ctx, hash)
	if err != nil {
		t.Fatal(err)
	}
	// ... the token is rotated meanwhile, and its invalidation arrives ...
	if _, err := a.RotateToken(ctx, owner.Actor, c.Endpoint.ID); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		a.mu.RLock()
		moved := a.gen != gen
		a.mu.RUnlock()
		if moved {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the rotation's invalidation never arrived")
		}
	}
	// ... then the call caches what it read.
	a.remember(hash, p, gen)
	if _, err := a.endpoint(ctx, token); err != errUnknownEndpoint {
		t.Fatalf("the old token after its rotation: %v, want the unknown endpoint", err)
	}
}
