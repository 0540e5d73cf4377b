package app_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/telegram"
	"github.com/switchboard-dev/switchboard/backend/channels/whatsappcloud"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/retention"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
	"github.com/switchboard-dev/switchboard/graph"
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

// Each default is written once: the values FromEnv gives with nothing set are the exported
// constants (and the REST and GraphQL packages' own defaults), and --help shows the same.
func TestDefaultsAgree(t *testing.T) {
	cfg, err := app.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	want := app.Config{
		Addr: ":8080", DatabaseURL: "sqlite://./data/switchboard.db", BaseURL: "http://localhost:8080",
		RateLimit: rest.DefaultRateLimit, RateBurst: rest.DefaultBurst, MaxBodyBytes: rest.DefaultMaxBodyBytes,
		GraphQLIntrospection: true, GraphQLComplexity: graph.DefaultComplexityLimit,
		WebhookLease: app.DefaultWebhookLease, DBAcquireTimeout: 5 * time.Second, DBStatementTimeout: 30 * time.Second, DBMaxConns: 20, WebhookWorkers: app.DefaultWebhookWorkers, MessageWorkers: 64,
		WebhookPerEndpoint: app.DefaultWebhookPerEndpoint, WebhookPerWorkspace: app.DefaultWebhookPerWorkspace, LogLevel: "info", LogFormat: "json",
		MediaMaxBytes: messaging.DefaultMediaMaxBytes, MediaTypes: messaging.DefaultMediaTypes, MediaURLTTL: time.Hour,
		MediaUploadMaxBytes: channels.DefaultMaxUploadBytes,
		Retention:           withInterval(retention.Defaults(), retention.DefaultInterval),
		TelegramAPIURL:      telegram.DefaultServerURL, WhatsAppGraphURL: whatsappcloud.DefaultGraphURL,
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("defaults:\n got %+v\nwant %+v", cfg, want)
	}
	if app.DefaultWebhookWorkers != 64 || app.DefaultWebhookLease != 10*time.Second || app.DefaultWebhookPerEndpoint != 8 {
		t.Fatal("the webhook defaults are not the documented 64 workers, 10s lease, 8 per endpoint")
	}
	defaults := map[string]string{}
	for _, s := range app.Settings {
		defaults[s.Env] = s.Default
	}
	for env, v := range map[string]string{"SWITCHBOARD_WEBHOOK_WORKERS": "64", "SWITCHBOARD_WEBHOOK_LEASE": "10s",
		"SWITCHBOARD_WEBHOOK_PER_ENDPOINT": "8", "SWITCHBOARD_WEBHOOK_PER_WORKSPACE": "32", "SWITCHBOARD_RATE_LIMIT": "20", "SWITCHBOARD_MAX_BODY_BYTES": "1048576",
		"SWITCHBOARD_METRICS_ADDR": "", "SWITCHBOARD_DB_ACQUIRE_TIMEOUT": "5s", "SWITCHBOARD_DB_STATEMENT_TIMEOUT": "30s"} {
		if d, ok := defaults[env]; !ok || d != v {
			t.Errorf("Settings: %s default %q, want %q", env, d, v)
		}
	}
}

