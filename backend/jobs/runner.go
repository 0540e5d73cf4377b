package jobs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// runner claims, runs and finishes the jobs of one kind in this replica.
type runner struct {
	e    *Engine
	k    Kind
	wake chan struct{}

	runCtx       context.Context // parent of every job's context; cancelled at shutdown
	stopClaiming atomic.Bool

	mu     sync.Mutex
	flying map[string]*flight // job id → held job (running, or waiting to be recorded)

	done          chan Done
	committed     chan struct{} // closed when the committer has written everything
	committerOnce sync.Once

	counters *kindCounters // outcomes recorded (Engine.Stats)
}

type flight struct {
	lease      store.JobLease
	leaseUntil time.Time
	cancel     context.CancelFunc
	ctx        context.Context
}

func (r *runner) kick() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *runner) ensureCommitter() {
	r.committerOnce.Do(func() {
		if r.committed == nil {
			r.committed = make(chan struct{})
			go r.commitLoop()
		}
		if r.runCtx == nil {
			r.runCtx = context.Background()
		}
	})
}

func (r *runner) claimLoop(ctx context.Context) {
	poll := time.NewTimer(0)
	defer poll.Stop()
	for {
		// Wake-ups come with every batch of enqueued jobs; under load that is every
		// millisecond. Claims are spaced by claimGap so that a busy queue costs a bounded
		// number of claim transactions, not one per wake-up (a job waits at most that long).
		started := time.Now()
		next := r.claim(ctx)
		wait := r.e.cfg.PollInterval
		if next != nil {
			if d := next.Sub(r.e.cfg.Clock.Now()); d < wait {
				wait = max(d, time.Millisecond)
			}
		}
		poll.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
			if gap := claimGap - time.Since(started); gap > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(gap):
				}
			}
		case <-poll.C:
		}
	}
}

// claimGap is the least time between two claims started by wake-ups.
const claimGap = 5 * time.Millisecond

// claim leases due jobs while there are free workers and starts them. It returns when to
// look again for work held back by a pacing key, if any.
func (r *runner) claim(ctx context.Context) *time.Time {
	var wakeAt *time.Time
	for ctx.Err() == nil && !r.stopClaiming.Load() {
		r.mu.Lock()
		free, held := r.k.Workers-len(r.flying), r.heldIDs()
		r.mu.Unlock()
		if free <= 0 {
			return wakeAt
		}
		now := r.e.cfg.Clock.Now()
		claimed, wake, err := r.e.st.ClaimJobs(ctx, store.ClaimJobsParams{Kind: r.k.Name, Now: now,
			LeaseUntil: now.Add(r.e.cfg.Lease), Token: r.e.token(), Owner: r.e.owner + "/", Held: held, Limit: free,
			Concurrency: r.k.Concurrency, GroupConcurrency: r.k.GroupConcurrency, Paced: r.k.Paced})
		if err != nil {
			if ctx.Err() == nil {
				r.e.log.Error("claim jobs", "kind", r.k.Name, "err", err)
			}
			return nil
		}
		wakeAt = wake
		if len(claimed) == 0 {
			return wakeAt
		}
		r.start(claimed, now)
		if len(claimed) < free {
			return wakeAt
		}
	}
	return wakeAt
}

// start tracks the claimed jobs and launches them.
func (r *runner) start(claimed []store.ClaimedJob, now time.Time) {
	r.launch(r.track(claimed, now))
}

// track registers claimed jobs as held (the heartbeat renews their leases from now on).
func (r *runner) track(claimed []store.ClaimedJob, now time.Time) []*Job {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.trackLocked(claimed, now)
}

func (r *runner) trackLocked(claimed []store.ClaimedJob, now time.Time) []*Job {
	batch := make([]*Job, len(claimed))
	for i, c := range claimed {
		batch[i] = &Job{ID: c.ID, Kind: c.Kind, Payload: []byte(c.Payload), Attempt: c.Attempts, MaxAttempts: c.MaxAttempts,
			ConcurrencyKey: c.ConcurrencyKey, OrderingKey: c.OrderingKey, CreatedAt: c.CreatedAt, token: c.Token}
		fctx, cancel := context.WithCancel(r.runCtx)
		r.flying[c.ID] = &flight{lease: store.JobLease{ID: c.ID, Token: c.Token}, leaseUntil: now.Add(r.e.cfg.Lease),
			cancel: cancel, ctx: fctx}
	}
	return batch
}

// launch lets the kind load what the jobs need, then runs each on its own goroutine.
func (r *runner) launch(batch []*Job) {
	if r.k.Load != nil {
		if err := r.k.Load(r.runCtx, batch); err != nil {
			// Hand the batch back: it is tried again at the next claim.
			r.e.log.Error("load jobs", "kind", r.k.Name, "err", err)
			for _, j := range batch {
				r.done <- Done{Job: j, Err: errAborted{fmt.Errorf("load: %w", err)}}
			}
			return
		}
	}
	r.mu.Lock()
	ctxs := make([]context.Context, len(batch))
	for i, j := range batch {
		ctxs[i] = r.flying[j.ID].ctx
	}
	r.mu.Unlock()
	for i, j := range batch {
		go r.run(ctxs[i], j)
	}
}

