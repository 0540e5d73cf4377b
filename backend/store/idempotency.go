package store

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// IdempotentResponse is a stored POST response, replayed for the same key and body.
type IdempotentResponse struct {
	WorkspaceID  string    `db:"workspace_id"`
	Key          string    `db:"key"`
	RequestHash  string    `db:"request_hash"`
	Scopes       string    `db:"scopes"`      // the claiming caller's, comma-separated ("" from before they were kept)
	StatusCode   int       `db:"status_code"` // 0 while the first request is in flight
	ResponseBody string    `db:"response_body"`
	ResponseType string    `db:"response_type"`
	CreatedAt    time.Time `db:"created_at"`
}

// ClaimIdempotencyKey records that a request with this key started. It returns the
// existing record and false when the key was already claimed.
func (q q) ClaimIdempotencyKey(ctx context.Context, r IdempotentResponse) (IdempotentResponse, bool, error) {
	_, err := q.exec(ctx, `INSERT INTO idempotency_keys (workspace_id, key, request_hash, scopes, created_at) VALUES (?, ?, ?, ?, ?)`,
		r.WorkspaceID, r.Key, r.RequestHash, r.Scopes, r.CreatedAt)
	if err == nil {
		return r, true, nil
	}
	if !domain.IsCode(err, domain.CodeConflict) {
		return r, false, err
	}
	var existing IdempotentResponse
	if err := q.get(ctx, &existing, `SELECT workspace_id, key, request_hash, scopes, status_code, response_body, response_type, created_at
		FROM idempotency_keys WHERE workspace_id = ? AND key = ?`, r.WorkspaceID, r.Key); err != nil {
		return r, false, err
	}
	return existing, false, nil
}

// CompleteIdempotencyKey stores the response of the first request.
func (q q) CompleteIdempotencyKey(ctx context.Context, workspaceID, key string, status int, contentType, body string) error {
	_, err := q.exec(ctx, `UPDATE idempotency_keys SET status_code = ?, response_type = ?, response_body = ? WHERE workspace_id = ? AND key = ?`,
		status, contentType, body, workspaceID, key)
	return err
}

// ReleaseIdempotencyKey forgets a claim whose request did not finish (so it can be retried).
func (q q) ReleaseIdempotencyKey(ctx context.Context, workspaceID, key string) error {
	_, err := q.exec(ctx, `DELETE FROM idempotency_keys WHERE workspace_id = ? AND key = ?`, workspaceID, key)
	return err
}

// DeleteIdempotencyKeysBefore forgets keys older than the replay window.
func (q q) DeleteIdempotencyKeysBefore(ctx context.Context, before time.Time) error {
	_, err := q.exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < ?`, before)
	return err
}
