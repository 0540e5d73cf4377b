-- +goose Up
-- The job engine's claims per pacing key: a claim lists the pacing keys with queued jobs (a
-- loose index scan, one probe per key) and reads each free key's oldest jobs, whatever the
-- length of its queue (store.ClaimJobs).
CREATE INDEX jobs_pacing ON jobs(kind, pacing_key, run_at, id) WHERE status = 'queued';

-- +goose Down
DROP INDEX jobs_pacing;
