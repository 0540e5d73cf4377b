-- +goose Up
-- Bounded storage: one periodic job (retention.prune) deletes, in small batches, the rows of
-- every table that grows with traffic once they are older than their retention. Each table
-- is pruned oldest first by its time column, which these indexes serve.
CREATE INDEX events_created ON events(created_at);
CREATE INDEX webhook_deliveries_created ON webhook_deliveries(created_at);
CREATE INDEX link_clicks_time ON link_clicks(at);
CREATE INDEX automation_calls_received ON automation_calls(received_at);
CREATE INDEX automation_runs_created ON automation_runs(created_at);
-- (idempotency_keys has idempotency_created; failed jobs have jobs_failed.)

-- How far pruning has gone in each list the API pages with after= cursors: the greatest id
-- deleted so far. A cursor at or below it points into deleted rows and is answered with
-- 410 cursor_expired rather than a page that silently ends.
CREATE TABLE retention_marks (
    name       TEXT PRIMARY KEY,
    last_id    TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

-- Clicks are rolled up before their raw rows go, so a link's stats keep their totals. A
-- link's raw clicks before clicks_rolled_up_to (a UTC midnight) are counted by the rollups
-- only, whether or not they are deleted yet.
ALTER TABLE links ADD COLUMN clicks_rolled_up_to TIMESTAMP;

-- Clicks per link, UTC hour and the dimensions stats break down by.
CREATE TABLE link_click_rollups (
    link_id       TEXT NOT NULL,
    hour          TIMESTAMP NOT NULL,
    bot           BOOLEAN NOT NULL,
    country       TEXT NOT NULL,
    device        TEXT NOT NULL,
    browser       TEXT NOT NULL,
    os            TEXT NOT NULL,
    referrer_host TEXT NOT NULL,
    clicks        BIGINT NOT NULL
);
CREATE INDEX link_click_rollups_link ON link_click_rollups(link_id, hour);

-- Distinct visitors per link and UTC hour or day (period 'hour' or 'day'): humans among the
-- clicks that are not bots', everyone among all. Distinct counts do not add up across
-- periods, so both are kept.
CREATE TABLE link_visitor_rollups (
    link_id  TEXT NOT NULL,
    period   TEXT NOT NULL,
    start    TIMESTAMP NOT NULL,
    humans   BIGINT NOT NULL,
    everyone BIGINT NOT NULL,
    PRIMARY KEY (link_id, period, start)
);

-- +goose Down
DROP TABLE link_visitor_rollups;
DROP TABLE link_click_rollups;
ALTER TABLE links DROP COLUMN clicks_rolled_up_to;
DROP TABLE retention_marks;
DROP INDEX automation_runs_created;
DROP INDEX automation_calls_received;
DROP INDEX link_clicks_time;
DROP INDEX webhook_deliveries_created;
DROP INDEX events_created;
