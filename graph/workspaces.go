package graph

import (
	"context"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/graph/model"
)

func (r *mutationResolver) EnsureWorkspace(ctx context.Context) (*domain.Workspace, error) {
	ws, err := r.svc.Workspaces.Ensure(ctx, actor(ctx))
	if err != nil {
		return nil, err
	}
	return &ws, nil
}

// Workspace is the caller's workspace: the session user's (null until ensureWorkspace) or
// the API key's.
func (r *viewerResolver) Workspace(ctx context.Context, _ *model.Viewer) (*domain.Workspace, error) {
	ws, err := r.svc.Workspaces.Get(ctx, actor(ctx))
	return nullWhenAbsent(ws, err)
}
