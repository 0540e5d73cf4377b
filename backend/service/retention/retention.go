// Package retention bounds storage: every table that grows with traffic has a retention,
// and one periodic job of the job engine (retention.prune) deletes what is older, in small
// batches, each its own short transaction, with a pause between batches so that pruning
// never holds a lock long enough to stall writers.
//
// The job is one row of the jobs table with a fixed id: whichever replica claims it runs
// it (its lease makes it one at a time across replicas, and hands it to another replica if
// this one dies), and when it succeeds it enqueues its next run, Interval later, in the
// transaction that finishes it. Schedule, called by every replica at start, creates the row
// if it is missing, so the schedule survives restarts and is never doubled.
//
// What is pruned, oldest first by an indexed time column (0 keeps a table forever):
//
//   - events (Events), after the events API's 30 days;
//   - finished webhook deliveries with their attempts (Deliveries); pending ones stay;
//   - raw link clicks (Clicks), rolled up first so that link stats keep their totals;
//   - inbound automation calls and finished action runs (Automation);
//   - failed jobs (FailedJobs), among them inbound provider callbacks (channel.event jobs)
//     that could not be applied; a job that succeeds is deleted at once;
//   - idempotency records (Idempotency), after their 24 h replay window.
//
// Messages, chats, groups and contacts are the user's data and are kept until deleted.
// A list paged with after= over a pruned table answers 410 cursor_expired once the cursor
// points past what was deleted (store.CheckCursor).
package retention

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// JobKind is the job kind of the periodic prune.
const JobKind = "retention.prune"

// jobID is the id of the one prune job: a fixed id makes the schedule one row however many
// replicas start.
const jobID = "job_retention_prune"

// Default retentions (see Defaults), and the defaults of the pace.
const (
	// DefaultEvents follows Stripe's events API, which keeps 30 days of events: enough to
	// replay a month of webhooks or catch up after an outage.
	DefaultEvents = 30 * 24 * time.Hour
	// DefaultDeliveries keeps the delivery log as long as the events it delivered (the 30
	// days the log was kept before this package), so a delivery can be retried by hand
	// while its event exists.
	DefaultDeliveries = 30 * 24 * time.Hour
	// DefaultClicks keeps raw clicks (GET /links/{id}/clicks) for a quarter; stats outlive
	// them through the rollups, so this bounds only the per-click detail.
	DefaultClicks = 90 * 24 * time.Hour
	// DefaultAutomation keeps inbound calls and action runs as long as the events they
	// published.
	DefaultAutomation = 30 * 24 * time.Hour
	// DefaultFailedJobs keeps failed jobs (failed inbound callbacks among them) as long as
	// the events around them, for inspection (the engine's former pruning period).
	DefaultFailedJobs = 30 * 24 * time.Hour
	// DefaultIdempotency is the Idempotency-Key replay window: a record is useless after it.
	DefaultIdempotency = service.IdempotencyWindow

	// DefaultInterval is how often the job runs; DefaultBatch how many rows one batch
	// deletes (one statement, one transaction); DefaultPause the rest between two batches.
	DefaultInterval = 10 * time.Minute
	DefaultBatch    = 1000
	DefaultPause    = 50 * time.Millisecond
)

// Config is how long each kind of row is kept (0: forever) and how pruning is paced. Its zero
// value keeps everything; start from Defaults.
type Config struct {
	Events      time.Duration
	Deliveries  time.Duration
	Clicks      time.Duration
	Automation  time.Duration
	FailedJobs  time.Duration
	Idempotency time.Duration

	// Interval is how often the job runs (default DefaultInterval).
	Interval time.Duration
	// Batch is the most rows one batch deletes (default DefaultBatch).
	Batch int
	// Pause is the rest between two batches (default DefaultPause; negative: none).
	Pause time.Duration
	// Workers is 1 for a replica that may run the job, 0 for one that never does (any
	// replica may take it; one runs it at a time).
	Workers int

	Clock  domain.Clock
	Logger *slog.Logger
}

// Defaults is the documented configuration: 30 days of events, deliveries, automation
// history and failed jobs, 90 days of raw clicks, 24 hours of idempotency records.
func Defaults() Config {
	return Config{Events: DefaultEvents, Deliveries: DefaultDeliveries, Clicks: DefaultClicks, Automation: DefaultAutomation,
		FailedJobs: DefaultFailedJobs, Idempotency: DefaultIdempotency, Workers: 1}
}

