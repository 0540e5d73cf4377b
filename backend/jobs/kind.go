// Package jobs is the one engine for background work: webhook deliveries today, message
// sends, automation runs and click batches next. It knows no surface: each kind of work is
// registered by the composition root with its handler.
//
// How a job travels:
//
//  1. Enqueue inserts it in the caller's transaction (the outbox), so the work commits, or
//     vanishes, with the change that causes it, and wakes the workers of every replica
//     (PostgreSQL NOTIFY; in process on SQLite) once the transaction commits.
//  2. Each kind's claim loop leases due jobs in batches (FOR UPDATE SKIP LOCKED), keeping
//     the per-key rules across replicas: a concurrency key (at most N running; and a wider
//     group key, such as the tenant, with its own limit), a pacing key
//     (one start per interval) and an ordering key (FIFO, one at a time).
//  3. Each job runs on its own goroutine (Kind.Workers bound them). A heartbeat renews the
//     leases of running jobs; a replica killed with -9 stops renewing, and its jobs are
//     taken over once their short lease expires.
//  4. Outcomes are written in batches (group commit): one transaction records many jobs'
//     results, with the kind's own bookkeeping (Kind.Commit) in the same transaction.
//     A failed job is retried on the kind's schedule with jitter, until it runs out of
//     attempts and stays as failed.
package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-dev/switchboard/backend/store"
)

// Kind is one kind of work and how to do it.
type Kind struct {
	// Name identifies the kind in the jobs table ("webhook.delivery").
	Name string
	// Workers is how many jobs of this kind this replica runs at once; 0 means this replica
	// runs none (an API-only replica).
	Workers int
	// Concurrency is the default limit per concurrency key for jobs enqueued without one.
	Concurrency int
	// GroupConcurrency is the default limit per group key (a wider key, such as a tenant)
	// for jobs enqueued without one; 0 means none.
	GroupConcurrency int
	// Backoff is the delay before the next attempt after attempt number n failed (n ≥ 1);
	// ok false means the schedule has no further attempt.
	Backoff func(n int) (delay time.Duration, ok bool)
	// Paced says jobs of this kind may carry pacing keys, so the claim loop also wakes when
	// a held-back job's next slot comes (without it they still keep their pace, but are
	// looked at only at each poll).
	Paced bool
	// Jitter spreads retries by ± this fraction of the delay (0.1 = ±10%).
	Jitter float64
	// AsyncCommit lets the outcome transactions commit without waiting for the disk flush
	// (PostgreSQL synchronous_commit off). Only for work that may safely run again after a
	// database crash (at least once).
	AsyncCommit bool
	// Load, if set, prepares a claimed batch before its jobs run (for example loading what
	// they need in a few queries rather than a few per job), setting each Job's Data.
	Load func(ctx context.Context, batch []*Job) error
	// Run does one job. It returns nil on success, Permanent(err) to fail it at once, or
	// another error to retry it (RetryAfter sets the earliest retry). It may leave data for
	// Commit in Job.Result. A job whose context ends (lost lease, shutdown) and returns an
	// error is handed back untouched, to run again.
	Run func(ctx context.Context, j *Job) error
	// Commit, if set, records outcomes in the transaction that finishes the jobs, so the
	// kind's own state and the queue never disagree.
	Commit func(ctx context.Context, tx *store.Tx, done []Done) error
}

// Job is a claimed job handed to Kind.Run.
type Job struct {
	ID             string
	Kind           string
	Payload        []byte
	Attempt        int // this attempt's number, from 1
	MaxAttempts    int
	ConcurrencyKey string
	OrderingKey    string
	CreatedAt      time.Time
	// Data is what Kind.Load attached; Result is what Kind.Run leaves for Kind.Commit.
	Data   any
	Result any

	token string
}

// Outcome is how an attempt ended.
type Outcome int

const (
	Succeeded Outcome = iota // the job is done and removed
	Retrying                 // it runs again at RunAt
	Failed                   // out of attempts, or failed permanently
)

// Done is a finished attempt, as Kind.Commit sees it.
type Done struct {
	Job     *Job
	Err     error
	Outcome Outcome
	RunAt   time.Time // when Retrying
}

type permanentError struct{ err error }

func (p permanentError) Error() string { return p.err.Error() }
func (p permanentError) Unwrap() error { return p.err }

// Permanent marks an error that retrying cannot fix.
func Permanent(err error) error { return permanentError{err} }

// IsPermanent reports whether err was marked with Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}

type retryAfterError struct {
	err   error
	after time.Duration
}

func (r retryAfterError) Error() string { return r.err.Error() }
func (r retryAfterError) Unwrap() error { return r.err }

// RetryAfter marks an error whose retry must wait at least d (a receiver's Retry-After).
func RetryAfter(err error, d time.Duration) error { return retryAfterError{err, d} }

func retryAfterOf(err error) time.Duration {
	var r retryAfterError
	if errors.As(err, &r) {
		return r.after
	}
	return 0
}

// Schedule is a Backoff that waits delays[n-1] after attempt n failed and gives up after
// len(delays) retries (enqueue such jobs with MaxAttempts len(delays)+1).
func Schedule(delays ...time.Duration) func(n int) (time.Duration, bool) {
	return func(n int) (time.Duration, bool) {
		if n < 1 || n > len(delays) {
			return 0, false
		}
		return delays[n-1], true
	}
}

// NewJob is a job to enqueue; see Enqueue for the defaults.
type NewJob = store.NewJob

// ChannelJobs is the notification channel that wakes workers when jobs are enqueued.
const ChannelJobs = "sb_jobs"

// DefaultMaxAttempts applies to jobs enqueued without MaxAttempts.
const DefaultMaxAttempts = 10

// Enqueue inserts jobs in tx. Missing ids get a job_ id, a zero RunAt means now, a zero
// MaxAttempts DefaultMaxAttempts. The workers of every replica are woken when tx commits.
func Enqueue(ctx context.Context, tx *store.Tx, now time.Time, js ...NewJob) error {
	if len(js) == 0 {
		return nil
	}
	kinds := map[string]bool{}
	for i := range js {
		j := &js[i]
		if j.ID == "" {
			j.ID = newJobID()
		}
		if j.RunAt.IsZero() {
			j.RunAt = now
		}
		if j.CreatedAt.IsZero() {
			j.CreatedAt = now
		}
		if j.MaxAttempts <= 0 {
			j.MaxAttempts = DefaultMaxAttempts
		}
		kinds[j.Kind] = true
	}
	if err := tx.InsertJobs(ctx, js); err != nil {
		return err
	}
	for k := range kinds {
		tx.AnnounceWake(ChannelJobs, k)
	}
	return nil
}
