package service_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

var client = service.ClientInfo{IP: "192.0.2.1"}

func TestSignUpValidation(t *testing.T) {
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	ctx := context.Background()
	cases := []struct {
		name  string
		in    service.SignUpInput
		param string
	}{
		{"bad email", service.SignUpInput{Email: "nope", Password: "long enough pw", Name: "A"}, "email"},
		{"no domain dot", service.SignUpInput{Email: "a@localhost", Password: "long enough pw", Name: "A"}, "email"},
		{"short password", service.SignUpInput{Email: "a@example.com", Password: "short", Name: "A"}, "password"},
		{"no name", service.SignUpInput{Email: "a@example.com", Password: "long enough pw", Name: "  "}, "name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := svc.Users.SignUp(ctx, c.in, client)
			if e := domain.ErrorOf(err); e == nil || e.Code != domain.CodeInvalid || e.Param != c.param {
				t.Fatalf("got %v, want invalid %s", err, c.param)
			}
		})
	}
	if _, _, err := svc.Users.SignIn(ctx, service.SignInInput{Email: "a@example.com", Password: "long enough pw"}, client); err == nil {
		t.Fatal("an invalid sign-up created an account")
	}
}

func TestSignInAndSessions(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			svc, _ := servicetest.New(t, d, service.Config{Clock: clock, SessionIdle: time.Hour, SessionAbsolute: 3 * time.Hour})
			_, _, err := svc.Users.SignUp(ctx, service.SignUpInput{Email: " Ada@Example.com ", Password: "correct horse battery", Name: "Ada"}, client)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = svc.Users.SignUp(ctx, service.SignUpInput{Email: "ada@example.com", Password: "another password", Name: "Eve"}, client)
			if e := domain.ErrorOf(err); e == nil || e.Code != domain.CodeConflict || e.Param != "email" {
				t.Fatalf("duplicate sign-up: %v", err)
			}

			// Wrong password and unknown account fail identically.
			_, _, errWrong := svc.Users.SignIn(ctx, service.SignInInput{Email: "ada@example.com", Password: "wrong password"}, client)
			_, _, errNobody := svc.Users.SignIn(ctx, service.SignInInput{Email: "nobody@example.com", Password: "wrong password"}, client)
			if errWrong == nil || errWrong.Error() != errNobody.Error() {
				t.Fatalf("sign-in failures differ: %v / %v", errWrong, errNobody)
			}

			// Each sign-in is a new session; signing out ends only that one.
			_, tok1, err := svc.Users.SignIn(ctx, service.SignInInput{Email: "ADA@example.com", Password: "correct horse battery"}, client)
			if err != nil {
				t.Fatal(err)
			}
			_, tok2, _ := svc.Users.SignIn(ctx, service.SignInInput{Email: "ada@example.com", Password: "correct horse battery"}, client)
			if tok1 == tok2 {
				t.Fatal("session not renewed at sign-in")
			}
			if err := svc.Users.SignOut(ctx, tok1); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Users.Authenticate(ctx, tok1); !domain.IsCode(err, domain.CodeUnauthenticated) {
				t.Fatalf("signed-out session still works: %v", err)
			}
			if _, err := svc.Users.Authenticate(ctx, tok2); err != nil {
				t.Fatalf("other session ended too: %v", err)
			}

			// Idle expiry, then absolute expiry even when used.
			clock.t = clock.t.Add(2 * time.Hour)
			if _, err := svc.Users.Authenticate(ctx, tok2); !domain.IsCode(err, domain.CodeUnauthenticated) {
				t.Fatalf("idle session still works: %v", err)
			}
			_, tok3, _ := svc.Users.SignIn(ctx, service.SignInInput{Email: "ada@example.com", Password: "correct horse battery"}, client)
			for range 4 {
				clock.t = clock.t.Add(50 * time.Minute)
				_, err = svc.Users.Authenticate(ctx, tok3)
			}
			if !domain.IsCode(err, domain.CodeUnauthenticated) {
				t.Fatalf("session outlived its absolute expiry: %v", err)
			}
		})
	}
}

func TestSignInThrottling(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	svc, _ := servicetest.New(t, store.SQLite, service.Config{Clock: clock, SignInLimit: 3, SignInWindow: 10 * time.Minute})
	good := service.SignInInput{Email: "t@example.com", Password: "correct horse battery"}
	if _, _, err := svc.Users.SignUp(ctx, service.SignUpInput{Email: good.Email, Password: good.Password, Name: "T"}, client); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		svc.Users.SignIn(ctx, service.SignInInput{Email: good.Email, Password: "wrong password"}, client)
	}
	// The account is locked for the window, even with the right password…
	if _, _, err := svc.Users.SignIn(ctx, good, client); !domain.IsCode(err, domain.CodeRateLimited) {
		t.Fatalf("throttled sign-in: %v", err)
	}
	// …and free again after it.
	clock.t = clock.t.Add(11 * time.Minute)
	if _, _, err := svc.Users.SignIn(ctx, good, client); err != nil {
		t.Fatalf("after the window: %v", err)
	}

	// One address spraying many accounts is throttled too (5× the account limit).
	spray := service.ClientInfo{IP: "198.51.100.7"}
	for i := range 15 {
		svc.Users.SignIn(ctx, service.SignInInput{Email: string(rune('a'+i)) + "@example.com", Password: "whatever pw"}, spray)
	}
	if _, _, err := svc.Users.SignIn(ctx, good, spray); !domain.IsCode(err, domain.CodeRateLimited) {
		t.Fatalf("IP throttle: %v", err)
	}
	if _, _, err := svc.Users.SignIn(ctx, good, client); err != nil {
		t.Fatalf("another address is not throttled: %v", err)
	}
}