// Problem is one setting Validate refuses: Field is the Config field's name.
type Problem struct {
	Field string
	Msg   string
}

// Problems lists what Validate refuses: negative retentions, an idempotency retention
// shorter than the replay window (a retried POST would run twice), raw clicks kept less than
// two days, and an interval outside 1m–24h (0 is the default).
func (c Config) Problems() []Problem {
	var out []Problem
	for _, f := range []struct {
		name, what string
		d          time.Duration
	}{{"Events", "events", c.Events}, {"Deliveries", "deliveries", c.Deliveries}, {"Clicks", "clicks", c.Clicks},
		{"Automation", "automation history", c.Automation}, {"FailedJobs", "failed jobs", c.FailedJobs}, {"Idempotency", "idempotency records", c.Idempotency}} {
		if f.d < 0 {
			out = append(out, Problem{f.name, fmt.Sprintf("retention of %s is negative (0 keeps them forever)", f.what)})
		}
	}
	if c.Idempotency > 0 && c.Idempotency < service.IdempotencyWindow {
		out = append(out, Problem{"Idempotency", fmt.Sprintf("retention of idempotency records is under the %s replay window", service.IdempotencyWindow)})
	}
	if c.Clicks > 0 && c.Clicks < 48*time.Hour {
		out = append(out, Problem{"Clicks", "retention of raw clicks is under 2 days (clicks are rolled up by whole UTC days)"})
	}
	if c.Interval != 0 && (c.Interval < time.Minute || c.Interval > 24*time.Hour) {
		out = append(out, Problem{"Interval", "the pruning interval must be between 1m and 24h"})
	}
	return out
}

// Validate is Problems as one error (nil when there are none).
func (c Config) Validate() error {
	var errs []error
	for _, p := range c.Problems() {
		errs = append(errs, errors.New(p.Msg))
	}
	return errors.Join(errs...)
}

// Pruner prunes every retained table; it is the handler of the retention.prune job kind.
type Pruner struct {
	st  *store.Store
	cfg Config
	log *slog.Logger

	mu     sync.Mutex
	pruned map[string]int64 // rows this replica deleted, per table, since it started
}

// New builds the pruner. Register its Kind with the job engine and call Schedule once the
// store is migrated.
func New(st *store.Store, cfg Config) *Pruner {
	if cfg.Clock == nil {
		cfg.Clock = domain.SystemClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.Pause == 0 {
		cfg.Pause = DefaultPause
	}
	cfg.Workers = min(max(cfg.Workers, 0), 1)
	p := &Pruner{st: st, cfg: cfg, log: cfg.Logger.With("component", "retention"), pruned: map[string]int64{}}
	for _, t := range Tables {
		p.pruned[t] = 0
	}
	return p
}

// Tables are the tables pruned, as Pruned names them.
var Tables = []string{store.TableEvents, store.TableDeliveries, store.TableAttempts, store.TableClicks, store.TableCalls,
	store.TableRuns, store.TableFailedJobs, store.TableIdempotency}

// Pruned returns how many rows this replica has deleted per table since it started (the
// counter switchboard_retention_pruned_rows_total{table}).
func (p *Pruner) Pruned() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int64, len(p.pruned))
	for t, n := range p.pruned {
		out[t] = n
	}
	return out
}

func (p *Pruner) count(rows store.Pruned) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for t, n := range rows {
		p.pruned[t] += n
	}
}

// Kind is the retention.prune job kind. A failed run is tried again after Interval; a
// successful one enqueues the next.
func (p *Pruner) Kind() jobs.Kind {
	return jobs.Kind{
		Name:    JobKind,
		Workers: p.cfg.Workers,
		Backoff: func(int) (time.Duration, bool) { return p.cfg.Interval, true },
		Run:     func(ctx context.Context, _ *jobs.Job) error { return p.Prune(ctx) },
		Commit:  p.commit,
	}
}

// next is the job's next run.
func (p *Pruner) next(now time.Time) jobs.NewJob {
	return jobs.NewJob{ID: jobID, Kind: JobKind, Payload: "{}", RunAt: now.Add(p.cfg.Interval), MaxAttempts: math.MaxInt32,
		CreatedAt: now}
}

