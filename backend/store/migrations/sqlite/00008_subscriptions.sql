-- +goose Up
-- Workflow tools' subscriptions (REST hooks: Zapier, n8n, Make) are webhook endpoints of
-- another kind: created and deleted by the tool through /automation/subscriptions, signed
-- and delivered like any endpoint. kind is 'webhook' (POST /webhooks) or 'subscription';
-- each API sees only its own kind, and events fan out to both.
ALTER TABLE webhooks ADD COLUMN kind TEXT NOT NULL DEFAULT 'webhook';
DROP INDEX webhooks_workspace;
CREATE INDEX webhooks_workspace ON webhooks(workspace_id, kind, id);

-- +goose Down
DROP INDEX webhooks_workspace;
CREATE INDEX webhooks_workspace ON webhooks(workspace_id, id);
ALTER TABLE webhooks DROP COLUMN kind;
