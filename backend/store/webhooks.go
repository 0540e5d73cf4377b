package store

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// ---- Endpoints ----

type webhookRow struct {
	ID             string     `db:"id"`
	WorkspaceID    string     `db:"workspace_id"`
	URL            string     `db:"url"`
	Description    string     `db:"description"`
	EventTypes     string     `db:"event_types"`
	InstanceID     *string    `db:"instance_id"`
	Enabled        bool       `db:"enabled"`
	DisabledReason string     `db:"disabled_reason"`
	Secret         string     `db:"secret"`
	PreviousSecret string     `db:"previous_secret"`
	PreviousUntil  *time.Time `db:"previous_secret_expires_at"`
	FailingSince   *time.Time `db:"failing_since"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
}

const webhookCols = `id, workspace_id, url, description, event_types, instance_id, enabled, disabled_reason,
	secret, previous_secret, previous_secret_expires_at, failing_since, created_at, updated_at`

func (r webhookRow) webhook() (domain.Webhook, error) {
	w := domain.Webhook{ID: r.ID, WorkspaceID: r.WorkspaceID, URL: r.URL, Description: r.Description,
		InstanceID: r.InstanceID, Enabled: r.Enabled, DisabledReason: r.DisabledReason,
		FailingSince: utcPtr(r.FailingSince), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if err := json.Unmarshal([]byte(r.EventTypes), &w.EventTypes); err != nil {
		return w, domain.Internal(err)
	}
	return w, nil
}

func (r webhookRow) secrets() domain.WebhookSecrets {
	return domain.WebhookSecrets{Current: r.Secret, Previous: r.PreviousSecret, PreviousExpiresAt: utcPtr(r.PreviousUntil)}
}

// WebhookTarget is an endpoint with its (stored form of its) signing secrets, for delivery.
type WebhookTarget struct {
	domain.Webhook
	Secrets domain.WebhookSecrets
}

// CreateWebhook inserts an endpoint with its signing secret (in stored form).
func (t *Tx) CreateWebhook(ctx context.Context, w domain.Webhook, secret string) error {
	types, _ := json.Marshal(nonNil(w.EventTypes))
	_, err := t.exec(ctx, `INSERT INTO webhooks (`+webhookCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', NULL, ?, ?, ?)`,
		w.ID, w.WorkspaceID, w.URL, w.Description, string(types), w.InstanceID, w.Enabled, w.DisabledReason,
		secret, utcPtr(w.FailingSince), w.CreatedAt.UTC(), w.UpdatedAt.UTC())
	return err
}

// Webhook finds an endpoint of a workspace; another workspace's endpoint is not found.
func (q q) Webhook(ctx context.Context, workspaceID, id string) (domain.Webhook, error) {
	var r webhookRow
	if err := q.get(ctx, &r, `SELECT `+webhookCols+` FROM webhooks WHERE workspace_id = ? AND id = ?`, workspaceID, id); err != nil {
		return domain.Webhook{}, notFoundAs(err, "webhook")
	}
	return r.webhook()
}

// Webhooks lists a workspace's endpoints newest first, before the cursor id when given,
// returning up to limit+1 rows so the caller can tell whether there is more.
func (q q) Webhooks(ctx context.Context, workspaceID, before string, limit int) ([]domain.Webhook, error) {
	where, args := "workspace_id = ?", []any{workspaceID}
	if before != "" {
		where += " AND id < ?"
		args = append(args, before)
	}
	var rows []webhookRow
	if err := q.sel(ctx, &rows, `SELECT `+webhookCols+` FROM webhooks WHERE `+where+` ORDER BY id DESC LIMIT ?`,
		append(args, limit+1)...); err != nil {
		return nil, err
	}
	return webhooksOf(rows)
}

// CountWebhooks counts a workspace's endpoints.
func (q q) CountWebhooks(ctx context.Context, workspaceID string) (int, error) {
	var n int
	err := q.get(ctx, &n, `SELECT COUNT(*) FROM webhooks WHERE workspace_id = ?`, workspaceID)
	return n, err
}

// EnabledWebhooks lists a workspace's enabled endpoints (for fanning an event out).
func (q q) EnabledWebhooks(ctx context.Context, workspaceID string) ([]domain.Webhook, error) {
	var rows []webhookRow
	if err := q.sel(ctx, &rows, `SELECT `+webhookCols+` FROM webhooks WHERE workspace_id = ? AND enabled ORDER BY id`, workspaceID); err != nil {
		return nil, err
	}
	return webhooksOf(rows)
}

