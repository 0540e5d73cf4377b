package retention

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

const day = 24 * time.Hour

// clock is a settable clock shared with the goroutines of the engine.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func (c *clock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

var t0 = time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testConfig is the documented retention with a small batch and a short pause.
func testConfig(clk domain.Clock) Config {
	c := Defaults()
	c.Clock, c.Logger, c.Batch, c.Pause = clk, quiet(), 2, time.Millisecond
	return c
}

func limit(n int) *int { return &n }

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Events and finished webhook deliveries older than 30 days are pruned (in batches smaller
// than what is there), newer ones stay, and a cursor into what was pruned is answered 410
// cursor_expired, in REST's status and GraphQL's reason alike.
func TestEventsAndDeliveriesExpire(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			clk := &clock{t: t0}
			svc, st := servicetest.New(t, d, service.Config{Clock: clk, TargetPolicy: ssrf.MustPolicy("127.0.0.1")})
			o := servicetest.NewOwner(t, svc)
			hook, _, err := svc.Webhooks.Create(ctx, o.Actor, service.CreateWebhookInput{URL: "http://127.0.0.1:9/hook",
				EventTypes: []string{"*"}})
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				o.NewKey(t, svc, domain.ScopeEventsRead)
			}
			oldDeliveryCount := finishDeliveries(t, svc, st, o, hook.ID)
			oldEvents, err := svc.Events.List(ctx, o.Actor, domain.EventFilter{}, domain.ListParams{Limit: limit(100)})
			if err != nil || len(oldEvents.Data) < 5 {
				t.Fatalf("old events: %v %v", oldEvents.Data, err)
			}
			oldCursor := oldEvents.Data[1].ID
			oldDeliveries, err := svc.Webhooks.Deliveries(ctx, o.Actor, hook.ID, domain.ListParams{Limit: limit(2)})
			if err != nil || oldDeliveries.NextCursor == "" {
				t.Fatalf("old deliveries: %+v %v", oldDeliveries, err)
			}

			clk.Advance(30*day + time.Minute)
			o.NewKey(t, svc, domain.ScopeEventsRead)
			o.NewKey(t, svc, domain.ScopeEventsRead)
			finishDeliveries(t, svc, st, o, hook.ID)
			newEvents, err := svc.Events.List(ctx, o.Actor, domain.EventFilter{}, domain.ListParams{Limit: limit(1)})
			if err != nil {
				t.Fatal(err)
			}

			p := New(st, testConfig(clk))
			if err := p.Prune(ctx); err != nil {
				t.Fatal(err)
			}
			if got := p.Pruned(); got[store.TableEvents] != int64(len(oldEvents.Data)) || got[store.TableDeliveries] != oldDeliveryCount ||
				got[store.TableAttempts] != oldDeliveryCount || oldDeliveryCount < 5 {
				t.Fatalf("pruned %v, want the %d old events and the %d old deliveries with their attempts", got, len(oldEvents.Data),
					oldDeliveryCount)
			}
			left, err := svc.Events.List(ctx, o.Actor, domain.EventFilter{}, domain.ListParams{Limit: limit(100)})
			if err != nil || len(left.Data) != 2 || left.HasMore {
				t.Fatalf("events left: %+v %v", left, err)
			}
			for _, e := range left.Data {
				if e.Timestamp.Before(clk.Now().Add(-30 * day)) {
					t.Fatalf("an event older than 30 days stayed: %+v", e)
				}
			}

			for what, list := range map[string]func() error{
				"events": func() error {
					_, err := svc.Events.List(ctx, o.Actor, domain.EventFilter{}, domain.ListParams{After: oldCursor})
					return err
				},
				"deliveries": func() error {
					_, err := svc.Webhooks.Deliveries(ctx, o.Actor, hook.ID, domain.ListParams{After: oldDeliveries.NextCursor})
					return err
				},
			} {
				e := domain.ErrorOf(list())
				if e == nil || e.Reason != "cursor_expired" || e.Param != "after" || httpx.Status(e) != http.StatusGone {
					t.Errorf("%s after a pruned cursor: %v, want 410 cursor_expired", what, e)
				}
			}
			if _, err := svc.Events.List(ctx, o.Actor, domain.EventFilter{}, domain.ListParams{After: newEvents.NextCursor}); err != nil {
				t.Fatalf("a cursor within the retention: %v", err)
			}
			if _, err := svc.Events.List(ctx, o.Actor, domain.EventFilter{}, domain.ListParams{}); err != nil {
				t.Fatalf("a list without cursor: %v", err)
			}
		})
	}
}

