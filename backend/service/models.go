package service

import (
	"context"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// DefaultModels is the built-in catalog, used when the operator configures none.
var DefaultModels = []domain.Model{
	{ID: "gpt-4o-mini", Object: "model", Created: 1721172741, OwnedBy: "openai"},
	{ID: "gpt-4o", Object: "model", Created: 1715367049, OwnedBy: "openai"},
	{ID: "claude-sonnet-4-5", Object: "model", Created: 1759104000, OwnedBy: "anthropic"},
	{ID: "llama-3.1-8b-instruct", Object: "model", Created: 1721692800, OwnedBy: "meta"},
}

// Models serves the operator's model catalog.
type Models struct {
	s       *Service
	catalog []domain.Model
}

// List returns every model the workspace can use.
func (m *Models) List(ctx context.Context, a Actor) ([]domain.Model, error) {
	if _, err := requireWorkspace(a, domain.ScopeModelsRead); err != nil {
		return nil, err
	}
	return m.catalog, nil
}

// Get returns one model.
func (m *Models) Get(ctx context.Context, a Actor, id string) (domain.Model, error) {
	if _, err := requireWorkspace(a, domain.ScopeModelsRead); err != nil {
		return domain.Model{}, err
	}
	for _, model := range m.catalog {
		if model.ID == id {
			return model, nil
		}
	}
	return domain.Model{}, &domain.Error{Code: domain.CodeNotFound, Reason: "model_not_found", Param: "model",
		Message: "the model '" + id + "' does not exist"}
}
