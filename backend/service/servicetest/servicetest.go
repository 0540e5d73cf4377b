// Package servicetest builds a real service on a real, fresh database for tests, and the
// fixtures most tests need (a signed-in user with a workspace, an API key).
package servicetest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// New returns a started service on a fresh store of dialect d, closed when t ends. Password
// hashing is cheap so tests stay fast.
func New(t testing.TB, d store.Dialect, cfg service.Config) (*service.Service, *store.Store) {
	t.Helper()
	st := storetest.Open(t, d)
	return NewOn(t, st, cfg), st
}

// NewOn builds and starts a service on an existing store.
func NewOn(t testing.TB, st *store.Store, cfg service.Config) *service.Service {
	t.Helper()
	if cfg.Argon2MemoryKiB == 0 {
		cfg.Argon2MemoryKiB, cfg.Argon2Time = 64, 1
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	svc := service.New(st, cfg)
	if err := svc.Start(context.Background()); err != nil {
		t.Fatalf("start service: %v", err)
	}
	t.Cleanup(svc.Close)
	return svc
}

var seq atomic.Int64

// Owner is a signed-up user with a workspace.
type Owner struct {
	User      domain.User
	Token     string // session token
	Actor     service.Actor
	Workspace domain.Workspace
}

// NewOwner signs up a new user and creates their workspace.
func NewOwner(t testing.TB, svc *service.Service) Owner {
	t.Helper()
	ctx := context.Background()
	n := seq.Add(1)
	user, token, err := svc.Users.SignUp(ctx, service.SignUpInput{
		Email: fmt.Sprintf("user%d@example.com", n), Password: "correct horse battery", Name: fmt.Sprintf("User %d", n)},
		service.ClientInfo{IP: "127.0.0.1"})
	if err != nil {
		t.Fatalf("sign up: %v", err)
	}
	actor, err := svc.Users.Authenticate(ctx, token)
	if err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	ws, err := svc.Workspaces.Ensure(ctx, actor)
	if err != nil {
		t.Fatalf("ensure workspace: %v", err)
	}
	actor.WorkspaceID = ws.ID
	return Owner{User: user, Token: token, Actor: actor, Workspace: ws}
}

// NewKey creates an API key with scopes for the owner and returns its secret.
func (o Owner) NewKey(t testing.TB, svc *service.Service, scopes ...domain.Scope) (domain.APIKey, string) {
	t.Helper()
	in := service.CreateKeyInput{Name: "test key"}
	for _, s := range scopes {
		in.Scopes = append(in.Scopes, string(s))
	}
	key, secret, err := svc.Keys.Create(context.Background(), o.Actor, in)
	if err != nil {
		t.Fatalf("create key: %v", err)
	}
	return key, secret
}
