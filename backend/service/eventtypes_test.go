package service_test

import (
	"context"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// eventTypes is the catalog as a signed-in owner reads it.
func eventTypes(t *testing.T, svc *service.Service) []domain.EventTypeInfo {
	t.Helper()
	types, err := svc.Events.Types(context.Background(), servicetest.NewOwner(t, svc).Actor)
	if err != nil {
		t.Fatal(err)
	}
	return types
}

// The event-type catalog is one rule for every transport: any authenticated caller (a key
// of any scope, a console user with or without a workspace) may read it; nobody else.
func TestEventTypesNeedAnAuthenticatedCaller(t *testing.T) {
	ctx := context.Background()
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	k, _ := owner.NewKey(t, svc, domain.ScopeModelsRead)
	noWorkspace := service.Actor{UserID: owner.Actor.UserID, SessionID: owner.Actor.SessionID}
	for _, c := range []struct {
		name  string
		actor service.Actor
		code  domain.Code
	}{
		{"anonymous", service.Actor{}, domain.CodeUnauthenticated},
		{"key with an unrelated scope", service.Actor{KeyID: k.ID, WorkspaceID: k.WorkspaceID, Scopes: k.Scopes}, ""},
		{"session", owner.Actor, ""},
		{"session before the workspace exists", noWorkspace, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			types, err := svc.Events.Types(ctx, c.actor)
			if c.code != "" {
				if !domain.IsCode(err, c.code) || types != nil {
					t.Fatalf("got %d types, err %v; want %s", len(types), err, c.code)
				}
				return
			}
			if err != nil || len(types) == 0 {
				t.Fatalf("got %d types, err %v", len(types), err)
			}
		})
	}
}
