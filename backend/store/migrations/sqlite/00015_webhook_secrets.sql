-- +goose Up
-- Every signing secret a rotation replaced keeps signing deliveries until its own expiry (24
-- hours after the rotation that replaced it), so a second rotation within a day cuts no
-- receiver off. Values are stored like webhooks.secret: sealed ("enc:v1:...") when the
-- operator configures a secrets key. The service keeps at most a few live per endpoint;
-- expired ones are dropped by the endpoint's next rotation.
CREATE TABLE webhook_previous_secrets (
    webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    secret     TEXT NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    PRIMARY KEY (webhook_id, secret)
);

-- The one previous secret each endpoint had moves over (as is: sealed stays sealed).
INSERT INTO webhook_previous_secrets (webhook_id, secret, expires_at)
SELECT id, previous_secret, previous_secret_expires_at FROM webhooks
WHERE previous_secret <> '' AND previous_secret_expires_at IS NOT NULL;
-- The old columns stay, unused from now on: replicas of the previous version keep reading
-- and writing them during a rolling upgrade (switchboard migrate first, then the replicas).
-- A later migration drops them.

-- +goose Down
-- Back to one slot: the secret replaced last (the latest expiry) is kept.
UPDATE webhooks SET
    previous_secret = COALESCE((SELECT p.secret FROM webhook_previous_secrets p WHERE p.webhook_id = webhooks.id
                                ORDER BY p.expires_at DESC LIMIT 1), ''),
    previous_secret_expires_at = (SELECT MAX(p.expires_at) FROM webhook_previous_secrets p WHERE p.webhook_id = webhooks.id);
DROP TABLE webhook_previous_secrets;
