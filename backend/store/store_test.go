package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 890_000_000, time.UTC)

func seedUser(t *testing.T, s *store.Store, email string) (domain.User, domain.Workspace) {
	t.Helper()
	ctx := context.Background()
	u := domain.User{ID: domain.NewID(domain.PrefixUser), Email: email, Name: "Ada", PasswordHash: "h", CreatedAt: t0}
	w := domain.Workspace{ID: domain.NewID(domain.PrefixWorkspace), Name: "Ada's", OwnerID: u.ID, CreatedAt: t0}
	err := s.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateUser(ctx, u); err != nil {
			return err
		}
		return tx.CreateWorkspace(ctx, w)
	})
	if err != nil {
		t.Fatal(err)
	}
	return u, w
}

func TestUsersAndWorkspaces(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u, w := seedUser(t, s, "ada@example.com")

		got, err := s.UserByEmail(ctx, "ada@example.com")
		// Equal to the millisecond on both databases.
		if err != nil || got.ID != u.ID || !got.CreatedAt.Equal(t0) {
			t.Fatalf("user by email: %+v %v", got, err)
		}
		if _, err := s.UserByEmail(ctx, "nobody@example.com"); !domain.IsCode(err, domain.CodeNotFound) {
			t.Fatalf("missing user: %v", err)
		}
		// A taken email and a second workspace for the same owner are conflicts.
		err = s.Tx(ctx, func(tx *store.Tx) error {
			return tx.CreateUser(ctx, domain.User{ID: domain.NewID(domain.PrefixUser), Email: "ada@example.com", Name: "x", PasswordHash: "h", CreatedAt: t0})
		})
		if !domain.IsCode(err, domain.CodeConflict) {
			t.Fatalf("duplicate email: %v", err)
		}
		err = s.Tx(ctx, func(tx *store.Tx) error {
			return tx.CreateWorkspace(ctx, domain.Workspace{ID: domain.NewID(domain.PrefixWorkspace), Name: "2", OwnerID: u.ID, CreatedAt: t0})
		})
		if !domain.IsCode(err, domain.CodeConflict) {
			t.Fatalf("second workspace: %v", err)
		}
		ws, err := s.WorkspaceByOwner(ctx, u.ID)
		if err != nil || ws.ID != w.ID {
			t.Fatalf("workspace by owner: %+v %v", ws, err)
		}
	})
}

func TestTransactionRollsBackEverything(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		notified := 0
		s.Handle("sb_test", func(string) { notified++ })
		u := domain.User{ID: domain.NewID(domain.PrefixUser), Email: "rb@example.com", Name: "x", PasswordHash: "h", CreatedAt: t0}
		err := s.Tx(ctx, func(tx *store.Tx) error {
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
			if err := tx.Notify(ctx, "sb_test", "hello"); err != nil {
				return err
			}
			return domain.Invalid("x", "stop")
		})
		if !domain.IsCode(err, domain.CodeInvalid) {
			t.Fatalf("tx error: %v", err)
		}
		if _, err := s.UserByID(ctx, u.ID); !domain.IsCode(err, domain.CodeNotFound) {
			t.Fatalf("rolled-back user is visible: %v", err)
		}
		if notified != 0 {
			t.Fatal("a rolled-back transaction notified")
		}
	})
}

