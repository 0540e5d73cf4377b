package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	mathrand "math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Defaults of Config.
const (
	DefaultLease         = 10 * time.Second
	DefaultPollInterval  = time.Second
	DefaultShutdownGrace = 10 * time.Second
	// maxBatch bounds how many outcomes one transaction records.
	maxBatch = 512
)

// Config tunes the engine; zero values take the defaults.
type Config struct {
	Clock  domain.Clock
	Logger *slog.Logger
	// Lease is how long a claimed job is held before another worker may take it over; the
	// heartbeat renews it every quarter of it while the job runs (default 10 s), so a dead
	// replica's work is taken over within about one lease.
	Lease time.Duration
	// PollInterval is how often each kind looks for due work it was not woken for:
	// retries coming due, expired leases (default 1 s).
	PollInterval time.Duration
	// ShutdownGrace is how long Close lets running jobs finish (default 10 s); the rest
	// are aborted and handed back.
	ShutdownGrace time.Duration
	// Rand returns a number in [0, 1) for retry jitter (default math/rand).
	Rand func() float64
}

func (c *Config) defaults() {
	if c.Clock == nil {
		c.Clock = domain.SystemClock{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Lease <= 0 {
		c.Lease = DefaultLease
	}
	if c.PollInterval <= 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = DefaultShutdownGrace
	}
	if c.Rand == nil {
		c.Rand = mathrand.Float64
	}
}

// Engine runs the registered kinds of work.
type Engine struct {
	st    *store.Store
	cfg   Config
	log   *slog.Logger
	owner string // identifies this process in lease tokens
	seq   atomic.Int64

	mu      sync.Mutex
	runners map[string]*runner

	loopCancel context.CancelFunc // stops claiming
	runCancel  context.CancelFunc // aborts running jobs
	beatCancel context.CancelFunc // stops the heartbeat
	loops      sync.WaitGroup     // claim loops, statistics
	beat       sync.WaitGroup     // the heartbeat
	closeOnce  sync.Once
	started    bool
}

// New builds an engine on st. Register kinds, then Start.
func New(st *store.Store, cfg Config) *Engine {
	cfg.defaults()
	e := &Engine{st: st, cfg: cfg, log: cfg.Logger.With("component", "jobs"), owner: newOwner(), runners: map[string]*runner{}}
	st.Handle(ChannelJobs, func(kind string) { e.Kick(kind) })
	return e
}

func newOwner() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

func newJobID() string { return domain.NewID(domain.PrefixJob) }

// Register adds a kind. Registering after Start, or the same name twice, panics: wiring is
// done once, in the composition root.
func (e *Engine) Register(k Kind) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started {
		panic("jobs: Register after Start")
	}
	if _, dup := e.runners[k.Name]; dup || k.Name == "" || k.Run == nil {
		panic("jobs: kind " + strconv.Quote(k.Name) + " registered twice or without Run")
	}
	if k.Backoff == nil {
		k.Backoff = func(int) (time.Duration, bool) { return 0, false }
	}
	e.runners[k.Name] = &runner{e: e, k: k, wake: make(chan struct{}, 1), flying: map[string]*flight{},
		done: make(chan Done, max(k.Workers, 1)*2), counters: &kindCounters{}}
}

// Start runs each kind's claim loop and committer and the heartbeat until Close. Failed
// jobs are pruned by the retention job (service/retention).
func (e *Engine) Start(ctx context.Context) error {
	e.mu.Lock()
	e.started = true
	e.mu.Unlock()
	loopCtx, loopCancel := context.WithCancel(ctx)
	runCtx, runCancel := context.WithCancel(context.WithoutCancel(ctx))
	beatCtx, beatCancel := context.WithCancel(context.WithoutCancel(ctx))
	e.loopCancel, e.runCancel, e.beatCancel = loopCancel, runCancel, beatCancel
	for _, r := range e.runners {
		if r.k.Workers <= 0 {
			continue
		}
		r.runCtx = runCtx
		r.ensureCommitter()
		e.loops.Go(func() { r.claimLoop(loopCtx) })
	}
	e.beat.Go(func() { e.heartbeat(beatCtx) })
	e.loops.Go(func() { e.statsLoop(loopCtx) })
	return nil
}

