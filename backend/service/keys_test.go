package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time { return c.t }

func TestKeyLifecycle(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			svc, st := servicetest.New(t, d, service.Config{Clock: clock})
			owner := servicetest.NewOwner(t, svc)

			exp := clock.t.Add(time.Hour)
			key, secret, err := svc.Keys.Create(ctx, owner.Actor, service.CreateKeyInput{
				Name: "ci", Scopes: []string{"models:read", "models:read"}, ExpiresAt: &exp})
			if err != nil {
				t.Fatal(err)
			}
			if len(key.Scopes) != 1 || key.Prefix != secret[:12] || key.LastFour != secret[len(secret)-4:] {
				t.Fatalf("key fields: %+v", key)
			}

			// Verification is cached: after the first call no statement reaches the database.
			if _, err := svc.Keys.Authenticate(ctx, secret); err != nil {
				t.Fatal(err)
			}
			before := st.Queries()
			for range 50 {
				a, err := svc.Keys.Authenticate(ctx, secret)
				if err != nil || a.WorkspaceID != owner.Workspace.ID {
					t.Fatalf("authenticate: %v %+v", err, a)
				}
			}
			if n := st.Queries() - before; n != 0 {
				t.Fatalf("cached verification ran %d queries", n)
			}

			// Revocation wins over the cache at once.
			if _, err := svc.Keys.Revoke(ctx, owner.Actor, key.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Keys.Authenticate(ctx, secret); reason(err) != "revoked_api_key" {
				t.Fatalf("the request right after revocation: %v", err)
			}

			// Expiry.
			key2, secret2 := owner.NewKey(t, svc, domain.ScopeAll)
			_ = key2
			exp2 := clock.t.Add(time.Minute)
			_, secret3, err := svc.Keys.Create(ctx, owner.Actor, service.CreateKeyInput{Name: "short", Scopes: []string{"*"}, ExpiresAt: &exp2})
			if err != nil {
				t.Fatal(err)
			}
			clock.t = clock.t.Add(2 * time.Minute)
			if _, err := svc.Keys.Authenticate(ctx, secret3); reason(err) != "expired_api_key" {
				t.Fatalf("expired key: %v", err)
			}
			if _, err := svc.Keys.Authenticate(ctx, secret2); err != nil {
				t.Fatalf("live key: %v", err)
			}

			// Events were recorded for each change, in order.
			page, err := svc.Events.List(ctx, owner.Actor, domain.EventFilter{}, domain.ListParams{})
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, e := range page.Data {
				types = append(types, e.Type)
			}
			want := []string{"api_key.created", "api_key.created", "api_key.revoked", "api_key.created", "workspace.created"}
			if len(types) != len(want) {
				t.Fatalf("events %v, want %v", types, want)
			}
			for i := range want {
				if types[i] != want[i] {
					t.Fatalf("events %v, want %v", types, want)
				}
			}
		})
	}
}

func TestKeyValidation(t *testing.T) {
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	past := time.Now().Add(-time.Hour)
	cases := []struct {
		name  string
		in    service.CreateKeyInput
		param string
	}{
		{"no name", service.CreateKeyInput{Scopes: []string{"*"}}, "name"},
		{"no scopes", service.CreateKeyInput{Name: "x"}, "scopes"},
		{"unknown scope", service.CreateKeyInput{Name: "x", Scopes: []string{"root"}}, "scopes"},
		{"past expiry", service.CreateKeyInput{Name: "x", Scopes: []string{"*"}, ExpiresAt: &past}, "expires_at"},
		{"bad origin", service.CreateKeyInput{Name: "x", Scopes: []string{"*"}, AllowedOrigins: []string{"https://a.com/path"}}, "allowed_origins"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := svc.Keys.Create(context.Background(), owner.Actor, c.in)
			e := domain.ErrorOf(err)
			if e == nil || e.Code != domain.CodeInvalid || e.Param != c.param {
				t.Fatalf("got %v, want invalid %s", err, c.param)
			}
		})
	}
	keys, _ := svc.Keys.List(context.Background(), owner.Actor)
	if len(keys) != 0 {
		t.Fatalf("invalid input stored %d keys", len(keys))
	}
}

func reason(err error) string {
	if e := domain.ErrorOf(err); e != nil {
		return e.Reason
	}
	return ""
}

// Last use is tracked in memory on every request and written in a batch, never per request.
func TestLastUsedIsBatched(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			st := storetest.Open(t, d)
			svc := service.New(st, service.Config{Clock: clock, Argon2MemoryKiB: 64, Argon2Time: 1})
			owner := servicetest.NewOwner(t, svc)
			key, secret := owner.NewKey(t, svc, domain.ScopeAll)
			if _, err := svc.Keys.Authenticate(ctx, secret); err != nil {
				t.Fatal(err)
			}
			clock.t = clock.t.Add(time.Minute)
			before := st.Queries()
			if _, err := svc.Keys.Authenticate(ctx, secret); err != nil {
				t.Fatal(err)
			}
			if st.Queries() != before {
				t.Fatal("a request wrote last use to the database")
			}
			// The console sees it at once (from memory)…
			keys, _ := svc.Keys.List(ctx, owner.Actor)
			if keys[0].LastUsedAt == nil || !keys[0].LastUsedAt.Equal(clock.t) {
				t.Fatalf("listed last use %v, want %v", keys[0].LastUsedAt, clock.t)
			}
			// …and the flush (every minute, and at shutdown) writes it.
			if stored, _ := st.APIKey(ctx, owner.Workspace.ID, key.ID); stored.LastUsedAt != nil {
				t.Fatal("written before the flush")
			}
			svc.Close()
			stored, err := st.APIKey(ctx, owner.Workspace.ID, key.ID)
			if err != nil || stored.LastUsedAt == nil || !stored.LastUsedAt.Equal(clock.t) {
				t.Fatalf("after flush: %v %v", stored.LastUsedAt, err)
			}
		})
	}
}
