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
	FailingSince   *time.Time `db:"failing_since"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
}

const webhookCols = `id, workspace_id, kind, url, description, event_types, instance_id, enabled, disabled_reason,
	secret, failing_since, created_at, updated_at`

func (r webhookRow) webhook() (domain.Webhook, error) {
	w := domain.Webhook{ID: r.ID, WorkspaceID: r.WorkspaceID, Kind: r.Kind, URL: r.URL, Description: r.Description,
		InstanceID: r.InstanceID, Enabled: r.Enabled, DisabledReason: r.DisabledReason,
		FailingSince: utcPtr(r.FailingSince), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if err := json.Unmarshal([]byte(r.EventTypes), &w.EventTypes); err != nil {
		return w, domain.Internal(err)
	}
	return w, nil
}

// StoredSecrets are an endpoint's signing secrets in stored form (sealed, "enc:v1:...", when
// the operator configures a secrets key): the current one, and every secret a rotation
// replaced with the time it stops signing, the latest expiry first. Previous may hold secrets
// already expired (the next rotation drops them): whoever signs checks ExpiresAt.
type StoredSecrets struct {
	Current  string
	Previous []PreviousSecret
}

// PreviousSecret is a signing secret a rotation replaced (stored form), signing until
// ExpiresAt.
type PreviousSecret struct {
	Secret    string    `db:"secret"`
	ExpiresAt time.Time `db:"expires_at"`
}

// WebhookTarget is an endpoint with its (stored form of its) signing secrets, for delivery.
type WebhookTarget struct {
	domain.Webhook
	Secrets StoredSecrets
}

// CreateWebhook inserts an endpoint of either kind (default WebhookKindEndpoint) with its
// signing secret (in stored form).
func (t *Tx) CreateWebhook(ctx context.Context, w domain.Webhook, secret string) error {
	types, _ := json.Marshal(nonNil(w.EventTypes))
	kind := w.Kind
	if kind == "" {
		kind = domain.WebhookKindEndpoint
	}
	_, err := t.exec(ctx, `INSERT INTO webhooks (`+webhookCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.ID, w.WorkspaceID, kind, w.URL, w.Description, string(types), w.InstanceID, w.Enabled, w.DisabledReason,
		secret, utcPtr(w.FailingSince), w.CreatedAt.UTC(), w.UpdatedAt.UTC())
	return err
}

// Webhook finds an endpoint (kind webhook) of a workspace; another workspace's endpoint, or
// a subscription, is not found.
func (q q) Webhook(ctx context.Context, workspaceID, id string) (domain.Webhook, error) {
	return q.endpointOfKind(ctx, workspaceID, domain.WebhookKindEndpoint, id, "webhook", "")
}

// Subscription finds a workflow tool's subscription of a workspace; another workspace's, or
// a webhook endpoint, is not found.
func (q q) Subscription(ctx context.Context, workspaceID, id string) (domain.Subscription, error) {
	w, err := q.endpointOfKind(ctx, workspaceID, domain.WebhookKindSubscription, id, "subscription", "")
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

// WebhookForUpdate is Webhook holding the endpoint's row until the transaction ends
// (PostgreSQL), for deleting it: taken first, it makes an attempt's recording wait at its
// start (LiveWebhooks) instead of deadlocking halfway.
func (t *Tx) WebhookForUpdate(ctx context.Context, workspaceID, id string) (domain.Webhook, error) {
	return t.endpointOfKind(ctx, workspaceID, domain.WebhookKindEndpoint, id, "webhook", t.forUpdate())
}

// SubscriptionForUpdate is Subscription holding the row until the transaction ends (on
// PostgreSQL), taken first by a delete in the order recording attempts takes it.
func (t *Tx) SubscriptionForUpdate(ctx context.Context, workspaceID, id string) (domain.Subscription, error) {
	if _, err := t.endpointOfKind(ctx, workspaceID, domain.WebhookKindSubscription, id, "subscription", t.forUpdate()); err != nil {
		return domain.Subscription{}, err
	}
	return t.Subscription(ctx, workspaceID, id)
}

// endpointOfKind reads an endpoint of a kind; lock completes the query (t.forUpdate()) or is "".
func (q q) endpointOfKind(ctx context.Context, workspaceID, kind, id, what, lock string) (domain.Webhook, error) {
	var r webhookRow
	if err := q.get(ctx, &r, `SELECT `+webhookCols+` FROM webhooks WHERE workspace_id = ? AND kind = ? AND id = ?`+lock,
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
func (q q) WebhookSecrets(ctx context.Context, workspaceID, id string) (StoredSecrets, error) {
	return q.webhookSecrets(ctx, workspaceID, id, "")
}

// WebhookSecretsForUpdate is WebhookSecrets holding the endpoint's row until the transaction
// ends (PostgreSQL; SQLite's write transactions are serialised already), so that concurrent
// rotations of one endpoint run one after the other and a limit checked on the secrets holds.
func (t *Tx) WebhookSecretsForUpdate(ctx context.Context, workspaceID, id string) (StoredSecrets, error) {
	return t.webhookSecrets(ctx, workspaceID, id, t.forUpdate())
}

func (q q) webhookSecrets(ctx context.Context, workspaceID, id, lock string) (StoredSecrets, error) {
	var out StoredSecrets
	if err := q.get(ctx, &out.Current, `SELECT secret FROM webhooks WHERE workspace_id = ? AND id = ?`+lock, workspaceID, id); err != nil {
		return StoredSecrets{}, notFoundAs(err, "webhook")
	}
	prev, err := q.previousSecrets(ctx, []string{id})
	if err != nil {
		return StoredSecrets{}, err
	}
	out.Previous = prev[id]
	return out, nil
}

// previousSecrets loads the previous secrets of endpoints in one query, by endpoint id, the
// latest expiry first.
func (q q) previousSecrets(ctx context.Context, webhookIDs []string) (map[string][]PreviousSecret, error) {
	out := map[string][]PreviousSecret{}
	if len(webhookIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		WebhookID string `db:"webhook_id"`
		PreviousSecret
	}
	if err := q.sel(ctx, &rows, `SELECT webhook_id, secret, expires_at FROM webhook_previous_secrets
		WHERE webhook_id IN (`+placeholders(len(webhookIDs))+`) ORDER BY webhook_id, expires_at DESC`, anys(webhookIDs)...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		r.ExpiresAt = r.ExpiresAt.UTC()
		out[r.WebhookID] = append(out[r.WebhookID], r.PreviousSecret)
	}
	return out, nil
}

// UpdateWebhook writes an endpoint's settings and state (not its secrets).
func (t *Tx) UpdateWebhook(ctx context.Context, w domain.Webhook) error {
	types, _ := json.Marshal(nonNil(w.EventTypes))
	return t.execOne(ctx, "webhook", `UPDATE webhooks SET url = ?, description = ?, event_types = ?, instance_id = ?,
		enabled = ?, disabled_reason = ?, failing_since = ?, updated_at = ? WHERE workspace_id = ? AND id = ?`,
		w.URL, w.Description, string(types), w.InstanceID, w.Enabled, w.DisabledReason, utcPtr(w.FailingSince),
		w.UpdatedAt.UTC(), w.WorkspaceID, w.ID)
}

// RotateWebhookSecret makes secret (stored form) the endpoint's current one. The current one
// joins the previous secrets, signing until previousUntil; those previous secrets already
// expired at at are dropped. Callers that bound the previous secrets read them first with
// WebhookSecretsForUpdate.
func (t *Tx) RotateWebhookSecret(ctx context.Context, workspaceID, id, secret string, previousUntil, at time.Time) error {
	if _, err := t.exec(ctx, `INSERT INTO webhook_previous_secrets (webhook_id, secret, expires_at)
		SELECT id, secret, ? FROM webhooks WHERE workspace_id = ? AND id = ?`, previousUntil.UTC(), workspaceID, id); err != nil {
		return err
	}
	if err := t.execOne(ctx, "webhook", `UPDATE webhooks SET secret = ?, updated_at = ? WHERE workspace_id = ? AND id = ?`,
		secret, at.UTC(), workspaceID, id); err != nil {
		return err
	}
	_, err := t.exec(ctx, `DELETE FROM webhook_previous_secrets WHERE webhook_id = ? AND expires_at <= ?`, id, at.UTC())
	return err
}

// DeleteWebhook removes an endpoint (of either kind) with its deliveries and secrets.
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

// LiveWebhooks reports which of the endpoints ids still exist and, on PostgreSQL, keeps them
// from being deleted until the transaction ends (a shared lock: a concurrent delete waits,
// edits and deliveries do not). Recording attempts takes it first, in id order, so that a
// delete, which holds the endpoint and then cascades to its deliveries, can never deadlock
// with a transaction holding those deliveries and waiting for the endpoint; an endpoint
// deleted meanwhile is simply not among the result. SQLite's write transactions are
// serialised already.
func (t *Tx) LiveWebhooks(ctx context.Context, ids []string) (map[string]bool, error) {
	live := map[string]bool{}
	if len(ids) == 0 {
		return live, nil
	}
	query := `SELECT id FROM webhooks WHERE id IN (` + placeholders(len(ids)) + `)`
	if t.s.dialect == Postgres {
		query += ` ORDER BY id FOR KEY SHARE`
	}
	var found []string
	if err := t.sel(ctx, &found, query, anys(ids)...); err != nil {
		return nil, err
	}
	for _, id := range found {
		live[id] = true
	}
	return live, nil
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
