-- +goose Up
-- Webhook endpoints. The signing secrets are stored so deliveries can be signed: encrypted
-- (AES-256-GCM, "enc:v1:..." values) when the operator configures a secrets key, else as is.
CREATE TABLE webhooks (
    id                         TEXT PRIMARY KEY,
    workspace_id               TEXT NOT NULL REFERENCES workspaces(id),
    url                        TEXT NOT NULL,
    description                TEXT NOT NULL,
    event_types                TEXT NOT NULL, -- JSON array of event types, or ["*"]
    instance_id                TEXT,
    enabled                    BOOLEAN NOT NULL,
    disabled_reason            TEXT NOT NULL DEFAULT '',
    secret                     TEXT NOT NULL,
    previous_secret            TEXT NOT NULL DEFAULT '',
    previous_secret_expires_at TIMESTAMP,
    failing_since              TIMESTAMP,
    created_at                 TIMESTAMP NOT NULL,
    updated_at                 TIMESTAMP NOT NULL
);
CREATE INDEX webhooks_workspace ON webhooks(workspace_id, id);

-- One event on its way to one endpoint: the transactional outbox of webhook delivery. Rows
-- are inserted in the transaction that records the event; workers claim due rows with
-- a simple claim (one process) and hold them with a lease (locked_until, locked_by).
CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    webhook_id      TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    workspace_id    TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    payload         TEXT, -- the envelope of events not in the event log (tests); else NULL
    status          TEXT NOT NULL,
    attempt_count   INTEGER NOT NULL DEFAULT 0,
    max_attempts    INTEGER NOT NULL,
    next_attempt_at TIMESTAMP,
    locked_until    TIMESTAMP,
    locked_by       TEXT,
    created_at      TIMESTAMP NOT NULL
);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhook_id, id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_webhook_due ON webhook_deliveries(webhook_id, next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries(locked_until) WHERE status = 'pending' AND locked_until IS NOT NULL;

CREATE TABLE webhook_delivery_attempts (
    delivery_id   TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
    n             INTEGER NOT NULL,
    attempted_at  TIMESTAMP NOT NULL,
    status_code   INTEGER NOT NULL,
    latency_ms    INTEGER NOT NULL,
    response_body TEXT NOT NULL,
    error         TEXT NOT NULL
);
CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts(delivery_id, n);

-- +goose Down
DROP TABLE webhook_delivery_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
