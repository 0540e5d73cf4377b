-- +goose Up
-- The channel's thread of a message within its chat: a Telegram forum topic's id (null for
-- chats without topics and for a forum's General topic).
ALTER TABLE messages ADD COLUMN thread_id TEXT;

-- +goose Down
ALTER TABLE messages DROP COLUMN thread_id;
