package graph_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/graph"
)

const createKeyMutation = `mutation($in: CreateApiKeyInput!) {
	createApiKey(input: $in) {
		secret
		apiKey { id name prefix lastFour scopes allowedOrigins status createdAt lastUsedAt expiresAt revokedAt }
	}
}`

type apiKey struct {
	ID, Name, Prefix, LastFour, Status, CreatedAt string
	Scopes, AllowedOrigins                        []string
	LastUsedAt, ExpiresAt, RevokedAt              *string
}

func TestCreateApiKeyReturnsSecretOnce(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		expires := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
		resp, r := h.post(t, createKeyMutation, map[string]any{"in": map[string]any{
			"name": "CI", "scopes": []string{"models:read", "events:read"}, "expiresAt": expires,
			"allowedOrigins": []string{"https://app.example.com"}}}, withSession(token))
		var data struct {
			CreateAPIKey struct {
				Secret string
				APIKey apiKey
			} `json:"createApiKey"`
		}
		r.decode(t, &data)
		secret, k := data.CreateAPIKey.Secret, data.CreateAPIKey.APIKey
		if !strings.HasPrefix(secret, "sb_") || !strings.HasSuffix(secret, k.LastFour) || !strings.HasPrefix(secret, k.Prefix) {
			t.Fatalf("secret %q does not match prefix %q / last four %q", secret, k.Prefix, k.LastFour)
		}
		if len(k.Prefix) >= len(secret)/2 {
			t.Errorf("prefix %q reveals too much of the secret", k.Prefix)
		}
		if k.Name != "CI" || k.Status != "ACTIVE" || strings.Join(k.Scopes, ",") != "models:read,events:read" ||
			len(k.AllowedOrigins) != 1 || k.ExpiresAt == nil || k.RevokedAt != nil || k.LastUsedAt != nil {
			t.Fatalf("apiKey = %+v", k)
		}
		if resp.Header.Get("Set-Cookie") != "" {
			t.Error("createApiKey set a cookie")
		}

		// The key works as a Bearer key.
		_, r = h.post(t, `{ models { id object created ownedBy } }`, nil, withKey(secret))
		var models struct {
			Models []struct {
				ID, Object, OwnedBy string
				Created             int64
			}
		}
		r.decode(t, &models)
		if len(models.Models) == 0 || models.Models[0].Object != "model" || models.Models[0].Created == 0 {
			t.Fatalf("models = %+v", models)
		}

		// apiKeys lists it, never with the secret.
		resp, r = h.post(t, `{ apiKeys { id name prefix lastFour scopes allowedOrigins status createdAt lastUsedAt expiresAt revokedAt } }`, nil, withSession(token))
		if strings.Contains(body(resp), secret) || strings.Contains(body(resp), secret[len(k.Prefix):len(secret)-4]) {
			t.Fatal("apiKeys contains the secret")
		}
		var list struct {
			APIKeys []apiKey `json:"apiKeys"`
		}
		r.decode(t, &list)
		if len(list.APIKeys) != 1 || list.APIKeys[0].ID != k.ID {
			t.Fatalf("apiKeys = %+v", list.APIKeys)
		}

		// Revoking takes effect at once.
		_, r = h.post(t, `mutation($id: ID!) { revokeApiKey(id: $id) { id status revokedAt } }`, map[string]any{"id": k.ID}, withSession(token))
		var rev struct {
			RevokeAPIKey apiKey `json:"revokeApiKey"`
		}
		r.decode(t, &rev)
		if rev.RevokeAPIKey.Status != "REVOKED" || rev.RevokeAPIKey.RevokedAt == nil {
			t.Fatalf("revoked key = %+v", rev.RevokeAPIKey)
		}
		resp, r = h.post(t, `{ models { id } }`, nil, withKey(secret))
		if resp.StatusCode != http.StatusUnauthorized || r.code(t) != "UNAUTHENTICATED" || r.Errors[0].Extensions["reason"] != "revoked_api_key" {
			t.Fatalf("revoked key: status %d, %+v", resp.StatusCode, r.Errors)
		}
	})
}

