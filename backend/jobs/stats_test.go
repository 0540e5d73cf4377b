package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// Stats counts per kind the attempts recorded, the retries scheduled and the jobs failed for
// good; attempts handed back at shutdown count as nothing, and an idle kind reads zeros.
func TestKindStats(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clk := newClock()
		errs := map[string]func(attempt int) error{
			"job_ok":   func(int) error { return nil },
			"job_perm": func(int) error { return jobs.Permanent(errors.New("bad input")) },
			"job_flaky": func(n int) error {
				if n == 1 {
					return errors.New("boom")
				}
				return nil
			},
			"job_doomed": func(int) error { return errors.New("always") }, // two attempts allowed
		}
		started := make(chan struct{}, 1)
		e := newEngine(t, st, clk,
			jobs.Kind{Name: "test.stats", Workers: 4,
				Backoff: func(int) (time.Duration, bool) { return 10 * time.Second, true },
				Run:     func(ctx context.Context, j *jobs.Job) error { return errs[j.ID](j.Attempt) }},
			jobs.Kind{Name: "test.held", Workers: 1, Run: func(ctx context.Context, j *jobs.Job) error {
				started <- struct{}{}
				<-ctx.Done()
				return ctx.Err()
			}},
			jobs.Kind{Name: "test.idle", Workers: 1, Run: func(context.Context, *jobs.Job) error { return nil }})
		ctx := context.Background()
		stats := func() map[string]jobs.KindStats {
			out := map[string]jobs.KindStats{}
			for _, s := range e.Stats() {
				out[s.Kind] = s
			}
			return out
		}
		want := func(what string, kind string, attempts, retries, failures int64) {
			t.Helper()
			w := jobs.KindStats{Kind: kind, Attempts: attempts, Retries: retries, Failures: failures}
			waitFor(t, what, func() bool { return stats()[kind] == w })
		}
		want("zeros before any work", "test.stats", 0, 0, 0)

		enqueue(t, st, clk.Now(), jobs.NewJob{ID: "job_ok", Kind: "test.stats"}, jobs.NewJob{ID: "job_perm", Kind: "test.stats"},
			jobs.NewJob{ID: "job_flaky", Kind: "test.stats"}, jobs.NewJob{ID: "job_doomed", Kind: "test.stats", MaxAttempts: 2})
		e.ClaimNow(ctx, "test.stats")
		// ok succeeded, perm failed, flaky and doomed are scheduled again.
		want("the first attempts", "test.stats", 4, 2, 1)
		waitFor(t, "workers free", func() bool { return e.InFlight("test.stats") == 0 })
		clk.Advance(10 * time.Second)
		e.ClaimNow(ctx, "test.stats")
		// flaky succeeded, doomed ran out of attempts.
		want("the second attempts", "test.stats", 6, 2, 2)
		if j, err := st.Job(ctx, "job_doomed"); err != nil || j.Status != store.JobFailed {
			t.Fatalf("doomed: %+v %v", j, err)
		}

		// Running engine-driven now, so that Close aborts a held job and hands it back.
		if err := e.Start(ctx); err != nil {
			t.Fatal(err)
		}
		enqueue(t, st, clk.Now(), jobs.NewJob{ID: "job_held", Kind: "test.held"})
		<-started
		e.Close()
		if j, err := st.Job(ctx, "job_held"); err != nil || j.Status != store.JobQueued || j.Attempts != 0 {
			t.Fatalf("held job after close: %+v %v", j, err)
		}
		got := e.Stats()
		if len(got) != 3 || got[0].Kind != "test.held" || got[1].Kind != "test.idle" || got[2].Kind != "test.stats" {
			t.Fatalf("kinds: %+v", got)
		}
		if got[0] != (jobs.KindStats{Kind: "test.held"}) || got[1] != (jobs.KindStats{Kind: "test.idle"}) ||
			got[2] != (jobs.KindStats{Kind: "test.stats", Attempts: 6, Retries: 2, Failures: 2}) {
			t.Fatalf("after close: %+v", got)
		}
	})
}
