package app_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/events"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/retention"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// scraper reads the app's /metrics as series → value ("name{labels}" as exposed).
type scraper struct {
	t   *testing.T
	url string
}

func newScraper(t *testing.T, a *app.App) scraper {
	srv := httptest.NewServer(a.MetricsHandler())
	t.Cleanup(srv.Close)
	return scraper{t: t, url: srv.URL + "/metrics"}
}

func (s scraper) scrape() map[string]float64 {
	s.t.Helper()
	resp, err := http.Get(s.url)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		s.t.Fatalf("metrics: %d", resp.StatusCode)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			s.t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// until scrapes until every wanted series has its value (the job gauges are cached for a
// second), and returns that scrape.
func (s scraper) until(want map[string]float64) map[string]float64 {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := s.scrape()
		var off []string
		for k, v := range want {
			if g, ok := got[k]; !ok || g != v {
				off = append(off, fmt.Sprintf("%s = %v (present %v), want %v", k, g, ok, v))
			}
		}
		if len(off) == 0 {
			return got
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("metrics never matched:\n%s", strings.Join(off, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func kindSeries(name, kind string) string { return name + `{kind="` + kind + `"}` }

// The operator's metrics through the real app: per job kind the queue (queued, running,
// oldest due job's age) and this replica's attempts, retries and failures, moved by webhook
// deliveries to a receiver that holds one request, answers 410 to another and fails a third
// once; the connection pool; live subscribers and those dropped for being slow; listener
// reconnects.
func TestMetricsOfJobsPoolAndBus(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			release := make(chan struct{})
			held := make(chan struct{}, 1)
			var flakyCalls atomic.Int32
			receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				switch r.URL.Path {
				case "/slow":
					held <- struct{}{}
					select {
					case <-release:
					case <-r.Context().Done():
					}
				case "/gone":
					w.WriteHeader(http.StatusGone)
				case "/flaky":
					if flakyCalls.Add(1) == 1 {
						w.WriteHeader(http.StatusInternalServerError)
					}
				}
			}))
			defer receiver.Close()
			defer close(release)
			cfg, err := app.FromEnv(func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			cfg.WebhookAllowList = []string{"127.0.0.1"}
			a, _ := newAppWith(t, storetest.URL(t, d), cfg)
			m := newScraper(t, a)
			owner := servicetest.NewOwner(t, a.Service)
			ctx := context.Background()
			hook := func(path string) string {
				t.Helper()
				h, _, err := a.Service.Webhooks.Create(ctx, owner.Actor, service.CreateWebhookInput{URL: receiver.URL + path,
					EventTypes: []string{domain.EventMessageReceived}})
				if err != nil {
					t.Fatal(err)
				}
				return h.ID
			}
			slow, gone, flaky := hook("/slow"), hook("/gone"), hook("/flaky")
			test := func(id string) {
				t.Helper()
				if _, err := a.Service.Webhooks.Test(ctx, owner.Actor, id, ""); err != nil {
					t.Fatal(err)
				}
			}
			const wh = domain.JobWebhookDelivery
			series := func(kind string, queued, running, oldest, attempts, retries, failures float64) map[string]float64 {
				return map[string]float64{
					kindSeries("switchboard_jobs_queued", kind): queued, kindSeries("switchboard_jobs_running", kind): running,
					kindSeries("switchboard_jobs_oldest_queued_age_seconds", kind): oldest,
					kindSeries("switchboard_job_attempts_total", kind):             attempts,
					kindSeries("switchboard_job_retries_total", kind):              retries,
					kindSeries("switchboard_job_failures_total", kind):             failures,
				}
			}

			// Every registered kind has its series from the start, at zero.
			first := m.until(series(wh, 0, 0, 0, 0, 0, 0))
			kinds := a.Jobs.Stats()
			if len(kinds) < 2 {
				t.Fatalf("registered kinds: %+v", kinds)
			}
			for _, k := range kinds {
				if k.Kind == retention.JobKind {
					continue // runs at start
				}
				for name, v := range series(k.Kind, 0, 0, 0, 0, 0, 0) {
					if got, ok := first[name]; !ok || got != v {
						t.Fatalf("%s = %v (present %v) at start", name, got, ok)
					}
				}
			}

			// A delivery held by its receiver is running; once answered it is one attempt.
			test(slow)
			<-held
			m.until(series(wh, 0, 1, 0, 0, 0, 0))
			release <- struct{}{}
			m.until(series(wh, 0, 0, 0, 1, 0, 0))
			// 410 Gone fails a delivery for good.
			test(gone)
			m.until(series(wh, 0, 0, 0, 2, 0, 1))
			// A 500 schedules a retry (5 s later): queued again, but not yet due, so no age.
			test(flaky)
			m.until(series(wh, 1, 0, 0, 3, 1, 1))

			// A backlog the database holds for a kind nobody here runs: two jobs, one due ten
			// minutes ago, one due in an hour. The age is the due one's; the kind has no
			// counters, as this replica never ran it.
			now := a.Service.Clock().Now()
			if err := a.Store.Tx(ctx, func(tx *store.Tx) error {
				return jobs.Enqueue(ctx, tx, now, jobs.NewJob{Kind: "metrics.orphan", Payload: "{}", RunAt: now.Add(-10 * time.Minute)},
					jobs.NewJob{Kind: "metrics.orphan", Payload: "{}", RunAt: now.Add(time.Hour)})
			}); err != nil {
				t.Fatal(err)
			}
			got := m.until(map[string]float64{kindSeries("switchboard_jobs_queued", "metrics.orphan"): 2,
				kindSeries("switchboard_jobs_running", "metrics.orphan"): 0})
			if age := got[kindSeries("switchboard_jobs_oldest_queued_age_seconds", "metrics.orphan")]; age < 600 || age > 660 {
				t.Fatalf("oldest queued age %v, want about 600", age)
			}
			if _, ok := got[kindSeries("switchboard_job_attempts_total", "metrics.orphan")]; ok {
				t.Fatal("attempts counted for a kind this replica does not run")
			}

			// The pool: its limit (8 on SQLite, 20 on PostgreSQL), and connections open.
			limit := map[store.Dialect]float64{store.SQLite: 8, store.Postgres: 20}[d]
			if got["switchboard_db_max_open_connections"] != limit ||
				got["switchboard_db_connections_in_use"]+got["switchboard_db_connections_idle"] < 1 {
				t.Fatalf("pool: max %v, in use %v, idle %v", got["switchboard_db_max_open_connections"],
					got["switchboard_db_connections_in_use"], got["switchboard_db_connections_idle"])
			}
			for _, name := range []string{"switchboard_db_wait_count_total", "switchboard_db_wait_seconds_total", "switchboard_listener_reconnects_total"} {
				if v, ok := got[name]; !ok || v < 0 {
					t.Fatalf("%s = %v (present %v)", name, v, ok)
				}
			}

			// A live subscription counts; flooding its one-event buffer drops it and counts that.
			subs, dropped := got["switchboard_live_subscribers"], got["switchboard_bus_dropped_subscribers_total"]
			const ws = "ws_metrics_flood" // a workspace of its own: nothing else publishes there
			sub := a.Service.Bus().Subscribe(ws, domain.EventFilter{}, 1)
			defer sub.Close()
			m.until(map[string]float64{"switchboard_live_subscribers": subs + 1, "switchboard_bus_dropped_subscribers_total": dropped})
			for range 2 {
				a.Service.Bus().Publish(domain.Event{ID: domain.NewID(domain.PrefixEvent), Type: domain.EventMessageReceived, WorkspaceID: ws})
			}
			if sub.Err() != events.ErrSlowSubscriber {
				t.Fatalf("subscription: %v", sub.Err())
			}
			m.until(map[string]float64{"switchboard_live_subscribers": subs, "switchboard_bus_dropped_subscribers_total": dropped + 1})
		})
	}
}
