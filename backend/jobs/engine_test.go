package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// clock is a settable clock shared with the engine's goroutines.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClock() *clock { return &clock{t: time.Now().UTC().Truncate(time.Millisecond)} }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newEngine(t *testing.T, st *store.Store, clk domain.Clock, kinds ...jobs.Kind) *jobs.Engine {
	t.Helper()
	e := jobs.New(st, jobs.Config{Clock: clk, Logger: quiet(), Lease: 2 * time.Second, ShutdownGrace: 200 * time.Millisecond,
		Rand: func() float64 { return 0 }})
	for _, k := range kinds {
		e.Register(k)
	}
	t.Cleanup(e.Close)
	return e
}

func enqueue(t *testing.T, st *store.Store, now time.Time, js ...jobs.NewJob) {
	t.Helper()
	if err := st.Tx(context.Background(), func(tx *store.Tx) error { return jobs.Enqueue(context.Background(), tx, now, js...) }); err != nil {
		t.Fatal(err)
	}
}

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

// A job enqueued in a committed transaction runs once and is removed, and its kind records
// the outcome in the same transaction; one enqueued in a rolled-back transaction never runs.
func TestJobRunsOnceAfterCommit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clk := newClock()
		var runs atomic.Int32
		var committed []string
		var mu sync.Mutex
		e := newEngine(t, st, clk, jobs.Kind{Name: "test.once", Workers: 4,
			Run: func(ctx context.Context, j *jobs.Job) error { runs.Add(1); return nil },
			Commit: func(ctx context.Context, tx *store.Tx, done []jobs.Done) error {
				mu.Lock()
				defer mu.Unlock()
				for _, d := range done {
					if d.Outcome != jobs.Succeeded {
						t.Errorf("outcome %v", d.Outcome)
					}
					committed = append(committed, d.Job.ID)
				}
				return nil
			}})
		if err := e.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		err := st.Tx(context.Background(), func(tx *store.Tx) error {
			if err := jobs.Enqueue(context.Background(), tx, clk.Now(), jobs.NewJob{ID: "job_rolledback", Kind: "test.once"}); err != nil {
				return err
			}
			return errors.New("roll back")
		})
		if err == nil {
			t.Fatal("the transaction committed")
		}
		enqueue(t, st, clk.Now(), jobs.NewJob{ID: "job_committed", Kind: "test.once"})
		waitFor(t, "the job to be recorded", func() bool { mu.Lock(); defer mu.Unlock(); return len(committed) == 1 })
		time.Sleep(50 * time.Millisecond)
		if runs.Load() != 1 || committed[0] != "job_committed" {
			t.Fatalf("%d runs, committed %v", runs.Load(), committed)
		}
		if _, err := st.Job(context.Background(), "job_committed"); !domain.IsCode(err, domain.CodeNotFound) {
			t.Fatalf("a succeeded job is still queued: %v", err)
		}
	})
}

