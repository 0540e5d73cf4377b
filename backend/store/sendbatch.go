package store

import (
	"context"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// This file holds the multi-row statements of the messaging service's group commit of
// sends: a batch of sends costs a few statements, not a few per send.

// values returns "(?, …), (?, …)" for rows of n parameters.
func values(rows, n int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
	return strings.TrimSuffix(strings.Repeat(one+", ", rows), ", ")
}

// GroupAddresses reports which (instance, address) pairs are groups of the instance, as
// "instanceID|address" keys.
func (q q) GroupAddresses(ctx context.Context, instanceIDs, addresses []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(instanceIDs) == 0 || len(addresses) == 0 {
		return out, nil
	}
	var rows []struct {
		InstanceID string `db:"instance_id"`
		Address    string `db:"address"`
	}
	err := q.sel(ctx, &rows, `SELECT instance_id, address FROM chat_groups WHERE instance_id IN (`+
		strings.TrimSuffix(strings.Repeat("?, ", len(instanceIDs)), ", ")+`) AND address IN (`+
		strings.TrimSuffix(strings.Repeat("?, ", len(addresses)), ", ")+`)`, append(anys(instanceIDs), anys(addresses)...)...)
	for _, r := range rows {
		out[r.InstanceID+"|"+r.Address] = true
	}
	return out, err
}

// ChatLast is a chat to create if missing, with the message that becomes its last.
type ChatLast struct {
	Chat      domain.Chat
	MessageID string
	At        time.Time
}

// ChatsWithMessages is ChatWithMessage for many chats (each (instance, address) once) in
// one statement; it returns the chats' ids by "instanceID|address", and the ids of those
// that are archived (for the caller to bring back: UnarchiveChats).
func (t *Tx) ChatsWithMessages(ctx context.Context, cs []ChatLast) (ids map[string]string, archived []string, err error) {
	out := make(map[string]string, len(cs))
	if len(cs) == 0 {
		return out, nil, nil
	}
	args := make([]any, 0, len(cs)*11)
	for _, c := range cs {
		args = append(args, c.Chat.ID, c.Chat.WorkspaceID, c.Chat.InstanceID, c.Chat.Address, c.Chat.Kind, c.Chat.Name,
			false, c.MessageID, c.At.UTC(), c.Chat.CreatedAt.UTC(), c.At.UTC())
	}
	rowSQL := "(?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)" // ChatWithMessage's row
	var rows []struct {
		ID         string `db:"id"`
		InstanceID string `db:"instance_id"`
		Address    string `db:"address"`
		Archived   bool   `db:"archived"`
	}
	err = t.sel(ctx, &rows, `INSERT INTO chats (`+chatCols+`) VALUES `+
		strings.TrimSuffix(strings.Repeat(rowSQL+", ", len(cs)), ", ")+`
		`+chatUpsert+` RETURNING id, instance_id, address, archived`, args...)
	for _, r := range rows {
		out[r.InstanceID+"|"+r.Address] = r.ID
		if r.Archived {
			archived = append(archived, r.ID)
		}
	}
	return out, archived, err
}

// InsertMessages stores new outbound messages in one statement.
func (t *Tx) InsertMessages(ctx context.Context, ms []domain.Message) error {
	if len(ms) == 0 {
		return nil
	}
	args := make([]any, 0, len(ms)*22)
	for _, m := range ms {
		args = append(args, messageArgs(m)...)
	}
	_, err := t.exec(ctx, `INSERT INTO messages (`+messageCols+`) VALUES `+
		strings.TrimSuffix(strings.Repeat(messageValues+", ", len(ms)), ", "), args...)
	return err
}

// InsertEvents appends events: with COPY on PostgreSQL from copyMin events, else in
// multi-row statements (insertRows).
func (t *Tx) InsertEvents(ctx context.Context, es []domain.Event) error {
	if len(es) == 0 {
		return nil
	}
	args := func(e domain.Event) []any {
		return []any{e.ID, e.WorkspaceID, e.Type, e.InstanceID, string(e.Data), e.Timestamp}
	}
	if t.usesCopy(len(es)) {
		return t.copyRows(ctx, "events", eventCols, len(es), func(i int) []any { return args(es[i]) })
	}
	return t.insertRows(ctx, "events", eventCols, 6, "", len(es), func(i int) []any { return args(es[i]) })
}
