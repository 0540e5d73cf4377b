package app

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The job gauges come from one reading of the database per second, however many scrapes
// ask; while the database cannot be read they are left out (not stale), the engine's
// counters stay, and the failure is logged once.
func TestJobMetricsCachedAndLeftOutOnError(t *testing.T) {
	st := storetest.Open(t, store.SQLite)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	eng := jobs.New(st, jobs.Config{Logger: slog.New(slog.DiscardHandler)})
	eng.Register(jobs.Kind{Name: "test.idle", Run: func(context.Context, *jobs.Job) error { return nil }})
	logs := &lockedBuffer{}
	reg := prometheus.NewPedanticRegistry() // also checks Collect against Describe
	reg.MustRegister(newJobsCollector(st, eng, fixedClock{now}, slog.New(slog.NewTextHandler(logs, nil))))
	const help = `
# HELP switchboard_jobs_queued Jobs waiting to run, by kind: due now or scheduled later (retries). Read from the database: the same on every replica.
# TYPE switchboard_jobs_queued gauge
`
	expect := func(queued string) {
		t.Helper()
		if err := testutil.GatherAndCompare(reg, strings.NewReader(help+queued), "switchboard_jobs_queued"); err != nil {
			t.Fatal(err)
		}
	}
	expect(`switchboard_jobs_queued{kind="test.idle"} 0` + "\n")

	// Within the second, scrapes (concurrent or not) cost no query, and show the reading.
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		return jobs.Enqueue(ctx, tx, now, jobs.NewJob{Kind: "test.other", Payload: "{}", RunAt: now.Add(-90 * time.Second)})
	}); err != nil {
		t.Fatal(err)
	}
	before := st.Queries()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { _, _ = reg.Gather() })
	}
	wg.Wait()
	if n := st.Queries() - before; n != 0 {
		t.Fatalf("%d queries for scrapes within the cache's second", n)
	}
	expect(`switchboard_jobs_queued{kind="test.idle"} 0` + "\n")
	// Then a new reading: the queued job and its age (due 90 s before the clock's now).
	time.Sleep(jobsCacheFor)
	expect(`switchboard_jobs_queued{kind="test.idle"} 0` + "\n" + `switchboard_jobs_queued{kind="test.other"} 1` + "\n")
	age := `
# HELP switchboard_jobs_oldest_queued_age_seconds How long the oldest due job of a kind has waited since it became due (0 when none is due). Read from the database.
# TYPE switchboard_jobs_oldest_queued_age_seconds gauge
switchboard_jobs_oldest_queued_age_seconds{kind="test.idle"} 0
switchboard_jobs_oldest_queued_age_seconds{kind="test.other"} 90
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(age), "switchboard_jobs_oldest_queued_age_seconds"); err != nil {
		t.Fatal(err)
	}

	// The database goes away: no job gauges at all, the counters stay, one warning.
	st.Close()
	for range 2 {
		time.Sleep(jobsCacheFor)
		n, err := testutil.GatherAndCount(reg)
		if err != nil {
			t.Fatal(err)
		}
		if n != 3 { // attempts, failures, retries of test.idle
			t.Fatalf("%d series with the database closed, want the 3 counters", n)
		}
		if q, _ := testutil.GatherAndCount(reg, "switchboard_jobs_queued", "switchboard_jobs_running", "switchboard_jobs_oldest_queued_age_seconds"); q != 0 {
			t.Fatalf("%d job gauges reported from a failed reading", q)
		}
	}
	if c := strings.Count(logs.String(), "reading the job queue failed"); c != 1 {
		t.Fatalf("the failure was logged %d times:\n%s", c, logs.String())
	}
}
