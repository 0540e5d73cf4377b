-- +goose Up
-- Channels whose provider calls back (Telegram, WhatsApp Cloud) get a callback URL per
-- instance: /channels/{driver}/{callback_token}. The token is looked up by its hash and kept
-- sealed (the console shows the URL again); callback_secret, also sealed, is what providers
-- that echo a secret send on every call (Telegram's secret_token). Rotating replaces both.
ALTER TABLE instances ADD COLUMN callback_token_hash TEXT;
ALTER TABLE instances ADD COLUMN callback_token TEXT NOT NULL DEFAULT '';
ALTER TABLE instances ADD COLUMN callback_secret TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX instances_callback_token ON instances(callback_token_hash);

-- +goose Down
DROP INDEX instances_callback_token;
ALTER TABLE instances DROP COLUMN callback_secret;
ALTER TABLE instances DROP COLUMN callback_token;
ALTER TABLE instances DROP COLUMN callback_token_hash;