// Failures are retried on the kind's schedule with jitter, never sooner than RetryAfter;
// a job out of attempts, or failed permanently, stays failed with its last error.
func TestRetriesThenFails(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clk := newClock()
		var mu sync.Mutex
		var outcomes []jobs.Done
		errs := map[string]func(n int) error{
			"job_flaky":     func(int) error { return errors.New("boom") },
			"job_permanent": func(int) error { return jobs.Permanent(errors.New("bad input")) },
			"job_later":     func(int) error { return jobs.RetryAfter(errors.New("busy"), time.Hour) },
		}
		e := newEngine(t, st, clk, jobs.Kind{Name: "test.retry", Workers: 4, Jitter: 0.1,
			Backoff: func(n int) (time.Duration, bool) { return time.Duration(n) * 10 * time.Second, true },
			Run:     func(ctx context.Context, j *jobs.Job) error { return errs[j.ID](j.Attempt) },
			Commit: func(ctx context.Context, tx *store.Tx, done []jobs.Done) error {
				mu.Lock()
				outcomes = append(outcomes, done...)
				mu.Unlock()
				return nil
			}})
		now := clk.Now()
		enqueue(t, st, now, jobs.NewJob{ID: "job_flaky", Kind: "test.retry", MaxAttempts: 2},
			jobs.NewJob{ID: "job_permanent", Kind: "test.retry", MaxAttempts: 5},
			jobs.NewJob{ID: "job_later", Kind: "test.retry", MaxAttempts: 5})
		ctx := context.Background()
		e.ClaimNow(ctx, "test.retry")
		waitFor(t, "three outcomes", func() bool { mu.Lock(); defer mu.Unlock(); return len(outcomes) == 3 })
		waitFor(t, "workers free", func() bool { return e.InFlight("test.retry") == 0 })

		flaky, _ := st.Job(ctx, "job_flaky")
		// Backoff 10 s after attempt 1, jitter -10% (Rand 0).
		if flaky.Status != store.JobQueued || !flaky.RunAt.Equal(now.Add(9*time.Second)) || flaky.LastError != "boom" {
			t.Fatalf("flaky after one failure: %+v (now %v)", flaky, now)
		}
		perm, _ := st.Job(ctx, "job_permanent")
		if perm.Status != store.JobFailed || perm.Attempts != 1 || perm.LastError != "bad input" {
			t.Fatalf("permanent failure: %+v", perm)
		}
		later, _ := st.Job(ctx, "job_later")
		if later.Status != store.JobQueued || !later.RunAt.Equal(now.Add(time.Hour)) {
			t.Fatalf("Retry-After ignored: %+v", later)
		}
		// Not due a moment early; then its last attempt fails it.
		clk.Advance(9*time.Second - time.Millisecond)
		e.ClaimNow(ctx, "test.retry")
		if e.InFlight("test.retry") != 0 {
			t.Fatal("claimed before it was due")
		}
		clk.Advance(time.Millisecond)
		e.ClaimNow(ctx, "test.retry")
		waitFor(t, "the second attempt", func() bool { mu.Lock(); defer mu.Unlock(); return len(outcomes) == 4 })
		waitFor(t, "workers free", func() bool { return e.InFlight("test.retry") == 0 })
		flaky, _ = st.Job(ctx, "job_flaky")
		if flaky.Status != store.JobFailed || flaky.Attempts != 2 || outcomes[3].Outcome != jobs.Failed {
			t.Fatalf("after the last attempt: %+v %v", flaky, outcomes[3].Outcome)
		}
	})
}

// A failure whose message holds bytes PostgreSQL refuses (a provider's answer that is not
// UTF-8, a NUL) is still recorded: the outcome's write must not fail on the message, or the
// job would be run again and again.
func TestFailureMessageIsStorable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clk := newClock()
		var mu sync.Mutex
		done := 0
		e := newEngine(t, st, clk, jobs.Kind{Name: "test.text", Workers: 1,
			Run: func(context.Context, *jobs.Job) error {
				return jobs.Permanent(errors.New("caf\xe9 \x00refused " + strings.Repeat("é", 600)))
			},
			Commit: func(context.Context, *store.Tx, []jobs.Done) error { mu.Lock(); done++; mu.Unlock(); return nil }})
		enqueue(t, st, clk.Now(), jobs.NewJob{ID: "job_text", Kind: "test.text", MaxAttempts: 3})
		ctx := context.Background()
		e.ClaimNow(ctx, "test.text")
		waitFor(t, "the failure recorded", func() bool {
			j, err := st.Job(ctx, "job_text")
			return err == nil && j.Status == store.JobFailed
		})
		j, _ := st.Job(ctx, "job_text")
		if !strings.HasPrefix(j.LastError, "caf\uFFFD refused é") || len(j.LastError) > 1000 || !utf8.ValidString(j.LastError) {
			t.Fatalf("last_error %q (%d bytes)", j.LastError, len(j.LastError))
		}
	})
}

