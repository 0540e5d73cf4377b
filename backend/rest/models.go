package rest

import (
	"net/http"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// modelList is exactly OpenAI's list shape (no has_more: the catalog is one page).
type modelList struct {
	Object string         `json:"object" const:"list"`
	Data   []domain.Model `json:"data"`
}

func (a *api) listModels(r *http.Request) (modelList, error) {
	models, err := a.svc.Models.List(r.Context(), actor(r))
	if models == nil {
		models = []domain.Model{}
	}
	return modelList{Object: "list", Data: models}, err
}

type modelPath struct {
	ID string "json:\"-\" path:\"id\" example:\"gpt-4o-mini\" doc:\"The model's id. It may contain `/` and `:`.\""
}

func (a *api) getModel(r *http.Request, p modelPath) (domain.Model, error) {
	return a.svc.Models.Get(r.Context(), actor(r), p.ID)
}
