// Package webhook delivers events to webhook endpoints: signed per the Standard Webhooks
// specification, at least once, from a transactional outbox (the webhook_deliveries table),
// with retries, per-endpoint isolation and SSRF protection.
//
// How a delivery travels:
//
//  1. An event is recorded (service.Record). In the same transaction the Dispatcher's event
//     sink inserts one pending delivery per enabled endpoint that subscribes to it, so the
//     event and its deliveries commit (or vanish) together.
//  2. After commit the sink wakes this replica's claim loop; every replica also polls. A
//     claim leases due deliveries (FOR UPDATE SKIP LOCKED on PostgreSQL), never more than
//     PerEndpoint of one endpoint at a time, so a hanging endpoint holds at most that many
//     workers and its backlog is skipped while healthy endpoints are served.
//  3. Each claimed delivery is sent by its own goroutine (Workers bound them). While it is
//     in flight its lease is renewed; a replica that dies (kill -9) stops renewing, and once
//     the lease expires another replica claims and sends it again (at least once).
//  4. The attempt is recorded with the outcome: succeeded (2xx), failed, or pending again
//     at the next time of the retry schedule (or Retry-After on 429/503).
package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	mathrand "math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/webhook/ssrf"
)

// Config tunes the Dispatcher; zero values take the defaults.
type Config struct {
	Clock  domain.Clock
	Logger *slog.Logger
	// AllowList names hosts, IPs or CIDR ranges webhooks may reach despite the SSRF rules
	// (for example 127.0.0.1 for local receivers, n8n.internal).
	AllowList []string
	// Timeout bounds one attempt, from dial to the end of the response (default 15 s).
	Timeout time.Duration
	// Workers is how many attempts this replica makes at once (default 16).
	Workers int
	// PerEndpoint is how many attempts to one endpoint may be in flight at once (default 4,
	// at most half the workers), so one slow endpoint cannot take every worker.
	PerEndpoint int
	// LeaseDuration is how long a claimed delivery is held before another worker may take
	// it over; in-flight attempts renew it every third of it (default 30 s).
	LeaseDuration time.Duration
	// PollInterval is how often this replica looks for due work it was not woken for:
	// retries, other replicas' events, expired leases (default 1 s).
	PollInterval time.Duration
	// ShutdownGrace is how long Close lets in-flight attempts finish (default 10 s).
	ShutdownGrace time.Duration
	// Retention is how long finished (succeeded or failed) deliveries stay in the log
	// (default 30 days); every replica prunes older ones hourly.
	Retention time.Duration
	// Rand returns a number in [0, 1) for retry jitter (default math/rand).
	Rand func() float64
	// HTTPClient replaces the SSRF-guarded client (tests only; prefer the AllowList).
	HTTPClient *http.Client
}

