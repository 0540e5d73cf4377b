package service

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// EventType documents one event type: what it means, and a sample of its data built with
// the same constructors as live data, so the two cannot drift.
type EventType struct {
	Type        string
	Description string
	Sample      func(now time.Time) any
}

// platformEventTypes is the platform's table of event types; each surface keeps its own
// table beside its rules (webhookEventTypes) and adds it with RegisterEventTypes.
var platformEventTypes = []EventType{
	{domain.EventWorkspaceCreated, "A workspace was created (the first time its owner opened the console).", func(now time.Time) any {
		return domain.Workspace{ID: "ws_01jc0000000000000000000000", Name: "Ada's workspace", CreatedAt: now}.Object()
	}},
	{domain.EventAPIKeyCreated, "An API key was created.", func(now time.Time) any { return sampleKey(now, false).Object(now) }},
	{domain.EventAPIKeyRevoked, "An API key was revoked.", func(now time.Time) any { return sampleKey(now, true).Object(now) }},
}

// eventTypeCatalog is every event type, in registration order.
var eventTypeCatalog = append([]EventType(nil), platformEventTypes...)

// RegisterEventTypes adds a surface's table of event types to the catalog that
// GET /event-types serves and webhook subscriptions are checked against. Call it once per
// surface at package initialisation (var _ = service.RegisterEventTypes(table...)); a type
// registered twice panics.
func RegisterEventTypes(ts ...EventType) bool {
	for _, t := range ts {
		if knownEventType(t.Type) {
			panic("service: event type " + t.Type + " registered twice")
		}
		eventTypeCatalog = append(eventTypeCatalog, t)
	}
	return true
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

// SampleEventID and sampleWorkspaceID are the ids of sample events (Sample): recognisably
// not real ones. A sample whose data names its own event (an inbound call's id is its
// automation.published event's) uses SampleEventID, as live data does.
const (
	SampleEventID     = "evt_01jc0000000000000000000000"
	sampleWorkspaceID = "ws_01jc0000000000000000000000"
)

// Sample returns an event of type typ exactly as webhooks and subscriptions deliver it: the
// envelope with the type's sample data, in the caller's workspace. Workflow tools show it
// while a user builds a workflow (Zapier's performList). Like the catalog it is open to any
// authenticated caller; an unknown type is not found.
func (ev *Events) Sample(ctx context.Context, a Actor, typ string) (domain.Event, error) {
	if err := requireAuthenticated(a); err != nil {
		return domain.Event{}, err
	}
	now := ev.s.cfg.Clock.Now()
	for _, t := range eventTypeCatalog {
		if t.Type != typ {
			continue
		}
		raw, err := domain.Encode(t.Sample(now))
		if err != nil {
			return domain.Event{}, domain.Internal(err)
		}
		ws := a.WorkspaceID
		if ws == "" {
			ws = sampleWorkspaceID // a console user without a workspace yet
		}
		return domain.Event{ID: SampleEventID, Type: t.Type, Timestamp: now, WorkspaceID: ws, Data: raw}, nil
	}
	return domain.Event{}, domain.NotFound("event type")
}

func eventTypes(now time.Time) []domain.EventTypeInfo {
	out := make([]domain.EventTypeInfo, len(eventTypeCatalog))
	for i, t := range eventTypeCatalog {
		out[i] = domain.EventTypeInfo{Type: t.Type, Description: t.Description, Sample: t.Sample(now)}
	}
	return out
}

func knownEventType(t string) bool {
	for _, e := range eventTypeCatalog {
		if e.Type == t {
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
