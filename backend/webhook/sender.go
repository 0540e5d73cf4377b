// Package webhook sends webhook deliveries: signed per the Standard Webhooks specification,
// at least once, with retries, per-endpoint concurrency limits and SSRF protection. It is
// the handler of the job engine's webhook.delivery kind; it knows nothing of the service
// but the narrow Endpoints interface.
//
// How a delivery travels:
//
//  1. An event is recorded. In the same transaction the webhooks service inserts one
//     pending delivery per subscribed endpoint, each with a job (same id) whose concurrency
//     key is the endpoint, so the event and its deliveries commit (or vanish) together.
//  2. The job engine claims due deliveries in batches, never more than PerEndpoint in
//     flight to one endpoint across every replica, so a hanging endpoint holds at most that
//     many workers while healthy endpoints are served.
//  3. Load fetches the batch's deliveries with their endpoints and events in one query; Run signs
//     and posts each; the engine's heartbeat keeps their leases while they are in flight.
//  4. Commit records the batch's attempts in the engine's transaction: succeeded, failed,
//     or pending again at the next time of the retry schedule (or Retry-After on 429/503);
//     an endpoint that answered 410, or failed for 5 days, is disabled (a workflow tool's
//     subscription that answered 410 is deleted instead: the tool has unsubscribed).
package webhook

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Defaults of Config.
const (
	DefaultTimeout      = 15 * time.Second
	DefaultWorkers      = 64
	DefaultPerEndpoint  = 8
	DefaultPerWorkspace = 32
)

// Endpoints is what sending needs of the webhooks service.
type Endpoints interface {
	// SigningSecrets returns the secrets that sign a delivery at now (the current one, and
	// each secret a rotation replaced until its own expiry), from their stored form.
	SigningSecrets(stored store.StoredSecrets, now time.Time) ([]string, error)
	// Disable turns an endpoint off in tx for reason and records webhook.disabled; the
	// service decides what that means for each kind of endpoint (a subscription whose
	// target answered 410 is deleted).
	Disable(ctx context.Context, tx *store.Tx, workspaceID, id, reason string, now time.Time) error
}

// Config tunes the Sender; zero values take the defaults.
type Config struct {
	Clock  domain.Clock
	Logger *slog.Logger
	// Policy decides which addresses may be dialed (default: public addresses only).
	Policy *ssrf.Policy
	// Timeout bounds one attempt, from dial to the end of the response (default 15 s).
	Timeout time.Duration
	// Workers is how many attempts this replica makes at once (default 64); 0 (or less)
	// means this replica sends none.
	Workers int
	// PerEndpoint is how many attempts to one endpoint may be in flight at once, across
	// every replica (default 8), so one slow endpoint cannot take every worker.
	PerEndpoint int
	// PerWorkspace is how many attempts to one workspace's endpoints together may be in
	// flight at once, across every replica (default 32), so one tenant's many slow
	// endpoints cannot take every worker from the others.
	PerWorkspace int
	// HTTPClient replaces the SSRF-guarded client (tests only; prefer the Policy).
	HTTPClient *http.Client
}