func (c *Config) defaults() {
	if c.Clock == nil {
		c.Clock = domain.SystemClock{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Timeout <= 0 {
		c.Timeout = 15 * time.Second
	}
	if c.Workers <= 0 {
		c.Workers = 16
	}
	if c.PerEndpoint <= 0 {
		c.PerEndpoint = 4
	}
	c.PerEndpoint = max(1, min(c.PerEndpoint, c.Workers/2))
	if c.LeaseDuration <= 0 {
		c.LeaseDuration = 30 * time.Second
	}
	if c.PollInterval <= 0 {
		c.PollInterval = time.Second
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = 10 * time.Second
	}
	if c.Retention <= 0 {
		c.Retention = 30 * 24 * time.Hour
	}
	if c.Rand == nil {
		c.Rand = mathrand.Float64
	}
}

// Dispatcher enqueues deliveries in the transaction of every event and sends them.
type Dispatcher struct {
	svc    *service.Service
	st     *store.Store
	cfg    Config
	log    *slog.Logger
	client *http.Client
	owner  string // identifies this process in lease tokens
	err    error  // configuration error, reported by Start

	wake    chan struct{}
	seq     atomic.Int64
	closing atomic.Bool
	mu      sync.Mutex
	flying  map[string]*flight // delivery id → attempt in progress

	loopCancel context.CancelFunc // stops claiming
	sendCancel context.CancelFunc // aborts attempts in flight
	loopDone   chan struct{}
	sends      sync.WaitGroup
	closeOnce  sync.Once
}

type flight struct {
	lease      store.Lease
	leaseUntil time.Time
	cancel     context.CancelFunc
}

// NewDispatcher builds the delivery engine on svc and registers its event sink, so every
// event recorded from now on enqueues its deliveries. It also gives the webhooks service its
// SSRF policy (for registration checks) and wake-up hook. Call Start to send.
func NewDispatcher(svc *service.Service, cfg Config) *Dispatcher {
	cfg.defaults()
	d := &Dispatcher{svc: svc, st: svc.Store(), cfg: cfg, log: cfg.Logger.With("component", "webhooks"),
		wake: make(chan struct{}, 1), flying: map[string]*flight{}, owner: newOwner()}
	policy, err := ssrf.NewPolicy(cfg.AllowList)
	if err != nil {
		d.err = err
		policy = ssrf.MustPolicy()
	}
	d.client = cfg.HTTPClient
	if d.client == nil {
		d.client = newClient(policy, cfg.Timeout, cfg.PerEndpoint)
	}
	svc.Webhooks.SetTargetPolicy(policy)
	svc.Webhooks.OnEnqueue(d.Kick)
	svc.AddEventSink(d.enqueue)
	return d
}

func newOwner() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// Start runs the claim loop and the lease keeper until Close.
func (d *Dispatcher) Start(ctx context.Context) error {
	if d.err != nil {
		return fmt.Errorf("webhook allow-list: %w", d.err)
	}
	loopCtx, loopCancel := context.WithCancel(ctx)
	sendCtx, sendCancel := context.WithCancel(context.WithoutCancel(ctx))
	d.loopCancel, d.sendCancel = loopCancel, sendCancel
	d.loopDone = make(chan struct{})
	go func() {
		defer close(d.loopDone)
		var wg sync.WaitGroup
		wg.Add(3)
		go func() { defer wg.Done(); d.claimLoop(loopCtx, sendCtx) }()
		go func() { defer wg.Done(); d.keepLeases(loopCtx) }()
		go func() { defer wg.Done(); d.pruneLoop(loopCtx) }()
		wg.Wait()
	}()
	return nil
}

// Close stops claiming, lets attempts in flight finish for up to ShutdownGrace, then aborts
// the rest and hands their deliveries back (they are sent again after a restart or by
// another replica).
func (d *Dispatcher) Close() {
	d.closeOnce.Do(func() {
		d.closing.Store(true)
		if d.loopCancel == nil {
			return
		}
		d.loopCancel()
		<-d.loopDone
		done := make(chan struct{})
		go func() { d.sends.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(d.cfg.ShutdownGrace):
			d.sendCancel()
			<-done
		}
		d.sendCancel()
	})
}

// Kick makes the claim loop look for due work now (after a commit, a test or a retry; tests
// call it after moving their clock).
func (d *Dispatcher) Kick() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// InFlight is how many attempts are in progress in this replica.
func (d *Dispatcher) InFlight() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.flying)
}

// enqueue is the event sink: it runs in the transaction that records e.
func (d *Dispatcher) enqueue(ctx context.Context, tx *store.Tx, e domain.Event) error {
	hooks, err := tx.EnabledWebhooks(ctx, e.WorkspaceID)
	if err != nil {
		return err
	}
	now := d.cfg.Clock.Now()
	var ds []store.NewDelivery
	for _, h := range hooks {
		if h.Subscribed(e) {
			ds = append(ds, store.NewDelivery{ID: domain.NewID(domain.PrefixDelivery), WebhookID: h.ID,
				WorkspaceID: e.WorkspaceID, EventID: e.ID, EventType: e.Type,
				MaxAttempts: len(domain.WebhookRetrySchedule), DueAt: now, CreatedAt: now})
		}
	}
	if len(ds) == 0 {
		return nil
	}
	if err := tx.InsertDeliveries(ctx, ds); err != nil {
		return err
	}
	tx.AfterCommit(d.Kick)
	return nil
}

func (d *Dispatcher) claimLoop(ctx, sendCtx context.Context) {
	poll := time.NewTicker(d.cfg.PollInterval)
	defer poll.Stop()
	for {
		d.dispatch(ctx, sendCtx)
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-poll.C:
		}
	}
}