// At most Concurrency jobs of one concurrency key run at once across two engines (two
// replicas), and a busy key never holds back another key's jobs.
func TestConcurrencyKeyAcrossReplicas(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			st := storetest.Open(t, d)
			other, err := store.Open(context.Background(), st.URL())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { other.Close() })
			var running, peak atomic.Int32
			var freeDone atomic.Int32
			release := make(chan struct{})
			kind := jobs.Kind{Name: "test.conc", Workers: 8, Concurrency: 2,
				Run: func(ctx context.Context, j *jobs.Job) error {
					if j.ConcurrencyKey == "other" {
						freeDone.Add(1)
						return nil
					}
					n := running.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					<-release
					running.Add(-1)
					return nil
				}}
			a := newEngine(t, st, domain.SystemClock{}, kind)
			b := newEngine(t, other, domain.SystemClock{}, kind)
			var js []jobs.NewJob
			for i := range 8 {
				js = append(js, jobs.NewJob{Kind: "test.conc", ConcurrencyKey: "busy", Payload: strconv.Itoa(i)})
			}
			enqueue(t, st, time.Now(), js...)
			for _, e := range []*jobs.Engine{a, b} {
				if err := e.Start(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, "two running", func() bool { return running.Load() == 2 })
			enqueue(t, st, time.Now(), jobs.NewJob{Kind: "test.conc", ConcurrencyKey: "other"}, jobs.NewJob{Kind: "test.conc", ConcurrencyKey: "other"})
			waitFor(t, "the other key's jobs", func() bool { return freeDone.Load() == 2 })
			time.Sleep(100 * time.Millisecond)
			if peak.Load() != 2 {
				t.Fatalf("peak %d running for one key, limit 2", peak.Load())
			}
			close(release)
			waitFor(t, "every job", func() bool { return a.InFlight("test.conc")+b.InFlight("test.conc") == 0 && running.Load() == 0 })
			if peak.Load() != 2 {
				t.Fatalf("peak %d running for one key, limit 2", peak.Load())
			}
		})
	}
}

// A pacing key starts at most one job per interval; another key is not slowed down.
func TestPacingKey(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clk := newClock()
		var mu sync.Mutex
		started := map[string]int{}
		e := newEngine(t, st, clk, jobs.Kind{Name: "test.pace", Workers: 8, Paced: true,
			Run: func(ctx context.Context, j *jobs.Job) error {
				mu.Lock()
				started[string(j.Payload)]++
				mu.Unlock()
				return nil
			}})
		var js []jobs.NewJob
		for range 3 {
			js = append(js, jobs.NewJob{Kind: "test.pace", Payload: "slow", PacingKey: "inst_slow", PacingInterval: 100 * time.Millisecond})
		}
		js = append(js, jobs.NewJob{Kind: "test.pace", Payload: "fast"}, jobs.NewJob{Kind: "test.pace", Payload: "fast"})
		enqueue(t, st, clk.Now(), js...)
		count := func(k string) int { mu.Lock(); defer mu.Unlock(); return started[k] }
		ctx := context.Background()
		e.ClaimNow(ctx, "test.pace")
		waitFor(t, "the first round", func() bool { return count("slow") == 1 && count("fast") == 2 })
		e.ClaimNow(ctx, "test.pace")
		clk.Advance(99 * time.Millisecond)
		e.ClaimNow(ctx, "test.pace")
		time.Sleep(50 * time.Millisecond)
		if count("slow") != 1 {
			t.Fatalf("%d paced jobs started within one interval", count("slow"))
		}
		for want := 2; want <= 3; want++ {
			clk.Advance(time.Millisecond)
			e.ClaimNow(ctx, "test.pace")
			waitFor(t, "the next paced start", func() bool { return count("slow") == want })
			clk.Advance(99 * time.Millisecond)
		}
	})
}

// A long backlog on one pacing key does not hold back another key's jobs: one claim
// takes the backlog's one start and still finds the other keys' jobs queued behind it.
func TestPacedBacklogDoesNotStarveOtherKeys(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		now := time.Now().UTC().Truncate(time.Millisecond)
		var js []jobs.NewJob
		for i := range 300 { // more than one claim's candidates, each in its own chat
			js = append(js, jobs.NewJob{Kind: "test.fair", Payload: "blast", PacingKey: "inst_blast",
				PacingInterval: 50 * time.Millisecond, OrderingKey: fmt.Sprintf("chat_%d", i)})
		}
		enqueue(t, st, now, js...)
		enqueue(t, st, now.Add(time.Millisecond), jobs.NewJob{Kind: "test.fair", Payload: "other", PacingKey: "inst_other",
			PacingInterval: 50 * time.Millisecond}, jobs.NewJob{Kind: "test.fair", Payload: "unpaced"})
		claimed, _, err := st.ClaimJobs(context.Background(), store.ClaimJobsParams{Kind: "test.fair", Now: now.Add(time.Second),
			LeaseUntil: now.Add(time.Minute), Token: "t", Limit: 8, Concurrency: 8, Paced: true})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, c := range claimed {
			got[c.Payload]++
		}
		if got["blast"] != 1 || got["other"] != 1 || got["unpaced"] != 1 {
			t.Fatalf("one claim took %v, want one of the backlog, the other key's job and the unpaced one", got)
		}
	})
}

