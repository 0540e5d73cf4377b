package rest_test

import (
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Body keys are matched exactly, at every depth: a key in another case is refused (with
// the right name suggested), and an unknown nested key is named by its whole path. Nothing
// is created by a refused body.
func TestBodyKeysAreExact(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	for _, c := range []struct {
		name, path string
		body       map[string]any
		param, say string
	}{
		{"upper-case key", "/api/v1/links", map[string]any{"URL": "https://example.com/case", "slug": "caseTest"}, "URL", `did you mean "url"`},
		{"mixed-case key", "/api/v1/links", map[string]any{"url": "https://example.com/case", "Max_Clicks": 3}, "Max_Clicks", `did you mean "max_clicks"`},
		{"nested case", "/api/v1/links", map[string]any{"url": "https://example.com/case", "utm": map[string]any{"Source": "x"}}, "utm.Source", `did you mean "source"`},
		{"nested unknown", "/api/v1/links", map[string]any{"url": "https://example.com/case", "utm": map[string]any{"foo": "x"}}, "utm.foo", `unknown field "foo"`},
		{"bulk item unknown", "/api/v1/links/bulk", map[string]any{"links": []any{map[string]any{"url": "https://example.com/a"},
			map[string]any{"url": "https://example.com/b", "colour": 1}}}, "links[1].colour", `unknown field "colour"`},
	} {
		got := e.do("POST", c.path, secret, c.body).wantError(t, 400, "validation_failed")
		if got["param"] != c.param || !strings.Contains(got["message"].(string), c.say) {
			t.Errorf("%s: param %v, message %v; want %s saying %s", c.name, got["param"], got["message"], c.param, c.say)
		}
	}
	// Metadata is the user's own object: any keys, any case.
	e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/m", "metadata": map[string]any{"Campaign": "Q4"}}).want(t, 201)
	if n := len(e.do("GET", "/api/v1/links", secret, nil).want(t, 200).json(t)["data"].([]any)); n != 1 {
		t.Fatalf("%d links after the refused bodies and one good one, want 1", n)
	}
}