// dispatch claims due deliveries while there are free workers and starts their attempts.
func (d *Dispatcher) dispatch(ctx, sendCtx context.Context) {
	for ctx.Err() == nil {
		free := d.cfg.Workers - d.InFlight()
		if free <= 0 {
			return
		}
		now := d.cfg.Clock.Now()
		claimed, err := d.st.ClaimDeliveries(ctx, store.ClaimParams{Now: now, LeaseUntil: now.Add(d.cfg.LeaseDuration),
			Token: d.token(), Limit: free, PerEndpoint: d.cfg.PerEndpoint})
		if err != nil {
			if ctx.Err() == nil {
				d.log.Error("claim webhook deliveries", "err", err)
			}
			return
		}
		if len(claimed) == 0 {
			return
		}
		if err := d.start(sendCtx, claimed, now); err != nil {
			d.log.Error("load webhook deliveries", "err", err)
			for _, c := range claimed {
				_ = d.st.ReleaseLease(context.WithoutCancel(ctx), store.Lease{DeliveryID: c.ID, Token: c.Token})
			}
			return
		}
		if len(claimed) < free {
			return
		}
	}
}

// job is a claimed delivery with what sending it needs.
type job struct {
	c      store.ClaimedDelivery
	target *store.WebhookTarget // nil when the endpoint was deleted (its deliveries with it)
	body   []byte               // nil when the event is gone
}

func jobFor(c store.ClaimedDelivery, targets map[string]store.WebhookTarget, events map[string]domain.Event) (job, error) {
	j := job{c: c}
	if t, ok := targets[c.WebhookID]; ok {
		j.target = &t
	}
	if c.Payload != nil {
		j.body = []byte(*c.Payload)
	} else if e, ok := events[c.EventID]; ok {
		var err error
		if j.body, err = e.MarshalJSON(); err != nil {
			return j, err
		}
	}
	return j, nil
}

// load fetches the endpoints and events of claimed deliveries in two queries.
func load(ctx context.Context, q interface {
	WebhookTargets(context.Context, []string) (map[string]store.WebhookTarget, error)
	EventsByIDs(context.Context, []string) (map[string]domain.Event, error)
}, claimed []store.ClaimedDelivery) ([]job, error) {
	var hookIDs, eventIDs []string
	for _, c := range claimed {
		hookIDs = append(hookIDs, c.WebhookID)
		if c.Payload == nil {
			eventIDs = append(eventIDs, c.EventID)
		}
	}
	targets, err := q.WebhookTargets(ctx, hookIDs)
	if err != nil {
		return nil, err
	}
	events, err := q.EventsByIDs(ctx, eventIDs)
	if err != nil {
		return nil, err
	}
	jobs := make([]job, len(claimed))
	for i, c := range claimed {
		if jobs[i], err = jobFor(c, targets, events); err != nil {
			return nil, err
		}
	}
	return jobs, nil
}

// start loads what the claimed deliveries need and sends each on its own goroutine.
func (d *Dispatcher) start(ctx context.Context, claimed []store.ClaimedDelivery, now time.Time) error {
	jobs, err := load(ctx, d.st, claimed)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		flightCtx := d.track(ctx, j.c, now, "")
		d.sends.Add(1)
		go d.run(ctx, j, flightCtx)
	}
	return nil
}

// run sends j, then the deliveries of the same endpoint it chains to while that endpoint
// has due work, holding one worker throughout.
func (d *Dispatcher) run(ctx context.Context, j job, flightCtx context.Context) {
	defer d.sends.Done()
	for {
		next := d.attempt(flightCtx, j)
		if next == nil {
			d.untrack(j.c.ID)
			d.Kick() // a worker is free
			return
		}
		flightCtx = d.track(ctx, next.c, d.cfg.Clock.Now(), j.c.ID)
		j = *next
	}
}

// track registers an attempt in flight (replacing the one it follows, if any) and returns
// the context that aborts it when its lease is lost.
func (d *Dispatcher) track(ctx context.Context, c store.ClaimedDelivery, now time.Time, replaces string) context.Context {
	fctx, cancel := context.WithCancel(ctx)
	d.mu.Lock()
	if f, ok := d.flying[replaces]; ok {
		f.cancel()
		delete(d.flying, replaces)
	}
	d.flying[c.ID] = &flight{lease: store.Lease{DeliveryID: c.ID, Token: c.Token},
		leaseUntil: now.Add(d.cfg.LeaseDuration), cancel: cancel}
	d.mu.Unlock()
	return fctx
}

