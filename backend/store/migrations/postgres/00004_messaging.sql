-- +goose Up
-- Channel instances. config is the channel's settings as JSON without secrets; secrets is a
-- JSON object of the write-only settings, encrypted as a whole ("enc:v1:..." when the
-- operator configures a secrets key).
CREATE TABLE instances (
    id                  TEXT PRIMARY KEY,
    workspace_id        TEXT NOT NULL REFERENCES workspaces(id),
    name                TEXT NOT NULL,
    channel             TEXT NOT NULL,
    status              TEXT NOT NULL,
    status_reason       TEXT NOT NULL DEFAULT '',
    address             TEXT NOT NULL DEFAULT '',
    config              TEXT NOT NULL,
    secrets             TEXT NOT NULL DEFAULT '',
    messages_per_second INTEGER NOT NULL,
    session             BOOLEAN NOT NULL DEFAULT FALSE,
    pairing_code        TEXT NOT NULL DEFAULT '',
    pairing_qr          TEXT NOT NULL DEFAULT '',
    pairing_expires_at  TIMESTAMPTZ,
    connected_at        TIMESTAMPTZ,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL
);
CREATE INDEX instances_workspace ON instances(workspace_id, id);
CREATE INDEX instances_address ON instances(workspace_id, channel, address);

-- Conversations: one per contact or group address of an instance.
CREATE TABLE chats (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL,
    instance_id     TEXT NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
    address         TEXT NOT NULL,
    kind            TEXT NOT NULL,
    name            TEXT NOT NULL DEFAULT '',
    unread_count    INTEGER NOT NULL DEFAULT 0,
    archived        BOOLEAN NOT NULL DEFAULT FALSE,
    last_message_id TEXT,
    last_message_at TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    UNIQUE (instance_id, address)
);
CREATE INDEX chats_instance ON chats(instance_id, id);

-- Messages, both directions. provider_message_id is the channel's id: unique per instance
-- and direction, so a provider's retried callback stores one message.
CREATE TABLE messages (
    id                  TEXT PRIMARY KEY,
    workspace_id        TEXT NOT NULL,
    instance_id         TEXT NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
    chat_id             TEXT NOT NULL,
    direction           TEXT NOT NULL,
    chat_address        TEXT NOT NULL,
    sender              TEXT NOT NULL,
    type                TEXT NOT NULL,
    content             TEXT NOT NULL,
    reply_to            TEXT,
    status              TEXT NOT NULL,
    error_code          TEXT NOT NULL DEFAULT '',
    error_message       TEXT NOT NULL DEFAULT '',
    provider_message_id TEXT,
    edited_at           TIMESTAMPTZ,
    deleted_at          TIMESTAMPTZ,
    sent_at             TIMESTAMPTZ,
    delivered_at        TIMESTAMPTZ,
    read_at             TIMESTAMPTZ,
    failed_at           TIMESTAMPTZ,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL,
    UNIQUE (instance_id, direction, provider_message_id)
);
CREATE INDEX messages_instance ON messages(instance_id, id);
CREATE INDEX messages_chat ON messages(chat_id, id);

-- Groups as one instance sees them; participants is a JSON array of {address, role}.
CREATE TABLE chat_groups (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    instance_id  TEXT NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
    address      TEXT NOT NULL,
    subject      TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    owner        TEXT NOT NULL DEFAULT '',
    participants TEXT NOT NULL,
    left_group   BOOLEAN NOT NULL DEFAULT FALSE,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    UNIQUE (instance_id, address)
);
CREATE INDEX chat_groups_instance ON chat_groups(instance_id, id);

-- Contacts of an instance, one per address.
CREATE TABLE contacts (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    instance_id  TEXT NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
    address      TEXT NOT NULL,
    name         TEXT NOT NULL DEFAULT '',
    labels       TEXT NOT NULL,
    attributes   TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    UNIQUE (instance_id, address)
);
CREATE INDEX contacts_instance ON contacts(instance_id, id);

-- +goose Down
DROP TABLE contacts;
DROP TABLE chat_groups;
DROP TABLE messages;
DROP TABLE chats;
DROP TABLE instances;
