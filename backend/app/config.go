package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/blob"
	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/telegram"
	"github.com/switchboard-dev/switchboard/backend/channels/whatsappcloud"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/retention"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/webhook"
	"github.com/switchboard-dev/switchboard/graph"
)

// Defaults of the settings that have no default elsewhere. The REST, GraphQL, webhook and
// job-engine settings take theirs from those packages' Default* constants, so each default
// is written once.
const (
	// DefaultWebhookWorkers is how many webhook deliveries one replica makes at once.
	DefaultWebhookWorkers = webhook.DefaultWorkers
	// DefaultWebhookLease is how long a claimed delivery is held before another replica may
	// take it over (MinWebhookLease at least).
	DefaultWebhookLease = jobs.DefaultLease
	MinWebhookLease     = time.Second
	// DefaultWebhookPerEndpoint is how many deliveries to one endpoint may be in flight at
	// once, across all replicas.
	DefaultWebhookPerEndpoint = webhook.DefaultPerEndpoint
	// DefaultWebhookPerWorkspace is how many deliveries to one workspace's endpoints
	// together may be in flight at once, across all replicas.
	DefaultWebhookPerWorkspace = webhook.DefaultPerWorkspace
	// DefaultAddr is the listen address.
	DefaultAddr = ":8080"
	// MinSecretsKeyLen is the shortest SWITCHBOARD_SECRETS_KEY accepted.
	MinSecretsKeyLen = 16
)

// Config is everything an operator can set. Each field has an environment variable (and
// the common ones a flag); see Settings for the list `switchboard --help` prints.
type Config struct {
	Addr        string
	DatabaseURL string
	// BaseURL is the public origin. FromEnv derives it from Addr when it is not set
	// (http://localhost:8080 for :8080); `switchboard serve` derives it from the listener.
	BaseURL      string
	ModelsFile   string
	RateLimit    float64
	RateBurst    int
	MaxBodyBytes int64
	// GraphQLIntrospection allows schema introspection (on by default: the schema is public).
	GraphQLIntrospection bool
	GraphQLComplexity    int
	WebhookAllowList     []string
	// TrustedProxies are the proxies in front (TLS terminators, load balancers) whose
	// X-Forwarded-For names the client (httpx.TrustProxies); none by default.
	TrustedProxies []string
	// WebhookLease is how long a claimed delivery is held (≥ MinWebhookLease).
	WebhookLease time.Duration
	// DBAcquireTimeout is how long a request waits for a free database connection before it
	// is answered 503 unavailable (0: store.DefaultAcquireTimeout).
	DBAcquireTimeout time.Duration
	// DBStatementTimeout is how long a PostgreSQL statement waits for the server's answer
	// before its connection is given up and it fails as unavailable (0: no bound).
	DBStatementTimeout time.Duration
	// DBMaxConns is the PostgreSQL connection pool's size per replica (the listener takes one
	// more); SQLite's pool is fixed.
	DBMaxConns int
	// WebhookWorkers is how many deliveries this replica makes at once; 0 means this replica
	// delivers no webhooks (an API-only replica), other replicas do.
	WebhookWorkers int
	// MessageWorkers is how many message sends this replica makes at once; 0 means this
	// replica sends no messages and applies no channel events (an API-only replica).
	MessageWorkers int
	// WebhookPerEndpoint is how many deliveries to one endpoint may be in flight at once,
	// counted across all replicas (≥ 1).
	WebhookPerEndpoint int
	// WebhookPerWorkspace is how many deliveries to one workspace's endpoints together may
	// be in flight at once, counted across all replicas (≥ 1).
	WebhookPerWorkspace int
	// MetricsAddr is the address of the separate listener that serves Prometheus /metrics;
	// empty means metrics are not served. The main listener never serves them.
	MetricsAddr string
	LogLevel    string
	LogFormat   string
	// ShortHost is the origin of a dedicated short-link domain (https://sho.rt): requests
	// for that host are redirects at /{slug}, and short_url values use it. Empty: /l/{slug}
	// on BaseURL.
	ShortHost string
	// LinkBlocklist refuses short links to these hosts (and their subdomains).
	LinkBlocklist []string
	// GeoIPFile is a MaxMind country database for click countries; empty: unknown.
	GeoIPFile string
	// MediaStore is where received media is kept (file:///dir or s3://bucket?…); empty:
	// ./data/media.
	MediaStore string
	// MediaMaxBytes bounds one received file; MediaTypes are the media types kept.
	MediaMaxBytes int64
	MediaTypes    []string
	// MediaUploadMaxBytes bounds a file a send names by URL (fetched, then uploaded to the
	// channel); 0: the drivers' default.
	MediaUploadMaxBytes int64
	// MediaURLTTL is how long a signed media URL works.
	MediaURLTTL time.Duration
	// TelegramAPIURL and WhatsAppGraphURL are the providers' API origins (tests point them
	// at fakes).
	TelegramAPIURL   string
	WhatsAppGraphURL string
	// Retention bounds what grows with traffic (events, deliveries, clicks, …).
	Retention retention.Config
	// SecretsKey encrypts secrets kept at rest (webhook signing secrets, replayable
	// responses that carry them). Empty: stored unencrypted (a warning is logged).
	SecretsKey string
	// PprofAddr is SWITCHBOARD_PPROF_ADDR, the loopback listener the command serves Go's
	// profiles on (for benchmarks; not in Settings, so not in --help). Read here only to be
	// checked with the rest.
	PprofAddr string
}

