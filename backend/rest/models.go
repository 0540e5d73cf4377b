package rest

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// modelList is exactly OpenAI's list shape (no has_more: the catalog is one page).
type modelList struct {
	Object string         `json:"object"`
	Data   []domain.Model `json:"data"`
}

func (a *api) listModels(w http.ResponseWriter, r *http.Request) {
	models, err := a.svc.Models.List(r.Context(), actor(r))
	if err != nil {
		a.error(w, r, err)
		return
	}
	if models == nil {
		models = []domain.Model{}
	}
	writeJSON(w, http.StatusOK, modelList{Object: "list", Data: models})
}

func (a *api) getModel(w http.ResponseWriter, r *http.Request) {
	model, err := a.svc.Models.Get(r.Context(), actor(r), mux.Vars(r)["id"])
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, model)
}
