package store_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// A database that stops answering without closing its connections holds a statement no
// longer than the statement timeout: it fails as unavailable (503 to an API caller), naming
// the setting in its cause, and once the database answers again the next statement works on
// a new connection. Without the bound the statement below waits for as long as the freeze.
func TestFrozenDatabaseFailsAfterTheStatementTimeout(t *testing.T) {
	u, err := url.Parse(storetest.URL(t, store.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	f := storetest.NewFreezer(t, u.Host)
	u.Host = f.Addr()
	ctx := context.Background()
	s, err := store.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	s.SetStatementTimeout(400 * time.Millisecond)
	if _, err := s.UserByEmail(ctx, "nobody@example.com"); !domain.IsCode(err, domain.CodeNotFound) {
		t.Fatalf("before the freeze: %v, want not found", err)
	}

	f.Frozen.Store(true)
	type result struct {
		err  error
		took time.Duration
	}
	done := make(chan result, 1)
	go func() {
		start := time.Now()
		_, err := s.UserByEmail(ctx, "nobody@example.com") // no deadline of its own
		done <- result{err, time.Since(start)}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		f.Frozen.Store(false)
		t.Fatal("a statement on a frozen database was still waiting after 10 s")
	}
	f.Frozen.Store(false)
	var de *domain.Error
	if !errors.As(r.err, &de) || de.Code != domain.CodeUnavailable || de.Reason != store.ReasonUnavailable {
		t.Fatalf("on a frozen database: %v, want unavailable", r.err)
	}
	if !strings.Contains(r.err.Error(), "SWITCHBOARD_DB_STATEMENT_TIMEOUT") {
		t.Errorf("the cause %q does not name the setting", r.err)
	}
	if r.took < 400*time.Millisecond || r.took > 5*time.Second {
		t.Errorf("failed after %v, want about the 400ms timeout", r.took)
	}

	if _, err := s.UserByEmail(ctx, "nobody@example.com"); !domain.IsCode(err, domain.CodeNotFound) {
		t.Fatalf("after the freeze: %v, want not found", err)
	}
}
