-- +goose Up
-- The scopes of the caller whose request claimed the key: a replay answers only a caller
-- holding all of them (a response can carry what only those scopes may see). Rows from
-- before this column read '' and replay only to full access.
ALTER TABLE idempotency_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE idempotency_keys DROP COLUMN scopes;
