// Package app is the composition root: it opens the store, builds the service, the
// transports and the background workers, and serves them all on one handler.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/blob"
	"github.com/switchboard-dev/switchboard/backend/callbacks"
	"github.com/switchboard-dev/switchboard/backend/hooks"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/media"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/automation"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/retention"
	"github.com/switchboard-dev/switchboard/backend/shortlink"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/web"
	"github.com/switchboard-dev/switchboard/backend/webhook"
	"github.com/switchboard-dev/switchboard/graph"
)

// App is a running Switchboard.
type App struct {
	Config  Config
	Store   *store.Store
	Service *service.Service
	// Messaging is the messaging surface (instances, messages, chats, groups, contacts).
	Messaging *messaging.Messaging
	// Links is the short-link surface (links, redirects, clicks).
	Links *links.Links
	// Automation is the automation surface (inbound publishing endpoints, actions).
	Automation *automation.Automation
	Jobs       *jobs.Engine
	// Retention prunes what grows with traffic (one job, one replica at a time).
	Retention *retention.Pruner
	Webhooks  *webhook.Sender
	// Blobs keeps received media, served at signed /media/ URLs.
	Blobs     *blob.Store
	mediaURLs *media.Signer
	Handler   http.Handler
	log       *slog.Logger
	metrics   *metrics // served by MetricsHandler, never by Handler
	unlock    func()   // releases the SQLite database's lock (store.LockForServe)
	ping      *pinger  // /readyz's database check
}

// New opens and migrates the database, starts the background work and builds the handler.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*App, error) {
	models, err := loadModels(cfg.ModelsFile)
	if err != nil {
		return nil, err
	}
	// One server per SQLite database, and none during a restore (switchboard restore).
	unlock, err := store.LockForServe(cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	started := false
	defer func() {
		if !started {
			unlock()
		}
	}()
	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL (--database-url): %w", err)
	}
	if cfg.DBAcquireTimeout > 0 {
		st.SetAcquireTimeout(cfg.DBAcquireTimeout)
	}
	if cfg.DBMaxConns > 0 {
		st.SetPoolSize(cfg.DBMaxConns)
	}
	if err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, err
	}
	st.SetStatementTimeout(cfg.DBStatementTimeout) // after migrating: building an index may take long
	if proxies, _ := httpx.ParseProxies(cfg.TrustedProxies); len(proxies) > 0 {
		for _, p := range proxies {
			// A proxy is a few addresses; a range this wide holds clients, and each of them
			// may then choose its address by sending X-Forwarded-For.
			if (p.Addr().Is4() && p.Bits() < 8) || (p.Addr().Is6() && p.Bits() < 32) {
				log.Warn("SWITCHBOARD_TRUSTED_PROXIES trusts a very wide range: any client in it can choose its address with X-Forwarded-For", "range", p.String())
			}
		}
	}
	if cfg.SecretsKey == "" {
		log.Warn("SWITCHBOARD_SECRETS_KEY is not set: secrets kept for later use (webhook and subscription signing secrets, inbound endpoints' tokens and secrets, channel credentials and callback tokens) are stored unencrypted")
	}
	policy, err := ssrf.NewPolicy(cfg.WebhookAllowList)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("webhook allow-list: %w", err)
	}
	svc := service.New(st, service.Config{Logger: log, Models: models, SecretsKey: []byte(cfg.SecretsKey), TargetPolicy: policy})
	if err := checkSecretsKey(ctx, st, svc, cfg.SecretsKey != ""); err != nil {
		st.Close()
		return nil, err
	}
	if err := svc.Start(ctx); err != nil {
		st.Close()
		return nil, err
	}
	// Background work: one job engine, each kind registered here.
	engine := jobs.New(st, jobs.Config{Logger: log, Lease: cfg.WebhookLease})
	rcfg := cfg.Retention
	rcfg.Logger = log
	pruner := retention.New(st, rcfg)
	engine.Register(pruner.Kind())
	sender := webhook.New(st, svc.Webhooks, webhook.Config{Policy: policy, Workers: cfg.WebhookWorkers,
		PerEndpoint: cfg.WebhookPerEndpoint, PerWorkspace: cfg.WebhookPerWorkspace, Logger: log})
	engine.Register(sender.Kind())
	blobs, signer, err := mediaStore(ctx, cfg, log)
	if err != nil {
		svc.Close()
		st.Close()
		return nil, err
	}
	msg := messaging.New(svc, drivers(cfg, policy), messaging.Config{CallbackBase: cfg.BaseURL + "/channels",
		Media: mediaConfig(cfg, blobs, signer)})
	for _, k := range msg.Kinds(cfg.messageWorkers()) {
		engine.Register(k)
	}
	geo, err := openGeoIP(cfg.GeoIPFile)
	if err != nil {
		svc.Close()
		st.Close()
		return nil, err
	}
	lnk := links.New(svc, links.Config{ShortBase: cfg.shortBase(), RedirectBases: cfg.redirectBases(), BlockedHosts: cfg.LinkBlocklist, GeoIP: geo,
		VisitorSalt: visitorSalt(cfg.SecretsKey)})
	auto := automation.New(svc, msg, lnk, automation.Config{HooksBase: cfg.BaseURL + "/hooks", Policy: policy})
	engine.Register(auto.Kind(cfg.actionWorkers()))
	if err := pruner.Schedule(ctx); err != nil {
		svc.Close()
		st.Close()
		return nil, err
	}
	if err := engine.Start(ctx); err != nil {
		svc.Close()
		st.Close()
		return nil, err
	}
	lnk.Start()
	a := &App{Config: cfg, Store: st, Service: svc, Messaging: msg, Links: lnk, Automation: auto, Jobs: engine, Webhooks: sender,
		Blobs: blobs, mediaURLs: signer, Retention: pruner, log: log, unlock: unlock, ping: &pinger{ping: st.Ping}}
	a.Handler = a.routes()
	started = true
	log.Info("switchboard ready", "database", string(st.Dialect()), "base_url", cfg.BaseURL)
	return a, nil
}

