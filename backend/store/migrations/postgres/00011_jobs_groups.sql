-- +goose Up
-- A second, wider concurrency limit per job: its group (a webhook delivery's workspace), so
-- that one tenant's slow endpoints cannot hold every worker (store.ClaimJobs).
ALTER TABLE jobs ADD COLUMN group_key TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN group_limit INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE jobs DROP COLUMN group_limit;
ALTER TABLE jobs DROP COLUMN group_key;
