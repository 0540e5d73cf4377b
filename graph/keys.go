package graph

import (
	"context"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/graph/model"
)

func (r *queryResolver) APIKeys(ctx context.Context) ([]model.APIKey, error) {
	keys, err := r.svc.Keys.List(ctx, actor(ctx))
	if err != nil {
		return nil, err
	}
	now := r.svc.Clock().Now()
	out := make([]model.APIKey, len(keys))
	for i, k := range keys {
		out[i] = toAPIKey(k, now)
	}
	return out, nil
}

func (r *mutationResolver) CreateAPIKey(ctx context.Context, input model.CreateAPIKeyInput) (*model.CreateAPIKeyPayload, error) {
	key, secret, err := r.svc.Keys.Create(ctx, actor(ctx), service.CreateKeyInput{
		Name:           input.Name,
		Scopes:         input.Scopes,
		ExpiresAt:      input.ExpiresAt,
		AllowedOrigins: input.AllowedOrigins,
	})
	if err != nil {
		return nil, err
	}
	return &model.CreateAPIKeyPayload{Secret: secret, APIKey: ptr(toAPIKey(key, r.svc.Clock().Now()))}, nil
}

func (r *mutationResolver) RevokeAPIKey(ctx context.Context, id string) (*model.APIKey, error) {
	key, err := r.svc.Keys.Revoke(ctx, actor(ctx), id)
	if err != nil {
		return nil, err
	}
	return ptr(toAPIKey(key, r.svc.Clock().Now())), nil
}

// Scopes is the scope catalog of the domain; it needs no caller.
func (r *queryResolver) Scopes(context.Context) (*model.ScopeCatalog, error) {
	cat := &model.ScopeCatalog{
		Scopes:  make([]model.ScopeInfo, len(domain.Scopes)),
		Presets: make([]model.ScopePreset, len(domain.ScopePresets)),
	}
	for i, s := range domain.Scopes {
		cat.Scopes[i] = model.ScopeInfo{Scope: string(s.Scope), Description: s.Description}
	}
	for i, p := range domain.ScopePresets {
		cat.Presets[i] = model.ScopePreset{ID: p.ID, Name: p.Name, Description: p.Description, Scopes: scopeStrings(p.Scopes)}
	}
	return cat, nil
}

// toAPIKey converts a key for output. It never carries the secret or its hash.
func toAPIKey(k domain.APIKey, now time.Time) model.APIKey {
	origins := k.AllowedOrigins
	if origins == nil {
		origins = []string{}
	}
	return model.APIKey{
		ID:             k.ID,
		Name:           k.Name,
		Prefix:         k.Prefix,
		LastFour:       k.LastFour,
		Scopes:         scopeStrings(k.Scopes),
		AllowedOrigins: origins,
		Status:         model.APIKeyStatus(strings.ToUpper(k.Status(now))),
		CreatedAt:      k.CreatedAt,
		LastUsedAt:     k.LastUsedAt,
		ExpiresAt:      k.ExpiresAt,
		RevokedAt:      k.RevokedAt,
	}
}

func scopeStrings(scopes []domain.Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}
