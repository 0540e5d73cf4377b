package service

import (
	"context"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Actor is who is calling: a console user (session) or an API key.
type Actor struct {
	UserID      string // console sessions
	SessionID   string
	WorkspaceID string // the key's workspace, or the session user's once it exists
	KeyID       string // API keys
	Scopes      []domain.Scope
	// AllowedOrigins are the browser origins the key may be used from ("*" for any).
	AllowedOrigins []string
}

// AllowsOrigin reports whether a browser request from origin may use this key. Keys without
// a list refuse every foreign origin (the transport always allows the service's own).
func (a Actor) AllowsOrigin(origin string) bool {
	for _, o := range a.AllowedOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}

// IsSession reports whether the actor is a signed-in console user.
func (a Actor) IsSession() bool { return a.UserID != "" && a.KeyID == "" }

// IsKey reports whether the actor is an API key.
func (a Actor) IsKey() bool { return a.KeyID != "" }

type actorKey struct{}

// WithActor returns ctx carrying the actor.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor of ctx, if any.
func ActorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}

// ClientInfo describes the caller's connection, for throttling and audit.
type ClientInfo struct {
	IP        string
	UserAgent string
}

var errSignedOut = &domain.Error{Code: domain.CodeUnauthenticated, Message: "sign in to continue"}

// requireSession allows only signed-in console users (key management is never done by keys).
func requireSession(a Actor) error {
	if a.IsKey() {
		return &domain.Error{Code: domain.CodeForbidden, Reason: "session_required",
			Message: "this operation needs a console session; API keys cannot manage keys"}
	}
	if !a.IsSession() {
		return errSignedOut
	}
	return nil
}

// requireAuthenticated allows any caller who is someone: a key (whatever its scopes) or a
// signed-in console user.
func requireAuthenticated(a Actor) error {
	if a.IsKey() || a.IsSession() {
		return nil
	}
	return errSignedOut
}

// requireWorkspace allows a session (with a workspace) or a key with scope; it returns the
// workspace id to act in.
func requireWorkspace(a Actor, scope domain.Scope) (string, error) {
	switch {
	case a.IsKey():
		if !domain.HasScope(a.Scopes, scope) {
			return "", &domain.Error{Code: domain.CodeForbidden, Reason: "insufficient_scope",
				Message: "this API key lacks the scope " + string(scope)}
		}
		return a.WorkspaceID, nil
	case a.IsSession():
		if a.WorkspaceID == "" {
			return "", &domain.Error{Code: domain.CodeNotFound, Reason: "no_workspace",
				Message: "open the console first to create your workspace"}
		}
		return a.WorkspaceID, nil
	}
	return "", errSignedOut
}
