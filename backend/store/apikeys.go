package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

type apiKeyRow struct {
	domain.APIKey
	ScopesJSON  string `db:"scopes"`
	OriginsJSON string `db:"allowed_origins"`
}

func (r apiKeyRow) key() (domain.APIKey, error) {
	k := r.APIKey
	if err := json.Unmarshal([]byte(r.ScopesJSON), &k.Scopes); err != nil {
		return k, domain.Internal(err)
	}
	if err := json.Unmarshal([]byte(r.OriginsJSON), &k.AllowedOrigins); err != nil {
		return k, domain.Internal(err)
	}
	return k, nil
}

const apiKeyCols = `id, workspace_id, name, hash, prefix, last_four, scopes, allowed_origins, created_by,
	created_at, last_used_at, expires_at, revoked_at`

// CreateAPIKey inserts a key (only its hash).
func (t *Tx) CreateAPIKey(ctx context.Context, k domain.APIKey) error {
	scopes, _ := json.Marshal(nonNil(k.Scopes))
	origins, _ := json.Marshal(nonNil(k.AllowedOrigins))
	_, err := t.exec(ctx, `INSERT INTO api_keys (`+apiKeyCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.WorkspaceID, k.Name, k.Hash, k.Prefix, k.LastFour, string(scopes), string(origins), k.CreatedBy,
		k.CreatedAt, k.LastUsedAt, k.ExpiresAt, k.RevokedAt)
	return err
}

// APIKeyByHash finds a key by the SHA-256 of its secret.
func (q q) APIKeyByHash(ctx context.Context, hash string) (domain.APIKey, error) {
	var r apiKeyRow
	if err := q.get(ctx, &r, `SELECT `+apiKeyCols+` FROM api_keys WHERE hash = ?`, hash); err != nil {
		return domain.APIKey{}, notFoundAs(err, "API key")
	}
	return r.key()
}

// APIKey finds a key of a workspace; another workspace's key is not found.
func (q q) APIKey(ctx context.Context, workspaceID, id string) (domain.APIKey, error) {
	var r apiKeyRow
	if err := q.get(ctx, &r, `SELECT `+apiKeyCols+` FROM api_keys WHERE workspace_id = ? AND id = ?`, workspaceID, id); err != nil {
		return domain.APIKey{}, notFoundAs(err, "API key")
	}
	return r.key()
}

// APIKeys lists a workspace's keys, newest first.
func (q q) APIKeys(ctx context.Context, workspaceID string) ([]domain.APIKey, error) {
	var rows []apiKeyRow
	if err := q.sel(ctx, &rows, `SELECT `+apiKeyCols+` FROM api_keys WHERE workspace_id = ? ORDER BY id DESC`, workspaceID); err != nil {
		return nil, err
	}
	keys := make([]domain.APIKey, 0, len(rows))
	for _, r := range rows {
		k, err := r.key()
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// RevokeAPIKey marks a key revoked; revoking a revoked key keeps the first time.
func (t *Tx) RevokeAPIKey(ctx context.Context, workspaceID, id string, at time.Time) error {
	return t.execOne(ctx, "API key", `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE workspace_id = ? AND id = ?`,
		at, workspaceID, id)
}

// TouchAPIKeys records last use for many keys in one statement per key batch.
func (q q) TouchAPIKeys(ctx context.Context, used map[string]time.Time) error {
	for id, at := range used {
		// Never move last_used_at backwards (another replica may have flushed a later time).
		if _, err := q.exec(ctx, `UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
			at, id, at); err != nil {
			return err
		}
	}
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