func TestAPIKeys(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u, w := seedUser(t, s, "keys@example.com")
		_, other := seedUser(t, s, "other@example.com")
		exp := t0.Add(time.Hour)
		k := domain.APIKey{ID: domain.NewID(domain.PrefixAPIKey), WorkspaceID: w.ID, Name: "k", Hash: "abc", Prefix: "sb_live_AbCd",
			LastFour: "wxyz", Scopes: []domain.Scope{domain.ScopeModelsRead}, CreatedBy: u.ID, CreatedAt: t0, ExpiresAt: &exp}
		if err := s.Tx(ctx, func(tx *store.Tx) error { return tx.CreateAPIKey(ctx, k) }); err != nil {
			t.Fatal(err)
		}
		got, err := s.APIKeyByHash(ctx, "abc")
		if err != nil || got.ID != k.ID || len(got.Scopes) != 1 || got.ExpiresAt == nil || !got.ExpiresAt.Equal(exp) || got.AllowedOrigins == nil {
			t.Fatalf("by hash: %+v %v", got, err)
		}
		// Another workspace cannot see or revoke it.
		if _, err := s.APIKey(ctx, other.ID, k.ID); !domain.IsCode(err, domain.CodeNotFound) {
			t.Fatalf("cross-workspace read: %v", err)
		}
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.RevokeAPIKey(ctx, other.ID, k.ID, t0) })
		if !domain.IsCode(err, domain.CodeNotFound) {
			t.Fatalf("cross-workspace revoke: %v", err)
		}
		// Revoking twice keeps the first time; last use never moves backwards.
		for _, at := range []time.Time{t0.Add(time.Minute), t0.Add(time.Hour)} {
			if err := s.Tx(ctx, func(tx *store.Tx) error { return tx.RevokeAPIKey(ctx, w.ID, k.ID, at) }); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.TouchAPIKeys(ctx, map[string]time.Time{k.ID: t0.Add(2 * time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if err := s.TouchAPIKeys(ctx, map[string]time.Time{k.ID: t0.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		got, _ = s.APIKey(ctx, w.ID, k.ID)
		if !got.RevokedAt.Equal(t0.Add(time.Minute)) || !got.LastUsedAt.Equal(t0.Add(2*time.Minute)) {
			t.Fatalf("revoked %v last used %v", got.RevokedAt, got.LastUsedAt)
		}
	})
}

func TestEventsPagingAndFilters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, w := seedUser(t, s, "events@example.com")
		inst := "inst_1"
		var ids []string
		err := s.Tx(ctx, func(tx *store.Tx) error {
			for i := range 5 {
				e := domain.Event{ID: domain.NewID(domain.PrefixEvent), WorkspaceID: w.ID, Type: "api_key.created",
					Data: json.RawMessage(`{"n":` + string(rune('0'+i)) + `}`), Timestamp: t0.Add(time.Duration(i) * time.Second)}
				if i == 4 {
					e.Type, e.InstanceID = "workspace.created", &inst
				}
				ids = append(ids, e.ID)
				if err := tx.InsertEvent(ctx, e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		page, err := s.Events(ctx, w.ID, domain.EventFilter{}, "", 2)
		if err != nil || len(page) != 3 || page[0].ID != ids[4] {
			t.Fatalf("first page: %d %v", len(page), err)
		}
		page, _ = s.Events(ctx, w.ID, domain.EventFilter{}, ids[3], 10)
		if len(page) != 3 || page[0].ID != ids[2] {
			t.Fatalf("after cursor: %d", len(page))
		}
		page, _ = s.Events(ctx, w.ID, domain.EventFilter{Types: []string{"workspace.created"}}, "", 10)
		if len(page) != 1 || *page[0].InstanceID != inst || string(page[0].Data) != `{"n":4}` {
			t.Fatalf("type filter: %+v", page)
		}
		since := t0.Add(2 * time.Second)
		page, _ = s.Events(ctx, w.ID, domain.EventFilter{Since: &since}, "", 10)
		if len(page) != 3 {
			t.Fatalf("since filter: %d", len(page))
		}
		replay, _ := s.EventsAfter(ctx, w.ID, domain.EventFilter{}, ids[1], 10)
		if len(replay) != 3 || replay[0].ID != ids[2] {
			t.Fatalf("replay: %d", len(replay))
		}
		if _, err := s.Event(ctx, "ws_other", ids[0]); !domain.IsCode(err, domain.CodeNotFound) {
			t.Fatalf("cross-workspace event: %v", err)
		}
	})
}

func TestIdempotencyClaims(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := store.IdempotentResponse{WorkspaceID: "ws_1", Key: "k1", RequestHash: "h1", CreatedAt: t0}
		if _, claimed, err := s.ClaimIdempotencyKey(ctx, r); err != nil || !claimed {
			t.Fatalf("first claim: %v %v", claimed, err)
		}
		if err := s.CompleteIdempotencyKey(ctx, "ws_1", "k1", 201, "application/json", `{"ok":true}`); err != nil {
			t.Fatal(err)
		}
		got, claimed, err := s.ClaimIdempotencyKey(ctx, r)
		if err != nil || claimed || got.StatusCode != 201 || got.ResponseBody != `{"ok":true}` {
			t.Fatalf("second claim: %+v %v %v", got, claimed, err)
		}
		// Another workspace's key of the same name is independent.
		if _, claimed, _ := s.ClaimIdempotencyKey(ctx, store.IdempotentResponse{WorkspaceID: "ws_2", Key: "k1", RequestHash: "x", CreatedAt: t0}); !claimed {
			t.Fatal("keys leak across workspaces")
		}
	})
}