// A paced key's next job, held back behind its chat's earlier one, starts at its slot, not
// at the next poll: a chat's messages follow each other at the instance's pace.
func TestPacedChatFollowsAtItsPace(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := jobs.New(st, jobs.Config{Logger: quiet(), PollInterval: time.Hour, Lease: 2 * time.Second,
			ShutdownGrace: 200 * time.Millisecond, Rand: func() float64 { return 0 }})
		var done atomic.Int32
		e.Register(jobs.Kind{Name: "test.chat", Workers: 4, Paced: true, Run: func(context.Context, *jobs.Job) error {
			done.Add(1)
			return nil
		}})
		t.Cleanup(e.Close)
		if err := e.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		var js []jobs.NewJob
		for range 5 {
			js = append(js, jobs.NewJob{Kind: "test.chat", PacingKey: "inst_a", PacingInterval: 20 * time.Millisecond, OrderingKey: "chat_a"})
		}
		enqueue(t, st, time.Now(), js...)
		e.Kick("test.chat") // no LISTEN here: wake it as a notification would
		waitFor(t, "the chat's five jobs (with a poll of an hour)", func() bool { return done.Load() == 5 })
	})
}

// A replica never takes over a job it still holds, even past its lease (its heartbeat is
// late, not dead); another replica does; and a replica takes over its own expired job once
// it no longer holds it (its outcome could not be written while the database was away:
// alone, nobody else would).
func TestOwnJobIsNotTakenOver(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		now := time.Now().UTC().Truncate(time.Millisecond)
		enqueue(t, st, now, jobs.NewJob{ID: "job_own", Kind: "test.own"})
		claim := func(owner string, at time.Time, held ...string) int {
			c, _, err := st.ClaimJobs(context.Background(), store.ClaimJobsParams{Kind: "test.own", Now: at,
				LeaseUntil: at.Add(time.Second), Token: owner + "1", Owner: owner, Held: held, Limit: 1, Concurrency: 1})
			if err != nil {
				t.Fatal(err)
			}
			return len(c)
		}
		if claim("a/", now) != 1 {
			t.Fatal("the job was not claimed")
		}
		later := now.Add(time.Minute) // a's lease has expired
		if claim("a/", later, "job_own", "job_other") != 0 {
			t.Fatal("replica a took over its own job while holding it")
		}
		if claim("b/", later) != 1 {
			t.Fatal("replica b did not take over a's expired job")
		}
		even := later.Add(time.Minute) // b's lease has expired too, and b let the job go
		if claim("b/", even, "job_other") != 1 {
			t.Fatal("replica b did not take back its own expired job it no longer holds")
		}
	})
}

// Jobs of one ordering key run one at a time in the order they were enqueued, even with
// free workers, and a failing job holds the rest back until it succeeds.
func TestOrderingKeyIsFIFO(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		var mu sync.Mutex
		var order []string
		var running, peak atomic.Int32
		var failedOnce atomic.Bool
		e := newEngine(t, st, domain.SystemClock{}, jobs.Kind{Name: "test.fifo", Workers: 8,
			Backoff: func(int) (time.Duration, bool) { return 20 * time.Millisecond, true },
			Run: func(ctx context.Context, j *jobs.Job) error {
				n := running.Add(1)
				defer running.Add(-1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(5 * time.Millisecond)
				if string(j.Payload) == "2" && !failedOnce.Swap(true) {
					return errors.New("transient")
				}
				mu.Lock()
				order = append(order, string(j.Payload))
				mu.Unlock()
				return nil
			}})
		var js []jobs.NewJob
		for i := range 6 {
			js = append(js, jobs.NewJob{ID: domain.NewID(domain.PrefixJob), Kind: "test.fifo", OrderingKey: "chat_1", Payload: strconv.Itoa(i)})
		}
		enqueue(t, st, time.Now(), js...)
		if err := e.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "all six", func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == 6 })
		mu.Lock()
		defer mu.Unlock()
		for i, v := range order {
			if v != strconv.Itoa(i) {
				t.Fatalf("order %v", order)
			}
		}
		if peak.Load() != 1 {
			t.Fatalf("%d jobs of one ordering key ran at once", peak.Load())
		}
	})
}

