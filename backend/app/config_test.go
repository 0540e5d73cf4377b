package app_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

func TestFromEnv(t *testing.T) {
	env := map[string]string{
		"SWITCHBOARD_BASE_URL":          "https://sb.example.com/",
		"SWITCHBOARD_RATE_LIMIT":        "5.5",
		"SWITCHBOARD_WEBHOOK_ALLOWLIST": " 127.0.0.1, n8n.internal ,",
		"SWITCHBOARD_WEBHOOK_LEASE":     "2s",
	}
	cfg, err := app.FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseURL != "https://sb.example.com" || cfg.RateLimit != 5.5 || cfg.RateBurst != 40 ||
		cfg.WebhookLease != 2*time.Second || !reflect.DeepEqual(cfg.WebhookAllowList, []string{"127.0.0.1", "n8n.internal"}) ||
		cfg.DatabaseURL != "sqlite://./data/switchboard.db" {
		t.Fatalf("config: %+v", cfg)
	}
	if _, err := app.FromEnv(func(k string) string {
		return map[string]string{"SWITCHBOARD_WEBHOOK_LEASE": "soon"}[k]
	}); err == nil {
		t.Fatal("a bad duration was accepted")
	}
}

// The operator's catalog replaces the built-in one, as clients see it.
func TestModelsFileIsServed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "models.json")
	if err := os.WriteFile(path, []byte(`[{"id":"acme-large","owned_by":"acme","created":1700000000},{"id":"acme/small"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _ := app.FromEnv(func(string) string { return "" })
	cfg.ModelsFile = path
	a, srv := newAppWith(t, storetest.URL(t, "sqlite"), cfg)
	owner := servicetest.NewOwner(t, a.Service)
	_, secret := owner.NewKey(t, a.Service, "models:read")

	req, _ := http.NewRequest("GET", srv.URL+"/api/v1/models", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&raw)
	b, _ := json.Marshal(raw) // keys sorted, so the comparison is stable
	if resp.StatusCode != 200 {
		t.Fatalf("models: %d %s", resp.StatusCode, b)
	}
	want := `{"data":[{"created":1700000000,"id":"acme-large","object":"model","owned_by":"acme"},{"created":0,"id":"acme/small","object":"model","owned_by":"system"}],"object":"list"}`
	if string(b) != want {
		t.Fatalf("models:\n got %s\nwant %s", b, want)
	}

	// A broken file stops the start with a clear error instead of serving nothing.
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte(`[{"owned_by":"x"}]`), 0o600)
	cfg.ModelsFile = bad
	if _, err := app.New(t.Context(), cfg, discard()); err == nil {
		t.Fatal("a catalog entry without id was accepted")
	}
}