// Edge values mean what the documentation says, and nonsense is refused at start with a
// message naming the variable.
func TestFromEnvEdgeValues(t *testing.T) {
	from := func(env map[string]string) (app.Config, error) {
		return app.FromEnv(func(k string) string { return env[k] })
	}
	cfg, err := from(map[string]string{"SWITCHBOARD_WEBHOOK_WORKERS": "0", "SWITCHBOARD_WEBHOOK_LEASE": "1s",
		"SWITCHBOARD_WEBHOOK_PER_ENDPOINT": "1", "SWITCHBOARD_RATE_LIMIT": "0.5", "SWITCHBOARD_RATE_BURST": "1",
		"SWITCHBOARD_MAX_BODY_BYTES": "1", "SWITCHBOARD_GRAPHQL_INTROSPECTION": "false", "SWITCHBOARD_LOG_LEVEL": "debug",
		"SWITCHBOARD_LOG_FORMAT": "text", "SWITCHBOARD_METRICS_ADDR": "127.0.0.1:9091", "SWITCHBOARD_DB_ACQUIRE_TIMEOUT": "10ms",
		"SWITCHBOARD_DB_STATEMENT_TIMEOUT": "0"})
	if err != nil {
		t.Fatalf("smallest meaningful values refused: %v", err)
	}
	if cfg.WebhookWorkers != 0 || cfg.WebhookLease != time.Second || cfg.WebhookPerEndpoint != 1 ||
		cfg.GraphQLIntrospection || cfg.MetricsAddr != "127.0.0.1:9091" || cfg.DBAcquireTimeout != 10*time.Millisecond || cfg.DBStatementTimeout != 0 {
		t.Fatalf("config: %+v", cfg)
	}
	if cfg, err := from(nil); err != nil || cfg.DBStatementTimeout != 30*time.Second {
		t.Fatalf("default statement timeout %v (%v), want 30s", cfg.DBStatementTimeout, err)
	}

	// The default base URL follows the listen address.
	for addr, base := range map[string]string{":9000": "http://localhost:9000", "0.0.0.0:9000": "http://localhost:9000",
		"[::]:9000": "http://localhost:9000", "127.0.0.1:18778": "http://127.0.0.1:18778", "[::1]:9000": "http://[::1]:9000"} {
		cfg, err := from(map[string]string{"SWITCHBOARD_ADDR": addr})
		if err != nil || cfg.BaseURL != base {
			t.Errorf("SWITCHBOARD_ADDR=%s: base URL %q (%v), want %q", addr, cfg.BaseURL, err, base)
		}
	}

	refused := []struct{ env, value, says string }{
		{"SWITCHBOARD_WEBHOOK_WORKERS", "-1", "must be 0"},
		{"SWITCHBOARD_WEBHOOK_WORKERS", "many", "not a whole number"},
		{"SWITCHBOARD_WEBHOOK_LEASE", "500ms", "at least 1s"},
		{"SWITCHBOARD_WEBHOOK_LEASE", "-10s", "at least 1s"},
		{"SWITCHBOARD_WEBHOOK_PER_ENDPOINT", "0", "at least 1"},
		{"SWITCHBOARD_WEBHOOK_PER_WORKSPACE", "0", "at least 1"},
		{"SWITCHBOARD_DB_ACQUIRE_TIMEOUT", "5ms", "between 10ms and 1m"},
		{"SWITCHBOARD_DB_MAX_CONNS", "1", "between 2 and 500"},
		{"SWITCHBOARD_DB_MAX_CONNS", "1000", "between 2 and 500"},
		{"SWITCHBOARD_DB_MAX_CONNS", "lots", "not a whole number"},
		{"SWITCHBOARD_DB_ACQUIRE_TIMEOUT", "2m", "between 10ms and 1m"},
		{"SWITCHBOARD_DB_ACQUIRE_TIMEOUT", "soon", "not a duration"},
		{"SWITCHBOARD_DB_STATEMENT_TIMEOUT", "50ms", "0 (no bound) or between 100ms and 1h"},
		{"SWITCHBOARD_DB_STATEMENT_TIMEOUT", "2h", "0 (no bound) or between 100ms and 1h"},
		{"SWITCHBOARD_DB_STATEMENT_TIMEOUT", "-1s", "0 (no bound) or between 100ms and 1h"},
		{"SWITCHBOARD_RATE_LIMIT", "-5", "greater than 0"},
		{"SWITCHBOARD_RATE_LIMIT", "0", "greater than 0"},
		{"SWITCHBOARD_RATE_LIMIT", "NaN", "greater than 0"},
		{"SWITCHBOARD_RATE_LIMIT", "20abc", "not a number"},
		{"SWITCHBOARD_RATE_BURST", "0", "at least 1"},
		{"SWITCHBOARD_MAX_BODY_BYTES", "0", "at least 1"},
		{"SWITCHBOARD_MAX_BODY_BYTES", "1MB", "not a whole number"},
		{"SWITCHBOARD_GRAPHQL_COMPLEXITY", "-1", "at least 1"},
		{"SWITCHBOARD_GRAPHQL_INTROSPECTION", "yes please", "true or false"},
		{"SWITCHBOARD_ADDR", "localhost", "host:port"},
		{"SWITCHBOARD_BASE_URL", "sb.example.com", "origin"},
		{"SWITCHBOARD_BASE_URL", "https://sb.example.com/app", "no path"},
		{"SWITCHBOARD_BASE_URL", "ftp://sb.example.com", "origin"},
		{"SWITCHBOARD_METRICS_ADDR", "9090", "host:port"},
		{"SWITCHBOARD_METRICS_ADDR", ":8080", "main address"},
		{"SWITCHBOARD_SECRETS_KEY", "short", "at least 16"},
		{"SWITCHBOARD_LOG_LEVEL", "verbose", "debug, info, warn or error"},
		{"SWITCHBOARD_LOG_FORMAT", "xml", "json or text"},
		{"SWITCHBOARD_RETENTION_CLICKS", "24h", "under 2 days"},
		{"SWITCHBOARD_RETENTION_EVENTS", "-1h", "negative"},
		{"SWITCHBOARD_RETENTION_IDEMPOTENCY", "1h", "replay window"},
		{"SWITCHBOARD_RETENTION_INTERVAL", "0", "between 1m and 24h"},
		{"SWITCHBOARD_RETENTION_INTERVAL", "-5m", "between 1m and 24h"},
		{"SWITCHBOARD_RETENTION_INTERVAL", "1ms", "between 1m and 24h"},
		{"SWITCHBOARD_RETENTION_INTERVAL", "48h", "between 1m and 24h"},
		{"DATABASE_URL", "postgress://db.example.com/sb", "unknown database URL scheme"},
		{"DATABASE_URL", "sqlite://", "empty SQLite path"},
	}
	for _, r := range refused {
		_, err := from(map[string]string{r.env: r.value})
		if err == nil {
			t.Errorf("%s=%s was accepted", r.env, r.value)
			continue
		}
		if !strings.Contains(err.Error(), r.env) || !strings.Contains(err.Error(), r.says) {
			t.Errorf("%s=%s: the error %q does not name the variable or say %q", r.env, r.value, err, r.says)
		}
	}

	// A bad address is reported once, not again through the base URL derived from it.
	if _, err := from(map[string]string{"SWITCHBOARD_ADDR": "foo"}); err == nil || strings.Contains(err.Error(), "SWITCHBOARD_BASE_URL") {
		t.Fatalf("SWITCHBOARD_ADDR=foo: %v", err)
	}
	// Every problem is reported at once, so an operator fixes them in one go.
	_, err = from(map[string]string{"SWITCHBOARD_RATE_BURST": "0", "SWITCHBOARD_WEBHOOK_WORKERS": "-3", "DATABASE_URL": "mysql://x"})
	for _, env := range []string{"SWITCHBOARD_RATE_BURST", "SWITCHBOARD_WEBHOOK_WORKERS", "DATABASE_URL"} {
		if err == nil || !strings.Contains(err.Error(), env) {
			t.Fatalf("three mistakes, %s not among them: %v", env, err)
		}
	}
	// Validate names the flag too, for values that flags set.
	cfg, _ = from(nil)
	cfg.BaseURL = "localhost:8080"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "SWITCHBOARD_BASE_URL (--base-url)") {
		t.Fatalf("Validate: %v", err)
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
	for _, catalog := range []string{`[{"id":"a"},{"id":"a"}]`, `[{"id":"a","ownedBy":"x"}]`} {
		_ = os.WriteFile(bad, []byte(catalog), 0o600)
		if _, err := app.New(t.Context(), cfg, discard()); err == nil {
			t.Fatalf("catalog %s was accepted", catalog)
		}
	}
}

