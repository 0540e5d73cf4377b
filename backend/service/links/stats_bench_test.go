package links

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// fixedClock is a clock that stays where it is set.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// BenchmarkStats reads the default stats (30 days by day, and 24 hours by hour) of a link
// with 200,000 clicks spread over 30 days, on each database, in UTC and in Asia/Kolkata
// (a zone whose days and hours start half-way through UTC hours).
//
//	go test -run '^$' -bench Stats -benchtime 20x ./service/links/
func BenchmarkStats(b *testing.B) {
	const clicks = 200_000
	now := time.Date(2025, 4, 8, 9, 0, 0, 0, time.UTC)
	for _, d := range storetest.Dialects {
		b.Run(string(d), func(b *testing.B) {
			svc, st := servicetest.New(b, d, service.Config{Clock: fixedClock{now}})
			l := New(svc, Config{ShortBase: "http://switchboard.test/l"})
			owner := servicetest.NewOwner(b, svc)
			ctx := context.Background()
			link, err := l.Create(ctx, owner.Actor, Input{URL: ptr("https://example.com/bench")})
			if err != nil {
				b.Fatal(err)
			}
			seedClicks(b, st, owner.Workspace.ID, link.ID, now.Add(-30*24*time.Hour), now, clicks)
			for _, tz := range []string{"UTC", "Asia/Kolkata"} {
				for _, interval := range []string{"day", "hour"} {
					b.Run(tz+"/"+interval, func(b *testing.B) {
						q := StatsQuery{Interval: interval, Timezone: tz}
						for b.Loop() {
							s, err := l.Stats(ctx, owner.Actor, link.ID, q)
							if err != nil {
								b.Fatal(err)
							}
							if interval == "day" && s.Clicks < clicks*8/10 {
								b.Fatalf("%d clicks counted", s.Clicks)
							}
						}
					})
				}
			}
		})
	}
}

// seedClicks stores n clicks of a link at random instants in [from, to): a tenth are bots,
// visitors repeat, and the dimensions vary as real traffic's do.
func seedClicks(tb testing.TB, st *store.Store, workspaceID, linkID string, from, to time.Time, n int) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	countries := []string{"US", "DE", "IN", "GB", "FR", "", "BR", "NP"}
	devices := []string{"desktop", "mobile", "tablet"}
	browsers := []string{"Chrome", "Safari", "Firefox", "Edge", ""}
	oses := []string{"Windows", "macOS", "iOS", "Android", "Linux"}
	referrers := []string{"", "news.example.org", "t.co", "www.google.com", "l.facebook.com"}
	// Stored in the order they happened, as the click writer stores them.
	ats := make([]time.Time, n)
	for i := range ats {
		ats[i] = from.Add(time.Duration(rng.Int64N(int64(to.Sub(from))))).Truncate(time.Millisecond)
	}
	slices.SortFunc(ats, time.Time.Compare)
	batch := make([]domain.Click, 0, 5000)
	for i, at := range ats {
		c := domain.Click{ID: domain.NewID(domain.PrefixClick), WorkspaceID: workspaceID, LinkID: linkID, At: at,
			Country: countries[rng.IntN(len(countries))], Device: devices[rng.IntN(len(devices))],
			Browser: browsers[rng.IntN(len(browsers))], OS: oses[rng.IntN(len(oses))],
			ReferrerHost: referrers[rng.IntN(len(referrers))], Visitor: fmt.Sprintf("%016x", rng.IntN(20_000)),
			Bot: rng.IntN(10) == 0}
		if c.Bot {
			c.Device, c.BotReason = domain.DeviceBot, "crawler"
		}
		batch = append(batch, c)
		if len(batch) == cap(batch) || i == n-1 {
			if err := st.Tx(context.Background(), func(tx *store.Tx) error { return tx.InsertClicks(context.Background(), batch) }); err != nil {
				tb.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}
