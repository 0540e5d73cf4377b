package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// ---- Endpoints ----

type webhookRow struct {
	ID             string     `db:"id"`
	WorkspaceID    string     `db:"workspace_id"`
	Kind           string     `db:"kind"`
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

const webhookCols = `id, workspace_id, kind, url, description, event_types, instance_id, enabled, disabled_reason,
	secret, previous_secret, previous_secret_expires_at, failing_since, created_at, updated_at`

func (r webhookRow) webhook() (domain.Webhook, error) {
	w := domain.Webhook{ID: r.ID, WorkspaceID: r.WorkspaceID, Kind: r.Kind, URL: r.URL, Description: r.Description,
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

// CreateWebhook inserts an endpoint of either kind (default WebhookKindEndpoint) with its
// signing secret (in stored form).
func (t *Tx) CreateWebhook(ctx context.Context, w domain.Webhook, secret string) error {
	types, _ := json.Marshal(nonNil(w.EventTypes))
	kind := w.Kind
	if kind == "" {
		kind = domain.WebhookKindEndpoint
	}
	_, err := t.exec(ctx, `INSERT INTO webhooks (`+webhookCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', NULL, ?, ?, ?)`,
		w.ID, w.WorkspaceID, kind, w.URL, w.Description, string(types), w.InstanceID, w.Enabled, w.DisabledReason,
		secret, utcPtr(w.FailingSince), w.CreatedAt.UTC(), w.UpdatedAt.UTC())
	return err
}

// Webhook finds an endpoint (kind webhook) of a workspace; another workspace's endpoint, or
// a subscription, is not found.
func (q q) Webhook(ctx context.Context, workspaceID, id string) (domain.Webhook, error) {
	return q.endpointOfKind(ctx, workspaceID, domain.WebhookKindEndpoint, id, "webhook")
}

// Subscription finds a workflow tool's subscription of a workspace; another workspace's, or
// a webhook endpoint, is not found.
func (q q) Subscription(ctx context.Context, workspaceID, id string) (domain.Subscription, error) {
	w, err := q.endpointOfKind(ctx, workspaceID, domain.WebhookKindSubscription, id, "subscription")
	return w.Subscription(), err
}

// Endpoint finds an endpoint of either kind (Kind says which): for the delivery engine's
// verdicts (410 Gone, failing for days), which each kind answers its own way.
func (q q) Endpoint(ctx context.Context, workspaceID, id string) (domain.Webhook, error) {
	var r webhookRow
	if err := q.get(ctx, &r, `SELECT `+webhookCols+` FROM webhooks WHERE workspace_id = ? AND id = ?`, workspaceID, id); err != nil {
		return domain.Webhook{}, notFoundAs(err, "webhook")
	}
	return r.webhook()
}

func (q q) endpointOfKind(ctx context.Context, workspaceID, kind, id, what string) (domain.Webhook, error) {
	var r webhookRow
	if err := q.get(ctx, &r, `SELECT `+webhookCols+` FROM webhooks WHERE workspace_id = ? AND kind = ? AND id = ?`,
		workspaceID, kind, id); err != nil {
		return domain.Webhook{}, notFoundAs(err, what)
	}
	return r.webhook()
}

// Webhooks lists a workspace's endpoints (kind webhook) newest first, before the cursor id
// when given, returning up to limit+1 rows so the caller can tell whether there is more.
func (q q) Webhooks(ctx context.Context, workspaceID, before string, limit int) ([]domain.Webhook, error) {
	return q.endpointsOfKind(ctx, workspaceID, domain.WebhookKindEndpoint, before, limit)
}

// Subscriptions lists a workspace's subscriptions like Webhooks lists its endpoints.
func (q q) Subscriptions(ctx context.Context, workspaceID, before string, limit int) ([]domain.Subscription, error) {
	hooks, err := q.endpointsOfKind(ctx, workspaceID, domain.WebhookKindSubscription, before, limit)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Subscription, len(hooks))
	for i, h := range hooks {
		out[i] = h.Subscription()
	}
	return out, nil
}

func (q q) endpointsOfKind(ctx context.Context, workspaceID, kind, before string, limit int) ([]domain.Webhook, error) {
	query, args := newestFirst(`SELECT `+webhookCols+` FROM webhooks`, []string{"workspace_id = ?", "kind = ?"},
		[]any{workspaceID, kind}, before, limit)
	var rows []webhookRow
	if err := q.sel(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	return webhooksOf(rows)
}

// CountWebhooks counts a workspace's endpoints of a kind (WebhookKindEndpoint or
// WebhookKindSubscription).
func (q q) CountWebhooks(ctx context.Context, workspaceID, kind string) (int, error) {
	var n int
	err := q.get(ctx, &n, `SELECT COUNT(*) FROM webhooks WHERE workspace_id = ? AND kind = ?`, workspaceID, kind)
	return n, err
}

// EnabledWebhooks lists a workspace's enabled endpoints of both kinds (for fanning an event
// out).
func (q q) EnabledWebhooks(ctx context.Context, workspaceID string) ([]domain.Webhook, error) {
	var rows []webhookRow
	if err := q.sel(ctx, &rows, `SELECT `+webhookCols+` FROM webhooks WHERE workspace_id = ? AND enabled ORDER BY id`, workspaceID); err != nil {
		return nil, err
	}
	return webhooksOf(rows)
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

// DeleteWebhook removes an endpoint (of either kind) with its deliveries.
func (t *Tx) DeleteWebhook(ctx context.Context, workspaceID, id string) error {
	return t.execOne(ctx, "webhook", `DELETE FROM webhooks WHERE workspace_id = ? AND id = ?`, workspaceID, id)
}

// DisableWebhook disables an enabled endpoint. It reports false (and changes nothing) if the
// endpoint was not enabled. The caller fails the endpoint's queued deliveries.
func (t *Tx) DisableWebhook(ctx context.Context, id, reason string, at time.Time) (bool, error) {
	res, err := t.exec(ctx, `UPDATE webhooks SET enabled = ?, disabled_reason = ?, updated_at = ? WHERE id = ? AND enabled`,
		false, reason, at.UTC(), id)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
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

// MarkWebhooksHealthy notes successful attempts to endpoints.
func (t *Tx) MarkWebhooksHealthy(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := t.exec(ctx, `UPDATE webhooks SET failing_since = NULL WHERE failing_since IS NOT NULL AND id IN (`+
		placeholders(len(ids))+`)`, anys(ids)...)
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
