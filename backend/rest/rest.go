// Package rest serves Switchboard's public REST API under /api/v1: a flat route table
// (routes.go), one file of handlers per resource, and the middleware every call goes
// through: CORS, API-key authentication with the origin rule, a per-key rate limit, a body
// limit and Idempotency-Key. Handlers decode, call one service method and encode; every rule
// lives in the service. Errors take the OpenAI envelope, mapped from domain errors in one
// function (errors.go), so OpenAI-compatible clients and SDKs understand them.
package rest

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/gorilla/mux"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/automation"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
)

// Prefix is where the API lives. The app mounts the handler at Prefix+"/" without stripping.
const Prefix = "/api/v1"

// Defaults of Options.
const (
	DefaultRateLimit    = httpx.DefaultRateLimit // requests per second per key
	DefaultBurst        = httpx.DefaultBurst     // requests a key may make at once
	DefaultMaxBodyBytes = 1 << 20                // 1 MiB
)

// Options configure the API; zero values take the defaults.
type Options struct {
	// BaseURL is the service's own address (e.g. http://127.0.0.1:8080). Its origin is
	// always allowed as a browser Origin (the console's "Try it"), and the OpenAPI document
	// names it as the server.
	BaseURL string
	// RateLimit is the sustained number of requests per second each key may make, and Burst
	// how many it may make at once (the token bucket's size).
	RateLimit float64
	Burst     int
	// Limiter, when set, is the per-key rate limiter shared with /graphql (RateLimit, Burst
	// and Clock are then its business); nil builds one from RateLimit and Burst.
	Limiter *httpx.Limiter
	// MaxBodyBytes bounds request bodies (413 beyond it).
	MaxBodyBytes int64
	// Logger receives internal errors (with their request ids); default: the service's.
	Logger *slog.Logger
	// Clock drives the rate limiter; default: the service's clock.
	Clock domain.Clock
	// Messaging serves instances, messages, chats, groups and contacts.
	Messaging *messaging.Messaging
	// Links serves short links, their clicks, stats and QR codes.
	Links *links.Links
	// Automation serves inbound publishing endpoints, their calls and runs.
	Automation *automation.Automation
}

func (o *Options) defaults(svc *service.Service) {
	if o.RateLimit <= 0 {
		o.RateLimit = DefaultRateLimit
	}
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.Logger == nil {
		o.Logger = svc.Logger()
	}
	if o.Clock == nil {
		o.Clock = svc.Clock()
	}
}

// api holds what the handlers and middleware share.
type api struct {
	svc        *service.Service
	opts       Options
	log        *slog.Logger
	ownOrigin  string // origin of opts.BaseURL, "" when unset
	limiter    *httpx.Limiter
	router     *mux.Router
	static     map[string]map[string]http.Handler // path → method → handler, for routes without variables
	handler    http.Handler
	models     atomic.Pointer[encodedModels]
	methods    string // every method of the route table, for CORS preflights
	openAPIDoc []byte
}

// New returns the handler of every /api/v1 route. It expects httpx.RequestID, Recover and
// AccessLog around it (the app adds them); when no request id is set it adds one itself, so
// that error bodies always carry one.
func New(svc *service.Service, opts Options) http.Handler { return newAPI(svc, opts).handler }

