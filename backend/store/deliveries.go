package store

import (
	"context"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

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
	CreatedAt     time.Time  `db:"created_at"`
}

const deliveryCols = `id, webhook_id, workspace_id, event_id, event_type, payload, status, attempt_count, max_attempts,
	next_attempt_at, created_at`

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

// Deliveries lists an endpoint's deliveries newest first with their attempts, before the
// cursor id when given, up to limit+1 rows.
func (q q) Deliveries(ctx context.Context, workspaceID, webhookID, before string, limit int) ([]domain.Delivery, error) {
	query, args := newestFirst(`SELECT `+deliveryCols+` FROM webhook_deliveries`, []string{"workspace_id = ?", "webhook_id = ?"},
		[]any{workspaceID, webhookID}, before, limit)
	var rows []deliveryRow
	if err := q.sel(ctx, &rows, query, args...); err != nil {
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

// FailedDelivery is a failed delivery that may be sent again, with how many attempts it had.
type FailedDelivery struct {
	ID       string `db:"id"`
	Attempts int    `db:"attempts"`
}

// FailedDeliveries lists up to limit failed deliveries of an endpoint created in [since,
// until), oldest first.
func (q q) FailedDeliveries(ctx context.Context, workspaceID, webhookID string, since, until time.Time, limit int) ([]FailedDelivery, error) {
	var out []FailedDelivery
	err := q.sel(ctx, &out, `SELECT d.id, (SELECT COUNT(*) FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id) AS attempts
		FROM webhook_deliveries d WHERE d.workspace_id = ? AND d.webhook_id = ? AND d.status = ? AND d.created_at >= ? AND d.created_at < ?
		ORDER BY d.created_at, d.id LIMIT ?`, workspaceID, webhookID, domain.DeliveryFailed, since.UTC(), until.UTC(), limit)
	return out, err
}

// RequeueDelivery marks a delivery pending and due at now (its job is requeued by the
// caller in the same transaction).
func (t *Tx) RequeueDelivery(ctx context.Context, id string, now time.Time) error {
	return t.execOne(ctx, "delivery", `UPDATE webhook_deliveries SET status = ?, next_attempt_at = ? WHERE id = ?`,
		domain.DeliveryPending, now.UTC(), id)
}

// FailDeliveries ends pending deliveries as failed (their endpoint was disabled).
func (t *Tx) FailDeliveries(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := t.exec(ctx, `UPDATE webhook_deliveries SET status = ?, next_attempt_at = NULL WHERE status = ? AND id IN (`+
		placeholders(len(ids))+`)`, append([]any{domain.DeliveryFailed, domain.DeliveryPending}, anys(ids)...)...)
	return err
}

// PendingDelivery is what sending a delivery needs to know of it.
type PendingDelivery struct {
	ID           string  `db:"id"`
	WebhookID    string  `db:"webhook_id"`
	WorkspaceID  string  `db:"workspace_id"`
	EventID      string  `db:"event_id"`
	EventType    string  `db:"event_type"`
	Payload      *string `db:"payload"`
	AttemptCount int     `db:"attempt_count"` // attempts recorded before this one
}

// DeliveryResult is one recorded attempt: the delivery's new status (NextAttemptAt set
// when it stays pending) and the attempt, numbered N.
type DeliveryResult struct {
	DeliveryID    string
	N             int
	Status        string
	NextAttemptAt *time.Time
	Attempt       domain.DeliveryAttempt
}

// RecordDeliveryResults writes a batch of attempts: one statement per final status, one
// per retry (each has its own time), and one insert for every attempt row. A delivery that
// no longer exists (its endpoint was deleted while it was attempted, and the delivery log
// with it) has nothing to record: it is left out, not an error, and its job (same id) is
// deleted whatever the engine just wrote for it (queued for a retry, failed), as deleting
// the endpoint deletes its queued jobs: with the delivery gone there is nothing to send.
func (t *Tx) RecordDeliveryResults(ctx context.Context, rs []DeliveryResult) error {
	if len(rs) == 0 {
		return nil
	}
	// Each update returns the ids it found (and, on PostgreSQL, holds those rows until the
	// transaction ends, so their attempts can be inserted).
	found := make(map[string]bool, len(rs))
	final := map[string][]any{}
	for _, r := range rs {
		if r.Status == domain.DeliveryPending {
			var ids []string
			if err := t.sel(ctx, &ids, `UPDATE webhook_deliveries SET status = ?, attempt_count = attempt_count + 1, next_attempt_at = ?
				WHERE id = ? RETURNING id`, r.Status, utcPtr(r.NextAttemptAt), r.DeliveryID); err != nil {
				return err
			}
			for _, id := range ids {
				found[id] = true
			}
			continue
		}
		final[r.Status] = append(final[r.Status], r.DeliveryID)
	}
	for status, ids := range final {
		var updated []string
		if err := t.sel(ctx, &updated, `UPDATE webhook_deliveries SET status = ?, attempt_count = attempt_count + 1, next_attempt_at = NULL
			WHERE id IN (`+placeholders(len(ids))+`) RETURNING id`, append([]any{status}, ids...)...); err != nil {
			return err
		}
		for _, id := range updated {
			found[id] = true
		}
	}
	var gone []any
	kept := make([]DeliveryResult, 0, len(rs))
	for _, r := range rs {
		if found[r.DeliveryID] {
			kept = append(kept, r)
		} else {
			gone = append(gone, r.DeliveryID)
		}
	}
	if len(gone) > 0 {
		if _, err := t.exec(ctx, `DELETE FROM jobs WHERE kind = ? AND id IN (`+placeholders(len(gone))+`)`,
			append([]any{domain.JobWebhookDelivery}, gone...)...); err != nil {
			return err
		}
	}
	if len(kept) == 0 {
		return nil
	}
	var b strings.Builder
	args := make([]any, 0, len(kept)*7)
	b.WriteString(`INSERT INTO webhook_delivery_attempts (delivery_id, n, attempted_at, status_code, latency_ms, response_body, error) VALUES `)
	for i, r := range kept {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?)")
		a := r.Attempt
		args = append(args, r.DeliveryID, r.N, a.AttemptedAt.UTC(), a.StatusCode, a.LatencyMS, a.ResponseBody, a.Error)
	}
	_, err := t.exec(ctx, b.String(), args...)
	return err
}

// AsyncCommit lets a transaction commit without waiting for the WAL flush (PostgreSQL):
// if the server crashes before the flush, the transaction is lost as if it never happened.
// Only for work that is safe to do again (leases, at-least-once outcomes).
func (t *Tx) AsyncCommit(ctx context.Context) error {
	if t.s.dialect != Postgres {
		return nil
	}
	_, err := t.exec(ctx, `SET LOCAL synchronous_commit TO OFF`)
	return err
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

// DeliveryToSend is a delivery with what sending it needs: its endpoint (URL, state and
// signing secrets in stored form) and its event (nil when the delivery carries its own
// payload, or the event is gone).
type DeliveryToSend struct {
	PendingDelivery
	Hook  WebhookTarget // ID, WorkspaceID, URL, Enabled, FailingSince and Secrets are set
	Event *domain.Event
}

type deliveryToSendRow struct {
	PendingDelivery
	URL          string     `db:"w_url"`
	Enabled      bool       `db:"w_enabled"`
	Secret       string     `db:"w_secret"`
	FailingSince *time.Time `db:"w_failing_since"`
	EventData    *string    `db:"e_data"`
	EventAt      *time.Time `db:"e_created_at"`
}

// DeliveriesToSend loads deliveries by id with their endpoints and events in one query, and
// the endpoints' previous secrets in another (any workspace; for sending). Deliveries that no
// longer exist (their endpoint was deleted) are left out.
func (q q) DeliveriesToSend(ctx context.Context, ids []string) (map[string]DeliveryToSend, error) {
	out := map[string]DeliveryToSend{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []deliveryToSendRow
	if err := q.sel(ctx, &rows, `SELECT d.id, d.webhook_id, d.workspace_id, d.event_id, d.event_type, d.payload, d.attempt_count,
		w.url AS w_url, w.enabled AS w_enabled, w.secret AS w_secret, w.failing_since AS w_failing_since,
		e.data AS e_data, e.created_at AS e_created_at
		FROM webhook_deliveries d
		JOIN webhooks w ON w.id = d.webhook_id
		LEFT JOIN events e ON e.id = d.event_id AND d.payload IS NULL
		WHERE d.id IN (`+placeholders(len(ids))+`)`, anys(ids)...); err != nil {
		return nil, err
	}
	hookIDs := make([]string, 0, len(rows))
	seen := make(map[string]bool, len(rows))
	for _, r := range rows {
		if !seen[r.WebhookID] {
			seen[r.WebhookID] = true
			hookIDs = append(hookIDs, r.WebhookID)
		}
	}
	previous, err := q.previousSecrets(ctx, hookIDs)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		d := DeliveryToSend{PendingDelivery: r.PendingDelivery}
		d.Hook.ID, d.Hook.WorkspaceID, d.Hook.URL, d.Hook.Enabled = r.WebhookID, r.WorkspaceID, r.URL, r.Enabled
		d.Hook.FailingSince = utcPtr(r.FailingSince)
		d.Hook.Secrets = StoredSecrets{Current: r.Secret, Previous: previous[r.WebhookID]}
		if r.EventData != nil && r.EventAt != nil {
			d.Event = &domain.Event{ID: r.EventID, Type: r.EventType, Timestamp: r.EventAt.UTC(), WorkspaceID: r.WorkspaceID,
				Data: []byte(*r.EventData)}
		}
		out[r.ID] = d
	}
	return out, nil
}