func (d *Dispatcher) untrack(id string) {
	d.mu.Lock()
	if f, ok := d.flying[id]; ok {
		f.cancel()
		delete(d.flying, id)
	}
	d.mu.Unlock()
}

// attempt sends one delivery, records the outcome and returns the endpoint's next due
// delivery, already claimed, if there is one.
func (d *Dispatcher) attempt(ctx context.Context, j job) *job {
	c := j.c
	lease := store.Lease{DeliveryID: c.ID, Token: c.Token}
	now := d.cfg.Clock.Now()
	switch {
	case j.target == nil: // deleted meanwhile; its deliveries went with it
		return nil
	case !j.target.Enabled:
		d.fail(ctx, lease, now, "not sent: the endpoint is disabled")
		return nil
	case j.body == nil:
		d.fail(ctx, lease, now, "not sent: the event no longer exists")
		return nil
	}
	var r response
	secrets, err := d.svc.Webhooks.SigningSecrets(j.target.Secrets, now)
	var sig string
	if err == nil {
		sig, err = Sign(secrets, c.EventID, now, j.body)
	}
	if err != nil {
		d.log.Error("webhook signing secret unavailable", "err", err, "webhook_id", j.target.ID)
		r = response{err: "not sent: the signing secret is unavailable (server configuration)"}
	} else {
		h := http.Header{}
		h.Set(HeaderID, c.EventID)
		h.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
		h.Set(HeaderSignature, sig)
		r = post(ctx, d.client, j.target.URL, h, j.body, now, d.cfg.Timeout)
	}
	if ctx.Err() != nil && r.status == 0 {
		// Aborted (shutdown or lost lease), not failed: hand it back untouched.
		_ = d.st.ReleaseLease(context.WithoutCancel(ctx), lease)
		return nil
	}
	return d.finish(ctx, c, j.target.Webhook, r, now)
}

// fail ends a delivery without sending it.
func (d *Dispatcher) fail(ctx context.Context, lease store.Lease, now time.Time, why string) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := d.st.Tx(wctx, func(tx *store.Tx) error { return tx.FailDelivery(wctx, lease, now, why) }); err != nil {
		d.log.Error("record webhook delivery", "err", err, "delivery_id", lease.DeliveryID)
	}
}