func withInterval(c retention.Config, d time.Duration) retention.Config {
	c.Interval = d
	return c
}

// Settings that name files, addresses and stores are checked with the rest, before the
// database is opened: each mistake names its variable, and all are listed at once.
func TestConfigCheckReadsFilesAddressesAndStores(t *testing.T) {
	// S3 URLs are opened by the check (no network: the client connects on first use); keep
	// the SDK away from the machine's own AWS files.
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	from := func(env map[string]string) (app.Config, error) {
		return app.FromEnv(func(k string) string { return env[k] })
	}
	dir := t.TempDir()
	notMMDB := filepath.Join(dir, "country.mmdb")
	models := filepath.Join(dir, "models.json")
	noID := filepath.Join(dir, "noid.json")
	for path, text := range map[string]string{notMMDB: "not a database", models: `[{"id":"m"}]`, noID: `[{"owned_by":"x"}]`} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mediaDir := filepath.Join(dir, "media")

	for env, values := range map[string][]string{
		"SWITCHBOARD_ADDR":              {"127.0.0.1:0", "127.0.0.1:65535", ":8080", "[::1]:8080"},
		"SWITCHBOARD_METRICS_ADDR":      {"127.0.0.1:9091", ":0"},
		"SWITCHBOARD_PPROF_ADDR":        {"127.0.0.1:6060", "127.3.2.1:0", "[::1]:6060", "localhost:6060", "LocalHost:6060"},
		"SWITCHBOARD_WEBHOOK_ALLOWLIST": {"127.0.0.1, 10.0.0.0/8, n8n.internal, [::1]"},
		"SWITCHBOARD_MODELS_FILE":       {models},
		"SWITCHBOARD_MEDIA_STORE":       {"file://" + filepath.ToSlash(mediaDir), "mem://", "s3://media?region=eu-west-1&use_path_style=true"},
	} {
		for _, v := range values {
			if _, err := from(map[string]string{env: v}); err != nil {
				t.Errorf("%s=%s refused: %v", env, v, err)
			}
		}
	}
	if _, err := os.Stat(mediaDir); !os.IsNotExist(err) {
		t.Errorf("the check created the media directory (%v): that is for the start", err)
	}

	refused := []struct{ env, value, says string }{
		{"SWITCHBOARD_ADDR", "127.0.0.1:99999", "port number from 0 to 65535"},
		{"SWITCHBOARD_ADDR", "127.0.0.1:", "port number from 0 to 65535"},
		{"SWITCHBOARD_ADDR", ":-1", "port number from 0 to 65535"},
		{"SWITCHBOARD_METRICS_ADDR", "127.0.0.1:70000", "port number from 0 to 65535"},
		{"SWITCHBOARD_PPROF_ADDR", "127.0.0.1:99999", "port number from 0 to 65535"},
		{"SWITCHBOARD_PPROF_ADDR", "6060", "host:port"},
		{"SWITCHBOARD_PPROF_ADDR", "0.0.0.0:18609", "loopback"},
		{"SWITCHBOARD_PPROF_ADDR", ":6060", "loopback"},
		{"SWITCHBOARD_PPROF_ADDR", "[::]:6060", "loopback"},
		{"SWITCHBOARD_PPROF_ADDR", "10.0.0.5:6060", "loopback"},
		{"SWITCHBOARD_PPROF_ADDR", "localhost.example.com:6060", "loopback"},
		{"SWITCHBOARD_WEBHOOK_ALLOWLIST", "nothost/x", `"nothost/x"`},
		{"SWITCHBOARD_WEBHOOK_ALLOWLIST", "127.0.0.1, n8n internal", `"n8n internal" is not a host, IP or CIDR`},
		{"SWITCHBOARD_TRUSTED_PROXIES", "127.0.0.1, proxy.internal", `"proxy.internal" is not an IP address or a CIDR prefix`},
		{"SWITCHBOARD_TRUSTED_PROXIES", "10.0.0.0/33", `"10.0.0.0/33"`},
		{"SWITCHBOARD_MODELS_FILE", "/nope.json", "no such file"},
		{"SWITCHBOARD_MODELS_FILE", noID, "entry 0 has no id"},
		{"SWITCHBOARD_GEOIP_FILE", "/nope.mmdb", "no such file"},
		{"SWITCHBOARD_GEOIP_FILE", notMMDB, "is not a MaxMind database"},
		{"SWITCHBOARD_MEDIA_STORE", "ftp://files.example.com/media", `unsupported store URL scheme "ftp"`},
		{"SWITCHBOARD_MEDIA_STORE", "/var/lib/media", "unsupported store URL scheme"},
		{"SWITCHBOARD_MEDIA_STORE", "file://media", "absolute path"},
		{"SWITCHBOARD_MEDIA_STORE", "file:///srv/media?mode=x", "no query parameters"},
		{"SWITCHBOARD_MEDIA_STORE", "file://me:hunter2@/srv/media", "must not carry credentials"},
		{"SWITCHBOARD_MEDIA_STORE", "s3://media?region=eu-west-1&secret=hunter2", "unknown S3 store URL parameters"},
		{"SWITCHBOARD_MEDIA_STORE", "s3://media/sub?region=eu-west-1", "names just the bucket"},
	}
	for _, r := range refused {
		_, err := from(map[string]string{r.env: r.value})
		if err == nil {
			t.Errorf("%s=%s was accepted", r.env, r.value)
			continue
		}
		if !strings.Contains(err.Error(), r.env+": ") && !strings.Contains(err.Error(), r.env+" (--") || !strings.Contains(err.Error(), r.says) {
			t.Errorf("%s=%s: the error %q does not name the variable or say %q", r.env, r.value, err, r.says)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s=%s: the error shows the secret: %q", r.env, r.value, err)
		}
	}

	// The operator's walk-through, in one start: every mistake on a line of its own.
	_, err := from(map[string]string{"SWITCHBOARD_WEBHOOK_ALLOWLIST": "nothost/x,bad host", "SWITCHBOARD_MODELS_FILE": "/nope.json",
		"SWITCHBOARD_ADDR": "127.0.0.1:99999", "SWITCHBOARD_PPROF_ADDR": "0.0.0.0:18609", "SWITCHBOARD_GEOIP_FILE": "/nope.mmdb",
		"SWITCHBOARD_MEDIA_STORE": "ftp://x"})
	if err == nil {
		t.Fatal("accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	for _, want := range []string{"SWITCHBOARD_WEBHOOK_ALLOWLIST: allow-list entry \"nothost/x\"", "SWITCHBOARD_WEBHOOK_ALLOWLIST: allow-list entry \"bad host\"",
		"SWITCHBOARD_MODELS_FILE (--models-file): ", "SWITCHBOARD_ADDR (--addr): ", "SWITCHBOARD_PPROF_ADDR: ", "SWITCHBOARD_GEOIP_FILE: ",
		"SWITCHBOARD_MEDIA_STORE: "} {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, want)
		}
		if !found {
			t.Errorf("no line starts %q in:\n%v", want, err)
		}
	}
	if len(lines) != 7 {
		t.Errorf("%d lines, want 7:\n%v", len(lines), err)
	}
}
