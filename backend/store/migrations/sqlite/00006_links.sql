-- +goose Up
-- Short links. The slug is unique across workspaces (it is the public path). A deleted link
-- keeps its row (deleted_at set) so that its slug is not reused for 30 days; lists and
-- lookups skip it. tags, metadata and utm are JSON text. clicks counts non-bot clicks.
CREATE TABLE links (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces(id),
    slug            TEXT NOT NULL UNIQUE,
    url             TEXT NOT NULL,
    title           TEXT NOT NULL DEFAULT '',
    tags            TEXT NOT NULL,
    expires_at      TIMESTAMP,
    expired_url     TEXT NOT NULL DEFAULT '',
    max_clicks      BIGINT,
    password_hash   TEXT NOT NULL DEFAULT '',
    redirect_status INTEGER NOT NULL,
    metadata        TEXT NOT NULL,
    external_id     TEXT,
    utm             TEXT NOT NULL,
    ios_url         TEXT NOT NULL DEFAULT '',
    android_url     TEXT NOT NULL DEFAULT '',
    archived        BOOLEAN NOT NULL DEFAULT FALSE,
    clicks          BIGINT NOT NULL DEFAULT 0,
    last_clicked_at TIMESTAMP,
    deleted_at      TIMESTAMP,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    UNIQUE (workspace_id, external_id)
);
CREATE INDEX links_workspace ON links(workspace_id, id);

-- Clicks, written in batches. visitor is a hash of the IP salted per day (never the IP).
CREATE TABLE link_clicks (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL,
    link_id         TEXT NOT NULL,
    at              TIMESTAMP NOT NULL,
    referrer        TEXT NOT NULL DEFAULT '',
    referrer_host   TEXT NOT NULL DEFAULT '',
    browser         TEXT NOT NULL DEFAULT '',
    browser_version TEXT NOT NULL DEFAULT '',
    os              TEXT NOT NULL DEFAULT '',
    device          TEXT NOT NULL DEFAULT '',
    country         TEXT NOT NULL DEFAULT '',
    bot             BOOLEAN NOT NULL DEFAULT FALSE,
    bot_reason      TEXT NOT NULL DEFAULT '',
    qr              BOOLEAN NOT NULL DEFAULT FALSE,
    visitor         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX link_clicks_link ON link_clicks(link_id, id);
CREATE INDEX link_clicks_at ON link_clicks(link_id, at);

-- +goose Down
DROP TABLE link_clicks;
DROP TABLE links;
