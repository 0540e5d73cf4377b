package store

import (
	"context"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

type eventRow struct {
	ID          string    `db:"id"`
	WorkspaceID string    `db:"workspace_id"`
	Type        string    `db:"type"`
	InstanceID  *string   `db:"instance_id"`
	Data        string    `db:"data"`
	CreatedAt   time.Time `db:"created_at"`
}

func (r eventRow) event() domain.Event {
	return domain.Event{ID: r.ID, WorkspaceID: r.WorkspaceID, Type: r.Type, InstanceID: r.InstanceID,
		Data: []byte(r.Data), Timestamp: r.CreatedAt.UTC()}
}

const eventCols = `id, workspace_id, type, instance_id, data, created_at`

// InsertEvent appends an event to the log, in the transaction of the change it records.
func (t *Tx) InsertEvent(ctx context.Context, e domain.Event) error {
	_, err := t.exec(ctx, `INSERT INTO events (`+eventCols+`) VALUES (?, ?, ?, ?, ?, ?)`,
		e.ID, e.WorkspaceID, e.Type, e.InstanceID, string(e.Data), e.Timestamp)
	return err
}

// Event finds one event of a workspace.
func (q q) Event(ctx context.Context, workspaceID, id string) (domain.Event, error) {
	var r eventRow
	if err := q.get(ctx, &r, `SELECT `+eventCols+` FROM events WHERE workspace_id = ? AND id = ?`, workspaceID, id); err != nil {
		return domain.Event{}, notFoundAs(err, "event")
	}
	return r.event(), nil
}

// EventsByIDs finds events by id alone, in the order of ids (for notifications between
// replicas that name a batch of events); ids not found are left out.
func (q q) EventsByIDs(ctx context.Context, ids []string) ([]domain.Event, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	found, err := q.events(ctx, `SELECT `+eventCols+` FROM events WHERE id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]domain.Event, len(found))
	for _, e := range found {
		byID[e.ID] = e
	}
	out := make([]domain.Event, 0, len(found))
	for _, id := range ids {
		if e, ok := byID[id]; ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// Events lists a workspace's events newest first, before the cursor id when given.
// It returns up to limit+1 rows so the caller can tell whether there is more.
func (q q) Events(ctx context.Context, workspaceID string, f domain.EventFilter, before string, limit int) ([]domain.Event, error) {
	where, args := eventWhere(workspaceID, f)
	query, args := newestFirst(`SELECT `+eventCols+` FROM events`, where, args, before, limit)
	return q.events(ctx, query, args...)
}

// EventsAfter lists a workspace's events after the given id, oldest first (replay).
func (q q) EventsAfter(ctx context.Context, workspaceID string, f domain.EventFilter, after string, limit int) ([]domain.Event, error) {
	where, args := eventWhere(workspaceID, f)
	where = append(where, "id > ?")
	args = append(args, after, limit)
	return q.events(ctx, `SELECT `+eventCols+` FROM events WHERE `+strings.Join(where, " AND ")+` ORDER BY id ASC LIMIT ?`, args...)
}

func eventWhere(workspaceID string, f domain.EventFilter) ([]string, []any) {
	where := []string{"workspace_id = ?"}
	args := []any{workspaceID}
	if len(f.Types) > 0 && !contains(f.Types, "*") {
		where = append(where, "type IN (?"+strings.Repeat(", ?", len(f.Types)-1)+")")
		for _, t := range f.Types {
			args = append(args, t)
		}
	}
	if f.InstanceID != "" {
		where = append(where, "instance_id = ?")
		args = append(args, f.InstanceID)
	}
	if f.Since != nil {
		where = append(where, "created_at >= ?")
		args = append(args, f.Since.UTC())
	}
	if f.Until != nil {
		where = append(where, "created_at < ?")
		args = append(args, f.Until.UTC())
	}
	return where, args
}

func (q q) events(ctx context.Context, query string, args ...any) ([]domain.Event, error) {
	var rows []eventRow
	if err := q.sel(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	out := make([]domain.Event, len(rows))
	for i, r := range rows {
		out[i] = r.event()
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
