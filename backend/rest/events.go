package rest

import (
	"net/http"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
)

// eventsQuery is the input of GET /events.
type eventsQuery struct {
	Type  []string   "json:\"-\" query:\"type\" example:\"[\\\"api_key.created\\\"]\" doc:\"Only events of these types: repeat the parameter or separate types with commas (`?type=api_key.created,api_key.revoked`). `GET /api/v1/event-types` lists them.\""
	Since *time.Time `json:"-" query:"since" doc:"Only events at or after this time (RFC 3339)." example:"2025-04-01T00:00:00Z"`
	Until *time.Time `json:"-" query:"until" doc:"Only events before this time (RFC 3339)." example:"2025-04-30T00:00:00Z"`
	listQuery
}

func (a *api) listEvents(r *http.Request, q eventsQuery) (list[domain.Event], error) {
	page, err := a.svc.Events.List(r.Context(), actor(r), domain.EventFilter{Types: q.Type, Since: q.Since, Until: q.Until}, q.params())
	if err != nil {
		return list[domain.Event]{}, httpx.RenameParam(err, "types", "type") // ?type= here, types in the service
	}
	return listOf(page), nil
}

type eventPath struct {
	ID string `json:"-" path:"id" doc:"The event's id." example:"evt_01jr8c4a9fz3x1w7v5t3r1p9n7"`
}

func (a *api) getEvent(r *http.Request, p eventPath) (domain.Event, error) {
	return a.svc.Events.Get(r.Context(), actor(r), p.ID)
}

// eventType documents one event type with a sample of its data.
type eventType struct {
	Type        string `json:"type" doc:"The event type." example:"api_key.created"`
	Description string `json:"description" doc:"What the event means." example:"An API key was created."`
	Sample      any    "json:\"sample\" type:\"object\" doc:\"A sample `data` object, shaped exactly like a live one.\""
}

// eventTypeList is every event type (one page).
type eventTypeList struct {
	Object string      `json:"object" const:"list"`
	Data   []eventType `json:"data"`
}

// listEventTypes: the service decides who may read the catalog (any authenticated caller).
func (a *api) listEventTypes(r *http.Request) (eventTypeList, error) {
	types, err := a.svc.Events.Types(r.Context(), actor(r))
	if err != nil {
		return eventTypeList{}, err
	}
	out := eventTypeList{Object: "list", Data: make([]eventType, len(types))}
	for i, t := range types {
		out.Data[i] = eventType{t.Type, t.Description, t.Sample}
	}
	return out, nil
}
