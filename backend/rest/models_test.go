package rest_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/openai/openai-go"
	"github.com/openai/openai-go/option"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

func TestModels(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)

		// Exactly OpenAI's shapes: the document's closed schemas check there is nothing more.
		list := e.do("GET", "/api/v1/models", secret, nil, "Accept", "application/json").want(t, http.StatusOK).json(t)
		if list["object"] != "list" || len(list["data"].([]any)) != len(service.DefaultModels) {
			t.Fatalf("list: %v", list)
		}
		got := e.do("GET", "/api/v1/models/gpt-4o-mini", secret, nil).want(t, http.StatusOK).json(t)
		want := map[string]any{"id": "gpt-4o-mini", "object": "model", "created": float64(1721172741), "owned_by": "openai"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("model: %v, want %v", got, want)
		}
		miss := e.do("GET", "/api/v1/models/no-such-model", secret, nil).wantError(t, http.StatusNotFound, "model_not_found")
		if miss["param"] != "model" || miss["type"] != "invalid_request_error" {
			t.Errorf("missing model: %v", miss)
		}
	})
}

func TestModelIDsWithSlashesAndColons(t *testing.T) {
	clock := newTestClock()
	svc, st := servicetest.New(t, store.SQLite, service.Config{Clock: clock, Models: []domain.Model{
		{ID: "meta/llama-3.1-8b:free", Object: "model", Created: 1721692800, OwnedBy: "meta"},
		{ID: "gpt-4o", Object: "model", Created: 1715367049, OwnedBy: "openai"},
	}})
	e := newEnvOn(t, svc, st, clock, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)
	got := e.do("GET", "/api/v1/models/meta/llama-3.1-8b:free", secret, nil).want(t, http.StatusOK).json(t)
	if got["id"] != "meta/llama-3.1-8b:free" {
		t.Errorf("id %v", got["id"])
	}
	e.do("GET", "/api/v1/models/meta%2Fllama-3.1-8b:free", secret, nil).want(t, http.StatusOK)
	e.do("GET", "/api/v1/models/meta/other", secret, nil).wantError(t, http.StatusNotFound, "model_not_found")

	// The OpenAI SDK sends ids as they are.
	client := openai.NewClient(option.WithBaseURL(e.srv.URL+"/api/v1/"), option.WithAPIKey(secret),
		option.WithHTTPClient(e.client), option.WithMaxRetries(0))
	m, err := client.Models.Get(context.Background(), "meta/llama-3.1-8b:free")
	if err != nil || m.ID != "meta/llama-3.1-8b:free" {
		t.Fatalf("SDK get: %v, %v", m, err)
	}
}

// The official OpenAI SDK works against the API with base URL <server>/api/v1.
func TestOpenAISDK(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)
		ctx := context.Background()
		sdk := func(key string) openai.Client {
			return openai.NewClient(option.WithBaseURL(e.srv.URL+"/api/v1/"), option.WithAPIKey(key),
				option.WithHTTPClient(e.client), option.WithMaxRetries(0))
		}
		client := sdk(secret)

		page, err := client.Models.List(ctx)
		if err != nil {
			t.Fatalf("Models.List: %v", err)
		}
		if len(page.Data) != len(service.DefaultModels) {
			t.Fatalf("Models.List: %d models", len(page.Data))
		}
		for i, m := range page.Data {
			want := service.DefaultModels[i]
			if m.ID != want.ID || m.OwnedBy != want.OwnedBy || m.Created != want.Created || string(m.Object) != "model" {
				t.Errorf("model %d: %+v, want %+v", i, m, want)
			}
		}
		var ids []string
		iter := client.Models.ListAutoPaging(ctx)
		for iter.Next() {
			ids = append(ids, iter.Current().ID)
		}
		if err := iter.Err(); err != nil || len(ids) != len(service.DefaultModels) {
			t.Fatalf("ListAutoPaging: %v, %v", ids, err)
		}

		m, err := client.Models.Get(ctx, "claude-sonnet-4-5")
		if err != nil || m.ID != "claude-sonnet-4-5" || m.OwnedBy != "anthropic" {
			t.Fatalf("Models.Get: %+v, %v", m, err)
		}

		_, err = client.Models.Get(ctx, "no-such-model")
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound || apiErr.Code != "model_not_found" {
			t.Fatalf("Models.Get of a missing model: %v", err)
		}

		badClient := sdk(flipLast(secret))
		_, err = badClient.Models.List(ctx)
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized || apiErr.Code != "invalid_api_key" ||
			apiErr.Type != "authentication_error" {
			t.Fatalf("bad key: %v", err)
		}
	})
}

func TestMe(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		key, secret := e.owner.NewKey(t, e.svc, domain.ScopeEventsRead, domain.ScopeModelsRead)
		got := e.do("GET", "/api/v1/me", secret, nil).want(t, http.StatusOK).json(t)
		if got["object"] != "api_key" || got["id"] != key.ID || got["name"] != key.Name || got["prefix"] != key.Prefix ||
			got["status"] != "active" || got["last_used_at"] == nil {
			t.Errorf("me: %v", got)
		}
		if scopes := got["scopes"].([]any); len(scopes) != 2 || scopes[0] != "events:read" || scopes[1] != "models:read" {
			t.Errorf("scopes %v", scopes)
		}
		ws := got["workspace"].(map[string]any)
		if ws["id"] != e.owner.Workspace.ID || ws["name"] != e.owner.Workspace.Name {
			t.Errorf("workspace %v", ws)
		}
		for _, secretish := range []string{"hash", "secret"} {
			if _, ok := got[secretish]; ok {
				t.Errorf("me shows %s", secretish)
			}
		}
	})
}