// finish records an attempt, schedules the next one or ends the delivery, and disables the
// endpoint when it answered 410 or has failed for WebhookDisableAfter. In the same
// transaction it claims the endpoint's next due delivery, which it returns.
func (d *Dispatcher) finish(ctx context.Context, c store.ClaimedDelivery, hook domain.Webhook, r response, startedAt time.Time) *job {
	now := d.cfg.Clock.Now()
	out := store.AttemptOutcome{Lease: store.Lease{DeliveryID: c.ID, Token: c.Token},
		Attempt: domain.DeliveryAttempt{AttemptedAt: startedAt, StatusCode: r.status, LatencyMS: int(r.latency.Milliseconds()),
			ResponseBody: r.body, Error: r.err}}
	gone := r.status == http.StatusGone
	switch {
	case r.ok():
		out.Status = domain.DeliverySucceeded
	case gone:
		out.Status = domain.DeliveryFailed
	default:
		next, ok := NextAttempt(c.AttemptCount+1, c.MaxAttempts, now, r.retryAfter, d.cfg.Rand)
		if ok {
			out.Status, out.NextAttemptAt = domain.DeliveryPending, &next
		} else {
			out.Status = domain.DeliveryFailed
		}
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var next *job
	err := d.st.Tx(wctx, func(tx *store.Tx) error {
		next = nil
		owned, err := tx.FinishAttempt(wctx, out)
		if err != nil || !owned {
			if err == nil {
				d.log.Warn("webhook delivery lease lost during attempt", "delivery_id", c.ID)
			}
			return err
		}
		if r.ok() {
			if err := tx.MarkWebhookHealthy(wctx, hook.ID); err != nil {
				return err
			}
		} else {
			since, err := tx.MarkWebhookFailing(wctx, hook.ID, now)
			if err != nil {
				return err
			}
			switch {
			case gone:
				return d.disable(wctx, tx, hook, service.DisabledGone, now)
			case now.Sub(since) >= domain.WebhookDisableAfter:
				return d.disable(wctx, tx, hook, service.DisabledFailing, now)
			}
		}
		if ctx.Err() != nil || d.closing.Load() {
			return nil
		}
		nc, err := tx.ClaimNext(wctx, hook.ID, store.ClaimParams{Now: now, LeaseUntil: now.Add(d.cfg.LeaseDuration), Token: d.token()})
		if err != nil || nc == nil {
			return err
		}
		jobs, err := load(wctx, tx, []store.ClaimedDelivery{*nc})
		if err != nil {
			return err
		}
		next = &jobs[0]
		return nil
	})
	if err != nil {
		d.log.Error("record webhook attempt", "err", err, "delivery_id", c.ID)
		return nil
	}
	return next
}

func (d *Dispatcher) token() string { return d.owner + "/" + strconv.FormatInt(d.seq.Add(1), 10) }

// disable turns an endpoint off and records webhook.disabled, in tx.
func (d *Dispatcher) disable(ctx context.Context, tx *store.Tx, hook domain.Webhook, reason string, now time.Time) error {
	changed, err := tx.DisableWebhook(ctx, hook.ID, reason, now)
	if err != nil || !changed {
		return err
	}
	h, err := tx.Webhook(ctx, hook.WorkspaceID, hook.ID)
	if err != nil {
		return err
	}
	d.log.Info("webhook endpoint disabled", "webhook_id", hook.ID, "reason", reason)
	_, err = d.svc.Record(ctx, tx, hook.WorkspaceID, domain.EventWebhookDisabled, nil, h.Object())
	return err
}

// NextAttempt returns when attempt number done+1 is due after attempt number done failed at
// now, following domain.WebhookRetrySchedule with ±10% jitter (rnd in [0,1)) and never
// sooner than retryAfter; ok is false when no attempt is left.
func NextAttempt(done, maxAttempts int, now time.Time, retryAfter time.Duration, rnd func() float64) (time.Time, bool) {
	if done >= maxAttempts || done >= len(domain.WebhookRetrySchedule) {
		return time.Time{}, false
	}
	base := domain.WebhookRetrySchedule[done]
	delay := time.Duration(float64(base) * (0.9 + 0.2*rnd()))
	delay = max(delay, retryAfter)
	return now.Add(delay).Truncate(time.Millisecond), true
}

func (d *Dispatcher) pruneLoop(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		d.prune(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// prune deletes finished deliveries older than Retention, in batches.
func (d *Dispatcher) prune(ctx context.Context) {
	before := d.cfg.Clock.Now().Add(-d.cfg.Retention)
	for ctx.Err() == nil {
		n, err := d.st.DeleteFinishedDeliveries(ctx, before, 5000)
		if err != nil {
			if ctx.Err() == nil {
				d.log.Warn("prune webhook deliveries", "err", err)
			}
			return
		}
		if n < 5000 {
			return
		}
	}
}

// keepLeases renews the leases of attempts in flight every third of the lease. An attempt
// whose lease was lost (or cannot be renewed before it expires) is aborted, so a delivery is
// never sent by two workers at once.
func (d *Dispatcher) keepLeases(ctx context.Context) {
	t := time.NewTicker(max(d.cfg.LeaseDuration/3, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		d.renew(ctx)
	}
}

func (d *Dispatcher) renew(ctx context.Context) {
	d.mu.Lock()
	leases := make([]store.Lease, 0, len(d.flying))
	for _, f := range d.flying {
		leases = append(leases, f.lease)
	}
	d.mu.Unlock()
	if len(leases) == 0 {
		return
	}
	now := d.cfg.Clock.Now()
	until := now.Add(d.cfg.LeaseDuration)
	lost, err := d.st.RenewLeases(ctx, leases, until)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil {
		d.log.Warn("renew webhook delivery leases", "err", err)
		for _, f := range d.flying {
			if !now.Add(d.cfg.LeaseDuration / 3).Before(f.leaseUntil) {
				f.cancel() // it would expire before the next try: stop sending
			}
		}
		return
	}
	gone := map[string]bool{}
	for _, l := range lost {
		gone[l.DeliveryID] = true
	}
	for id, f := range d.flying {
		if gone[id] {
			f.cancel()
		} else {
			f.leaseUntil = until
		}
	}
}
