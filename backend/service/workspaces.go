package service

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Workspaces creates and reads the signed-in user's workspace.
type Workspaces struct{ s *Service }

// Ensure returns the user's workspace, creating it (and its workspace.created event) the
// first time. Concurrent first calls create exactly one.
func (w *Workspaces) Ensure(ctx context.Context, a Actor) (domain.Workspace, error) {
	if err := requireSession(a); err != nil {
		return domain.Workspace{}, err
	}
	if ws, err := w.s.store.WorkspaceByOwner(ctx, a.UserID); err == nil || !domain.IsCode(err, domain.CodeNotFound) {
		return ws, err
	}
	user, err := w.s.store.UserByID(ctx, a.UserID)
	if err != nil {
		return domain.Workspace{}, err
	}
	ws := domain.Workspace{ID: domain.NewID(domain.PrefixWorkspace), Name: fmt.Sprintf("%s's workspace", user.Name),
		OwnerID: user.ID, CreatedAt: w.s.cfg.Clock.Now()}
	err = w.s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateWorkspace(ctx, ws); err != nil {
			return err
		}
		_, err := w.s.record(ctx, tx, ws.ID, domain.EventWorkspaceCreated, nil, ws.Object())
		return err
	})
	if domain.IsCode(err, domain.CodeConflict) { // another request created it first
		return w.s.store.WorkspaceByOwner(ctx, a.UserID)
	}
	return ws, err
}

// Get returns the actor's workspace (not found before Ensure).
func (w *Workspaces) Get(ctx context.Context, a Actor) (domain.Workspace, error) {
	switch {
	case a.IsKey():
		return w.s.store.WorkspaceByID(ctx, a.WorkspaceID)
	case a.IsSession():
		return w.s.store.WorkspaceByOwner(ctx, a.UserID)
	}
	return domain.Workspace{}, errSignedOut
}
