package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// Announcements arrive after commit, in order, on every listening store; a rolled-back
// transaction announces nothing.
func TestAnnouncementsFollowCommits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var mu sync.Mutex
		var got []string
		s.Handle("sb_test", func(p string) { mu.Lock(); got = append(got, p); mu.Unlock() })
		if err := s.Listen(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), nil); err != nil {
			t.Fatal(err)
		}
		_ = s.Tx(ctx, func(tx *store.Tx) error {
			tx.Announce("sb_test", "rolled back")
			return errors.New("roll back")
		})
		var want []string
		for i := range 20 {
			p := fmt.Sprintf("n%02d", i)
			want = append(want, p)
			if err := s.Tx(ctx, func(tx *store.Tx) error { tx.Announce("sb_test", p); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			n := len(got)
			mu.Unlock()
			if n >= len(want) || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("announced %v, want %v", got, want)
		}
	})
}
