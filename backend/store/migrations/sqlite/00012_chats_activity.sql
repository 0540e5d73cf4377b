-- +goose Up
-- Chat lists put the most recently active chat first (a chat without messages counts from
-- its creation): store.Chats orders and pages by this very expression, then by id.
CREATE INDEX chats_activity ON chats (instance_id, COALESCE(last_message_at, created_at) DESC, id DESC);

-- +goose Down
DROP INDEX chats_activity;