// checkSecretsKey opens one of the database's sealed secrets with this replica's key. A
// replica started without the key the others use, or with another one, would otherwise start,
// say ready and fail its share of the work that needs a secret (signing webhooks, calling
// channels). The messages name the variable, never a secret.
func checkSecretsKey(ctx context.Context, st *store.Store, svc *service.Service, keySet bool) error {
	sealed, err := st.SealedSecret(ctx)
	if err != nil {
		return fmt.Errorf("check SWITCHBOARD_SECRETS_KEY against the stored secrets: %w", err)
	}
	if sealed == "" {
		return nil // nothing sealed yet: any key (or none) will do
	}
	if _, err := svc.Open(sealed); err != nil {
		const fix = "start with the key they were encrypted with (the one the other replicas use)"
		if !keySet {
			return errors.New("SWITCHBOARD_SECRETS_KEY is not set, but the database holds secrets encrypted with a key: " + fix)
		}
		return fmt.Errorf("SWITCHBOARD_SECRETS_KEY does not open the secrets the database holds: %w; %s", err, fix)
	}
	return nil
}

// Close stops background work, flushes buffered writes and closes the database.
func (a *App) Close() {
	// Each step's time is logged: a stop that takes long says where (a database that stopped
	// answering bounds each statement, see operations.md).
	step := func(name string, fn func()) {
		start := time.Now()
		fn()
		a.log.Debug("stop", "step", name, "took", time.Since(start).String())
	}
	step("write buffered clicks", a.Links.Close)
	step("stop background jobs", a.Jobs.Close)
	step("flush service state", a.Service.Close)
	step("close media store", func() { _ = a.Blobs.Close() })
	step("close database", func() { a.Store.Close() })
	a.unlock()
}

func (a *App) routes() http.Handler {
	cfg := a.Config
	m := newMetrics(a)
	a.metrics = m
	mux := http.NewServeMux()
	// One per-key rate limiter for both API transports: a key spends one bucket.
	limiter := httpx.NewLimiter(a.Service.Clock(), cfg.RateLimit, cfg.RateBurst)
	api := rest.New(a.Service, rest.Options{BaseURL: cfg.BaseURL, Limiter: limiter,
		MaxBodyBytes: cfg.MaxBodyBytes, Logger: a.log, Messaging: a.Messaging, Links: a.Links, Automation: a.Automation})
	mux.Handle("/api/v1/", api)
	mux.Handle("/graphql", graph.NewHandler(a.Service, graph.Options{BaseURL: cfg.BaseURL,
		Introspection: cfg.GraphQLIntrospection, ComplexityLimit: cfg.GraphQLComplexity,
		SecureCookies: strings.HasPrefix(cfg.BaseURL, "https://"), Logger: a.log, Limiter: limiter,
		Messaging: a.Messaging, Links: a.Links, Automation: a.Automation}))
	mux.Handle("/l/", shortlink.Handler(a.Links, "/l/", a.log))
	mux.Handle(hooks.Prefix, hooks.Handler(a.Automation, a.log))
	mux.Handle(callbacks.Prefix, callbacks.Handler(a.Messaging.Callbacks, a.Service.Clock(), a.log))
	mux.Handle(media.Prefix, media.Handler(a.Blobs, a.mediaURLs, a.log))
	mux.Handle("/user/", web.Handler())
	mux.Handle("GET /user", http.RedirectHandler("/user/api", http.StatusFound))
	mux.Handle("GET /{$}", http.RedirectHandler("/user/api", http.StatusFound))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("GET /readyz", a.ready)

	var h http.Handler = apiFirst(api, mux)
	if cfg.ShortHost != "" {
		h = shortHostFirst(cfg.ShortHost, shortlink.Handler(a.Links, "/", a.log), h)
	}
	h = m.instrument(h)
	h = httpx.AccessLog(a.log)(h)
	h = httpx.Recover(a.log)(h)
	h = httpx.RequestID(h)
	proxies, _ := httpx.ParseProxies(cfg.TrustedProxies) // checked with the configuration
	return httpx.TrustProxies(proxies)(h)
}

// apiFirst sends every request under /api/v1 to the API, sparing its hottest path the
// mux's pattern matching. A path the mux would clean (/api/v1//me, /api/v1) would get its
// redirect with an HTML body; the API answers its JSON 404 instead.
func apiFirst(api, mux http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if (p == rest.Prefix || strings.HasPrefix(p, rest.Prefix+"/")) && r.Method != http.MethodConnect {
			api.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// shortHostFirst serves requests for the dedicated short host as visits of /{slug}; the
// host's bare root goes to the console, and so do /healthz and /readyz (reserved slugs, so a
// load balancer may probe the short host itself) and /l/{slug} (the main host's form of a
// short link, which then works on either host).
func shortHostFirst(origin string, visits, next http.Handler) http.Handler {
	host := strings.TrimPrefix(strings.TrimPrefix(origin, "https://"), "http://")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if strings.EqualFold(r.Host, host) && p != "/" && p != "/healthz" && p != "/readyz" && !strings.HasPrefix(p, "/l/") {
			visits.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
