package service

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// eventTypeCatalog documents every event type. Samples are built from the same object
// constructors as live events, so their shape cannot drift.
var eventTypeCatalog = []struct {
	typ, description string
	sample           func(now time.Time) any
}{
	{domain.EventWorkspaceCreated, "A workspace was created (the first time its owner opened the console).", func(now time.Time) any {
		return domain.Workspace{ID: "ws_01jc0000000000000000000000", Name: "Ada's workspace", CreatedAt: now}.Object()
	}},
	{domain.EventAPIKeyCreated, "An API key was created.", func(now time.Time) any { return sampleKey(now, false).Object(now) }},
	{domain.EventAPIKeyRevoked, "An API key was revoked.", func(now time.Time) any { return sampleKey(now, true).Object(now) }},
}

// RegisterEventType adds an event type to the catalog (used by surfaces built on the
// service, such as webhooks). Call it at init time.
func RegisterEventType(typ, description string, sample func(now time.Time) any) {
	eventTypeCatalog = append(eventTypeCatalog, struct {
		typ, description string
		sample           func(now time.Time) any
	}{typ, description, sample})
}

// Types lists every event type with its description and sample data. The catalog is the
// same for everyone and holds no workspace data, so any authenticated caller may read it (a
// key of any scope, a signed-in console user with or without a workspace); an anonymous
// caller may not. REST (GET /api/v1/event-types) and GraphQL (eventTypes) both call this.
func (ev *Events) Types(ctx context.Context, a Actor) ([]domain.EventTypeInfo, error) {
	if err := requireAuthenticated(a); err != nil {
		return nil, err
	}
	return eventTypes(ev.s.cfg.Clock.Now()), nil
}

func eventTypes(now time.Time) []domain.EventTypeInfo {
	out := make([]domain.EventTypeInfo, len(eventTypeCatalog))
	for i, t := range eventTypeCatalog {
		out[i] = domain.EventTypeInfo{Type: t.typ, Description: t.description, Sample: t.sample(now)}
	}
	return out
}

func knownEventType(t string) bool {
	for _, e := range eventTypeCatalog {
		if e.typ == t {
			return true
		}
	}
	return false
}

func sampleKey(now time.Time, revoked bool) domain.APIKey {
	k := domain.APIKey{ID: "key_01jc0000000000000000000000", WorkspaceID: "ws_01jc0000000000000000000000",
		Name: "Production server", Prefix: "sb_live_3kTq", LastFour: "9fQz",
		Scopes: []domain.Scope{domain.ScopeModelsRead, domain.ScopeEventsRead}, AllowedOrigins: []string{}, CreatedAt: now}
	if revoked {
		k.RevokedAt = &now
	}
	return k
}