// A job whose holder died (its lease expired) is taken over by another worker; the dead
// holder's late outcome is not recorded.
func TestExpiredLeaseTakenOver(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clk := newClock()
		var runs atomic.Int32
		e := newEngine(t, st, clk, jobs.Kind{Name: "test.lease", Workers: 2,
			Run: func(ctx context.Context, j *jobs.Job) error { runs.Add(1); return nil }})
		enqueue(t, st, clk.Now(), jobs.NewJob{ID: "job_orphan", Kind: "test.lease"})
		now := clk.Now()
		dead, _, err := st.ClaimJobs(context.Background(), store.ClaimJobsParams{Kind: "test.lease", Now: now,
			LeaseUntil: now.Add(2 * time.Second), Token: "dead/1", Limit: 5})
		if err != nil || len(dead) != 1 {
			t.Fatalf("claim: %v %d", err, len(dead))
		}
		ctx := context.Background()
		e.ClaimNow(ctx, "test.lease")
		if e.InFlight("test.lease") != 0 {
			t.Fatal("a leased job was taken")
		}
		clk.Advance(2 * time.Second)
		e.ClaimNow(ctx, "test.lease")
		waitFor(t, "the takeover", func() bool { return runs.Load() == 1 && e.InFlight("test.lease") == 0 })
		err = st.Tx(ctx, func(tx *store.Tx) error {
			owned, err := tx.OwnedJobs(ctx, []store.JobLease{{ID: dead[0].ID, Token: dead[0].Token}})
			if len(owned) != 0 {
				t.Error("the dead holder still owns the job")
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// Close lets running jobs finish for the grace period, then aborts them and hands them back
// at once, without counting the aborted attempt.
func TestCloseHandsBack(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		started := make(chan struct{}, 1)
		e := newEngine(t, st, domain.SystemClock{}, jobs.Kind{Name: "test.close", Workers: 2,
			Run: func(ctx context.Context, j *jobs.Job) error {
				started <- struct{}{}
				<-ctx.Done()
				return ctx.Err()
			}})
		enqueue(t, st, time.Now(), jobs.NewJob{ID: "job_long", Kind: "test.close"})
		if err := e.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		<-started
		e.Close()
		j, err := st.Job(context.Background(), "job_long")
		if err != nil || j.Status != store.JobQueued || j.Attempts != 0 || j.LockedBy != nil {
			t.Fatalf("after Close: %+v %v", j, err)
		}
	})
}

// Outcomes that arrive together are written together: many jobs, few transactions.
func TestOutcomesAreGroupCommitted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		const n = 40
		var gate sync.WaitGroup
		gate.Add(n)
		var commits, recorded atomic.Int32
		e := newEngine(t, st, domain.SystemClock{}, jobs.Kind{Name: "test.batch", Workers: n,
			Run: func(ctx context.Context, j *jobs.Job) error {
				gate.Done()
				gate.Wait() // every job finishes at the same moment
				return nil
			},
			Commit: func(ctx context.Context, tx *store.Tx, done []jobs.Done) error {
				commits.Add(1)
				recorded.Add(int32(len(done)))
				return nil
			}})
		js := make([]jobs.NewJob, n)
		for i := range js {
			js[i] = jobs.NewJob{Kind: "test.batch"}
		}
		enqueue(t, st, time.Now(), js...)
		if err := e.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "every outcome", func() bool { return recorded.Load() == n })
		if c := commits.Load(); c > n/4 {
			t.Fatalf("%d transactions for %d outcomes", c, n)
		}
	})
}

// A kind with no workers runs nothing in this replica (an API-only replica).
func TestNoWorkersRunsNothing(t *testing.T) {
	st := storetest.Open(t, store.SQLite)
	var runs atomic.Int32
	e := newEngine(t, st, domain.SystemClock{}, jobs.Kind{Name: "test.none", Workers: 0,
		Run: func(ctx context.Context, j *jobs.Job) error { runs.Add(1); return nil }})
	if err := e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	enqueue(t, st, time.Now(), jobs.NewJob{ID: "job_waits", Kind: "test.none"})
	time.Sleep(100 * time.Millisecond)
	if j, err := st.Job(context.Background(), "job_waits"); err != nil || j.Status != store.JobQueued || runs.Load() != 0 {
		t.Fatalf("job %+v %v, %d runs", j, err, runs.Load())
	}
}