// Setting documents one configuration variable.
type Setting struct {
	Env, Flag, Default, Help string
}

// Settings lists every variable with its default, in the order --help shows them.
var Settings = []Setting{
	{"SWITCHBOARD_ADDR", "addr", DefaultAddr, "address to listen on (host:port)"},
	{"DATABASE_URL", "database-url", "sqlite://./data/switchboard.db", "postgres://… or postgresql://… for PostgreSQL; sqlite://path (or a plain file path) for the embedded SQLite"},
	{"SWITCHBOARD_BASE_URL", "base-url", "", "public origin of the service (short links, cURL examples, the console's own origin); empty = the listener's URL (http://localhost:8080 for :8080)"},
	{"SWITCHBOARD_MODELS_FILE", "models-file", "", "JSON file with the model catalog ([{\"id\",\"owned_by\",\"created\"}]); empty = built-in catalog"},
	{"SWITCHBOARD_RATE_LIMIT", "", ftoa(rest.DefaultRateLimit), "requests per second per API key (token bucket refill rate, > 0)"},
	{"SWITCHBOARD_RATE_BURST", "", strconv.Itoa(rest.DefaultBurst), "burst size per API key (≥ 1)"},
	{"SWITCHBOARD_MAX_BODY_BYTES", "", strconv.Itoa(rest.DefaultMaxBodyBytes), "largest request body accepted, in bytes (≥ 1)"},
	{"SWITCHBOARD_GRAPHQL_INTROSPECTION", "", "true", "allow GraphQL schema introspection (true or false)"},
	{"SWITCHBOARD_GRAPHQL_COMPLEXITY", "", strconv.Itoa(graph.DefaultComplexityLimit), "largest GraphQL query complexity accepted (≥ 1)"},
	{"SWITCHBOARD_WEBHOOK_ALLOWLIST", "", "", "comma-separated hosts or CIDRs webhooks may reach despite SSRF rules (e.g. 127.0.0.1,n8n.internal)"},
	{"SWITCHBOARD_TRUSTED_PROXIES", "", "", "comma-separated addresses or CIDRs of the proxies in front (e.g. 127.0.0.1,10.0.0.0/8): their X-Forwarded-For names the client"},
	{"SWITCHBOARD_WEBHOOK_WORKERS", "", strconv.Itoa(DefaultWebhookWorkers), "webhook deliveries this replica makes at once; 0 = this replica delivers no webhooks (API-only)"},
	{"SWITCHBOARD_MESSAGE_WORKERS", "", strconv.Itoa(messaging.DefaultWorkers.Send), "message sends this replica makes at once; 0 = this replica sends no messages and applies no channel events (API-only)"},
	{"SWITCHBOARD_WEBHOOK_PER_ENDPOINT", "", strconv.Itoa(DefaultWebhookPerEndpoint), "deliveries in flight to one endpoint at once, across all replicas (≥ 1)"},
	{"SWITCHBOARD_WEBHOOK_PER_WORKSPACE", "", strconv.Itoa(DefaultWebhookPerWorkspace), "deliveries in flight to one workspace's endpoints together, across all replicas (≥ 1)"},
	{"SWITCHBOARD_WEBHOOK_LEASE", "", DefaultWebhookLease.String(), "how long a worker holds a webhook delivery before another replica may take it over (≥ 1s)"},
	{"SWITCHBOARD_DB_MAX_CONNS", "", strconv.Itoa(store.DefaultPoolSize), "PostgreSQL connections per replica (2 to 500; each replica also holds one for notifications and one for readiness checks)"},
	{"SWITCHBOARD_DB_ACQUIRE_TIMEOUT", "", store.DefaultAcquireTimeout.String(), "how long a request waits for a free database connection before it is answered 503 unavailable (10ms to 1m)"},
	{"SWITCHBOARD_DB_STATEMENT_TIMEOUT", "", store.DefaultStatementTimeout.String(), "how long a PostgreSQL statement waits for the server to answer (a frozen server, a network partition) before it is answered 503 unavailable (0 = no bound, else 100ms to 1h)"},
	{"SWITCHBOARD_METRICS_ADDR", "", "", "address of a separate listener serving Prometheus /metrics (e.g. 127.0.0.1:9091); empty = metrics are not served. The main address never serves them"},
	{"SWITCHBOARD_SHORT_HOST", "", "", "origin of a dedicated short-link domain (e.g. https://sho.rt) answering /{slug}; empty = short links are BASE_URL/l/{slug}"},
	{"SWITCHBOARD_LINK_BLOCKLIST", "", "", "comma-separated hosts short links may not point to (subdomains included)"},
	{"SWITCHBOARD_GEOIP_FILE", "", "", "MaxMind country database (.mmdb) naming the country of link clicks; empty = country unknown"},
	{"SWITCHBOARD_MEDIA_STORE", "", "", "where received media (photos, voice notes, documents from Telegram and WhatsApp) is kept: file:///abs/dir, or s3://bucket?region=…[&endpoint=https://…&use_path_style=true] for S3, MinIO or R2 (credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the AWS SDK's usual sources); empty = ./data/media"},
	{"SWITCHBOARD_MEDIA_MAX_BYTES", "", strconv.Itoa(messaging.DefaultMediaMaxBytes), "largest received file kept, in bytes (larger ones are noted as not_stored: too_large)"},
	{"SWITCHBOARD_MEDIA_TYPES", "", strings.Join(messaging.DefaultMediaTypes, ","), "comma-separated media types kept, exact (application/pdf) or by family (image/*)"},
	{"SWITCHBOARD_MEDIA_UPLOAD_MAX_BYTES", "", strconv.Itoa(channels.DefaultMaxUploadBytes), "largest file a send may name by media.url: Switchboard fetches it (through the SSRF policy) and uploads it to the channel, holding it in memory meanwhile"},
	{"SWITCHBOARD_MEDIA_URL_TTL", "", "1h", "how long a signed media URL (/media/…) works"},
	{"SWITCHBOARD_TELEGRAM_API_URL", "", telegram.DefaultServerURL, "the Telegram Bot API origin (a local Bot API server, or a fake in tests)"},
	{"SWITCHBOARD_WHATSAPP_GRAPH_URL", "", whatsappcloud.DefaultGraphURL, "the Graph API origin WhatsApp Cloud is reached at (a fake in tests)"},
	{"SWITCHBOARD_RETENTION_EVENTS", "", "720h", "how long events are kept (GET /events, replays, subscription resumes); 0 = forever"},
	{"SWITCHBOARD_RETENTION_DELIVERIES", "", "720h", "how long finished webhook deliveries and their attempts are kept; 0 = forever"},
	{"SWITCHBOARD_RETENTION_CLICKS", "", "2160h", "how long raw short-link clicks are kept (stats keep their totals through daily rollups); 0 = forever, else at least 48h"},
	{"SWITCHBOARD_RETENTION_AUTOMATION", "", "720h", "how long inbound automation calls and finished action runs are kept; 0 = forever"},
	{"SWITCHBOARD_RETENTION_FAILED_JOBS", "", "720h", "how long failed jobs (failed inbound channel callbacks among them) are kept; 0 = forever"},
	{"SWITCHBOARD_RETENTION_IDEMPOTENCY", "", "24h", "how long Idempotency-Key records are kept; 0 = forever, else at least 24h"},
	{"SWITCHBOARD_RETENTION_INTERVAL", "", "10m", "how often the retention job prunes (one replica at a time; 1m to 24h)"},
	{"SWITCHBOARD_SECRETS_KEY", "", "", "random string of at least 16 characters; encrypts secrets at rest (AES-256-GCM: webhook signing secrets, channel tokens and app secrets, callback tokens) and derives the key that signs media URLs, so every replica must share it. Keep it stable: changing it makes stored secrets unreadable"},
	{"SWITCHBOARD_LOG_LEVEL", "", "info", "debug, info, warn or error"},
	{"SWITCHBOARD_LOG_FORMAT", "", "json", "json or text"},
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// FromEnv reads the configuration from getenv (os.Getenv in production) and checks it
// (see Validate). An error names every variable that is wrong.
func FromEnv(getenv func(string) string) (Config, error) {
	get := func(env string) string {
		if v := strings.TrimSpace(getenv(env)); v != "" {
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
		ModelsFile: get("SWITCHBOARD_MODELS_FILE"), MetricsAddr: get("SWITCHBOARD_METRICS_ADDR"),
		PprofAddr:  getenv("SWITCHBOARD_PPROF_ADDR"), // untrimmed: the command listens on it as is
		SecretsKey: getenv("SWITCHBOARD_SECRETS_KEY"), ShortHost: strings.TrimRight(get("SWITCHBOARD_SHORT_HOST"), "/"),
		GeoIPFile: get("SWITCHBOARD_GEOIP_FILE"), LogLevel: get("SWITCHBOARD_LOG_LEVEL"), LogFormat: get("SWITCHBOARD_LOG_FORMAT"),
	}
	var errs []error
	parse := func(env, want string, f func(string) error) {
		v := get(env)
		if f(v) != nil {
			errs = append(errs, fmt.Errorf("%s=%q: not %s", env, v, want))
		}
	}
	parseInt := func(env string, dst *int) {
		parse(env, "a whole number", func(v string) (e error) { *dst, e = strconv.Atoi(v); return })
	}
	parse("SWITCHBOARD_RATE_LIMIT", "a number", func(v string) (e error) { c.RateLimit, e = strconv.ParseFloat(v, 64); return })
	parseInt("SWITCHBOARD_RATE_BURST", &c.RateBurst)
	parse("SWITCHBOARD_MAX_BODY_BYTES", "a whole number of bytes", func(v string) (e error) { c.MaxBodyBytes, e = strconv.ParseInt(v, 10, 64); return })
	parse("SWITCHBOARD_GRAPHQL_INTROSPECTION", "true or false", func(v string) (e error) { c.GraphQLIntrospection, e = strconv.ParseBool(v); return })
	parseInt("SWITCHBOARD_GRAPHQL_COMPLEXITY", &c.GraphQLComplexity)
	parseInt("SWITCHBOARD_WEBHOOK_WORKERS", &c.WebhookWorkers)
	parseInt("SWITCHBOARD_WEBHOOK_PER_ENDPOINT", &c.WebhookPerEndpoint)
	parseInt("SWITCHBOARD_WEBHOOK_PER_WORKSPACE", &c.WebhookPerWorkspace)
	parseInt("SWITCHBOARD_MESSAGE_WORKERS", &c.MessageWorkers)
	parse("SWITCHBOARD_WEBHOOK_LEASE", "a duration such as 10s or 1m", func(v string) (e error) { c.WebhookLease, e = time.ParseDuration(v); return })
	parseInt("SWITCHBOARD_DB_MAX_CONNS", &c.DBMaxConns)
	parse("SWITCHBOARD_DB_ACQUIRE_TIMEOUT", "a duration such as 5s", func(v string) (e error) { c.DBAcquireTimeout, e = time.ParseDuration(v); return })
	parse("SWITCHBOARD_DB_STATEMENT_TIMEOUT", "a duration such as 30s", func(v string) (e error) { c.DBStatementTimeout, e = time.ParseDuration(v); return })
	for _, h := range strings.Split(get("SWITCHBOARD_WEBHOOK_ALLOWLIST"), ",") {
		if h = strings.TrimSpace(h); h != "" {
			c.WebhookAllowList = append(c.WebhookAllowList, h)
		}
	}
	for _, h := range strings.Split(get("SWITCHBOARD_TRUSTED_PROXIES"), ",") {
		if h = strings.TrimSpace(h); h != "" {
			c.TrustedProxies = append(c.TrustedProxies, h)
		}
	}
	for _, h := range strings.Split(get("SWITCHBOARD_LINK_BLOCKLIST"), ",") {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			c.LinkBlocklist = append(c.LinkBlocklist, h)
		}
	}
	c.MediaStore, c.TelegramAPIURL, c.WhatsAppGraphURL = get("SWITCHBOARD_MEDIA_STORE"),
		strings.TrimRight(get("SWITCHBOARD_TELEGRAM_API_URL"), "/"), strings.TrimRight(get("SWITCHBOARD_WHATSAPP_GRAPH_URL"), "/")
	parse("SWITCHBOARD_MEDIA_MAX_BYTES", "a whole number of bytes", func(v string) (e error) { c.MediaMaxBytes, e = strconv.ParseInt(v, 10, 64); return })
	c.Retention = retention.Defaults()
	for env, d := range map[string]*time.Duration{"SWITCHBOARD_RETENTION_EVENTS": &c.Retention.Events,
		"SWITCHBOARD_RETENTION_DELIVERIES": &c.Retention.Deliveries, "SWITCHBOARD_RETENTION_CLICKS": &c.Retention.Clicks,
		"SWITCHBOARD_RETENTION_AUTOMATION": &c.Retention.Automation, "SWITCHBOARD_RETENTION_FAILED_JOBS": &c.Retention.FailedJobs,
		"SWITCHBOARD_RETENTION_IDEMPOTENCY": &c.Retention.Idempotency} {
		parse(env, "a duration such as 720h (0 keeps forever)", func(v string) (e error) { *d, e = time.ParseDuration(v); return })
	}
	// The interval has no "0 = off": pruning always runs. A set value must be a real interval.
	parse("SWITCHBOARD_RETENTION_INTERVAL", "a duration between 1m and 24h", func(v string) error {
		d, err := time.ParseDuration(v)
		if err == nil && d <= 0 {
			return errors.New("not positive")
		}
		c.Retention.Interval = d
		return err
	})
	parse("SWITCHBOARD_MEDIA_UPLOAD_MAX_BYTES", "a whole number of bytes", func(v string) (e error) { c.MediaUploadMaxBytes, e = strconv.ParseInt(v, 10, 64); return })
	parse("SWITCHBOARD_MEDIA_URL_TTL", "a duration such as 15m or 1h", func(v string) (e error) { c.MediaURLTTL, e = time.ParseDuration(v); return })
	for _, t := range strings.Split(get("SWITCHBOARD_MEDIA_TYPES"), ",") {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			c.MediaTypes = append(c.MediaTypes, t)
		}
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.BaseURL == "" {
		c.BaseURL = BaseURLFor(c.Addr)
	}
	if len(errs) > 0 { // values that did not parse would only repeat as range errors
		return c, errors.Join(errs...)
	}
	return c, c.Validate()
}

// retentionEnv names the variable of each retention.Config field.
var retentionEnv = map[string]string{"Events": "SWITCHBOARD_RETENTION_EVENTS", "Deliveries": "SWITCHBOARD_RETENTION_DELIVERIES",
	"Clicks": "SWITCHBOARD_RETENTION_CLICKS", "Automation": "SWITCHBOARD_RETENTION_AUTOMATION",
	"FailedJobs": "SWITCHBOARD_RETENTION_FAILED_JOBS", "Idempotency": "SWITCHBOARD_RETENTION_IDEMPOTENCY",
	"Interval": "SWITCHBOARD_RETENTION_INTERVAL"}

// Validate refuses values that mean nothing (a negative rate limit, a zero body limit, an
// allow-list entry that is no host, a models or GeoIP file that does not open, …), naming the
// variable (and flag) of each, all at once, before anything is served or the database is
// opened. It reads those files but creates nothing. FromEnv calls it; call it again
// after changing fields (as the command does with its flags).
func (c Config) Validate() error {
	var errs []error
	bad := func(env, format string, args ...any) {
		name := env
		for _, s := range Settings {
			if s.Env == env && s.Flag != "" {
				name += " (--" + s.Flag + ")"
			}
		}
		errs = append(errs, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...)))
	}
	addrErr := checkAddr(c.Addr)
	if addrErr != nil {
		bad("SWITCHBOARD_ADDR", "%q %v (for example :8080 or 127.0.0.1:8080)", c.Addr, addrErr)
	}
	if c.DatabaseURL == "" {
		bad("DATABASE_URL", "empty")
	} else if err := store.CheckURL(c.DatabaseURL); err != nil {
		bad("DATABASE_URL", "%s", strings.TrimPrefix(err.Error(), "store: "))
	}
	// A base URL derived from a bad address would only repeat the address's mistake.
	if err := checkOrigin(c.BaseURL); err != nil && (addrErr == nil || c.BaseURL != BaseURLFor(c.Addr)) {
		bad("SWITCHBOARD_BASE_URL", "%q %v", c.BaseURL, err)
	}
	if math.IsNaN(c.RateLimit) || math.IsInf(c.RateLimit, 0) || c.RateLimit <= 0 {
		bad("SWITCHBOARD_RATE_LIMIT", "%v requests per second: must be greater than 0", c.RateLimit)
	}
	if c.RateBurst < 1 {
		bad("SWITCHBOARD_RATE_BURST", "%d: must be at least 1", c.RateBurst)
	}
	if c.MaxBodyBytes < 1 {
		bad("SWITCHBOARD_MAX_BODY_BYTES", "%d: must be at least 1", c.MaxBodyBytes)
	}
	if c.GraphQLComplexity < 1 {
		bad("SWITCHBOARD_GRAPHQL_COMPLEXITY", "%d: must be at least 1", c.GraphQLComplexity)
	}
	if c.WebhookWorkers < 0 {
		bad("SWITCHBOARD_WEBHOOK_WORKERS", "%d: must be 0 (this replica delivers no webhooks) or more", c.WebhookWorkers)
	}
	if c.MessageWorkers < 0 {
		bad("SWITCHBOARD_MESSAGE_WORKERS", "%d: must be 0 (this replica sends no messages) or more", c.MessageWorkers)
	}
	if c.WebhookPerEndpoint < 1 {
		bad("SWITCHBOARD_WEBHOOK_PER_ENDPOINT", "%d: must be at least 1", c.WebhookPerEndpoint)
	}
	if c.WebhookPerWorkspace < 1 {
		bad("SWITCHBOARD_WEBHOOK_PER_WORKSPACE", "%d: must be at least 1", c.WebhookPerWorkspace)
	}
	if c.MediaMaxBytes < 0 {
		bad("SWITCHBOARD_MEDIA_MAX_BYTES", "%d: must be at least 1 (or 0 for the default)", c.MediaMaxBytes)
	}
	for _, p := range c.Retention.Problems() {
		bad(retentionEnv[p.Field], "%s", p.Msg)
	}
	if c.MediaUploadMaxBytes < 0 {
		bad("SWITCHBOARD_MEDIA_UPLOAD_MAX_BYTES", "%d: must be at least 1 (or 0 for the default)", c.MediaUploadMaxBytes)
	}
	if c.MediaURLTTL < 0 || (c.MediaURLTTL > 0 && c.MediaURLTTL < time.Minute) || c.MediaURLTTL > 7*24*time.Hour {
		bad("SWITCHBOARD_MEDIA_URL_TTL", "%v: must be between 1m and 168h", c.MediaURLTTL)
	}
	for env, v := range map[string]string{"SWITCHBOARD_TELEGRAM_API_URL": c.TelegramAPIURL, "SWITCHBOARD_WHATSAPP_GRAPH_URL": c.WhatsAppGraphURL} {
		if u, err := url.Parse(v); v != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
			bad(env, "%q must be an http(s) origin", v)
		}
	}
	if c.WebhookLease < MinWebhookLease {
		bad("SWITCHBOARD_WEBHOOK_LEASE", "%v: must be at least %v", c.WebhookLease, MinWebhookLease)
	}
	if c.DBMaxConns < 2 || c.DBMaxConns > 500 {
		bad("SWITCHBOARD_DB_MAX_CONNS", "%d: must be between 2 and 500", c.DBMaxConns)
	}
	if c.DBAcquireTimeout < 10*time.Millisecond || c.DBAcquireTimeout > time.Minute {
		bad("SWITCHBOARD_DB_ACQUIRE_TIMEOUT", "%v: must be between 10ms and 1m", c.DBAcquireTimeout)
	}
	if c.DBStatementTimeout != 0 && (c.DBStatementTimeout < 100*time.Millisecond || c.DBStatementTimeout > time.Hour) {
		bad("SWITCHBOARD_DB_STATEMENT_TIMEOUT", "%v: must be 0 (no bound) or between 100ms and 1h", c.DBStatementTimeout)
	}
	if c.MetricsAddr != "" {
		if err := checkAddr(c.MetricsAddr); err != nil {
			bad("SWITCHBOARD_METRICS_ADDR", "%q %v (for example 127.0.0.1:9091)", c.MetricsAddr, err)
		} else if _, port, _ := net.SplitHostPort(c.MetricsAddr); c.MetricsAddr == c.Addr && port != "0" { // port 0: the system picks two ports
			bad("SWITCHBOARD_METRICS_ADDR", "%q is the main address: metrics need a listener of their own", c.MetricsAddr)
		}
	}
	if c.PprofAddr != "" {
		// Profiles show the process's memory and code paths: never to the network.
		if err := checkAddr(c.PprofAddr); err != nil {
			bad("SWITCHBOARD_PPROF_ADDR", "%q %v (for example 127.0.0.1:6060)", c.PprofAddr, err)
		} else if host, _, _ := net.SplitHostPort(c.PprofAddr); !isLoopback(host) {
			bad("SWITCHBOARD_PPROF_ADDR", "%q: profiles are served on a loopback host only (127.0.0.1, ::1 or localhost, as in 127.0.0.1:6060)", c.PprofAddr)
		}
	}
	for _, e := range c.TrustedProxies {
		if _, err := httpx.ParseProxies([]string{e}); err != nil { // one entry at a time: each mistake is listed
			bad("SWITCHBOARD_TRUSTED_PROXIES", "%v", err)
		}
	}
	for _, e := range c.WebhookAllowList {
		if _, err := ssrf.NewPolicy([]string{e}); err != nil { // one entry at a time: each mistake is listed
			bad("SWITCHBOARD_WEBHOOK_ALLOWLIST", "%s", strings.TrimPrefix(err.Error(), "ssrf: "))
		}
	}
	if _, err := loadModels(c.ModelsFile); err != nil {
		bad("SWITCHBOARD_MODELS_FILE", "%v", err)
	}
	if c.GeoIPFile != "" {
		if g, err := links.OpenGeoIP(c.GeoIPFile); err != nil {
			if errors.As(err, new(*fs.PathError)) { // the error names the file already
				bad("SWITCHBOARD_GEOIP_FILE", "%v", err)
			} else {
				bad("SWITCHBOARD_GEOIP_FILE", "%q is not a MaxMind database (%v)", c.GeoIPFile, err)
			}
		} else {
			g.Close()
		}
	}
	if c.MediaStore != "" { // empty: ./data/media
		if err := blob.Check(c.MediaStore); err != nil {
			bad("SWITCHBOARD_MEDIA_STORE", "%s", strings.TrimPrefix(err.Error(), "blob: "))
		}
	}
	if c.ShortHost != "" {
		if err := checkOrigin(c.ShortHost); err != nil {
			bad("SWITCHBOARD_SHORT_HOST", "%q %v", c.ShortHost, err)
		}
	}
	if c.SecretsKey != "" && len(c.SecretsKey) < MinSecretsKeyLen {
		bad("SWITCHBOARD_SECRETS_KEY", "too short (%d characters): use a random string of at least %d, or leave it empty", len(c.SecretsKey), MinSecretsKeyLen)
	}
	var level slog.Level
	if level.UnmarshalText([]byte(c.LogLevel)) != nil {
		bad("SWITCHBOARD_LOG_LEVEL", "%q: must be debug, info, warn or error", c.LogLevel)
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		bad("SWITCHBOARD_LOG_FORMAT", "%q: must be json or text", c.LogFormat)
	}
	return errors.Join(errs...)
}