func newAPI(svc *service.Service, opts Options) *api {
	opts.defaults(svc)
	a := &api{
		svc:       svc,
		opts:      opts,
		log:       opts.Logger,
		ownOrigin: originOf(opts.BaseURL),
		limiter:   opts.Limiter,
	}
	if a.limiter == nil {
		a.limiter = httpx.NewLimiter(opts.Clock, opts.RateLimit, opts.Burst)
	}
	a.router = a.newRouter()
	a.methods = corsMethods(a.routes())
	a.static = staticRoutes(a.router)
	a.openAPIDoc = mustMarshalOpenAPI(openAPI(a.routes(), opts.BaseURL))
	h := a.cors(http.HandlerFunc(a.route))
	withID := httpx.RequestID(h)
	a.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpx.APIHeaders(w.Header())
		if httpx.RequestIDFrom(r.Context()) == "" {
			withID.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
	return a
}

// newRouter registers the route table with the middleware each route needs.
func (a *api) newRouter() *mux.Router {
	r := mux.NewRouter()
	for _, rt := range a.routes() {
		var h http.Handler = rt.handler
		if !rt.public {
			// The body limit and idempotency act only on POST, PATCH and PUT: a GET or DELETE
			// route (which serves nothing else) skips them rather than ask on every request.
			if rt.method != http.MethodGet && rt.method != http.MethodDelete {
				h = a.limitBody(a.idempotent(domain.Scope(rt.scope), h))
			}
			h = a.authenticate(a.rateLimit(a.scoped(domain.Scope(rt.scope), h)))
		}
		methods := []string{rt.method}
		if rt.method == http.MethodGet {
			// HEAD wherever GET is (RFC 9110): the same answer without its body, which
			// net/http leaves out.
			methods = append(methods, http.MethodHead)
		}
		r.Handle(rt.path, h).Methods(methods...).Name(rt.operationID)
	}
	// A path that is not clean (/api/v1//me) is no route: a 404 in JSON, not mux's 301 to
	// the cleaned path, which would answer a different URL than the one asked.
	r.SkipClean(true)
	r.NotFoundHandler = http.HandlerFunc(a.notFound)
	r.MethodNotAllowedHandler = http.HandlerFunc(a.methodNotAllowed)
	return r
}

// scoped refuses a caller without the route's scope before its input is read: one that may
// not use an operation gets 403, not the operation's 400 about a field, and learns nothing
// of its input rules.
func (a *api) scoped(scope domain.Scope, next http.Handler) http.Handler {
	if scope == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := service.RequireScope(actor(r), scope); err != nil {
			a.error(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// staticRoutes indexes the router's routes that have no path variables by exact path and
// method, so that the commonest calls (GET /api/v1/models, /me, /events, ...) skip mux's
// regular-expression matching and the two request copies it makes to store the match.
func staticRoutes(router *mux.Router) map[string]map[string]http.Handler {
	static := map[string]map[string]http.Handler{}
	_ = router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		path, err := route.GetPathTemplate()
		methods, err2 := route.GetMethods()
		if err != nil || err2 != nil || strings.ContainsAny(path, "{}") || route.GetHandler() == nil {
			return nil
		}
		if static[path] == nil {
			static[path] = map[string]http.Handler{}
		}
		for _, m := range methods {
			static[path][m] = route.GetHandler()
		}
		return nil
	})
	return static
}

// route serves a request with its route: an exact static match directly, anything else
// (variables, unknown paths and methods, unclean paths) through mux.
func (a *api) route(w http.ResponseWriter, r *http.Request) {
	if h, ok := a.static[r.URL.Path][r.Method]; ok {
		h.ServeHTTP(w, r)
		return
	}
	a.router.ServeHTTP(w, r)
}

func (a *api) notFound(w http.ResponseWriter, r *http.Request) {
	a.error(w, r, &domain.Error{Code: domain.CodeNotFound, Reason: "route_not_found",
		Message: "no route " + r.Method + " " + r.URL.Path + "; GET " + Prefix + "/openapi.json lists every route"})
}

func (a *api) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		var match mux.RouteMatch
		if a.router.Match(probe, &match) && match.MatchErr == nil {
			allowed = append(allowed, m)
			if m == http.MethodGet {
				allowed = append(allowed, http.MethodHead)
			}
		}
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	a.error(w, r, &domain.Error{Code: domain.CodeInvalid, Reason: "method_not_allowed",
		Message: r.Method + " is not allowed on " + r.URL.Path + "; allowed: " + strings.Join(allowed, ", ")})
}

// originOf returns the lower-case scheme://host[:port] of a URL, or "" if it has none.
func originOf(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}