// A dead holder's jobs count toward their concurrency key only until their lease expires:
// then they are taken over, and the key's other jobs are not held back by them.
func TestDeadLeaseFreesConcurrencySlot(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clk := newClock()
		var mu sync.Mutex
		ran := map[string]bool{}
		e := newEngine(t, st, clk, jobs.Kind{Name: "test.slots", Workers: 8, Concurrency: 1,
			Run: func(ctx context.Context, j *jobs.Job) error {
				mu.Lock()
				ran[j.ID] = true
				mu.Unlock()
				return nil
			}})
		enqueue(t, st, clk.Now(), jobs.NewJob{ID: "job_a", Kind: "test.slots", ConcurrencyKey: "inst_1"})
		now := clk.Now()
		dead, _, err := st.ClaimJobs(context.Background(), store.ClaimJobsParams{Kind: "test.slots", Now: now,
			LeaseUntil: now.Add(2 * time.Second), Token: "dead/1", Limit: 5, Concurrency: 1})
		if err != nil || len(dead) != 1 {
			t.Fatalf("claim: %v %d", err, len(dead))
		}
		enqueue(t, st, clk.Now(), jobs.NewJob{ID: "job_b", Kind: "test.slots", ConcurrencyKey: "inst_1"})
		ctx := context.Background()
		e.ClaimNow(ctx, "test.slots")
		if e.InFlight("test.slots") != 0 {
			t.Fatal("the key's only slot is held by a live lease, yet a job was started")
		}
		clk.Advance(2 * time.Second)
		for range 2 {
			e.ClaimNow(ctx, "test.slots")
			waitFor(t, "a run", func() bool { return e.InFlight("test.slots") == 0 })
		}
		mu.Lock()
		defer mu.Unlock()
		if !ran["job_a"] || !ran["job_b"] {
			t.Fatalf("after the dead lease expired: ran %v", ran)
		}
	})
}

// A job whose retry is due at once is claimed again by the same commit that records its
// failure: it runs again on this replica (the claim used to be held, then dropped with the
// batch it came from, and launching it crashed the process).
func TestRetryDueAtOnceRunsAgain(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clk := newClock()
		var attempts sync.Map // job id → attempts seen
		e := newEngine(t, st, clk, jobs.Kind{Name: "test.again", Workers: 8,
			Backoff: func(n int) (time.Duration, bool) { return 0, true },
			Run: func(ctx context.Context, j *jobs.Job) error {
				attempts.Store(j.ID, j.Attempt)
				if j.Attempt < 3 {
					return errors.New("not yet")
				}
				return nil
			}})
		js := make([]jobs.NewJob, 20)
		for i := range js {
			js[i] = jobs.NewJob{ID: fmt.Sprintf("job_again_%02d", i), Kind: "test.again", MaxAttempts: 5}
		}
		enqueue(t, st, clk.Now(), js...)
		if err := e.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "every job done on its third attempt", func() bool {
			for _, j := range js {
				if _, err := st.Job(context.Background(), j.ID); !domain.IsCode(err, domain.CodeNotFound) {
					return false
				}
			}
			return true
		})
		attempts.Range(func(id, n any) bool {
			if n.(int) != 3 {
				t.Errorf("%s ended on attempt %d, want 3", id, n)
			}
			return true
		})
	})
}

// Schedule waits the n-th delay after attempt n failed, then gives up.
func TestSchedule(t *testing.T) {
	b := jobs.Schedule(time.Second, time.Minute)
	for n, want := range map[int]time.Duration{1: time.Second, 2: time.Minute} {
		if d, ok := b(n); !ok || d != want {
			t.Errorf("after attempt %d: %v %v, want %v", n, d, ok, want)
		}
	}
	for _, n := range []int{0, 3} {
		if _, ok := b(n); ok {
			t.Errorf("after attempt %d: another attempt", n)
		}
	}
}