// checkOrigin accepts an origin: http or https, a host, no path, query or user.
func checkOrigin(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("is not an http:// or https:// origin (for example https://sb.example.com)")
	}
	if strings.TrimRight(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return errors.New("must be an origin only (scheme, host and port; no path, query or user)")
	}
	return nil
}

// checkAddr accepts host:port with a port number from 0 to 65535 (0: the system picks one),
// so a mistake is reported with the others rather than by net.Listen later.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("is not host:port")
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return errors.New("needs a port number from 0 to 65535")
	}
	return nil
}

// isLoopback reports whether host names this machine only: 127.0.0.0/8, ::1 or localhost.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// BaseURLFor is the origin a browser on this machine uses to reach a listener on addr:
// http://localhost:<port> when addr has no host or a wildcard one (":8080", "0.0.0.0:8080",
// "[::]:8080"), http://<host>:<port> otherwise.
func BaseURLFor(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://localhost" + ":" + strings.TrimPrefix(addr, ":")
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// loadModels reads the operator's model catalog; empty path means the built-in one.
func loadModels(path string) ([]domain.Model, error) {
	if path == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err // names the file
	}
	var models []domain.Model
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields() // a misspelt "owned_by" would pass silently otherwise
	if err := dec.Decode(&models); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	seen := make(map[string]int, len(models))
	for i := range models {
		if models[i].ID == "" {
			return nil, fmt.Errorf("%s: entry %d has no id", path, i)
		}
		if j, dup := seen[models[i].ID]; dup {
			return nil, fmt.Errorf("%s: entries %d and %d have the same id %q", path, j, i, models[i].ID)
		}
		seen[models[i].ID] = i
		models[i].Object = "model"
		if models[i].OwnedBy == "" {
			models[i].OwnedBy = "system"
		}
	}
	return models, nil
}

// messageWorkers are the messaging job workers of this replica: none on an API-only one.
func (c Config) messageWorkers() messaging.Workers {
	if c.MessageWorkers == 0 {
		return messaging.Workers{}
	}
	w := messaging.DefaultWorkers
	w.Send = c.MessageWorkers
	return w
}

// shortBase is where short_url values start: the short host, or BaseURL/l.
func (c Config) shortBase() string {
	if c.ShortHost != "" {
		return c.ShortHost
	}
	return c.BaseURL + "/l"
}

// redirectBases are the addresses besides shortBase that redirect slugs: /l on the main
// host still does when a short host is set.
func (c Config) redirectBases() []string {
	if c.ShortHost != "" {
		return []string{c.BaseURL + "/l"}
	}
	return nil
}

// actionWorkers is how many automation actions this replica runs at once: none on an
// API-only replica (SWITCHBOARD_MESSAGE_WORKERS=0), which only accepts calls.
func (c Config) actionWorkers() int {
	if c.MessageWorkers == 0 {
		return 0
	}
	return 16
}
