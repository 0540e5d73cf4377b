package links

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// A batch retried after a failed write whose transaction committed after all (its answer
// lost) stores each click, its count and its link.clicked event once, for small batches
// (multi-row statements) and large ones (COPY on PostgreSQL, where a stored click would
// otherwise fail the batch for ever).
func TestRetriedClickBatchCountsOnce(t *testing.T) {
	for _, d := range storetest.Dialects {
		for _, n := range []int{6, 80} {
			t.Run(fmt.Sprintf("%s/%d", d, n), func(t *testing.T) {
				ctx := context.Background()
				svc, st := servicetest.New(t, d, service.Config{})
				owner := servicetest.NewOwner(t, svc)
				l := New(svc, Config{ShortBase: "http://sb.test/l"})
				t.Cleanup(l.Close)
				target := "https://example.com/"
				link, err := l.Create(ctx, owner.Actor, Input{URL: &target})
				if err != nil {
					t.Fatal(err)
				}
				ua := l.agents.get("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36")
				batch := make([]domain.Click, n)
				for i := range batch {
					batch[i] = l.newClick(link, Visit{Method: "GET", IP: "203.0.113.9"}, ua, time.Now())
				}
				// The first try stored half the batch (and committed); the batch grew meanwhile.
				if _, err := l.writeClicks(ctx, batch[:n/2], false); err != nil {
					t.Fatal(err)
				}
				if _, err := l.writeClicks(ctx, batch, true); err != nil {
					t.Fatalf("retry: %v", err)
				}
				got, err := l.Get(ctx, owner.Actor, link.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Clicks != int64(n) {
					t.Fatalf("link counts %d clicks, want %d", got.Clicks, n)
				}
				var events int
				if err := st.Tx(ctx, func(tx *store.Tx) error {
					es, err := tx.Events(ctx, owner.Workspace.ID, domain.EventFilter{Types: []string{domain.EventLinkClicked}}, "", 1000)
					events = len(es)
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if events != n {
					t.Fatalf("%d link.clicked events, want %d", events, n)
				}
			})
		}
	}
}