// WebhookTargets loads endpoints with their secrets by id (any workspace; for delivery).
// Missing ids are left out.
func (q q) WebhookTargets(ctx context.Context, ids []string) (map[string]WebhookTarget, error) {
	out := map[string]WebhookTarget{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []webhookRow
	if err := q.sel(ctx, &rows, `SELECT `+webhookCols+` FROM webhooks WHERE id IN (`+placeholders(len(ids))+`)`, anys(ids)...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		w, err := r.webhook()
		if err != nil {
			return nil, err
		}
		out[w.ID] = WebhookTarget{w, r.secrets()}
	}
	return out, nil
}

// WebhookSecrets returns an endpoint's secrets in stored form.
func (q q) WebhookSecrets(ctx context.Context, workspaceID, id string) (domain.WebhookSecrets, error) {
	var r webhookRow
	if err := q.get(ctx, &r, `SELECT `+webhookCols+` FROM webhooks WHERE workspace_id = ? AND id = ?`, workspaceID, id); err != nil {
		return domain.WebhookSecrets{}, notFoundAs(err, "webhook")
	}
	return r.secrets(), nil
}

// UpdateWebhook writes an endpoint's settings and state (not its secrets).
func (t *Tx) UpdateWebhook(ctx context.Context, w domain.Webhook) error {
	types, _ := json.Marshal(nonNil(w.EventTypes))
	return t.execOne(ctx, "webhook", `UPDATE webhooks SET url = ?, description = ?, event_types = ?, instance_id = ?,
		enabled = ?, disabled_reason = ?, failing_since = ?, updated_at = ? WHERE workspace_id = ? AND id = ?`,
		w.URL, w.Description, string(types), w.InstanceID, w.Enabled, w.DisabledReason, utcPtr(w.FailingSince),
		w.UpdatedAt.UTC(), w.WorkspaceID, w.ID)
}

// RotateWebhookSecret stores a new secret; the current one becomes the previous one until
// previousUntil.
func (t *Tx) RotateWebhookSecret(ctx context.Context, workspaceID, id, secret string, previousUntil, at time.Time) error {
	return t.execOne(ctx, "webhook", `UPDATE webhooks SET previous_secret = secret, previous_secret_expires_at = ?,
		secret = ?, updated_at = ? WHERE workspace_id = ? AND id = ?`, previousUntil.UTC(), secret, at.UTC(), workspaceID, id)
}

// DeleteWebhook removes an endpoint with its deliveries.
func (t *Tx) DeleteWebhook(ctx context.Context, workspaceID, id string) error {
	return t.execOne(ctx, "webhook", `DELETE FROM webhooks WHERE workspace_id = ? AND id = ?`, workspaceID, id)
}

// DisableWebhook disables an enabled endpoint and fails its pending deliveries that are not
// being attempted. It reports false (and changes nothing) if the endpoint was not enabled.
func (t *Tx) DisableWebhook(ctx context.Context, id, reason string, at time.Time) (bool, error) {
	res, err := t.exec(ctx, `UPDATE webhooks SET enabled = ?, disabled_reason = ?, updated_at = ? WHERE id = ? AND enabled`,
		false, reason, at.UTC(), id)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	return true, t.FailPendingDeliveries(ctx, id, at)
}

// FailPendingDeliveries fails an endpoint's pending deliveries that are not being attempted.
func (t *Tx) FailPendingDeliveries(ctx context.Context, webhookID string, at time.Time) error {
	_, err := t.exec(ctx, `UPDATE webhook_deliveries SET status = ?, next_attempt_at = NULL
		WHERE webhook_id = ? AND status = ? AND (locked_until IS NULL OR locked_until <= ?)`,
		domain.DeliveryFailed, webhookID, domain.DeliveryPending, at.UTC())
	return err
}

// MarkWebhookFailing notes a failed attempt: the endpoint has been failing since the
// returned time (the first failure after its last success).
func (t *Tx) MarkWebhookFailing(ctx context.Context, id string, at time.Time) (time.Time, error) {
	if _, err := t.exec(ctx, `UPDATE webhooks SET failing_since = ? WHERE id = ? AND failing_since IS NULL`, at.UTC(), id); err != nil {
		return time.Time{}, err
	}
	var since *time.Time
	if err := t.get(ctx, &since, `SELECT failing_since FROM webhooks WHERE id = ?`, id); err != nil {
		return time.Time{}, notFoundAs(err, "webhook")
	}
	if since == nil {
		return at, nil
	}
	return since.UTC(), nil
}

// MarkWebhookHealthy notes a successful attempt.
func (t *Tx) MarkWebhookHealthy(ctx context.Context, id string) error {
	_, err := t.exec(ctx, `UPDATE webhooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL`, id)
	return err
}

func webhooksOf(rows []webhookRow) ([]domain.Webhook, error) {
	out := make([]domain.Webhook, 0, len(rows))
	for _, r := range rows {
		w, err := r.webhook()
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// ---- Deliveries ----

// NewDelivery is a delivery to enqueue.
type NewDelivery struct {
	ID          string
	WebhookID   string
	WorkspaceID string
	EventID     string
	EventType   string
	// Payload is the envelope of an event that is not in the event log (test events);
	// nil means "read the event from the log".
	Payload     *string
	MaxAttempts int
	DueAt       time.Time
	CreatedAt   time.Time
}

// InsertDeliveries enqueues deliveries (pending, due at DueAt) in one statement.
func (q q) InsertDeliveries(ctx context.Context, ds []NewDelivery) error {
	if len(ds) == 0 {
		return nil
	}
	var b strings.Builder
	args := make([]any, 0, len(ds)*10)
	b.WriteString(`INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, event_id, event_type, payload, status,
		attempt_count, max_attempts, next_attempt_at, created_at) VALUES `)
	for i, d := range ds {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)")
		args = append(args, d.ID, d.WebhookID, d.WorkspaceID, d.EventID, d.EventType, d.Payload, domain.DeliveryPending,
			d.MaxAttempts, d.DueAt.UTC(), d.CreatedAt.UTC())
	}
	_, err := q.exec(ctx, b.String(), args...)
	return err
}

type deliveryRow struct {
	ID            string     `db:"id"`
	WebhookID     string     `db:"webhook_id"`
	WorkspaceID   string     `db:"workspace_id"`
	EventID       string     `db:"event_id"`
	EventType     string     `db:"event_type"`
	Payload       *string    `db:"payload"`
	Status        string     `db:"status"`
	AttemptCount  int        `db:"attempt_count"`
	MaxAttempts   int        `db:"max_attempts"`
	NextAttemptAt *time.Time `db:"next_attempt_at"`
	LockedUntil   *time.Time `db:"locked_until"`
	LockedBy      *string    `db:"locked_by"`
	CreatedAt     time.Time  `db:"created_at"`
}

const deliveryCols = `id, webhook_id, workspace_id, event_id, event_type, payload, status, attempt_count, max_attempts,
	next_attempt_at, locked_until, locked_by, created_at`

func (r deliveryRow) delivery() domain.Delivery {
	return domain.Delivery{ID: r.ID, WebhookID: r.WebhookID, WorkspaceID: r.WorkspaceID, EventID: r.EventID,
		EventType: r.EventType, Status: r.Status, NextAttemptAt: utcPtr(r.NextAttemptAt), CreatedAt: r.CreatedAt.UTC(),
		Attempts: []domain.DeliveryAttempt{}}
}

type attemptRow struct {
	DeliveryID   string    `db:"delivery_id"`
	N            int       `db:"n"`
	AttemptedAt  time.Time `db:"attempted_at"`
	StatusCode   int       `db:"status_code"`
	LatencyMS    int       `db:"latency_ms"`
	ResponseBody string    `db:"response_body"`
	Error        string    `db:"error"`
}

// Delivery finds a delivery of an endpoint of a workspace, with its attempts.
func (q q) Delivery(ctx context.Context, workspaceID, webhookID, id string) (domain.Delivery, error) {
	var r deliveryRow
	if err := q.get(ctx, &r, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE workspace_id = ? AND webhook_id = ? AND id = ?`,
		workspaceID, webhookID, id); err != nil {
		return domain.Delivery{}, notFoundAs(err, "delivery")
	}
	ds, err := q.withAttempts(ctx, []deliveryRow{r})
	if err != nil {
		return domain.Delivery{}, err
	}
	return ds[0], nil
}

// DeliveryInFlight reports whether a delivery is leased by a worker at time now.
func (q q) DeliveryInFlight(ctx context.Context, id string, now time.Time) (bool, error) {
	var n int
	err := q.get(ctx, &n, `SELECT COUNT(*) FROM webhook_deliveries WHERE id = ? AND status = ? AND locked_until > ?`,
		id, domain.DeliveryPending, now.UTC())
	return n > 0, err
}

// Deliveries lists an endpoint's deliveries newest first with their attempts, before the
// cursor id when given, up to limit+1 rows.
func (q q) Deliveries(ctx context.Context, workspaceID, webhookID, before string, limit int) ([]domain.Delivery, error) {
	where, args := "workspace_id = ? AND webhook_id = ?", []any{workspaceID, webhookID}
	if before != "" {
		where += " AND id < ?"
		args = append(args, before)
	}
	var rows []deliveryRow
	if err := q.sel(ctx, &rows, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE `+where+` ORDER BY id DESC LIMIT ?`,
		append(args, limit+1)...); err != nil {
		return nil, err
	}
	return q.withAttempts(ctx, rows)
}

// withAttempts loads the attempts of rows in one query.
func (q q) withAttempts(ctx context.Context, rows []deliveryRow) ([]domain.Delivery, error) {
	out := make([]domain.Delivery, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	index := make(map[string]int, len(rows))
	ids := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.delivery()
		index[r.ID] = i
		ids[i] = r.ID
	}
	var attempts []attemptRow
	if err := q.sel(ctx, &attempts, `SELECT delivery_id, n, attempted_at, status_code, latency_ms, response_body, error
		FROM webhook_delivery_attempts WHERE delivery_id IN (`+placeholders(len(ids))+`) ORDER BY delivery_id, n, attempted_at`,
		anys(ids)...); err != nil {
		return nil, err
	}
	for _, a := range attempts {
		i := index[a.DeliveryID]
		out[i].Attempts = append(out[i].Attempts, domain.DeliveryAttempt{AttemptedAt: a.AttemptedAt.UTC(),
			StatusCode: a.StatusCode, LatencyMS: a.LatencyMS, ResponseBody: a.ResponseBody, Error: a.Error})
	}
	return out, nil
}

// RequeueDelivery makes a delivery due at once: a finished one (failed or succeeded) gets
// one more attempt; a pending one keeps its remaining attempts. A delivery a worker is
// attempting right now is left alone (conflict).
func (t *Tx) RequeueDelivery(ctx context.Context, id string, now time.Time) error {
	res, err := t.exec(ctx, `UPDATE webhook_deliveries SET
		max_attempts = CASE WHEN status = ? THEN max_attempts ELSE attempt_count + 1 END,
		status = ?, next_attempt_at = ?
		WHERE id = ? AND NOT (status = ? AND locked_until IS NOT NULL AND locked_until > ?)`,
		domain.DeliveryPending, domain.DeliveryPending, now.UTC(), id, domain.DeliveryPending, now.UTC())
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return &domain.Error{Code: domain.CodeConflict, Reason: "delivery_in_progress",
			Message: "this delivery is being attempted right now; try again in a moment"}
	}
	return nil
}

// ClaimParams selects due deliveries for a worker.
type ClaimParams struct {
	Now        time.Time
	LeaseUntil time.Time
	// Token identifies this claim (the lease holder); finishing and renewing check it.
	Token string
	// Limit is the most deliveries to claim.
	Limit int
	// PerEndpoint is the most deliveries of one endpoint that may be leased at once
	// (counting leases already held, by any worker).
	PerEndpoint int
}

// ClaimedDelivery is a delivery a worker holds a lease on.
type ClaimedDelivery struct {
	ID           string
	WebhookID    string
	WorkspaceID  string
	EventID      string
	EventType    string
	Payload      *string
	AttemptCount int // attempts made before this one
	MaxAttempts  int
	CreatedAt    time.Time
	Token        string
}

// ClaimDeliveries leases due pending deliveries (those whose lease, if any, has expired),
// oldest due first, at most PerEndpoint leased per endpoint. On PostgreSQL rows are
// selected FOR UPDATE SKIP LOCKED, so workers on several replicas never claim the same
// row; SQLite is one process and its write transactions are serialised.
func (s *Store) ClaimDeliveries(ctx context.Context, p ClaimParams) ([]ClaimedDelivery, error) {
	now := p.Now.UTC()
	var claimed []ClaimedDelivery
	err := s.Tx(ctx, func(tx *Tx) error {
		if err := tx.asyncCommit(ctx); err != nil {
			return err
		}
		// Endpoints already at their limit are skipped entirely, so a hanging endpoint's
		// backlog never fills the batch ahead of healthy endpoints.
		var active []struct {
			WebhookID string `db:"webhook_id"`
			N         int    `db:"n"`
		}
		if err := tx.sel(ctx, &active, `SELECT webhook_id, COUNT(*) AS n FROM webhook_deliveries
			WHERE status = ? AND locked_until > ? GROUP BY webhook_id`, domain.DeliveryPending, now); err != nil {
			return err
		}
		busy := map[string]int{}
		var full []any
		for _, a := range active {
			busy[a.WebhookID] = a.N
			if a.N >= p.PerEndpoint {
				full = append(full, a.WebhookID)
			}
		}
		query := `SELECT id, webhook_id FROM webhook_deliveries
			WHERE status = ? AND next_attempt_at <= ? AND (locked_until IS NULL OR locked_until <= ?)`
		args := []any{domain.DeliveryPending, now, now}
		if len(full) > 0 {
			query += ` AND webhook_id NOT IN (` + placeholders(len(full)) + `)`
			args = append(args, full...)
		}
		query += ` ORDER BY next_attempt_at, id LIMIT ?`
		args = append(args, p.Limit*4+16)
		if s.dialect == Postgres {
			query += ` FOR UPDATE SKIP LOCKED`
		}
		var candidates []struct {
			ID        string `db:"id"`
			WebhookID string `db:"webhook_id"`
		}
		if err := tx.sel(ctx, &candidates, query, args...); err != nil {
			return err
		}
		var ids []any
		for _, c := range candidates {
			if len(ids) == p.Limit {
				break
			}
			if busy[c.WebhookID] >= p.PerEndpoint {
				continue
			}
			busy[c.WebhookID]++
			ids = append(ids, c.ID)
		}
		if len(ids) == 0 {
			return nil
		}
		if _, err := tx.exec(ctx, `UPDATE webhook_deliveries SET locked_until = ?, locked_by = ? WHERE id IN (`+placeholders(len(ids))+`)`,
			append([]any{p.LeaseUntil.UTC(), p.Token}, ids...)...); err != nil {
			return err
		}
		var rows []deliveryRow
		if err := tx.sel(ctx, &rows, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE id IN (`+placeholders(len(ids))+`)
			ORDER BY next_attempt_at, id`, ids...); err != nil {
			return err
		}
		for _, r := range rows {
			claimed = append(claimed, r.claimed(p.Token))
		}
		return nil
	})
	return claimed, err
}

func (r deliveryRow) claimed(token string) ClaimedDelivery {
	return ClaimedDelivery{ID: r.ID, WebhookID: r.WebhookID, WorkspaceID: r.WorkspaceID,
		EventID: r.EventID, EventType: r.EventType, Payload: r.Payload, AttemptCount: r.AttemptCount,
		MaxAttempts: r.MaxAttempts, CreatedAt: r.CreatedAt.UTC(), Token: token}
}

// ClaimNext leases the next due delivery of one endpoint, if any, in the transaction that
// finishes the previous one: a worker stays on an endpoint with a backlog without a claim
// round of its own (the endpoint's lease count is unchanged: one released, one taken).
func (t *Tx) ClaimNext(ctx context.Context, webhookID string, p ClaimParams) (*ClaimedDelivery, error) {
	now := p.Now.UTC()
	query := `SELECT ` + deliveryCols + ` FROM webhook_deliveries
		WHERE webhook_id = ? AND status = ? AND next_attempt_at <= ? AND (locked_until IS NULL OR locked_until <= ?)
		ORDER BY next_attempt_at, id LIMIT 1`
	if t.s.dialect == Postgres {
		query += ` FOR UPDATE SKIP LOCKED`
	}
	var rows []deliveryRow
	if err := t.sel(ctx, &rows, query, webhookID, domain.DeliveryPending, now, now); err != nil || len(rows) == 0 {
		return nil, err
	}
	if _, err := t.exec(ctx, `UPDATE webhook_deliveries SET locked_until = ?, locked_by = ? WHERE id = ?`,
		p.LeaseUntil.UTC(), p.Token, rows[0].ID); err != nil {
		return nil, err
	}
	c := rows[0].claimed(p.Token)
	return &c, nil
}

// asyncCommit lets a transaction that only moves leases commit without waiting for the
// WAL flush (PostgreSQL): if the server crashes before the flush, the lease is simply
// gone and the delivery is claimed again, which at-least-once delivery allows.
func (t *Tx) asyncCommit(ctx context.Context) error {
	if t.s.dialect != Postgres {
		return nil
	}
	_, err := t.exec(ctx, `SET LOCAL synchronous_commit TO OFF`)
	return err
}

// Lease names a delivery held by a claim token.
type Lease struct {
	DeliveryID string
	Token      string
}

// RenewLeases extends the leases still held and returns those that were lost (claimed by
// another worker after expiring, or finished).
func (s *Store) RenewLeases(ctx context.Context, leases []Lease, until time.Time) ([]Lease, error) {
	var lost []Lease
	err := s.Tx(ctx, func(tx *Tx) error {
		lost = lost[:0]
		for _, l := range leases {
			res, err := tx.exec(ctx, `UPDATE webhook_deliveries SET locked_until = ? WHERE id = ? AND locked_by = ? AND status = ?`,
				until.UTC(), l.DeliveryID, l.Token, domain.DeliveryPending)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				lost = append(lost, l)
			}
		}
		return nil
	})
	return lost, err
}

// AttemptOutcome is the result of one attempt, written when it ends.
type AttemptOutcome struct {
	Lease
	Attempt domain.DeliveryAttempt
	// Status is the delivery's new status; NextAttemptAt is set when it stays pending.
	Status        string
	NextAttemptAt *time.Time
}

// FinishAttempt records an attempt and releases the lease. It reports false (recording
// nothing) when the lease was lost meanwhile.
func (t *Tx) FinishAttempt(ctx context.Context, o AttemptOutcome) (bool, error) {
	res, err := t.exec(ctx, `UPDATE webhook_deliveries SET status = ?, attempt_count = attempt_count + 1, next_attempt_at = ?,
		locked_until = NULL, locked_by = NULL WHERE id = ? AND locked_by = ? AND status = ?`,
		o.Status, utcPtr(o.NextAttemptAt), o.DeliveryID, o.Token, domain.DeliveryPending)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	a := o.Attempt
	_, err = t.exec(ctx, `INSERT INTO webhook_delivery_attempts (delivery_id, n, attempted_at, status_code, latency_ms, response_body, error)
		SELECT id, attempt_count, ?, ?, ?, ?, ? FROM webhook_deliveries WHERE id = ?`,
		a.AttemptedAt.UTC(), a.StatusCode, a.LatencyMS, a.ResponseBody, a.Error, o.DeliveryID)
	return err == nil, err
}

// ReleaseLease gives a claimed delivery back without recording an attempt (shutdown).
func (q q) ReleaseLease(ctx context.Context, l Lease) error {
	_, err := q.exec(ctx, `UPDATE webhook_deliveries SET locked_until = NULL, locked_by = NULL WHERE id = ? AND locked_by = ?`,
		l.DeliveryID, l.Token)
	return err
}

// FailDelivery ends a claimed delivery as failed without sending it (its endpoint was
// disabled meanwhile), recording why as an attempt without a response.
func (t *Tx) FailDelivery(ctx context.Context, l Lease, at time.Time, reason string) error {
	_, err := t.FinishAttempt(ctx, AttemptOutcome{Lease: l, Status: domain.DeliveryFailed,
		Attempt: domain.DeliveryAttempt{AttemptedAt: at, Error: reason}})
	return err
}

// NextDeliveryDue is when the earliest pending delivery is due (nil if none).
func (q q) NextDeliveryDue(ctx context.Context) (*time.Time, error) {
	var at []time.Time
	err := q.sel(ctx, &at, `SELECT next_attempt_at FROM webhook_deliveries WHERE status = ? ORDER BY next_attempt_at LIMIT 1`,
		domain.DeliveryPending)
	if err != nil || len(at) == 0 {
		return nil, err
	}
	return utcPtr(&at[0]), nil
}

// DeleteFinishedDeliveries removes up to limit succeeded or failed deliveries (with their
// attempts) created before before, and reports how many it removed.
func (q q) DeleteFinishedDeliveries(ctx context.Context, before time.Time, limit int) (int, error) {
	res, err := q.exec(ctx, `DELETE FROM webhook_deliveries WHERE id IN (
		SELECT id FROM webhook_deliveries WHERE status <> ? AND created_at < ? LIMIT ?)`,
		domain.DeliveryPending, before.UTC(), limit)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// EventsByIDs loads events by id (any workspace; for delivery). Missing ids are left out.
func (q q) EventsByIDs(ctx context.Context, ids []string) (map[string]domain.Event, error) {
	out := map[string]domain.Event{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []eventRow
	if err := q.sel(ctx, &rows, `SELECT `+eventCols+` FROM events WHERE id IN (`+placeholders(len(ids))+`)`, anys(ids)...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = r.event()
	}
	return out, nil
}

func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return "?" + strings.Repeat(", ?", n-1)
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