// commit enqueues the next run in the transaction that removes the finished one.
func (p *Pruner) commit(ctx context.Context, tx *store.Tx, done []jobs.Done) error {
	for _, d := range done {
		if d.Outcome == jobs.Succeeded {
			now := p.cfg.Clock.Now()
			return jobs.Enqueue(ctx, tx, now, p.next(now))
		}
	}
	return nil
}

// Schedule makes sure the prune job exists: it creates it, due now, unless it is already
// queued or running (from an earlier start or another replica); a job that somehow ended
// as failed is queued again. One queued for later than this replica's Interval from now
// (the interval was shortened) is brought forward to that. Every replica calls it at start.
func (p *Pruner) Schedule(ctx context.Context) error {
	now := p.cfg.Clock.Now()
	j := p.next(now)
	j.RunAt = now
	return p.st.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.EnsureJob(ctx, j); err != nil {
			return err
		}
		if err := tx.DueBy(ctx, jobID, now.Add(p.cfg.Interval)); err != nil {
			return err
		}
		tx.AnnounceWake(jobs.ChannelJobs, JobKind)
		return nil
	})
}

// Prune deletes everything past its retention now, table after table, batch after batch. An
// error on one table is logged and the others are still pruned; Prune returns the first.
func (p *Pruner) Prune(ctx context.Context) error {
	now := p.cfg.Clock.Now()
	var first error
	for _, t := range []struct {
		name  string
		keep  time.Duration
		batch batchFunc
	}{
		{"events", p.cfg.Events, p.batchOf(p.st.PruneEvents)},
		{"webhook deliveries", p.cfg.Deliveries, p.batchOf(p.st.PruneDeliveries)},
		{"clicks", p.cfg.Clicks, p.clickBatch},
		{"automation history", p.cfg.Automation, p.batchOf(p.st.PruneAutomation)},
		{"failed jobs", p.cfg.FailedJobs, p.batchOf(p.st.PruneFailedJobs)},
		{"idempotency records", p.cfg.Idempotency, p.batchOf(p.st.PruneIdempotency)},
	} {
		if t.keep <= 0 {
			continue
		}
		if err := p.loop(ctx, now.Add(-t.keep), t.batch); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			p.log.Error("prune "+t.name, "err", err)
			if first == nil {
				first = fmt.Errorf("prune %s: %w", t.name, err)
			}
		}
	}
	return first
}

// batchFunc deletes one batch of rows older than before and tells whether more may be left.
type batchFunc func(ctx context.Context, before time.Time, limit int) (rows store.Pruned, more bool, err error)

// batchOf makes a batchFunc of a store's prune: more is left while a table's batch comes back
// full (attempts excepted: they come with their deliveries, several each).
func (p *Pruner) batchOf(prune func(context.Context, time.Time, int) (store.Pruned, error)) batchFunc {
	return func(ctx context.Context, before time.Time, limit int) (store.Pruned, bool, error) {
		rows, err := prune(ctx, before, limit)
		more := false
		for t, n := range rows {
			if n >= int64(limit) && t != store.TableAttempts {
				more = true
			}
		}
		return rows, more, err
	}
}

// clickBatch goes on until no click older than before is left: a short batch may be the end
// of one link's day only. A batch that deletes nothing ends it too (it cannot progress).
func (p *Pruner) clickBatch(ctx context.Context, before time.Time, limit int) (store.Pruned, bool, error) {
	rows, done, err := p.st.PruneClicks(ctx, before, limit)
	return rows, !done && rows[store.TableClicks] > 0, err
}

// loop runs batches until there is no more, resting Pause each time about a batch's worth
// of rows has gone (click batches are often one link's day: a few rows).
func (p *Pruner) loop(ctx context.Context, before time.Time, batch batchFunc) error {
	var since int64
	for {
		rows, more, err := batch(ctx, before, p.cfg.Batch)
		p.count(rows)
		if err != nil || !more {
			return err
		}
		for _, n := range rows {
			since += n
		}
		if p.cfg.Pause <= 0 || since < int64(p.cfg.Batch) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		since = 0
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(p.cfg.Pause):
		}
	}
}
