package rest

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
)

func (a *api) listEvents(w http.ResponseWriter, r *http.Request) {
	var (
		f   domain.EventFilter
		err error
	)
	f.Types = queryList(r, "type")
	if f.Since, err = queryTime(r, "since"); err != nil {
		a.error(w, r, err)
		return
	}
	if f.Until, err = queryTime(r, "until"); err != nil {
		a.error(w, r, err)
		return
	}
	p, err := listParams(r)
	if err != nil {
		a.error(w, r, err)
		return
	}
	page, err := a.svc.Events.List(r.Context(), actor(r), f, p)
	if err != nil {
		a.error(w, r, httpx.RenameParam(err, "types", "type")) // ?type= here, types in the service
		return
	}
	writeJSON(w, http.StatusOK, listOf(page))
}

func (a *api) getEvent(w http.ResponseWriter, r *http.Request) {
	e, err := a.svc.Events.Get(r.Context(), actor(r), mux.Vars(r)["id"])
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, e)
}

// eventType documents one event type with a sample of its data.
type eventType struct {
	Type        string `json:"type"`
	Description string `json:"description"`
	Sample      any    `json:"sample"`
}

// listEventTypes: the service decides who may read the catalog (any authenticated caller).
func (a *api) listEventTypes(w http.ResponseWriter, r *http.Request) {
	types, err := a.svc.Events.Types(r.Context(), actor(r))
	if err != nil {
		a.error(w, r, err)
		return
	}
	out := struct {
		Object string      `json:"object"`
		Data   []eventType `json:"data"`
	}{Object: "list", Data: make([]eventType, len(types))}
	for i, t := range types {
		out.Data[i] = eventType{t.Type, t.Description, t.Sample}
	}
	writeJSON(w, http.StatusOK, out)
}
