-- +goose Up
-- The job engine: every piece of background work (webhook deliveries, and later message
-- sends, automation runs, click batches) is a row here, inserted in the transaction of the
-- change that causes it. Workers claim due rows in batches and hold them with a lease that
-- a heartbeat renews; a finished job is deleted (its kind records the outcome), a job out of
-- attempts stays as 'failed' until pruned.
CREATE TABLE jobs (
    id                 TEXT PRIMARY KEY,  -- time-sortable: FIFO order within an ordering key
    kind               TEXT NOT NULL,
    payload            TEXT NOT NULL,
    status             TEXT NOT NULL,     -- queued | running | failed
    run_at             TIMESTAMPTZ NOT NULL,
    attempts           INTEGER NOT NULL DEFAULT 0, -- attempts started
    max_attempts       INTEGER NOT NULL,
    concurrency_key    TEXT NOT NULL DEFAULT '',   -- at most concurrency_limit running per key
    concurrency_limit  INTEGER NOT NULL DEFAULT 0,
    pacing_key         TEXT NOT NULL DEFAULT '',   -- at most one start per pacing_interval_ms per key
    pacing_interval_ms INTEGER NOT NULL DEFAULT 0,
    ordering_key       TEXT NOT NULL DEFAULT '',   -- FIFO: one at a time per key, in id order
    locked_by          TEXT,
    locked_until       TIMESTAMPTZ,
    last_error         TEXT NOT NULL DEFAULT '',
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL
);
CREATE INDEX jobs_due ON jobs(kind, run_at, id) WHERE status = 'queued';
CREATE INDEX jobs_running ON jobs(kind, locked_until) WHERE status = 'running';
CREATE INDEX jobs_ordering ON jobs(kind, ordering_key, id) WHERE ordering_key <> '';
CREATE INDEX jobs_concurrency ON jobs(kind, concurrency_key) WHERE concurrency_key <> '';
CREATE INDEX jobs_failed ON jobs(updated_at) WHERE status = 'failed';

-- When the next job of a pacing key may start.
CREATE TABLE job_pacing (
    pacing_key TEXT PRIMARY KEY,
    next_at    TIMESTAMPTZ NOT NULL
);

-- Webhook deliveries become jobs of kind webhook.delivery (same id): the deliveries table
-- keeps the log the API shows, the jobs table the queue.
INSERT INTO jobs (id, kind, payload, status, run_at, attempts, max_attempts, concurrency_key, created_at, updated_at)
SELECT id, 'webhook.delivery', '{}', 'queued', COALESCE(next_attempt_at, created_at), attempt_count, max_attempts,
       'webhook:' || webhook_id, created_at, created_at
FROM webhook_deliveries WHERE status = 'pending';
DROP INDEX webhook_deliveries_leased;
DROP INDEX webhook_deliveries_due;
ALTER TABLE webhook_deliveries DROP COLUMN locked_until;
ALTER TABLE webhook_deliveries DROP COLUMN locked_by;

-- +goose Down
ALTER TABLE webhook_deliveries ADD COLUMN locked_until TIMESTAMPTZ;
ALTER TABLE webhook_deliveries ADD COLUMN locked_by TEXT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries(locked_until) WHERE status = 'pending' AND locked_until IS NOT NULL;
DROP TABLE job_pacing;
DROP TABLE jobs;