// Close stops claiming, lets running jobs finish for up to ShutdownGrace, then aborts the
// rest and hands them back (they run again after a restart or on another replica), and
// writes every outcome.
func (e *Engine) Close() {
	e.closeOnce.Do(func() {
		if e.loopCancel == nil {
			return
		}
		// Stop claiming; the heartbeat goes on while held jobs finish and are recorded.
		for _, r := range e.runners {
			r.stopClaiming.Store(true)
		}
		e.loopCancel()
		e.loops.Wait()
		grace := time.Now().Add(e.cfg.ShutdownGrace)
		for !e.idle() {
			if time.Now().After(grace) {
				e.runCancel() // abort what is left: it is handed back
			}
			time.Sleep(5 * time.Millisecond)
		}
		e.runCancel()
		// Every outcome (handed-back jobs included) is written before the heartbeat stops.
		for _, r := range e.runners {
			if r.committed != nil {
				close(r.done)
				<-r.committed
			}
		}
		e.beatCancel()
		e.beat.Wait()
	})
}

// Kick makes a kind look for due work now (after an enqueue; tests call it after moving
// their clock). An unknown kind is ignored.
func (e *Engine) Kick(kind string) {
	if r := e.runners[kind]; r != nil {
		r.kick()
	}
}

// InFlight is how many jobs of a kind this replica holds (running, or finished and not yet
// recorded).
func (e *Engine) InFlight(kind string) int {
	r := e.runners[kind]
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.flying)
}

// ClaimNow runs one claim round of a kind synchronously (the jobs run in the background).
// For tests that drive the engine step by step without Start; it starts the kind's
// committer if needed.
func (e *Engine) ClaimNow(ctx context.Context, kind string) {
	r := e.runners[kind]
	if r == nil {
		return
	}
	r.ensureCommitter()
	r.claim(ctx)
}

func (e *Engine) token() string { return e.owner + "/" + strconv.FormatInt(e.seq.Add(1), 10) }

// heartbeat renews the leases of running jobs every quarter of the lease. A job whose lease
// was lost, or could not be renewed before it expires, is aborted, so a job never runs on two
// workers at once for long.
func (e *Engine) heartbeat(ctx context.Context) {
	t := time.NewTicker(max(e.cfg.Lease/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		e.renew(ctx)
	}
}

// idle reports whether this replica holds no job (running, or waiting to be recorded).
func (e *Engine) idle() bool {
	for _, r := range e.runners {
		r.mu.Lock()
		n := len(r.flying)
		r.mu.Unlock()
		if n > 0 {
			return false
		}
	}
	return true
}

func (e *Engine) renew(ctx context.Context) {
	var leases []store.JobLease
	for _, r := range e.runners {
		r.mu.Lock()
		for _, f := range r.flying {
			leases = append(leases, f.lease)
		}
		r.mu.Unlock()
	}
	if len(leases) == 0 {
		return
	}
	now := e.cfg.Clock.Now()
	until := now.Add(e.cfg.Lease)
	rctx, cancel := context.WithTimeout(ctx, e.cfg.Lease/4)
	defer cancel()
	lost, err := e.st.RenewJobLeases(rctx, leases, until)
	gone := map[string]bool{}
	for _, id := range lost {
		gone[id] = true
	}
	for _, r := range e.runners {
		r.mu.Lock()
		for id, f := range r.flying {
			switch {
			case err != nil:
				if !now.Add(e.cfg.Lease / 4).Before(f.leaseUntil) {
					f.cancel() // it would expire before the next try: stop working on it
				}
			case gone[id]:
				f.cancel()
			default:
				f.leaseUntil = until
			}
		}
		r.mu.Unlock()
	}
	if err != nil {
		e.log.Warn("renew job leases", "err", err)
	}
}

// statsLoop keeps the planner's statistics of the jobs table current. The table fills and
// drains fast (a burst of sends queues thousands of jobs in seconds), faster than
// autovacuum's analyze follows, and with stale statistics PostgreSQL reads a whole backlog
// where an index would find a pacing key's next job at once.
func (e *Engine) statsLoop(ctx context.Context) {
	t := time.NewTicker(statsInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := e.st.RefreshJobStats(ctx, statsChanges); err != nil && ctx.Err() == nil {
			e.log.Warn("refresh job statistics", "err", err)
		}
	}
}

// How often the jobs table's statistics are checked, and after how many changed rows they
// are refreshed.
const (
	statsInterval = 2 * time.Second
	statsChanges  = 2000
)
