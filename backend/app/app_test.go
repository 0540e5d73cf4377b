package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

func newApp(t *testing.T, dbURL string) (*app.App, *httptest.Server) {
	t.Helper()
	return newAppLogging(t, dbURL, io.Discard)
}

func newAppLogging(t *testing.T, dbURL string, logs io.Writer) (*app.App, *httptest.Server) {
	t.Helper()
	cfg, err := app.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return newAppWithLogger(t, dbURL, cfg, slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
}

func newAppWith(t *testing.T, dbURL string, cfg app.Config) (*app.App, *httptest.Server) {
	t.Helper()
	return newAppWithLogger(t, dbURL, cfg, discard())
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newAppWithLogger(t *testing.T, dbURL string, cfg app.Config, log *slog.Logger) (*app.App, *httptest.Server) {
	t.Helper()
	cfg.DatabaseURL = dbURL
	if cfg.MediaStore == "" {
		cfg.MediaStore = "file://" + filepath.ToSlash(t.TempDir())
	}
	a, err := app.New(context.Background(), cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler)
	t.Cleanup(func() { srv.Close(); a.Close() })
	return a, srv
}

// The journey of the README's quickstart, through both transports of the real app:
// sign up → workspace → key → /api/v1/models → revoke → 401.
func TestQuickstartJourney(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			logs := &syncWriter{w: &bytes.Buffer{}}
			_, srv := newAppLogging(t, storetest.URL(t, d), logs)
			jar, _ := cookiejar.New(nil)
			console := &http.Client{Jar: jar}
			gql := func(query string, vars map[string]any) map[string]any {
				t.Helper()
				body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
				resp, err := console.Post(srv.URL+"/graphql", "application/json", bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var out struct {
					Data   map[string]any
					Errors []map[string]any
				}
				if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Errors) > 0 {
					t.Fatalf("graphql %q: %v %v", query, err, out.Errors)
				}
				return out.Data
			}
			gql(`mutation { signUp(input: {email: "ada@example.com", password: "correct horse battery", name: "Ada"}) { user { id } } }`, nil)
			ws := gql(`mutation { ensureWorkspace { id name } }`, nil)["ensureWorkspace"].(map[string]any)
			created := gql(`mutation { createApiKey(input: {name: "cli", scopes: ["models:read"]}) { secret apiKey { id } } }`, nil)["createApiKey"].(map[string]any)
			secret := created["secret"].(string)
			keyID := created["apiKey"].(map[string]any)["id"].(string)

			call := func(path string) (int, map[string]any) {
				req, _ := http.NewRequest("GET", srv.URL+path, nil)
				req.Header.Set("Authorization", "Bearer "+secret)
				req.Header.Set("Accept", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				if resp.Header.Get("X-Request-Id") == "" {
					t.Fatalf("%s: no X-Request-Id", path)
				}
				var body map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&body)
				return resp.StatusCode, body
			}
			status, body := call("/api/v1/models")
			if status != 200 || body["object"] != "list" || len(body["data"].([]any)) == 0 {
				t.Fatalf("models: %d %v", status, body)
			}
			status, body = call("/api/v1/me")
			if status != 200 || !strings.Contains(mustJSON(body), ws["id"].(string)) {
				t.Fatalf("me: %d %v", status, body)
			}

			gql(`mutation($id: ID!) { revokeApiKey(id: $id) { id status } }`, map[string]any{"id": keyID})
			status, body = call("/api/v1/models")
			if status != 401 || body["error"].(map[string]any)["code"] != "revoked_api_key" {
				t.Fatalf("after revoke: %d %v", status, body)
			}
			// The secret never appears again, anywhere the console can read.
			keys := gql(`{ apiKeys { id prefix lastFour status } viewer { user { email } workspace { id } } }`, nil)
			if strings.Contains(mustJSON(keys), secret) {
				t.Fatal("the secret came back after creation")
			}
			// No secret reached the logs: not the key, the password, nor the session token.
			u, _ := url.Parse(srv.URL)
			for _, c := range jar.Cookies(u) {
				if strings.Contains(logs.String(), c.Value) {
					t.Fatalf("cookie %s is in the logs", c.Name)
				}
			}
			for _, s := range []string{secret, "correct horse battery"} {
				if strings.Contains(logs.String(), s) {
					t.Fatalf("a secret is in the logs:\n%s", logs.String())
				}
			}
			if !strings.Contains(logs.String(), `"path":"/api/v1/models"`) {
				t.Fatal("requests were not logged at all (the check above would be vacuous)")
			}
		})
	}
}

func TestOperationalEndpoints(t *testing.T) {
	a, srv := newApp(t, storetest.URL(t, "sqlite"))
	get := func(path string) (*http.Response, string) {
		t.Helper()
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if resp, body := get("/healthz"); resp.StatusCode != 200 || !strings.Contains(body, "ok") {
		t.Fatalf("healthz: %d %s", resp.StatusCode, body)
	}
	if resp, body := get("/readyz"); resp.StatusCode != 200 || !strings.Contains(body, "sqlite") {
		t.Fatalf("readyz: %d %s", resp.StatusCode, body)
	}
	if resp, _ := get("/"); resp.StatusCode != 302 || resp.Header.Get("Location") != "/user/api" {
		t.Fatalf("root redirect: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Any console route answers with the app (or the "not built" notice in a Go-only build).
	resp, body := get("/user/api/keys")
	built := resp.StatusCode == 200 && strings.Contains(body, `id="root"`)
	notBuilt := resp.StatusCode == 503 && strings.Contains(body, "make build")
	if !built && !notBuilt {
		t.Fatalf("console route: %d %.200s", resp.StatusCode, body)
	}
	if resp, _ := get("/user/assets/missing.js"); resp.StatusCode != 404 {
		t.Fatalf("missing asset: %d", resp.StatusCode)
	}
	get("/api/v1/models")
	// Metrics are not public: the main handler does not serve them at all; the metrics
	// handler (on its own listener, SWITCHBOARD_METRICS_ADDR) counts the main one's traffic.
	if resp, body := get("/metrics"); resp.StatusCode != 404 || strings.Contains(body, "go_info") {
		t.Fatalf("/metrics on the main handler: %d\n%.300s", resp.StatusCode, body)
	}
	metricsSrv := httptest.NewServer(a.MetricsHandler())
	defer metricsSrv.Close()
	resp, err := http.Get(metricsSrv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 ||
		!strings.Contains(string(b), `switchboard_http_requests_total{code="401",method="GET",surface="api"} 1`) ||
		!strings.Contains(string(b), "switchboard_live_subscribers 0") {
		t.Fatalf("metrics: %d\n%s", resp.StatusCode, b)
	}
	if resp, err := http.Get(metricsSrv.URL + "/api/v1/models"); err != nil || resp.StatusCode != 404 {
		t.Fatalf("the metrics listener serves more than /metrics: %v %v", resp, err)
	}
	// Readiness follows the database.
	a.Store.Close()
	if resp, body := get("/readyz"); resp.StatusCode != 503 {
		t.Fatalf("readyz with the database closed: %d %s", resp.StatusCode, body)
	}
}

// syncWriter serialises writes from concurrent handlers.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