// run does one job and queues its outcome for the committer.
func (r *runner) run(ctx context.Context, j *Job) {
	err := r.call(ctx, j)
	d := Done{Job: j, Err: err}
	if err != nil && ctx.Err() != nil {
		d.Err = errAborted{err} // lost lease or shutdown: hand it back untouched
	}
	r.done <- d
}

func (r *runner) call(ctx context.Context, j *Job) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("job panicked: %v", p)
			r.e.log.Error("job panicked", "kind", r.k.Name, "job_id", j.ID, "panic", p)
		}
	}()
	return r.k.Run(ctx, j)
}

type errAborted struct{ err error }

func (a errAborted) Error() string { return "aborted: " + a.err.Error() }
func (a errAborted) Unwrap() error { return a.err }

// commitLoop writes outcomes in batches: it takes what has queued up while the previous
// transaction ran and, while other held jobs are still running, lingers up to
// commitLinger for them, so that jobs started together are recorded together (one
// transaction, not one each) and start their successors together.
func (r *runner) commitLoop() {
	defer close(r.committed)
	// Outcomes the database could not take (it is restarting): written again every
	// retryOutcome, their jobs still held (the heartbeat renews their leases once it can),
	// so a job done is not done twice because its outcome came at a bad moment.
	var retry []Done
	var retryAt <-chan time.Time
	var stop <-chan struct{}
	for {
		var batch []Done
		select {
		case d, ok := <-r.done:
			if !ok {
				r.letGo(retry) // shutting down: their leases expire and they run again
				return
			}
			batch = r.collect(d)
		case <-retryAt:
			batch, retry, retryAt, stop = retry, nil, nil, nil
		case <-stop:
			r.letGo(retry)
			retry, retryAt, stop = nil, nil, nil
			continue
		}
		if failed := r.commit(batch); len(failed) > 0 {
			retry = append(retry, failed...)
			if retryAt == nil {
				retryAt, stop = time.After(retryOutcome), r.runCtx.Done()
			}
		}
	}
}

// retryOutcome is how often outcomes the database refused are written again.
const retryOutcome = time.Second

// collect takes what has queued up behind d while the previous transaction ran and, while
// other held jobs are still running, lingers up to commitLinger for them.
func (r *runner) collect(d Done) []Done {
	batch := []Done{d}
	var linger <-chan time.Time
	for len(batch) < maxBatch {
		select {
		case more, ok := <-r.done:
			if !ok {
				return batch
			}
			batch = append(batch, more)
			continue
		default:
		}
		r.mu.Lock()
		waiting := len(r.flying) > len(batch)
		r.mu.Unlock()
		if !waiting {
			return batch
		}
		if linger == nil {
			linger = time.After(commitLinger)
		}
		select {
		case more, ok := <-r.done:
			if !ok {
				return batch
			}
			batch = append(batch, more)
		case <-linger:
			return batch
		}
	}
	return batch
}

// letGo releases jobs whose outcome was never written: no longer held, they run again once
// their lease expires (on this replica or another).
func (r *runner) letGo(ds []Done) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range ds {
		if f, ok := r.flying[d.Job.ID]; ok {
			f.cancel()
			delete(r.flying, d.Job.ID)
		}
	}
}

// heldIDs lists the jobs this runner still holds (r.mu held): a job of this replica whose
// lease expired and that is not among them was let go (its outcome could not be written,
// the database being away) and is taken over like a dead replica's.
func (r *runner) heldIDs() []string {
	ids := make([]string, 0, len(r.flying))
	for id := range r.flying {
		ids = append(ids, id)
	}
	return ids
}

// commitLinger is how long the committer waits for running jobs to join a batch.
const commitLinger = time.Millisecond

// commit records a batch in one transaction; if that fails, each job on its own, so one
// bad outcome cannot hold the others back. It returns the outcomes the database could not
// take because it was unavailable (their jobs stay held, to be written again); a job whose
// outcome failed otherwise is let go and runs again once its lease expires.
func (r *runner) commit(batch []Done) (unwritten []Done) {
	next, err := r.commitTx(batch, true)
	keep := map[string]bool{}
	fail := func(d Done, e error) {
		if domain.IsCode(e, domain.CodeUnavailable) {
			keep[d.Job.ID] = true
			unwritten = append(unwritten, d)
			return
		}
		r.e.log.Error("record job outcome", "kind", r.k.Name, "job_id", d.Job.ID, "err", e)
	}
	if err != nil && len(batch) > 1 {
		for _, d := range batch {
			if _, e := r.commitTx([]Done{d}, false); e != nil {
				fail(d, e)
			}
		}
	} else if err != nil {
		fail(batch[0], err)
	}
	if len(unwritten) > 0 {
		r.e.log.Warn("job outcomes not written yet: the database is unavailable", "kind", r.k.Name,
			"jobs", len(unwritten), "err", err)
	}
	// The batch is released and the jobs claimed with it are held in one step, so this runner
	// is never seen idle between; released first, because a job claimed again at once (a
	// retry due now) has the id of one in the batch.
	r.mu.Lock()
	for _, d := range batch {
		if f, ok := r.flying[d.Job.ID]; ok && !keep[d.Job.ID] {
			f.cancel()
			delete(r.flying, d.Job.ID)
		}
	}
	var launch []*Job
	if len(next) > 0 {
		launch = r.trackLocked(next, r.e.cfg.Clock.Now())
	}
	r.mu.Unlock()
	if len(launch) > 0 {
		// Loading and starting them is not the committer's work: it goes on recording.
		go r.launch(launch)
	}
	if err != nil {
		r.kick() // workers are free and nothing was claimed for them
	}
	return unwritten
}

