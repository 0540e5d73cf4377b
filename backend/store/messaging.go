package store

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// This file stores the messaging surface: instances, chats, messages, groups and contacts.
// Every read of an instance's objects names the workspace, so another workspace's are not
// found.

// ---- Instances ----

type instanceRow struct {
	ID                string     `db:"id"`
	WorkspaceID       string     `db:"workspace_id"`
	Name              string     `db:"name"`
	Channel           string     `db:"channel"`
	Status            string     `db:"status"`
	StatusReason      string     `db:"status_reason"`
	Address           string     `db:"address"`
	Config            string     `db:"config"`
	Secrets           string     `db:"secrets"`
	MessagesPerSecond int        `db:"messages_per_second"`
	Session           bool       `db:"session"`
	PairingCode       string     `db:"pairing_code"`
	PairingQR         string     `db:"pairing_qr"`
	PairingExpiresAt  *time.Time `db:"pairing_expires_at"`
	ConnectedAt       *time.Time `db:"connected_at"`
	CreatedAt         time.Time  `db:"created_at"`
	UpdatedAt         time.Time  `db:"updated_at"`
	CallbackTokenHash *string    `db:"callback_token_hash"`
	CallbackToken     string     `db:"callback_token"`
	CallbackSecret    string     `db:"callback_secret"`
}

const instanceCols = `id, workspace_id, name, channel, status, status_reason, address, config, secrets,
	messages_per_second, session, pairing_code, pairing_qr, pairing_expires_at, connected_at, created_at, updated_at,
	callback_token_hash, callback_token, callback_secret`

// StoredInstance is an instance with its secrets in stored (sealed) form.
type StoredInstance struct {
	domain.Instance
	SealedSecrets string
	// CallbackTokenHash finds the instance from its callback URL (nil: the channel does
	// not call back); SealedCallbackToken and SealedCallbackSecret are sealed.
	CallbackTokenHash    *string
	SealedCallbackToken  string
	SealedCallbackSecret string
}

