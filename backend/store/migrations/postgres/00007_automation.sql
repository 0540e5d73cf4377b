-- +goose Up
-- Inbound publishing endpoints. token_hash (SHA-256 hex of the /hooks/{token} token) finds
-- an endpoint; token and secret are kept sealed (the console shows the URL again).
CREATE TABLE automation_endpoints (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    token        TEXT NOT NULL,
    verification TEXT NOT NULL,
    secret       TEXT NOT NULL DEFAULT '',
    schema       TEXT NOT NULL DEFAULT '',
    action       TEXT NOT NULL DEFAULT '',
    enabled      BOOLEAN NOT NULL DEFAULT TRUE,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX automation_endpoints_workspace ON automation_endpoints(workspace_id, id);

-- Accepted calls (their id is their automation.published event's). dedupe_key (the caller's
-- Idempotency-Key or webhook-id) makes a retried call one call.
CREATE TABLE automation_calls (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    endpoint_id  TEXT NOT NULL REFERENCES automation_endpoints(id) ON DELETE CASCADE,
    dedupe_key   TEXT,
    payload      TEXT NOT NULL,
    received_at  TIMESTAMPTZ NOT NULL,
    UNIQUE (endpoint_id, dedupe_key)
);
CREATE INDEX automation_calls_endpoint ON automation_calls(endpoint_id, id);

-- Action runs, one per call of an endpoint with an action.
CREATE TABLE automation_runs (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    endpoint_id  TEXT NOT NULL REFERENCES automation_endpoints(id) ON DELETE CASCADE,
    call_id      TEXT NOT NULL,
    action_type  TEXT NOT NULL,
    status       TEXT NOT NULL,
    input        TEXT NOT NULL DEFAULT '',
    output       TEXT NOT NULL DEFAULT '',
    error        TEXT NOT NULL DEFAULT '',
    attempts     INTEGER NOT NULL DEFAULT 0,
    duration_ms  BIGINT NOT NULL DEFAULT 0,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX automation_runs_endpoint ON automation_runs(endpoint_id, id);

-- +goose Down
DROP TABLE automation_runs;
DROP TABLE automation_calls;
DROP TABLE automation_endpoints;