// One address makes at most 10 accounts an hour (tries that fail count too); another address
// is not held back, and the hour's end frees it.
func TestSignUpThrottling(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	svc, _ := servicetest.New(t, store.SQLite, service.Config{Clock: clock})
	script := service.ClientInfo{IP: "203.0.113.50"}
	signUp := func(i int, from service.ClientInfo) error {
		_, _, err := svc.Users.SignUp(ctx, service.SignUpInput{Email: fmt.Sprintf("u%d@example.com", i),
			Password: "correct horse battery", Name: "U"}, from)
		return err
	}
	for i := range 9 {
		if err := signUp(i, script); err != nil {
			t.Fatalf("sign-up %d: %v", i+1, err)
		}
	}
	if err := signUp(0, script); !domain.IsCode(err, domain.CodeConflict) { // a failed try counts as well
		t.Fatalf("a taken email: %v", err)
	}
	if err := signUp(100, script); !domain.IsCode(err, domain.CodeRateLimited) {
		t.Fatalf("the 11th sign-up from one address: %v, want rate limited", err)
	}
	if err := signUp(101, service.ClientInfo{IP: "198.51.100.1"}); err != nil {
		t.Fatalf("another address: %v", err)
	}
	clock.t = clock.t.Add(61 * time.Minute)
	if err := signUp(102, script); err != nil {
		t.Fatalf("after the hour: %v", err)
	}
}

func TestEnsureWorkspaceOnce(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			svc, _ := servicetest.New(t, d, service.Config{})
			_, token, err := svc.Users.SignUp(ctx, service.SignUpInput{Email: "ws@example.com", Password: "correct horse battery", Name: "W"}, client)
			if err != nil {
				t.Fatal(err)
			}
			actor, _ := svc.Users.Authenticate(ctx, token)
			if _, err := svc.Workspaces.Get(ctx, actor); !domain.IsCode(err, domain.CodeNotFound) {
				t.Fatalf("workspace before ensure: %v", err)
			}
			// Concurrent first opens create exactly one workspace.
			var wg sync.WaitGroup
			ids := make([]string, 5)
			for i := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ws, err := svc.Workspaces.Ensure(ctx, actor)
					if err != nil {
						t.Error(err)
					}
					ids[i] = ws.ID
				}()
			}
			wg.Wait()
			for _, id := range ids {
				if id != ids[0] || id == "" {
					t.Fatalf("ensure returned different workspaces: %v", ids)
				}
			}
			actor, _ = svc.Users.Authenticate(ctx, token)
			page, err := svc.Events.List(ctx, actor, domain.EventFilter{Types: []string{"workspace.created"}}, domain.ListParams{})
			if err != nil || len(page.Data) != 1 {
				t.Fatalf("workspace.created events: %d %v", len(page.Data), err)
			}
		})
	}
}

func TestScopesAndSessionRules(t *testing.T) {
	ctx := context.Background()
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	_, secret := owner.NewKey(t, svc, domain.ScopeEventsRead)
	keyActor, err := svc.Keys.Authenticate(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Models.List(ctx, keyActor); reason(err) != "insufficient_scope" {
		t.Fatalf("models without scope: %v", err)
	}
	if _, _, err := svc.Keys.Create(ctx, keyActor, service.CreateKeyInput{Name: "x", Scopes: []string{"*"}}); !domain.IsCode(err, domain.CodeForbidden) {
		t.Fatalf("a key created a key: %v", err)
	}
	if _, err := svc.Events.List(ctx, keyActor, domain.EventFilter{}, domain.ListParams{}); err != nil {
		t.Fatalf("events with scope: %v", err)
	}
	if _, err := svc.Events.List(ctx, keyActor, domain.EventFilter{}, domain.ListParams{Limit: domain.Limit(101)}); !domain.IsCode(err, domain.CodeInvalid) {
		t.Fatalf("limit 101: %v", err)
	}
	// Another workspace's key is invisible.
	other := servicetest.NewOwner(t, svc)
	k, _ := other.NewKey(t, svc, domain.ScopeAll)
	if _, err := svc.Keys.Revoke(ctx, owner.Actor, k.ID); !domain.IsCode(err, domain.CodeNotFound) {
		t.Fatalf("revoke another workspace's key: %v", err)
	}
}
