package rest

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

func (a *api) listEvents(r *http.Request) (list[domain.Event], error) {
	var (
		f   domain.EventFilter
		err error
	)
	f.Types = queryList(r, "type")
	if f.Since, err = queryTime(r, "since"); err != nil {
		return list[domain.Event]{}, err
	}
	if f.Until, err = queryTime(r, "until"); err != nil {
		return list[domain.Event]{}, err
	}
	p, err := listParams(r)
	if err != nil {
		return list[domain.Event]{}, err
	}
	page, err := a.svc.Events.List(r.Context(), actor(r), f, p)
	if err != nil {
		return list[domain.Event]{}, renameParam(err, "types", "type") // ?type= here, types in the service
	}
	return listOf(page), nil
}

func (a *api) getEvent(r *http.Request) (domain.Event, error) {
	return a.svc.Events.Get(r.Context(), actor(r), mux.Vars(r)["id"])
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

// listEventTypes needs any valid key: the catalog is the same for everyone.
func (a *api) listEventTypes(r *http.Request) (eventTypeList, error) {
	types := a.svc.Events.Types()
	out := eventTypeList{Object: "list", Data: make([]eventType, len(types))}
	for i, t := range types {
		out.Data[i] = eventType{t.Type, t.Description, t.Sample}
	}
	return out, nil
}