func TestCreateApiKeyValidation(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		for _, tc := range []struct {
			name  string
			in    map[string]any
			field string
		}{
			{"unknown scope", map[string]any{"name": "x", "scopes": []string{"everything"}}, "scopes"},
			{"no scopes", map[string]any{"name": "x", "scopes": []string{}}, "scopes"},
			{"expiry in the past", map[string]any{"name": "x", "scopes": []string{"*"}, "expiresAt": "2001-01-01T00:00:00Z"}, "expiresAt"},
			{"bad origin", map[string]any{"name": "x", "scopes": []string{"*"}, "allowedOrigins": []string{"not an origin"}}, "allowedOrigins"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, r := h.post(t, createKeyMutation, map[string]any{"in": tc.in}, withSession(token))
				if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != tc.field {
					t.Fatalf("errors = %+v, want INVALID on %s", r.Errors, tc.field)
				}
			})
		}
		_, r := h.post(t, `{ apiKeys { id } }`, nil, withSession(token))
		var list struct {
			APIKeys []apiKey `json:"apiKeys"`
		}
		r.decode(t, &list)
		if len(list.APIKeys) != 0 {
			t.Fatalf("invalid input stored keys: %+v", list.APIKeys)
		}
	})
}

func TestKeyManagementNeedsSession(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		id, secret := h.createKey(t, token, "*")
		for _, tc := range []struct {
			name, query string
			vars        map[string]any
		}{
			{"createApiKey", createKeyMutation, map[string]any{"in": map[string]any{"name": "x", "scopes": []string{"*"}}}},
			{"revokeApiKey", `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, map[string]any{"id": id}},
			{"apiKeys", `{ apiKeys { id } }`, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, r := h.post(t, tc.query, tc.vars, withKey(secret))
				if r.code(t) != "FORBIDDEN" {
					t.Fatalf("%s with a Bearer key: %+v, want FORBIDDEN", tc.name, r.Errors)
				}
			})
		}
		// The key still works (it was not revoked by its own call).
		_, r := h.post(t, `{ models { id } }`, nil, withKey(secret))
		if len(r.Errors) > 0 {
			t.Fatal(r.Errors)
		}
	})
}

func TestAnotherWorkspacesKeyIsNotFound(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		tokenA, _ := h.owner(t)
		tokenB, _ := h.owner(t)
		idA, secretA := h.createKey(t, tokenA, "models:read")
		_, r := h.post(t, `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, map[string]any{"id": idA}, withSession(tokenB))
		if r.code(t) != "NOT_FOUND" {
			t.Fatalf("revoking another workspace's key: %+v", r.Errors)
		}
		if _, r := h.post(t, `{ models { id } }`, nil, withKey(secretA)); len(r.Errors) > 0 {
			t.Fatal("the key was revoked by another workspace")
		}
	})
}

func TestBearerKeyCaller(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, ws := h.owner(t)
		_, secret := h.createKey(t, token, "events:read")

		// The viewer of a key is its workspace, with no user.
		_, r := h.post(t, viewerQuery, nil, withKey(secret))
		var v viewerData
		r.decode(t, &v)
		if v.Viewer.User != nil || v.Viewer.Workspace == nil || v.Viewer.Workspace.ID != ws {
			t.Fatalf("viewer of a key = %+v", v.Viewer)
		}

		// A missing scope is FORBIDDEN and names the scope.
		_, r = h.post(t, `{ models { id } }`, nil, withKey(secret))
		if r.code(t) != "FORBIDDEN" || r.Errors[0].Extensions["reason"] != "insufficient_scope" || !strings.Contains(r.Errors[0].Message, "models:read") {
			t.Fatalf("models without models:read: %+v", r.Errors)
		}

		// Bad Authorization headers are refused before anything runs, identically but for reason.
		for _, auth := range []string{"Bearer nope", "Basic " + secret, "Bearer " + secret + "x", "Bearer"} {
			resp, r := h.post(t, viewerQuery, nil, withHeader("Authorization", auth))
			if resp.StatusCode != http.StatusUnauthorized || r.code(t) != "UNAUTHENTICATED" || resp.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("Authorization %q: status %d, %+v", auth, resp.StatusCode, r.Errors)
			}
			if strings.Contains(body(resp), secret) {
				t.Errorf("Authorization %q: the secret is echoed", auth)
			}
		}
	})
}

func TestScopesCatalog(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		_, r := h.post(t, `{ scopes { scopes { scope description } presets { id name description scopes } } }`, nil)
		var data struct {
			Scopes struct {
				Scopes  []struct{ Scope, Description string }
				Presets []struct {
					ID, Name, Description string
					Scopes                []string
				}
			}
		}
		r.decode(t, &data)
		if len(data.Scopes.Scopes) < 16 || data.Scopes.Scopes[0].Description == "" {
			t.Fatalf("scopes = %+v", data.Scopes.Scopes)
		}
		ids := map[string]bool{}
		for _, p := range data.Scopes.Presets {
			ids[p.ID] = len(p.Scopes) > 0
		}
		for _, id := range []string{"full_access", "read_only", "messaging", "short_links", "automation"} {
			if !ids[id] {
				t.Errorf("preset %s missing or empty", id)
			}
		}
	})
}
