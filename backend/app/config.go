package app

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Config is everything an operator can set. Each field has an environment variable (and
// the common ones a flag); see Settings for the list `switchboard --help` prints.
type Config struct {
	Addr         string
	DatabaseURL  string
	BaseURL      string
	ModelsFile   string
	RateLimit    float64
	RateBurst    int
	MaxBodyBytes int64
	// GraphQLIntrospection allows schema introspection (on by default: the schema is public).
	GraphQLIntrospection bool
	GraphQLComplexity    int
	WebhookAllowList     []string
	WebhookLease         time.Duration
	WebhookWorkers       int
	LogLevel             string
	LogFormat            string
	// SecretsKey encrypts secrets kept at rest (webhook signing secrets, replayable
	// responses that carry them). Empty: stored unencrypted (a warning is logged).
	SecretsKey string
}

// Setting documents one configuration variable.
type Setting struct {
	Env, Flag, Default, Help string
}

// Settings lists every variable with its default, in the order --help shows them.
var Settings = []Setting{
	{"SWITCHBOARD_ADDR", "addr", ":8080", "address to listen on"},
	{"DATABASE_URL", "database-url", "sqlite://./data/switchboard.db", "postgres://… for PostgreSQL, sqlite://path for the embedded SQLite"},
	{"SWITCHBOARD_BASE_URL", "base-url", "http://localhost:8080", "public origin of the service (short links, cURL examples, the console's own origin)"},
	{"SWITCHBOARD_MODELS_FILE", "models-file", "", "JSON file with the model catalog ([{\"id\",\"owned_by\",\"created\"}]); empty = built-in catalog"},
	{"SWITCHBOARD_RATE_LIMIT", "", "20", "requests per second per API key (token bucket refill rate)"},
	{"SWITCHBOARD_RATE_BURST", "", "40", "burst size per API key"},
	{"SWITCHBOARD_MAX_BODY_BYTES", "", "1048576", "largest request body accepted"},
	{"SWITCHBOARD_GRAPHQL_INTROSPECTION", "", "true", "allow GraphQL schema introspection"},
	{"SWITCHBOARD_GRAPHQL_COMPLEXITY", "", "500", "largest GraphQL query complexity accepted"},
	{"SWITCHBOARD_WEBHOOK_ALLOWLIST", "", "", "comma-separated hosts or CIDRs webhooks may reach despite SSRF rules (e.g. 127.0.0.1,n8n.internal)"},
	{"SWITCHBOARD_WEBHOOK_LEASE", "", "30s", "how long a worker holds a webhook delivery before another replica may take it over"},
	{"SWITCHBOARD_WEBHOOK_WORKERS", "", "8", "concurrent webhook deliveries per replica"},
	{"SWITCHBOARD_SECRETS_KEY", "", "", "long random string; encrypts webhook signing secrets at rest (AES-256-GCM). Keep it stable: changing it makes stored secrets unreadable"},
	{"SWITCHBOARD_LOG_LEVEL", "", "info", "debug, info, warn or error"},
	{"SWITCHBOARD_LOG_FORMAT", "", "json", "json or text"},
}

// FromEnv reads the configuration from getenv (os.Getenv in production).
func FromEnv(getenv func(string) string) (Config, error) {
	get := func(env string) string {
		if v := getenv(env); v != "" {
			return v
		}
		for _, s := range Settings {
			if s.Env == env {
				return s.Default
			}
		}
		return ""
	}
	c := Config{
		Addr: get("SWITCHBOARD_ADDR"), DatabaseURL: get("DATABASE_URL"), BaseURL: get("SWITCHBOARD_BASE_URL"),
		ModelsFile: get("SWITCHBOARD_MODELS_FILE"), SecretsKey: get("SWITCHBOARD_SECRETS_KEY"), LogLevel: get("SWITCHBOARD_LOG_LEVEL"), LogFormat: get("SWITCHBOARD_LOG_FORMAT"),
	}
	var err error
	parse := func(env string, f func(string) error) {
		if err == nil {
			if e := f(get(env)); e != nil {
				err = fmt.Errorf("%s: %w", env, e)
			}
		}
	}
	parse("SWITCHBOARD_RATE_LIMIT", func(v string) (e error) { _, e = fmt.Sscan(v, &c.RateLimit); return })
	parse("SWITCHBOARD_RATE_BURST", func(v string) (e error) { _, e = fmt.Sscan(v, &c.RateBurst); return })
	parse("SWITCHBOARD_MAX_BODY_BYTES", func(v string) (e error) { _, e = fmt.Sscan(v, &c.MaxBodyBytes); return })
	parse("SWITCHBOARD_GRAPHQL_INTROSPECTION", func(v string) (e error) { _, e = fmt.Sscan(v, &c.GraphQLIntrospection); return })
	parse("SWITCHBOARD_GRAPHQL_COMPLEXITY", func(v string) (e error) { _, e = fmt.Sscan(v, &c.GraphQLComplexity); return })
	parse("SWITCHBOARD_WEBHOOK_LEASE", func(v string) (e error) { c.WebhookLease, e = time.ParseDuration(v); return })
	parse("SWITCHBOARD_WEBHOOK_WORKERS", func(v string) (e error) { _, e = fmt.Sscan(v, &c.WebhookWorkers); return })
	for _, h := range strings.Split(get("SWITCHBOARD_WEBHOOK_ALLOWLIST"), ",") {
		if h = strings.TrimSpace(h); h != "" {
			c.WebhookAllowList = append(c.WebhookAllowList, h)
		}
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c, err
}

// loadModels reads the operator's model catalog; empty path means the built-in one.
func loadModels(path string) ([]domain.Model, error) {
	if path == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var models []domain.Model
	if err := json.Unmarshal(raw, &models); err != nil {
		return nil, fmt.Errorf("models file %s: %w", path, err)
	}
	for i := range models {
		if models[i].ID == "" {
			return nil, fmt.Errorf("models file %s: entry %d has no id", path, i)
		}
		models[i].Object = "model"
		if models[i].OwnedBy == "" {
			models[i].OwnedBy = "system"
		}
	}
	return models, nil
}
