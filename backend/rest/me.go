package rest

import (
	"net/http"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// me is the calling key with its workspace ("test connection").
type me struct {
	domain.APIKeyObject
	Workspace domain.WorkspaceObject `json:"workspace"`
}

func (a *api) getMe(r *http.Request) (me, error) {
	key, ws, err := a.svc.Keys.Key(r.Context(), actor(r))
	return me{APIKeyObject: key.Object(a.opts.Clock.Now()), Workspace: ws.Object()}, err
}