func (r instanceRow) instance() (StoredInstance, error) {
	in := domain.Instance{ID: r.ID, WorkspaceID: r.WorkspaceID, Name: r.Name, Channel: r.Channel, Status: r.Status,
		StatusReason: r.StatusReason, Address: r.Address, MessagesPerSecond: r.MessagesPerSecond, Session: r.Session,
		PairingCode: r.PairingCode, PairingQR: r.PairingQR, PairingExpiresAt: utcPtr(r.PairingExpiresAt), ConnectedAt: utcPtr(r.ConnectedAt),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if err := json.Unmarshal([]byte(r.Config), &in.Config); err != nil {
		return StoredInstance{}, domain.Internal(err)
	}
	return StoredInstance{Instance: in, SealedSecrets: r.Secrets, CallbackTokenHash: r.CallbackTokenHash,
		SealedCallbackToken: r.CallbackToken, SealedCallbackSecret: r.CallbackSecret}, nil
}

func instancesOf(rows []instanceRow) ([]StoredInstance, error) {
	out := make([]StoredInstance, 0, len(rows))
	for _, r := range rows {
		in, err := r.instance()
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

func instanceArgs(in StoredInstance) []any {
	cfg, _ := json.Marshal(in.Config)
	if in.Config == nil {
		cfg = []byte("{}")
	}
	return []any{in.Name, in.Channel, in.Status, in.StatusReason, in.Address, string(cfg), in.SealedSecrets,
		in.MessagesPerSecond, in.Session, in.PairingCode, in.PairingQR, utcPtr(in.PairingExpiresAt), utcPtr(in.ConnectedAt),
		in.CreatedAt.UTC(), in.UpdatedAt.UTC(), in.CallbackTokenHash, in.SealedCallbackToken, in.SealedCallbackSecret}
}

// CreateInstance inserts an instance.
func (t *Tx) CreateInstance(ctx context.Context, in StoredInstance) error {
	_, err := t.exec(ctx, `INSERT INTO instances (`+instanceCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		append([]any{in.ID, in.WorkspaceID}, instanceArgs(in)...)...)
	return err
}

// SaveInstance writes every field of an instance back.
func (t *Tx) SaveInstance(ctx context.Context, in StoredInstance) error {
	return t.execOne(ctx, "instance", `UPDATE instances SET name = ?, channel = ?, status = ?, status_reason = ?, address = ?,
		config = ?, secrets = ?, messages_per_second = ?, session = ?, pairing_code = ?, pairing_qr = ?, pairing_expires_at = ?, connected_at = ?,
		created_at = ?, updated_at = ?, callback_token_hash = ?, callback_token = ?, callback_secret = ? WHERE id = ?`,
		append(instanceArgs(in), in.ID)...)
}

// Instance finds an instance of a workspace.
func (q q) Instance(ctx context.Context, workspaceID, id string) (StoredInstance, error) {
	var r instanceRow
	if err := q.get(ctx, &r, `SELECT `+instanceCols+` FROM instances WHERE workspace_id = ? AND id = ?`, workspaceID, id); err != nil {
		return StoredInstance{}, notFoundAs(err, "instance")
	}
	return r.instance()
}

// InstanceWithGroup reads an instance of a workspace and the instance's group with an
// address, if there is one (nil otherwise), in one query.
func (q q) InstanceWithGroup(ctx context.Context, workspaceID, id, address string) (StoredInstance, *domain.Group, error) {
	var r struct {
		instanceRow
		GroupID      *string    `db:"g_id"`
		Subject      *string    `db:"g_subject"`
		Description  *string    `db:"g_description"`
		Owner        *string    `db:"g_owner"`
		Participants *string    `db:"g_participants"`
		Left         *bool      `db:"g_left"`
		CreatedAt    *time.Time `db:"g_created_at"`
		UpdatedAt    *time.Time `db:"g_updated_at"`
	}
	if err := q.get(ctx, &r, `SELECT i.id, i.workspace_id, i.name, i.channel, i.status, i.status_reason, i.address, i.config,
		i.secrets, i.messages_per_second, i.session, i.pairing_code, i.pairing_qr, i.pairing_expires_at, i.connected_at,
		i.created_at, i.updated_at, i.callback_token_hash, i.callback_token, i.callback_secret, g.id AS g_id, g.subject AS g_subject, g.description AS g_description, g.owner AS g_owner,
		g.participants AS g_participants, g.left_group AS g_left, g.created_at AS g_created_at, g.updated_at AS g_updated_at
		FROM instances i LEFT JOIN chat_groups g ON g.instance_id = i.id AND g.address = ?
		WHERE i.workspace_id = ? AND i.id = ?`, address, workspaceID, id); err != nil {
		return StoredInstance{}, nil, notFoundAs(err, "instance")
	}
	in, err := r.instanceRow.instance()
	if err != nil || r.GroupID == nil {
		return in, nil, err
	}
	g, err := groupRow{ID: *r.GroupID, WorkspaceID: in.WorkspaceID, InstanceID: in.ID, Address: address, Subject: *r.Subject,
		Description: *r.Description, Owner: *r.Owner, Participants: *r.Participants, Left: *r.Left,
		CreatedAt: *r.CreatedAt, UpdatedAt: *r.UpdatedAt}.group()
	return in, &g, err
}

// LockInstance reads an instance of a workspace and, on PostgreSQL, locks its row until
// the transaction ends, so status changes on several replicas apply one after the other.
func (t *Tx) LockInstance(ctx context.Context, workspaceID, id string) (StoredInstance, error) {
	var r instanceRow
	if err := t.get(ctx, &r, `SELECT `+instanceCols+` FROM instances WHERE workspace_id = ? AND id = ?`+t.forUpdate(), workspaceID, id); err != nil {
		return StoredInstance{}, notFoundAs(err, "instance")
	}
	return r.instance()
}

// InstanceByCallbackToken finds an instance by its callback token's hash (any workspace:
// the provider's call names no workspace).
func (q q) InstanceByCallbackToken(ctx context.Context, hash string) (StoredInstance, error) {
	var r instanceRow
	if err := q.get(ctx, &r, `SELECT `+instanceCols+` FROM instances WHERE callback_token_hash = ?`, hash); err != nil {
		return StoredInstance{}, notFoundAs(err, "instance")
	}
	return r.instance()
}

// InstancesByID reads instances by id, whatever their workspace (for background work).
func (q q) InstancesByID(ctx context.Context, ids []string) (map[string]StoredInstance, error) {
	out := map[string]StoredInstance{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []instanceRow
	if err := q.sel(ctx, &rows, `SELECT `+instanceCols+` FROM instances WHERE id IN (`+placeholders(len(ids))+`)`, anys(ids)...); err != nil {
		return nil, err
	}
	ins, err := instancesOf(rows)
	for _, in := range ins {
		out[in.ID] = in
	}
	return out, err
}

// Instances lists a workspace's instances newest first (keyset page).
func (q q) Instances(ctx context.Context, workspaceID, before string, limit int) ([]StoredInstance, error) {
	query, args := newestFirst(`SELECT `+instanceCols+` FROM instances`, []string{"workspace_id = ?"}, []any{workspaceID}, before, limit)
	var rows []instanceRow
	if err := q.sel(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	return instancesOf(rows)
}

// CountInstances counts a workspace's instances.
func (q q) CountInstances(ctx context.Context, workspaceID string) (int, error) {
	var n int
	err := q.get(ctx, &n, `SELECT COUNT(*) FROM instances WHERE workspace_id = ?`, workspaceID)
	return n, err
}

// InstanceIDByAddress finds the instance of a workspace that holds an address on a channel.
func (q q) InstanceIDByAddress(ctx context.Context, workspaceID, channel, address string) (string, bool, error) {
	var ids []string
	if err := q.sel(ctx, &ids, `SELECT id FROM instances WHERE workspace_id = ? AND channel = ? AND address = ? ORDER BY id LIMIT 1`,
		workspaceID, channel, address); err != nil {
		return "", false, err
	}
	if len(ids) == 0 {
		return "", false, nil
	}
	return ids[0], true, nil
}

// DeleteInstance removes an instance with its chats, messages, groups and contacts.
func (t *Tx) DeleteInstance(ctx context.Context, workspaceID, id string) error {
	for _, table := range []string{"messages", "chats", "chat_groups", "contacts"} {
		if _, err := t.exec(ctx, `DELETE FROM `+table+` WHERE instance_id = ?`, id); err != nil {
			return err
		}
	}
	return t.execOne(ctx, "instance", `DELETE FROM instances WHERE workspace_id = ? AND id = ?`, workspaceID, id)
}

// ---- Chats ----

type chatRow struct {
	ID            string     `db:"id"`
	WorkspaceID   string     `db:"workspace_id"`
	InstanceID    string     `db:"instance_id"`
	Address       string     `db:"address"`
	Kind          string     `db:"kind"`
	Name          string     `db:"name"`
	UnreadCount   int        `db:"unread_count"`
	Archived      bool       `db:"archived"`
	LastMessageID *string    `db:"last_message_id"`
	LastMessageAt *time.Time `db:"last_message_at"`
	CreatedAt     time.Time  `db:"created_at"`
	UpdatedAt     time.Time  `db:"updated_at"`
}

const chatCols = `id, workspace_id, instance_id, address, kind, name, unread_count, archived, last_message_id,
	last_message_at, created_at, updated_at`

func (r chatRow) chat() domain.Chat {
	return domain.Chat{ID: r.ID, WorkspaceID: r.WorkspaceID, InstanceID: r.InstanceID, Address: r.Address, Kind: r.Kind,
		Name: r.Name, UnreadCount: r.UnreadCount, Archived: r.Archived, LastMessageID: r.LastMessageID,
		LastMessageAt: utcPtr(r.LastMessageAt), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// EnsureChat returns the instance's chat with an address, creating it (from c) when there
// is none.
func (t *Tx) EnsureChat(ctx context.Context, c domain.Chat) (domain.Chat, error) {
	if _, err := t.exec(ctx, `INSERT INTO chats (`+chatCols+`) VALUES (?, ?, ?, ?, ?, ?, 0, ?, NULL, NULL, ?, ?)
		ON CONFLICT (instance_id, address) DO NOTHING`, c.ID, c.WorkspaceID, c.InstanceID, c.Address, c.Kind, c.Name,
		false, c.CreatedAt.UTC(), c.UpdatedAt.UTC()); err != nil {
		return domain.Chat{}, err
	}
	var r chatRow
	if err := t.get(ctx, &r, `SELECT `+chatCols+` FROM chats WHERE instance_id = ? AND address = ?`, c.InstanceID, c.Address); err != nil {
		return domain.Chat{}, err
	}
	return r.chat(), nil
}

// chatUpsert creates a chat with its last message, or moves an existing chat's last message
// to the new one when newer. It leaves archived as it was, so that RETURNING tells the
// caller whether the message brings the chat back from the archive (UnarchiveChats): the
// rare case costs a statement more, the common one none.
const chatUpsert = `ON CONFLICT (instance_id, address) DO UPDATE SET
			last_message_id = CASE WHEN chats.last_message_id IS NULL OR chats.last_message_id < excluded.last_message_id
				THEN excluded.last_message_id ELSE chats.last_message_id END,
			last_message_at = CASE WHEN chats.last_message_id IS NULL OR chats.last_message_id < excluded.last_message_id
				THEN excluded.last_message_at ELSE chats.last_message_at END,
			updated_at = excluded.updated_at`

// ChatWithMessage returns the instance's chat with an address (creating it from c when
// there is none) with messageID as its last message when newer: one statement for the
// send path, which adds a message it has not stored yet (inside the same transaction).
// The chat's Archived is still what it was: an archived chat is the caller's to bring back
// (UnarchiveChats), with its event. On PostgreSQL the upsert locks the row, so an archive
// committed meanwhile is seen.
func (t *Tx) ChatWithMessage(ctx context.Context, c domain.Chat, messageID string, at time.Time) (domain.Chat, error) {
	var r chatRow
	err := t.get(ctx, &r, `INSERT INTO chats (`+chatCols+`) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)
		`+chatUpsert+` RETURNING `+chatCols, c.ID, c.WorkspaceID, c.InstanceID, c.Address, c.Kind, c.Name, false, messageID, at.UTC(),
		c.CreatedAt.UTC(), at.UTC())
	return r.chat(), err
}

// UnarchiveChats brings archived chats back (a message was sent in them) and returns those
// it changed, with their last messages.
func (t *Tx) UnarchiveChats(ctx context.Context, ids []string, now time.Time) ([]domain.Chat, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []chatRow
	if err := t.sel(ctx, &rows, `UPDATE chats SET archived = ?, updated_at = ? WHERE archived = ? AND id IN (`+
		placeholders(len(ids))+`) RETURNING `+chatCols, append([]any{false, now.UTC(), true}, anys(ids)...)...); err != nil {
		return nil, err
	}
	return t.withLastMessages(ctx, rows)
}

// ChatMessage moves a chat's last message to m (when m is newer) and adds to its unread
// count; a new message brings an archived chat back.
func (t *Tx) ChatMessage(ctx context.Context, chatID, messageID string, at time.Time, unread int) error {
	_, err := t.exec(ctx, `UPDATE chats SET last_message_id = ?, last_message_at = ?, unread_count = unread_count + ?,
		archived = ?, updated_at = ? WHERE id = ? AND (last_message_id IS NULL OR last_message_id < ?)`,
		messageID, at.UTC(), unread, false, at.UTC(), chatID, messageID)
	return err
}

// Chat finds a chat of an instance of a workspace, with its last message.
func (q q) Chat(ctx context.Context, workspaceID, instanceID, id string) (domain.Chat, error) {
	var r chatRow
	if err := q.get(ctx, &r, `SELECT `+chatCols+` FROM chats WHERE workspace_id = ? AND instance_id = ? AND id = ?`,
		workspaceID, instanceID, id); err != nil {
		return domain.Chat{}, notFoundAs(err, "chat")
	}
	cs, err := q.withLastMessages(ctx, []chatRow{r})
	if err != nil {
		return domain.Chat{}, err
	}
	return cs[0], nil
}

// chatActivity is a chat's place in the last_message order: its latest message's time, or
// its creation's. Index chats_activity (migration 00012) is on this very expression.
const chatActivity = `COALESCE(last_message_at, created_at)`

// ChatPos is where a page of chats ends: the last chat's id and, in the last_message
// order, its activity time (Chat.ActiveAt) as that page saw it.
type ChatPos struct {
	ID       string
	ActiveAt time.Time
}

// Chats lists up to limit of an instance's chats after pos (zero: from the start), the most
// recently active first or, with f.Sort created, the newest first; ties in activity go by
// id. The cursor carries the activity time the page saw, so a chat that becomes active
// meanwhile moves ahead of it and is not listed again.
func (q q) Chats(ctx context.Context, workspaceID, instanceID string, f domain.ChatFilter, after ChatPos, limit int) ([]domain.Chat, error) {
	where, args := []string{"workspace_id = ?", "instance_id = ?"}, []any{workspaceID, instanceID}
	if f.Archived != nil {
		where, args = append(where, "archived = ?"), append(args, *f.Archived)
	}
	var query string
	if f.Sort == domain.ChatSortCreated {
		query, args = newestFirst(`SELECT `+chatCols+` FROM chats`, where, args, after.ID, limit)
	} else {
		if after.ID != "" {
			// The row comparison is the keyset; the bound before it, implied by it, is what
			// lets SQLite seek in the index rather than scan up to the cursor.
			at := after.ActiveAt.UTC()
			where = append(where, chatActivity+` <= ?`, `(`+chatActivity+`, id) < (?, ?)`)
			args = append(args, at, at, after.ID)
		}
		query = `SELECT ` + chatCols + ` FROM chats WHERE ` + strings.Join(where, " AND ") +
			` ORDER BY ` + chatActivity + ` DESC, id DESC LIMIT ?`
		args = append(args, limit+1)
	}
	var rows []chatRow
	if err := q.sel(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	return q.withLastMessages(ctx, rows)
}

func (q q) withLastMessages(ctx context.Context, rows []chatRow) ([]domain.Chat, error) {
	var ids []string
	for _, r := range rows {
		if r.LastMessageID != nil {
			ids = append(ids, *r.LastMessageID)
		}
	}
	last, err := q.MessagesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Chat, len(rows))
	for i, r := range rows {
		out[i] = r.chat()
		if r.LastMessageID != nil {
			if m, ok := last[*r.LastMessageID]; ok {
				out[i].LastMessage = &m
			}
		}
	}
	return out, nil
}

// SetChatArchived archives or unarchives a chat.
func (t *Tx) SetChatArchived(ctx context.Context, id string, archived bool, now time.Time) error {
	return t.execOne(ctx, "chat", `UPDATE chats SET archived = ?, updated_at = ? WHERE id = ?`, archived, now.UTC(), id)
}

// MarkChatRead marks a chat's received messages read and returns them as they were.
func (t *Tx) MarkChatRead(ctx context.Context, chatID string, now time.Time) ([]domain.Message, error) {
	var rows []messageRow
	if err := t.sel(ctx, &rows, `SELECT `+messageCols+` FROM messages WHERE chat_id = ? AND direction = ? AND status = ? ORDER BY id`,
		chatID, domain.Inbound, domain.MessageReceived); err != nil {
		return nil, err
	}
	if _, err := t.exec(ctx, `UPDATE messages SET status = ?, read_at = ?, updated_at = ? WHERE chat_id = ? AND direction = ? AND status = ?`,
		domain.MessageRead, now.UTC(), now.UTC(), chatID, domain.Inbound, domain.MessageReceived); err != nil {
		return nil, err
	}
	if _, err := t.exec(ctx, `UPDATE chats SET unread_count = 0, updated_at = ? WHERE id = ?`, now.UTC(), chatID); err != nil {
		return nil, err
	}
	return messagesOf(rows)
}

// ---- Messages ----

type messageRow struct {
	ID                string     `db:"id"`
	WorkspaceID       string     `db:"workspace_id"`
	InstanceID        string     `db:"instance_id"`
	ChatID            string     `db:"chat_id"`
	Direction         string     `db:"direction"`
	ChatAddress       string     `db:"chat_address"`
	Sender            string     `db:"sender"`
	Type              string     `db:"type"`
	Content           string     `db:"content"`
	ReplyTo           *string    `db:"reply_to"`
	Status            string     `db:"status"`
	ErrorCode         string     `db:"error_code"`
	ErrorMessage      string     `db:"error_message"`
	ProviderMessageID *string    `db:"provider_message_id"`
	EditedAt          *time.Time `db:"edited_at"`
	DeletedAt         *time.Time `db:"deleted_at"`
	SentAt            *time.Time `db:"sent_at"`
	DeliveredAt       *time.Time `db:"delivered_at"`
	ReadAt            *time.Time `db:"read_at"`
	FailedAt          *time.Time `db:"failed_at"`
	CreatedAt         time.Time  `db:"created_at"`
	UpdatedAt         time.Time  `db:"updated_at"`
	ThreadID          *string    `db:"thread_id"`
}

// messageCols ends with thread_id, added later: SaveMessage reads messageArgs by position.
const messageCols = `id, workspace_id, instance_id, chat_id, direction, chat_address, sender, type, content, reply_to,
	status, error_code, error_message, provider_message_id, edited_at, deleted_at, sent_at, delivered_at, read_at,
	failed_at, created_at, updated_at, thread_id`

func (r messageRow) message() (domain.Message, error) {
	m := domain.Message{ID: r.ID, WorkspaceID: r.WorkspaceID, InstanceID: r.InstanceID, ChatID: r.ChatID,
		Direction: r.Direction, ChatAddress: r.ChatAddress, Sender: r.Sender, Type: r.Type, ReplyTo: r.ReplyTo,
		Status: r.Status, EditedAt: utcPtr(r.EditedAt), DeletedAt: utcPtr(r.DeletedAt), SentAt: utcPtr(r.SentAt),
		DeliveredAt: utcPtr(r.DeliveredAt), ReadAt: utcPtr(r.ReadAt), FailedAt: utcPtr(r.FailedAt),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if r.ProviderMessageID != nil {
		m.ProviderMessageID = *r.ProviderMessageID
	}
	if r.ThreadID != nil {
		m.ThreadID = *r.ThreadID
	}
	if r.ErrorCode != "" {
		m.Error = &domain.MessageError{Code: r.ErrorCode, Message: r.ErrorMessage}
	}
	if err := json.Unmarshal([]byte(r.Content), &m.Content); err != nil {
		return m, domain.Internal(err)
	}
	return m, nil
}

func messagesOf(rows []messageRow) ([]domain.Message, error) {
	out := make([]domain.Message, 0, len(rows))
	for _, r := range rows {
		m, err := r.message()
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func messageArgs(m domain.Message) []any {
	var code, msg string
	if m.Error != nil {
		code, msg = m.Error.Code, m.Error.Message
	}
	var provider, thread *string
	if m.ProviderMessageID != "" {
		provider = &m.ProviderMessageID
	}
	if m.ThreadID != "" {
		thread = &m.ThreadID
	}
	return []any{m.ID, m.WorkspaceID, m.InstanceID, m.ChatID, m.Direction, m.ChatAddress, m.Sender, m.Type,
		string(domain.RawJSON(m.Content)), m.ReplyTo, m.Status, code, msg, provider, utcPtr(m.EditedAt),
		utcPtr(m.DeletedAt), utcPtr(m.SentAt), utcPtr(m.DeliveredAt), utcPtr(m.ReadAt), utcPtr(m.FailedAt),
		m.CreatedAt.UTC(), m.UpdatedAt.UTC(), thread}
}

const messageValues = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// InsertMessage stores a message. An inbound message whose provider id the instance already
// has is not stored again: inserted is false.
func (t *Tx) InsertMessage(ctx context.Context, m domain.Message) (inserted bool, err error) {
	res, err := t.exec(ctx, `INSERT INTO messages (`+messageCols+`) VALUES `+messageValues+`
		ON CONFLICT (instance_id, direction, provider_message_id) DO NOTHING`, messageArgs(m)...)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// SaveMessage writes a message's changeable fields back.
func (t *Tx) SaveMessage(ctx context.Context, m domain.Message) error {
	a := messageArgs(m)
	// content, status, error_code, error_message, provider_message_id, then the times.
	return t.execOne(ctx, "message", `UPDATE messages SET content = ?, status = ?, error_code = ?, error_message = ?,
		provider_message_id = ?, edited_at = ?, deleted_at = ?, sent_at = ?, delivered_at = ?, read_at = ?, failed_at = ?,
		updated_at = ? WHERE id = ?`, append(append([]any{a[8]}, a[10:20]...), a[21], m.ID)...)
}

// Message finds a message of an instance of a workspace.
func (q q) Message(ctx context.Context, workspaceID, instanceID, id string) (domain.Message, error) {
	var r messageRow
	if err := q.get(ctx, &r, `SELECT `+messageCols+` FROM messages WHERE workspace_id = ? AND instance_id = ? AND id = ?`,
		workspaceID, instanceID, id); err != nil {
		return domain.Message{}, notFoundAs(err, "message")
	}
	return r.message()
}

// LastReceived finds the newest message received in an instance's chat with address.
func (q q) LastReceived(ctx context.Context, instanceID, address string) (domain.Message, error) {
	var r messageRow
	if err := q.get(ctx, &r, `SELECT `+messageCols+` FROM messages
		WHERE chat_id = (SELECT id FROM chats WHERE instance_id = ? AND address = ?) AND direction = ?
		ORDER BY id DESC LIMIT 1`, instanceID, address, domain.Inbound); err != nil {
		return domain.Message{}, notFoundAs(err, "message")
	}
	return r.message()
}

// MessageByProviderID finds an instance's message by the channel's id for it.
func (q q) MessageByProviderID(ctx context.Context, instanceID, direction, providerID string) (domain.Message, error) {
	var r messageRow
	if err := q.get(ctx, &r, `SELECT `+messageCols+` FROM messages WHERE instance_id = ? AND direction = ? AND provider_message_id = ?`,
		instanceID, direction, providerID); err != nil {
		return domain.Message{}, notFoundAs(err, "message")
	}
	return r.message()
}

// ChatHasQueuedOutbound tells whether a chat has an outbound message whose send has not
// committed yet.
func (q q) ChatHasQueuedOutbound(ctx context.Context, chatID string) (bool, error) {
	var ids []string
	err := q.sel(ctx, &ids, `SELECT id FROM messages WHERE chat_id = ? AND direction = ? AND status = ? LIMIT 1`,
		chatID, domain.Outbound, domain.MessageQueued)
	return len(ids) > 0, err
}

// MessagesByID reads messages by id.
func (q q) MessagesByID(ctx context.Context, ids []string) (map[string]domain.Message, error) {
	out := map[string]domain.Message{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []messageRow
	if err := q.sel(ctx, &rows, `SELECT `+messageCols+` FROM messages WHERE id IN (`+placeholders(len(ids))+`)`, anys(ids)...); err != nil {
		return nil, err
	}
	ms, err := messagesOf(rows)
	for _, m := range ms {
		out[m.ID] = m
	}
	return out, err
}

// Messages lists an instance's messages newest first, filtered.
func (q q) Messages(ctx context.Context, workspaceID, instanceID string, f domain.MessageFilter, before string, limit int) ([]domain.Message, error) {
	where, args := []string{"workspace_id = ?", "instance_id = ?"}, []any{workspaceID, instanceID}
	add := func(cond string, v any) { where, args = append(where, cond), append(args, v) }
	if f.Direction != "" {
		add("direction = ?", f.Direction)
	}
	if f.Status != "" {
		add("status = ?", f.Status)
	}
	if f.ChatID != "" {
		add("chat_id = ?", f.ChatID)
	}
	if f.Address != "" {
		add("chat_address = ?", f.Address)
	}
	if f.ThreadID != "" {
		add("thread_id = ?", f.ThreadID)
	}
	if f.Since != nil {
		add("created_at >= ?", f.Since.UTC())
	}
	if f.Until != nil {
		add("created_at < ?", f.Until.UTC())
	}
	query, args := newestFirst(`SELECT `+messageCols+` FROM messages`, where, args, before, limit)
	var rows []messageRow
	if err := q.sel(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	return messagesOf(rows)
}

// ---- Groups ----

type groupRow struct {
	ID           string    `db:"id"`
	WorkspaceID  string    `db:"workspace_id"`
	InstanceID   string    `db:"instance_id"`
	Address      string    `db:"address"`
	Subject      string    `db:"subject"`
	Description  string    `db:"description"`
	Owner        string    `db:"owner"`
	Participants string    `db:"participants"`
	Left         bool      `db:"left_group"`
	CreatedAt    time.Time `db:"created_at"`
	UpdatedAt    time.Time `db:"updated_at"`
}

const groupCols = `id, workspace_id, instance_id, address, subject, description, owner, participants, left_group, created_at, updated_at`

func (r groupRow) group() (domain.Group, error) {
	g := domain.Group{ID: r.ID, WorkspaceID: r.WorkspaceID, InstanceID: r.InstanceID, Address: r.Address, Subject: r.Subject,
		Description: r.Description, Owner: r.Owner, Left: r.Left, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	return g, unmarshalInternal(r.Participants, &g.Participants)
}

func unmarshalInternal(s string, v any) error {
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return domain.Internal(err)
	}
	return nil
}

// SaveGroup inserts a group, or writes back every field of the instance's group with the
// same address.
func (t *Tx) SaveGroup(ctx context.Context, g domain.Group) error {
	ps := string(domain.RawJSON(nonNil(g.Participants)))
	_, err := t.exec(ctx, `INSERT INTO chat_groups (`+groupCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (instance_id, address) DO UPDATE SET subject = excluded.subject, description = excluded.description,
		owner = excluded.owner, participants = excluded.participants, left_group = excluded.left_group,
		updated_at = excluded.updated_at`,
		g.ID, g.WorkspaceID, g.InstanceID, g.Address, g.Subject, g.Description, g.Owner, ps, g.Left,
		g.CreatedAt.UTC(), g.UpdatedAt.UTC())
	return err
}

// Group finds a group of an instance of a workspace.
func (q q) Group(ctx context.Context, workspaceID, instanceID, id string) (domain.Group, error) {
	var r groupRow
	if err := q.get(ctx, &r, `SELECT `+groupCols+` FROM chat_groups WHERE workspace_id = ? AND instance_id = ? AND id = ?`,
		workspaceID, instanceID, id); err != nil {
		return domain.Group{}, notFoundAs(err, "group")
	}
	return r.group()
}

// GroupByAddress finds an instance's group by its address on the channel.
func (q q) GroupByAddress(ctx context.Context, instanceID, address string) (domain.Group, error) {
	var r groupRow
	if err := q.get(ctx, &r, `SELECT `+groupCols+` FROM chat_groups WHERE instance_id = ? AND address = ?`, instanceID, address); err != nil {
		return domain.Group{}, notFoundAs(err, "group")
	}
	return r.group()
}

// Groups lists an instance's groups newest first.
func (q q) Groups(ctx context.Context, workspaceID, instanceID, before string, limit int) ([]domain.Group, error) {
	query, args := newestFirst(`SELECT `+groupCols+` FROM chat_groups`, []string{"workspace_id = ?", "instance_id = ?"},
		[]any{workspaceID, instanceID}, before, limit)
	var rows []groupRow
	if err := q.sel(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	out := make([]domain.Group, 0, len(rows))
	for _, r := range rows {
		g, err := r.group()
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// ---- Contacts ----

type contactRow struct {
	ID          string    `db:"id"`
	WorkspaceID string    `db:"workspace_id"`
	InstanceID  string    `db:"instance_id"`
	Address     string    `db:"address"`
	Name        string    `db:"name"`
	Labels      string    `db:"labels"`
	Attributes  string    `db:"attributes"`
	CreatedAt   time.Time `db:"created_at"`
	UpdatedAt   time.Time `db:"updated_at"`
}

const contactCols = `id, workspace_id, instance_id, address, name, labels, attributes, created_at, updated_at`

func (r contactRow) contact() (domain.Contact, error) {
	c := domain.Contact{ID: r.ID, WorkspaceID: r.WorkspaceID, InstanceID: r.InstanceID, Address: r.Address, Name: r.Name,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if err := unmarshalInternal(r.Labels, &c.Labels); err != nil {
		return c, err
	}
	return c, unmarshalInternal(r.Attributes, &c.Attributes)
}

func contactArgs(c domain.Contact) []any {
	attrs := c.Attributes
	if attrs == nil {
		attrs = map[string]string{}
	}
	return []any{c.ID, c.WorkspaceID, c.InstanceID, c.Address, c.Name, string(domain.RawJSON(nonNil(c.Labels))),
		string(domain.RawJSON(attrs)), c.CreatedAt.UTC(), c.UpdatedAt.UTC()}
}

// InsertContact stores a contact; created is false (and nothing changes) when the instance
// already has a contact with that address.
func (t *Tx) InsertContact(ctx context.Context, c domain.Contact) (created bool, err error) {
	res, err := t.exec(ctx, `INSERT INTO contacts (`+contactCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (instance_id, address) DO NOTHING`, contactArgs(c)...)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// SaveContact writes a contact's name, labels and attributes back.
func (t *Tx) SaveContact(ctx context.Context, c domain.Contact) error {
	a := contactArgs(c)
	return t.execOne(ctx, "contact", `UPDATE contacts SET name = ?, labels = ?, attributes = ?, updated_at = ? WHERE id = ?`,
		a[4], a[5], a[6], a[8], c.ID)
}

// DeleteContact removes a contact of an instance of a workspace.
func (t *Tx) DeleteContact(ctx context.Context, workspaceID, instanceID, id string) error {
	return t.execOne(ctx, "contact", `DELETE FROM contacts WHERE workspace_id = ? AND instance_id = ? AND id = ?`,
		workspaceID, instanceID, id)
}

// Contact finds a contact of an instance of a workspace.
func (q q) Contact(ctx context.Context, workspaceID, instanceID, id string) (domain.Contact, error) {
	var r contactRow
	if err := q.get(ctx, &r, `SELECT `+contactCols+` FROM contacts WHERE workspace_id = ? AND instance_id = ? AND id = ?`,
		workspaceID, instanceID, id); err != nil {
		return domain.Contact{}, notFoundAs(err, "contact")
	}
	return r.contact()
}

// ContactByAddress finds an instance's contact by address.
func (q q) ContactByAddress(ctx context.Context, instanceID, address string) (domain.Contact, error) {
	var r contactRow
	if err := q.get(ctx, &r, `SELECT `+contactCols+` FROM contacts WHERE instance_id = ? AND address = ?`, instanceID, address); err != nil {
		return domain.Contact{}, notFoundAs(err, "contact")
	}
	return r.contact()
}

// Contacts lists an instance's contacts newest first.
func (q q) Contacts(ctx context.Context, workspaceID, instanceID, before string, limit int) ([]domain.Contact, error) {
	query, args := newestFirst(`SELECT `+contactCols+` FROM contacts`, []string{"workspace_id = ?", "instance_id = ?"},
		[]any{workspaceID, instanceID}, before, limit)
	var rows []contactRow
	if err := q.sel(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	out := make([]domain.Contact, 0, len(rows))
	for _, r := range rows {
		c, err := r.contact()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// LockMessage reads a message by id and, on PostgreSQL, locks its row until the transaction
// ends: status changes (a send's outcome, receipts arriving together) apply one after the
// other instead of overwriting each other. SQLite serialises write transactions anyway.
func (t *Tx) LockMessage(ctx context.Context, id string) (domain.Message, error) {
	var r messageRow
	if err := t.get(ctx, &r, `SELECT `+messageCols+` FROM messages WHERE id = ?`+t.forUpdate(), id); err != nil {
		return domain.Message{}, notFoundAs(err, "message")
	}
	return r.message()
}

// LockMessageByProviderID is LockMessage by the channel's id for the message.
func (t *Tx) LockMessageByProviderID(ctx context.Context, instanceID, direction, providerID string) (domain.Message, error) {
	var r messageRow
	if err := t.get(ctx, &r, `SELECT `+messageCols+` FROM messages WHERE instance_id = ? AND direction = ? AND provider_message_id = ?`+
		t.forUpdate(), instanceID, direction, providerID); err != nil {
		return domain.Message{}, notFoundAs(err, "message")
	}
	return r.message()
}

func (t *Tx) forUpdate() string {
	if t.s.dialect == Postgres {
		return ` FOR UPDATE`
	}
	return ""
}

// MessageByID reads one message by id, whatever its workspace (for background work).
func (q q) MessageByID(ctx context.Context, id string) (domain.Message, error) {
	var r messageRow
	if err := q.get(ctx, &r, `SELECT `+messageCols+` FROM messages WHERE id = ?`, id); err != nil {
		return domain.Message{}, notFoundAs(err, "message")
	}
	return r.message()
}