// finishDeliveries records every pending delivery of a hook as delivered, and returns how
// many it finished.
func finishDeliveries(t *testing.T, svc *service.Service, st *store.Store, o servicetest.Owner, hookID string) int64 {
	t.Helper()
	ctx := context.Background()
	page, err := svc.Webhooks.Deliveries(ctx, o.Actor, hookID, domain.ListParams{Limit: limit(100)})
	if err != nil {
		t.Fatal(err)
	}
	var rs []store.DeliveryResult
	for _, d := range page.Data {
		if d.Status == domain.DeliveryPending {
			rs = append(rs, store.DeliveryResult{DeliveryID: d.ID, N: 1, Status: domain.DeliverySucceeded,
				Attempt: domain.DeliveryAttempt{AttemptedAt: svc.Clock().Now(), StatusCode: 200}})
		}
	}
	if err := st.Tx(ctx, func(tx *store.Tx) error { return tx.RecordDeliveryResults(ctx, rs) }); err != nil {
		t.Fatal(err)
	}
	return int64(len(rs))
}

// A link's stats (totals, uniques, bots, the day and hour series, every breakdown) and its
// click count are the same after its raw clicks older than 90 days are pruned; the raw
// clicks' own list answers an old cursor with 410.
func TestStatsSurvivePruning(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			clk := &clock{t: t0}
			svc, st := servicetest.New(t, d, service.Config{Clock: clk})
			o := servicetest.NewOwner(t, svc)
			l := links.New(svc, links.Config{ShortBase: "http://sb.test/l"})
			target := "https://example.com/landing"
			link, err := l.Create(ctx, o.Actor, links.Input{URL: &target})
			if err != nil {
				t.Fatal(err)
			}
			agents := []string{
				"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
				"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
				"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
				"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
			}
			referrers := []string{"", "https://news.example/a", "https://t.co/x"}
			start := t0.Truncate(day)
			for dd := range 4 {
				for i := range 9 + dd {
					clk.Set(start.Add(time.Duration(dd)*day + time.Duration(i*5%24)*time.Hour + time.Duration(i)*time.Minute))
					if _, err := l.Visit(ctx, links.Visit{Slug: link.Slug, Method: "GET", UserAgent: agents[(i+dd)%4],
						Referrer: referrers[i%3], IP: fmt.Sprintf("203.0.113.%d", i%4)}); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := l.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			firstClicks, err := l.Clicks(ctx, o.Actor, link.ID, true, domain.ListParams{Limit: limit(100)})
			if err != nil || len(firstClicks.Data) < 40 {
				t.Fatalf("clicks: %d %v", len(firstClicks.Data), err)
			}
			oldCursor := firstClicks.Data[len(firstClicks.Data)-2].ID

			// 92 days later the first two days are past the 90 days of raw clicks.
			clk.Set(start.Add(92 * day).Add(time.Hour))
			from, to := start.Add(-10*day), start.Add(100*day)
			hourFrom, hourTo := start, start.Add(4*day)
			read := func() (out []any) {
				for _, bots := range []bool{false, true} {
					byDay, err := l.Stats(ctx, o.Actor, link.ID, links.StatsQuery{From: &from, To: &to, IncludeBots: bots})
					if err != nil {
						t.Fatal(err)
					}
					byHour, err := l.Stats(ctx, o.Actor, link.ID, links.StatsQuery{From: &hourFrom, To: &hourTo, Interval: "hour",
						IncludeBots: bots})
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, byDay, byHour)
				}
				got, err := l.Get(ctx, o.Actor, link.ID)
				if err != nil {
					t.Fatal(err)
				}
				return append(out, got.Clicks)
			}
			before := read()
			if s := before[0].(domain.LinkStats); s.Clicks == 0 || s.Uniques == 0 || s.Bots == 0 || len(s.Countries) == 0 {
				t.Fatalf("stats before pruning: %+v", s)
			}

			p := New(st, testConfig(clk))
			if err := p.Prune(ctx); err != nil {
				t.Fatal(err)
			}
			if n := p.Pruned()[store.TableClicks]; n != 9+10 {
				t.Fatalf("pruned %d raw clicks, want the first two days' 19", n)
			}
			after := read()
			for i := range before {
				if !reflect.DeepEqual(before[i], after[i]) {
					t.Errorf("stats %d changed by pruning:\nbefore %+v\nafter  %+v", i, before[i], after[i])
				}
			}
			_, err = l.Clicks(ctx, o.Actor, link.ID, true, domain.ListParams{After: oldCursor})
			if e := domain.ErrorOf(err); e == nil || e.Reason != "cursor_expired" || httpx.Status(e) != http.StatusGone {
				t.Fatalf("raw clicks after a pruned cursor: %v", err)
			}
			kept, err := l.Clicks(ctx, o.Actor, link.ID, true, domain.ListParams{Limit: limit(100)})
			if err != nil || len(kept.Data) != len(firstClicks.Data)-19 {
				t.Fatalf("raw clicks left: %d %v", len(kept.Data), err)
			}
		})
	}
}