// commitTx records a batch's outcomes. With claimNext it also claims, in the same
// transaction, as many due jobs as the batch frees workers: under load a worker goes from
// one job to the next without a claim transaction of its own.
func (r *runner) commitTx(batch []Done, claimNext bool) ([]store.ClaimedJob, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	now := r.e.cfg.Clock.Now()
	var next []store.ClaimedJob
	var recorded []Done // the outcomes written, counted once the transaction commits
	err := r.e.st.Tx(ctx, func(tx *store.Tx) error {
		next, recorded = nil, nil
		if r.k.AsyncCommit {
			if err := tx.AsyncCommit(ctx); err != nil {
				return err
			}
		}
		var outs []store.JobOutcome
		dones := make([]Done, 0, len(batch))
		for _, d := range batch {
			lease := store.JobLease{ID: d.Job.ID, Token: d.Job.token}
			var ab errAborted
			if errors.As(d.Err, &ab) {
				outs = append(outs, store.JobOutcome{JobLease: lease, Status: store.JobQueued, Release: true})
				continue
			}
			d = r.outcome(d, now)
			dones = append(dones, d)
			switch d.Outcome {
			case Succeeded:
				outs = append(outs, store.JobOutcome{JobLease: lease})
			case Retrying:
				outs = append(outs, store.JobOutcome{JobLease: lease, Status: store.JobQueued, RunAt: d.RunAt, Error: d.Err.Error()})
			default:
				outs = append(outs, store.JobOutcome{JobLease: lease, Status: store.JobFailed, RunAt: now, Error: d.Err.Error()})
			}
		}
		owned, err := tx.FinishJobs(ctx, outs, now)
		if err != nil {
			return err
		}
		kept := dones[:0]
		for _, d := range dones {
			if owned[d.Job.ID] {
				kept = append(kept, d)
			} else {
				r.e.log.Warn("job lease lost before its outcome was recorded", "kind", r.k.Name, "job_id", d.Job.ID)
			}
		}
		recorded = kept
		if r.k.Commit != nil && len(kept) > 0 {
			if err := r.k.Commit(ctx, tx, kept); err != nil {
				return err
			}
		}
		if !claimNext || r.stopClaiming.Load() || r.runCtx.Err() != nil {
			return nil
		}
		r.mu.Lock()
		free, held := r.k.Workers-len(r.flying)+len(batch), r.heldIDs()
		r.mu.Unlock()
		if free <= 0 {
			return nil
		}
		var wake *time.Time
		next, wake, err = tx.ClaimJobs(ctx, store.ClaimJobsParams{Kind: r.k.Name, Now: now, LeaseUntil: now.Add(r.e.cfg.Lease),
			Token: r.e.token(), Owner: r.e.owner + "/", Held: held, Limit: free, Concurrency: r.k.Concurrency, GroupConcurrency: r.k.GroupConcurrency, Paced: r.k.Paced})
		if err == nil && wake != nil {
			// Paced jobs this claim held back: the claim loop may be waiting for its poll,
			// so it is woken at their next slot.
			time.AfterFunc(max(wake.Sub(now), time.Millisecond), r.kick)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	r.counters.recorded(recorded)
	return next, nil
}

// outcome decides what an attempt's result means: done, retry when, or failed.
func (r *runner) outcome(d Done, now time.Time) Done {
	switch {
	case d.Err == nil:
		d.Outcome = Succeeded
	case IsPermanent(d.Err) || d.Job.Attempt >= d.Job.MaxAttempts:
		d.Outcome = Failed
	default:
		delay, ok := r.k.Backoff(d.Job.Attempt)
		if !ok {
			d.Outcome = Failed
			break
		}
		delay = time.Duration(float64(delay) * (1 - r.k.Jitter + 2*r.k.Jitter*r.e.cfg.Rand()))
		delay = max(delay, retryAfterOf(d.Err))
		d.Outcome, d.RunAt = Retrying, now.Add(delay).Truncate(time.Millisecond)
	}
	return d
}