func (c *Config) defaults() {
	if c.Clock == nil {
		c.Clock = domain.SystemClock{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Policy == nil {
		c.Policy = ssrf.MustPolicy()
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Workers < 0 {
		c.Workers = 0
	}
	if c.PerEndpoint <= 0 {
		c.PerEndpoint = DefaultPerEndpoint
	}
	if c.PerWorkspace <= 0 {
		c.PerWorkspace = DefaultPerWorkspace
	}
}

// Sender sends webhook deliveries as jobs of the engine.
type Sender struct {
	st     *store.Store
	eps    Endpoints
	cfg    Config
	log    *slog.Logger
	client *http.Client
}

// New builds the sender. Register its Kind with the job engine. Finished deliveries are
// pruned with the other tables that grow with traffic (service/retention).
func New(st *store.Store, eps Endpoints, cfg Config) *Sender {
	cfg.defaults()
	s := &Sender{st: st, eps: eps, cfg: cfg, log: cfg.Logger.With("component", "webhooks"), client: cfg.HTTPClient}
	if s.client == nil {
		s.client = newClient(cfg.Policy, cfg.Timeout, cfg.PerEndpoint)
	}
	return s
}

// Kind is the webhook.delivery job kind.
func (s *Sender) Kind() jobs.Kind {
	return jobs.Kind{
		Name:        domain.JobWebhookDelivery,
		Workers:     s.cfg.Workers,
		Concurrency: s.cfg.PerEndpoint,
		// Deliveries are grouped by workspace (service.deliveryJob).
		GroupConcurrency: s.cfg.PerWorkspace,
		Backoff:          Backoff,
		Jitter:           0.1,
		// An outcome lost in a database crash means the delivery is sent again, which
		// at-least-once delivery allows.
		AsyncCommit: true,
		Load:        s.load,
		Run:         s.run,
		Commit:      s.commit,
	}
}

// Backoff follows domain.WebhookRetrySchedule: after attempt n failed, the next one is
// due after the schedule's n-th delay.
func Backoff(n int) (time.Duration, bool) {
	if n < 1 || n >= len(domain.WebhookRetrySchedule) {
		return 0, false
	}
	return domain.WebhookRetrySchedule[n], true
}

// delivery is what sending one delivery needs, attached to its job by load.
type delivery struct {
	store.PendingDelivery
	target *store.WebhookTarget
	body   []byte // nil when the event is gone
}

// attempt is what Run learned, for Commit.
type attempt struct {
	startedAt time.Time
	resp      response
	sent      bool // false: not sent (endpoint disabled, event gone, no secret)
}

// load fetches the deliveries of a batch with their endpoints and events in one query.
func (s *Sender) load(ctx context.Context, batch []*jobs.Job) error {
	ids := make([]string, len(batch))
	for i, j := range batch {
		ids[i] = j.ID
	}
	ds, err := s.st.DeliveriesToSend(ctx, ids)
	if err != nil {
		return err
	}
	for _, j := range batch {
		ld, ok := ds[j.ID]
		if !ok {
			continue // deleted with its endpoint
		}
		d := &delivery{PendingDelivery: ld.PendingDelivery, target: &ld.Hook}
		if ld.Payload != nil {
			d.body = []byte(*ld.Payload)
		} else if ld.Event != nil {
			if d.body, err = ld.Event.MarshalJSON(); err != nil {
				return err
			}
		}
		j.Data = d
	}
	return nil
}

var errNotSent = errors.New("not sent")

// run signs and posts one delivery.
func (s *Sender) run(ctx context.Context, j *jobs.Job) error {
	d, _ := j.Data.(*delivery)
	if d == nil || d.target == nil {
		return nil // the endpoint and its deliveries were deleted: nothing to do
	}
	now := s.cfg.Clock.Now()
	a := &attempt{startedAt: now}
	j.Result = a
	notSent := func(why string) error {
		a.resp = response{err: "not sent: " + why}
		return jobs.Permanent(errors.New(a.resp.err))
	}
	switch {
	case !d.target.Enabled:
		return notSent("the endpoint is disabled")
	case d.body == nil:
		return notSent("the event no longer exists")
	}
	secrets, err := s.eps.SigningSecrets(d.target.Secrets, now)
	var sig string
	if err == nil {
		sig, err = Sign(secrets, d.EventID, now, d.body)
	}
	if err != nil {
		s.log.Error("webhook signing secret unavailable", "err", err, "webhook_id", d.target.ID)
		a.resp = response{err: "not sent: the signing secret is unavailable (server configuration)"}
		return errNotSent
	}
	h := http.Header{}
	h.Set(HeaderID, d.EventID)
	h.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(HeaderSignature, sig)
	a.resp = post(ctx, s.client, d.target.URL, h, d.body, now, s.cfg.Timeout)
	a.sent = true
	switch r := a.resp; {
	case ctx.Err() != nil && r.status == 0:
		return ctx.Err() // aborted (shutdown or lost lease): handed back untouched
	case r.ok():
		return nil
	case r.status == http.StatusGone:
		return jobs.Permanent(errors.New("410 Gone"))
	default:
		why := r.err
		if why == "" {
			why = "HTTP " + strconv.Itoa(r.status)
		}
		return jobs.RetryAfter(errors.New(why), r.retryAfter)
	}
}

// commit records a batch's attempts, marks endpoints healthy or failing, and disables an
// endpoint that answered 410 or has failed for WebhookDisableAfter. An endpoint deleted
// while attempts to it were in flight took their deliveries and log with it: those attempts
// have nothing to record and their jobs just end (no retry, no error).
func (s *Sender) commit(ctx context.Context, tx *store.Tx, done []jobs.Done) error {
	now := s.cfg.Clock.Now()
	// Before any delivery row is touched: which endpoints still exist, held until this
	// transaction ends (see LiveWebhooks).
	var hookIDs []string
	seen := map[string]bool{}
	for _, dn := range done {
		if d, _ := dn.Job.Data.(*delivery); d != nil && d.target != nil && !seen[d.target.ID] {
			seen[d.target.ID] = true
			hookIDs = append(hookIDs, d.target.ID)
		}
	}
	live, err := tx.LiveWebhooks(ctx, hookIDs)
	if err != nil {
		return err
	}
	var results []store.DeliveryResult
	var deleted []string // deliveries whose endpoint was deleted meanwhile
	healthy := map[string]bool{}
	failing := map[string]*delivery{}
	gone := map[string]bool{}
	var order []string // failing endpoints in the order met
	for _, dn := range done {
		d, _ := dn.Job.Data.(*delivery)
		a, _ := dn.Job.Result.(*attempt)
		if d == nil || d.target == nil || a == nil {
			continue
		}
		r := store.DeliveryResult{DeliveryID: d.ID, N: d.AttemptCount + 1,
			Attempt: domain.DeliveryAttempt{AttemptedAt: a.startedAt, StatusCode: a.resp.status,
				LatencyMS: int(a.resp.latency.Milliseconds()), ResponseBody: a.resp.body, Error: a.resp.err}}
		switch dn.Outcome {
		case jobs.Succeeded:
			r.Status = domain.DeliverySucceeded
		case jobs.Retrying:
			next := dn.RunAt
			r.Status, r.NextAttemptAt = domain.DeliveryPending, &next
		default:
			r.Status = domain.DeliveryFailed
		}
		// Handed to the store even if the endpoint is gone: it leaves out deliveries that no
		// longer exist and ends their jobs.
		results = append(results, r)
		hookID := d.target.ID
		if !live[hookID] {
			deleted = append(deleted, d.ID)
			continue // nothing to mark on an endpoint that is gone
		}
		if !a.sent {
			continue
		}
		if a.resp.ok() {
			// Only an endpoint that was failing has anything to reset.
			healthy[hookID] = healthy[hookID] || d.target.FailingSince != nil
			continue
		}
		if _, seen := failing[hookID]; !seen {
			failing[hookID] = d
			order = append(order, hookID)
		}
		if a.resp.status == http.StatusGone {
			gone[hookID] = true
		}
	}
	if len(deleted) > 0 {
		s.log.Debug("attempts not recorded: their endpoint was deleted meanwhile, with its deliveries", "deliveries", deleted)
	}
	if err := tx.RecordDeliveryResults(ctx, results); err != nil {
		return err
	}
	var ok []string
	for id, failing := range healthy {
		if failing {
			ok = append(ok, id)
		}
	}
	if err := tx.MarkWebhooksHealthy(ctx, ok); err != nil {
		return err
	}
	for _, hookID := range order {
		if _, succeeded := healthy[hookID]; succeeded && !gone[hookID] {
			continue // a success in the same batch: the endpoint works
		}
		d := failing[hookID]
		since, err := tx.MarkWebhookFailing(ctx, hookID, now)
		if err != nil {
			return err
		}
		switch {
		case gone[hookID]:
			err = s.eps.Disable(ctx, tx, d.WorkspaceID, hookID, domain.WebhookDisabledGone, now)
		case now.Sub(since) >= domain.WebhookDisableAfter:
			err = s.eps.Disable(ctx, tx, d.WorkspaceID, hookID, domain.WebhookDisabledFailing, now)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
