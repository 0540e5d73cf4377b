package store

import (
	"context"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// CreateWorkspace inserts a workspace; a second one for the same owner is a conflict.
func (t *Tx) CreateWorkspace(ctx context.Context, w domain.Workspace) error {
	_, err := t.exec(ctx, `INSERT INTO workspaces (id, name, owner_id, created_at) VALUES (?, ?, ?, ?)`,
		w.ID, w.Name, w.OwnerID, w.CreatedAt)
	return err
}

// WorkspaceByOwner finds the workspace a user owns.
func (q q) WorkspaceByOwner(ctx context.Context, userID string) (domain.Workspace, error) {
	var w domain.Workspace
	err := q.get(ctx, &w, `SELECT id, name, owner_id, created_at FROM workspaces WHERE owner_id = ?`, userID)
	return w, notFoundAs(err, "workspace")
}

// WorkspaceByID finds a workspace.
func (q q) WorkspaceByID(ctx context.Context, id string) (domain.Workspace, error) {
	var w domain.Workspace
	err := q.get(ctx, &w, `SELECT id, name, owner_id, created_at FROM workspaces WHERE id = ?`, id)
	return w, notFoundAs(err, "workspace")
}
