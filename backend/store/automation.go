package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// This file stores the automation surface: inbound publishing endpoints, their accepted
// calls and their action runs.

type endpointRow struct {
	ID           string    `db:"id"`
	WorkspaceID  string    `db:"workspace_id"`
	Name         string    `db:"name"`
	TokenHash    string    `db:"token_hash"`
	Token        string    `db:"token"`
	Verification string    `db:"verification"`
	Secret       string    `db:"secret"`
	Schema       string    `db:"schema"`
	Action       string    `db:"action"`
	Enabled      bool      `db:"enabled"`
	CreatedAt    time.Time `db:"created_at"`
	UpdatedAt    time.Time `db:"updated_at"`
}

const endpointCols = `id, workspace_id, name, token_hash, token, verification, secret, schema, action, enabled, created_at, updated_at`

// StoredPublisher is an endpoint with its token hash and its token and secret as stored
// (sealed).
type StoredPublisher struct {
	domain.Publisher
	TokenHash    string
	SealedToken  string
	SealedSecret string
}

func (r endpointRow) publisher() (StoredPublisher, error) {
	p := domain.Publisher{ID: r.ID, WorkspaceID: r.WorkspaceID, Name: r.Name, Verification: r.Verification,
		Enabled: r.Enabled, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if r.Schema != "" {
		p.Schema = json.RawMessage(r.Schema)
	}
	if r.Action != "" {
		p.Action = &domain.Action{}
		if err := json.Unmarshal([]byte(r.Action), p.Action); err != nil {
			return StoredPublisher{}, domain.Internal(err)
		}
	}
	return StoredPublisher{Publisher: p, TokenHash: r.TokenHash, SealedToken: r.Token, SealedSecret: r.Secret}, nil
}

func endpointArgs(p StoredPublisher) []any {
	action := ""
	if p.Action != nil {
		b, _ := json.Marshal(p.Action)
		action = string(b)
	}
	return []any{p.Name, p.TokenHash, p.SealedToken, p.Verification, p.SealedSecret, string(p.Schema), action, p.Enabled,
		p.CreatedAt.UTC(), p.UpdatedAt.UTC()}
}

// InsertPublisher stores a new endpoint.
func (t *Tx) InsertPublisher(ctx context.Context, p StoredPublisher) error {
	_, err := t.exec(ctx, `INSERT INTO automation_endpoints (`+endpointCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		append([]any{p.ID, p.WorkspaceID}, endpointArgs(p)...)...)
	return err
}

// SavePublisher writes an endpoint's fields back.
func (t *Tx) SavePublisher(ctx context.Context, p StoredPublisher) error {
	return t.execOne(ctx, "automation endpoint", `UPDATE automation_endpoints SET name = ?, token_hash = ?, token = ?,
		verification = ?, secret = ?, schema = ?, action = ?, enabled = ?, created_at = ?, updated_at = ? WHERE id = ?`,
		append(endpointArgs(p), p.ID)...)
}

// DeletePublisher removes an endpoint with its calls and runs.
func (t *Tx) DeletePublisher(ctx context.Context, workspaceID, id string) error {
	return t.execOne(ctx, "automation endpoint", `DELETE FROM automation_endpoints WHERE workspace_id = ? AND id = ?`, workspaceID, id)
}

// Publisher finds an endpoint of a workspace.
func (q q) Publisher(ctx context.Context, workspaceID, id string) (StoredPublisher, error) {
	var r endpointRow
	if err := q.get(ctx, &r, `SELECT `+endpointCols+` FROM automation_endpoints WHERE workspace_id = ? AND id = ?`,
		workspaceID, id); err != nil {
		return StoredPublisher{}, notFoundAs(err, "automation endpoint")
	}
	return r.publisher()
}

// PublisherByTokenHash finds an endpoint by its token's hash (any workspace).
func (q q) PublisherByTokenHash(ctx context.Context, hash string) (StoredPublisher, error) {
	var r endpointRow
	if err := q.get(ctx, &r, `SELECT `+endpointCols+` FROM automation_endpoints WHERE token_hash = ?`, hash); err != nil {
		return StoredPublisher{}, notFoundAs(err, "automation endpoint")
	}
	return r.publisher()
}

// Publishers lists a workspace's endpoints, newest first.
func (q q) Publishers(ctx context.Context, workspaceID, before string, limit int) ([]StoredPublisher, error) {
	var rows []endpointRow
	if err := q.sel(ctx, &rows, `SELECT `+endpointCols+` FROM automation_endpoints WHERE workspace_id = ? AND (? = '' OR id < ?)
		ORDER BY id DESC LIMIT ?`, workspaceID, before, before, limit); err != nil {
		return nil, err
	}
	out := make([]StoredPublisher, 0, len(rows))
	for _, r := range rows {
		p, err := r.publisher()
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// CountPublishers counts a workspace's endpoints.
func (q q) CountPublishers(ctx context.Context, workspaceID string) (int, error) {
	var n int
	err := q.get(ctx, &n, `SELECT COUNT(*) FROM automation_endpoints WHERE workspace_id = ?`, workspaceID)
	return n, err
}

type callRow struct {
	ID          string    `db:"id"`
	WorkspaceID string    `db:"workspace_id"`
	EndpointID  string    `db:"endpoint_id"`
	DedupeKey   *string   `db:"dedupe_key"`
	Payload     string    `db:"payload"`
	ReceivedAt  time.Time `db:"received_at"`
}

func (r callRow) call() domain.Published {
	c := domain.Published{ID: r.ID, WorkspaceID: r.WorkspaceID, EndpointID: r.EndpointID, Payload: json.RawMessage(r.Payload),
		ReceivedAt: r.ReceivedAt.UTC()}
	if r.DedupeKey != nil {
		c.DedupeKey = *r.DedupeKey
	}
	return c
}

const callCols = `id, workspace_id, endpoint_id, dedupe_key, payload, received_at`

// InsertCall stores an accepted call; a call with a dedupe key the endpoint already has is
// not stored again, and the first one is returned (inserted false).
func (t *Tx) InsertCall(ctx context.Context, c domain.Published) (domain.Published, bool, error) {
	var key *string
	if c.DedupeKey != "" {
		key = &c.DedupeKey
	}
	res, err := t.exec(ctx, `INSERT INTO automation_calls (`+callCols+`) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		c.ID, c.WorkspaceID, c.EndpointID, key, string(c.Payload), c.ReceivedAt.UTC())
	if err != nil {
		return c, false, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return c, true, nil
	}
	var r callRow
	if err := t.get(ctx, &r, `SELECT `+callCols+` FROM automation_calls WHERE endpoint_id = ? AND dedupe_key = ?`,
		c.EndpointID, c.DedupeKey); err != nil {
		return c, false, err
	}
	return r.call(), false, nil
}

// Call finds an accepted call of an endpoint.
func (q q) Call(ctx context.Context, endpointID, id string) (domain.Published, error) {
	var r callRow
	if err := q.get(ctx, &r, `SELECT `+callCols+` FROM automation_calls WHERE endpoint_id = ? AND id = ?`, endpointID, id); err != nil {
		return domain.Published{}, notFoundAs(err, "automation call")
	}
	return r.call(), nil
}

// Calls lists an endpoint's accepted calls, newest first.
func (q q) Calls(ctx context.Context, endpointID, before string, limit int) ([]domain.Published, error) {
	var rows []callRow
	if err := q.sel(ctx, &rows, `SELECT `+callCols+` FROM automation_calls WHERE endpoint_id = ? AND (? = '' OR id < ?)
		ORDER BY id DESC LIMIT ?`, endpointID, before, before, limit); err != nil {
		return nil, err
	}
	out := make([]domain.Published, len(rows))
	for i, r := range rows {
		out[i] = r.call()
	}
	return out, nil
}

type runRow struct {
	ID          string    `db:"id"`
	WorkspaceID string    `db:"workspace_id"`
	EndpointID  string    `db:"endpoint_id"`
	CallID      string    `db:"call_id"`
	ActionType  string    `db:"action_type"`
	Status      string    `db:"status"`
	Input       string    `db:"input"`
	Output      string    `db:"output"`
	Error       string    `db:"error"`
	Attempts    int       `db:"attempts"`
	DurationMS  int64     `db:"duration_ms"`
	CreatedAt   time.Time `db:"created_at"`
	UpdatedAt   time.Time `db:"updated_at"`
}

const runCols = `id, workspace_id, endpoint_id, call_id, action_type, status, input, output, error, attempts, duration_ms,
	created_at, updated_at`

func (r runRow) run() domain.Run {
	out := domain.Run{ID: r.ID, WorkspaceID: r.WorkspaceID, EndpointID: r.EndpointID, CallID: r.CallID, ActionType: r.ActionType,
		Status: r.Status, Error: r.Error, Attempts: r.Attempts, DurationMS: r.DurationMS, CreatedAt: r.CreatedAt.UTC(),
		UpdatedAt: r.UpdatedAt.UTC()}
	if r.Input != "" {
		out.Input = json.RawMessage(r.Input)
	}
	if r.Output != "" {
		out.Output = json.RawMessage(r.Output)
	}
	return out
}

func runArgs(r domain.Run) []any {
	return []any{r.ID, r.WorkspaceID, r.EndpointID, r.CallID, r.ActionType, r.Status, string(r.Input), string(r.Output),
		r.Error, r.Attempts, r.DurationMS, r.CreatedAt.UTC(), r.UpdatedAt.UTC()}
}

// InsertRun stores a new run.
func (t *Tx) InsertRun(ctx context.Context, r domain.Run) error {
	_, err := t.exec(ctx, `INSERT INTO automation_runs (`+runCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, runArgs(r)...)
	return err
}

// SaveRun writes a run's outcome back.
func (t *Tx) SaveRun(ctx context.Context, r domain.Run) error {
	_, err := t.exec(ctx, `UPDATE automation_runs SET status = ?, input = ?, output = ?, error = ?, attempts = ?, duration_ms = ?,
		updated_at = ? WHERE id = ?`, r.Status, string(r.Input), string(r.Output), r.Error, r.Attempts, r.DurationMS,
		r.UpdatedAt.UTC(), r.ID)
	return err
}

// RunByID finds a run by id alone (the action job's look-up).
func (q q) RunByID(ctx context.Context, id string) (domain.Run, error) {
	var r runRow
	if err := q.get(ctx, &r, `SELECT `+runCols+` FROM automation_runs WHERE id = ?`, id); err != nil {
		return domain.Run{}, notFoundAs(err, "automation run")
	}
	return r.run(), nil
}

// Runs lists an endpoint's runs, newest first.
func (q q) Runs(ctx context.Context, endpointID, before string, limit int) ([]domain.Run, error) {
	var rows []runRow
	if err := q.sel(ctx, &rows, `SELECT `+runCols+` FROM automation_runs WHERE endpoint_id = ? AND (? = '' OR id < ?)
		ORDER BY id DESC LIMIT ?`, endpointID, before, before, limit); err != nil {
		return nil, err
	}
	out := make([]domain.Run, len(rows))
	for i, r := range rows {
		out[i] = r.run()
	}
	return out, nil
}
