package rest

import (
	"net/http"
	"strconv"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// modelList is exactly OpenAI's list shape (no has_more: the catalog is one page).
type modelList struct {
	Object string         `json:"object" const:"list"`
	Data   []domain.Model `json:"data"`
}

// listModels writes the catalog itself (a raw route): the hottest call of the API, so its
// encoding is kept rather than redone per request.
func (a *api) listModels(w http.ResponseWriter, r *http.Request) {
	models, err := a.svc.Models.List(r.Context(), actor(r))
	if err != nil {
		a.error(w, r, err)
		return
	}
	if len(models) == 0 {
		writeJSON(w, http.StatusOK, modelList{Object: "list", Data: []domain.Model{}})
		return
	}
	// The catalog is operator configuration, fixed while the process runs: its encoding is
	// kept, keyed by the catalog the service returned (another catalog is encoded afresh).
	enc := a.models.Load()
	if enc == nil || enc.first != &models[0] || enc.n != len(models) {
		body, err := encodeJSON(modelList{Object: "list", Data: models})
		if err != nil {
			a.error(w, r, domain.Internal(err))
			return
		}
		enc = &encodedModels{first: &models[0], n: len(models), body: body, length: []string{strconv.Itoa(len(body))}}
		a.models.Store(enc)
	}
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	if len(enc.body) > smallBody {
		h["Content-Length"] = enc.length
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(enc.body)
}

// encodedModels is the JSON of one model catalog (see listModels).
type encodedModels struct {
	first  *domain.Model
	n      int
	body   []byte
	length []string // the Content-Length header's value (shared, never modified)
}

type modelPath struct {
	ID string "json:\"-\" path:\"id\" example:\"gpt-4o-mini\" doc:\"The model's id. It may contain `/` and `:`.\""
}

func (a *api) getModel(r *http.Request, p modelPath) (domain.Model, error) {
	return a.svc.Models.Get(r.Context(), actor(r), p.ID)
}
