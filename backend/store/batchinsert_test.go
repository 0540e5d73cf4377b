package store_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// awkward holds what COPY's text format must escape (tab, newline, backslash, the \N of a
// NULL) and what a multi-row statement must pass as it is.
const awkward = "a\tb\nc\\d \\N 'q' \"dq\" é ✓"

// Clicks and events stored in a batch read back exactly as given, whether the batch is
// small (prepared multi-row statements) or large (COPY, on PostgreSQL). A large batch of clicks
// already stored is a conflict there; a small one skips them. StoredClicks finds them.
func TestBatchInsertsKeepEveryValue(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, ws := seedUser(t, s, "batch@example.com")
		for _, n := range []int{5, 100, 263} { // 263: each prepared statement size (200, 50, 10, 1)
			t.Run(fmt.Sprint(n), func(t *testing.T) {
				linkID := domain.NewID(domain.PrefixLink)
				clicks := make([]domain.Click, n)
				events := make([]domain.Event, n)
				inst := "ins_x"
				for i := range clicks {
					at := t0.Add(time.Duration(i) * 1001 * time.Microsecond)
					clicks[i] = domain.Click{ID: domain.NewID(domain.PrefixClick), WorkspaceID: ws.ID, LinkID: linkID, At: at,
						Referrer: fmt.Sprintf("https://r.example/%d?%s", i, awkward), ReferrerHost: "r.example", Browser: awkward,
						BrowserVersion: "131.0", OS: "Linux", Device: domain.DeviceDesktop, Country: "FR", Bot: i%2 == 0,
						BotReason: map[bool]string{true: "crawler"}[i%2 == 0], QR: i%3 == 0, Visitor: fmt.Sprintf("%032x", i)}
					events[i] = domain.Event{ID: domain.NewID(domain.PrefixEvent), WorkspaceID: ws.ID, Type: "test.batch",
						Data: []byte(fmt.Sprintf(`{"i":%d,"s":"tab\t nl\n bs\\ \\N é"}`, i)), Timestamp: at}
					if i%2 == 1 {
						events[i].InstanceID = &inst
					}
				}
				mustTx(t, s, func(tx *store.Tx) error {
					if err := tx.InsertClicks(ctx, clicks); err != nil {
						return err
					}
					return tx.InsertEvents(ctx, events)
				})

				got, err := s.Clicks(ctx, linkID, true, "", n+1)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != n {
					t.Fatalf("%d clicks read back, want %d", len(got), n)
				}
				for i, c := range got { // newest first
					if want := clicks[n-1-i]; !reflect.DeepEqual(c, want) {
						t.Fatalf("click read back as\n%+v\nwant\n%+v", c, want)
					}
				}
				ids := make([]string, n)
				for i, e := range events {
					ids[i] = e.ID
				}
				gotEvents, err := s.EventsByIDs(ctx, ids)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(gotEvents, events) {
					t.Fatalf("events read back as\n%+v\nwant\n%+v", gotEvents[0], events[0])
				}

				clickIDs := make([]string, n)
				for i, c := range clicks {
					clickIDs[i] = c.ID
				}
				stored, err := s.StoredClicks(ctx, append(clickIDs, "clk_never"))
				if err != nil || len(stored) != n || stored["clk_never"] {
					t.Fatalf("StoredClicks: %d found (want %d), err %v", len(stored), n, err)
				}
				err = s.Tx(ctx, func(tx *store.Tx) error { return tx.InsertClicks(ctx, clicks) })
				if copied := s.Dialect() == store.Postgres && n >= 32; copied != domain.IsCode(err, domain.CodeConflict) {
					t.Fatalf("storing the clicks again: %v", err)
				}
			})
		}
	})
}

// An empty batch writes nothing and is no error (on PostgreSQL it used to be an INSERT with
// an empty VALUES list, a syntax error the click writer retried for ever).
func TestEmptyBatchInsertsNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.InsertClicks(context.Background(), nil); err != nil {
				return err
			}
			return tx.InsertEvents(context.Background(), []domain.Event{})
		})
	})
}