// The prune job is one row: two replicas scheduling it at start make one job, which one of
// them runs at a time; each run enqueues the next one Interval later, and a restart keeps
// the schedule rather than doubling or resetting it.
func TestPruneJobRunsOnceAcrossReplicas(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			clk := &clock{t: t0}
			st := storetest.Open(t, d)
			var running, peak, runs atomic.Int32
			replica := func() (*Pruner, *jobs.Engine) {
				s, err := store.Open(ctx, st.URL())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				cfg := testConfig(clk)
				cfg.Interval = time.Hour
				p := New(s, cfg)
				e := jobs.New(s, jobs.Config{Clock: clk, Logger: quiet(), Lease: 2 * time.Second, ShutdownGrace: 200 * time.Millisecond})
				k := p.Kind()
				run := k.Run
				k.Run = func(ctx context.Context, j *jobs.Job) error {
					n := running.Add(1)
					defer running.Add(-1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					defer runs.Add(1)
					return run(ctx, j)
				}
				e.Register(k)
				t.Cleanup(e.Close)
				return p, e
			}
			pa, a := replica()
			pb, b := replica()
			for _, p := range []*Pruner{pa, pb} {
				if err := p.Schedule(ctx); err != nil {
					t.Fatal(err)
				}
			}
			for _, e := range []*jobs.Engine{a, b} {
				if err := e.Start(ctx); err != nil {
					t.Fatal(err)
				}
			}
			next := func() store.JobState {
				j, err := st.Job(ctx, jobID)
				if err != nil {
					t.Fatal(err)
				}
				return j
			}
			waitFor(t, "the first run", func() bool { return runs.Load() == 1 && next().RunAt.Equal(t0.Add(time.Hour)) })
			if n, err := st.CountJobs(ctx, JobKind); err != nil || n != 1 {
				t.Fatalf("%d prune jobs, want one: %v", n, err)
			}
			clk.Advance(time.Hour)
			a.Kick(JobKind)
			b.Kick(JobKind)
			waitFor(t, "the second run", func() bool { return runs.Load() == 2 && next().RunAt.Equal(t0.Add(2*time.Hour)) })

			// A replica restarting schedules again: the job keeps its time.
			pc, c := replica()
			if err := pc.Schedule(ctx); err != nil {
				t.Fatal(err)
			}
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			c.Kick(JobKind)
			if j := next(); !j.RunAt.Equal(t0.Add(2*time.Hour)) || j.Status != store.JobQueued {
				t.Fatalf("after a restart: %+v", j)
			}
			time.Sleep(50 * time.Millisecond) // nothing is due: no replica may run it
			if runs.Load() != 2 || peak.Load() != 1 {
				t.Fatalf("%d runs, at most %d at once; want 2, one at a time", runs.Load(), peak.Load())
			}
			if n, _ := st.CountJobs(ctx, JobKind); n != 1 {
				t.Fatalf("%d prune jobs after a restart, want one", n)
			}

			// A replica started with a shorter interval brings the job forward to it, rather
			// than waiting out the old one; a longer interval leaves it as it is.
			shorter := testConfig(clk)
			shorter.Interval = 10 * time.Minute
			if err := New(st, shorter).Schedule(ctx); err != nil {
				t.Fatal(err)
			}
			if j := next(); !j.RunAt.Equal(t0.Add(time.Hour+10*time.Minute)) || j.Status != store.JobQueued {
				t.Fatalf("after a restart with a 10-minute interval: due %v, want %v", j.RunAt, t0.Add(time.Hour+10*time.Minute))
			}
			longer := testConfig(clk)
			longer.Interval = 24 * time.Hour
			if err := New(st, longer).Schedule(ctx); err != nil {
				t.Fatal(err)
			}
			if j := next(); !j.RunAt.Equal(t0.Add(time.Hour + 10*time.Minute)) {
				t.Fatalf("a longer interval moved the job to %v", j.RunAt)
			}
		})
	}
}

// The defaults are the documented ones, and settings that would break a promise are refused.
func TestConfig(t *testing.T) {
	c := Defaults()
	if c.Events != 30*day || c.Deliveries != 30*day || c.Clicks != 90*day || c.Automation != 30*day ||
		c.FailedJobs != 30*day || c.Idempotency != 24*time.Hour || c.Validate() != nil {
		t.Fatalf("defaults %+v (%v)", c, c.Validate())
	}
	if (Config{}).Validate() != nil {
		t.Fatal("keeping everything forever is allowed")
	}
	for _, bad := range []Config{{Events: -time.Hour}, {Idempotency: time.Hour}, {Clicks: time.Hour}} {
		if bad.Validate() == nil {
			t.Errorf("%+v must be refused", bad)
		}
	}
}
