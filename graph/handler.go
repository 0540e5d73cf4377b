package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/automation"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/graph/generated"
	"github.com/switchboard-dev/switchboard/graph/wsgorilla"
)

// Defaults of Options.
const (
	DefaultComplexityLimit = 500
	DefaultDepthLimit      = 10
	DefaultMaxBodyBytes    = 1 << 20
	DefaultInitTimeout     = 10 * time.Second
	DefaultPingInterval    = 25 * time.Second
	DefaultQueryCacheSize  = 1000
	DefaultSessionMaxAge   = 30 * 24 * time.Hour
)

// SessionCookie is the name of the console's session cookie.
const SessionCookie = "sb_session"

// Options configure the GraphQL handler. The zero value is a production-safe default
// (introspection off).
type Options struct {
	// BaseURL is the service's public URL ("https://switchboard.example.com"). Its origin is
	// always trusted, even when a proxy in front changes the Host header.
	BaseURL string
	// Introspection enables __schema/__type queries and "did you mean" suggestions.
	Introspection bool
	// ComplexityLimit caps an operation's complexity (each field costs 1, and each row a
	// list may return 1 more; default 500).
	ComplexityLimit int
	// DepthLimit caps how deeply selections nest (default 10; introspection not counted).
	DepthLimit int
	// DocumentLimits bound a query's size before it is validated (see DocumentLimits).
	DocumentLimits DocumentLimits
	// MaxBodyBytes limits a POST body (default 1 MiB); websocket messages get the same limit.
	MaxBodyBytes int64
	// SecureCookies marks the session cookie Secure even when the request did not arrive
	// over TLS (set it behind a TLS-terminating proxy).
	SecureCookies bool
	// SessionMaxAge is the session cookie's Max-Age (default 30 days); the server-side
	// session's own expiry still decides.
	SessionMaxAge time.Duration
	// TrustedOrigins are other origins ("https://dash.example.com") allowed to POST
	// cross-origin and to open websockets. The request's own origin (same host) and
	// BaseURL's are always allowed.
	TrustedOrigins []string
	// InitTimeout bounds the wait for connection_init on a websocket (default 10 s).
	InitTimeout time.Duration
	// PingInterval is the graphql-transport-ws ping interval; a client that does not answer
	// within two intervals is disconnected (default 25 s).
	PingInterval time.Duration
	// QueryCacheSize is how many parsed queries are cached (default 1000).
	QueryCacheSize int
	// ClientIP returns the caller's address for sign-in throttling (default: the host of
	// RemoteAddr). Set it when behind a trusted proxy.
	ClientIP func(*http.Request) string
	// Logger receives internal errors (default slog.Default()).
	Logger *slog.Logger
	// Limiter is the per-key rate limiter, shared with /api/v1 so that a key spends one
	// bucket on both (the app passes the same one to each). Default: a limiter of this
	// handler's own with httpx's default rate. Console sessions are not key-limited.
	Limiter *httpx.Limiter
	// Messaging serves instances, messages, chats, groups and contacts.
	Messaging *messaging.Messaging
	// Links serves short links, their clicks, stats and QR codes.
	Links *links.Links
	// Automation serves inbound publishing endpoints, their calls and action runs.
	Automation *automation.Automation
}

func (o *Options) defaults() {
	if o.ComplexityLimit <= 0 {
		o.ComplexityLimit = DefaultComplexityLimit
	}
	if o.DepthLimit <= 0 {
		o.DepthLimit = DefaultDepthLimit
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.SessionMaxAge <= 0 {
		o.SessionMaxAge = DefaultSessionMaxAge
	}
	if o.InitTimeout <= 0 {
		o.InitTimeout = DefaultInitTimeout
	}
	if o.PingInterval <= 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.QueryCacheSize <= 0 {
		o.QueryCacheSize = DefaultQueryCacheSize
	}
	if o.ClientIP == nil {
		o.ClientIP = remoteIP
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if u, err := url.Parse(o.BaseURL); err == nil && u.Scheme != "" && u.Host != "" {
		o.TrustedOrigins = append(slices.Clip(o.TrustedOrigins), u.Scheme+"://"+u.Host)
	}
}

// NewHandler returns the /graphql endpoint: queries and mutations over POST
// (application/json only), queries over GET, and subscriptions over websockets
// (graphql-transport-ws, and the legacy graphql-ws), all authenticated by the console
// session cookie or an API key, and protected against cross-site requests.
func NewHandler(svc *service.Service, opts Options) http.Handler {
	opts.defaults()
	if opts.Limiter == nil {
		opts.Limiter = httpx.NewLimiter(svc.Clock(), 0, 0)
	}
	h := &httpHandler{svc: svc, opts: opts, checkOrigin: wsgorilla.SameOriginOr(opts.TrustedOrigins...)}
	if u, err := url.Parse(opts.BaseURL); err == nil && u.Scheme != "" && u.Host != "" {
		h.ownOrigin = strings.ToLower(u.Scheme + "://" + u.Host)
	}

	cfg := generated.Config{Resolvers: &Resolver{svc: svc, opts: opts, msg: opts.Messaging, links: opts.Links, auto: opts.Automation}, Complexity: complexityRoot()}
	srv := handler.New(generated.NewExecutableSchema(cfg))

	// Only these transports: no multipart or urlencoded form transport a cross-site
	// <form> could reach.
	srv.AddTransport(transport.Options{})
	srv.AddTransport(getQueries{})
	srv.AddTransport(transport.POST{})
	readLimit := opts.MaxBodyBytes
	srv.AddTransport(transport.Websocket{
		Implementation: wsgorilla.New(wsgorilla.Options{
			CheckOrigin:      h.checkOrigin,
			HandshakeTimeout: 10 * time.Second,
		}),
		InitFunc:         h.initWebsocket,
		InitTimeout:      opts.InitTimeout,
		PingPongInterval: opts.PingInterval,
		PayloadReadLimit: &readLimit,
	})

	cache := lru.New[*ast.QueryDocument](opts.QueryCacheSize)
	srv.SetQueryCache(cache)
	srv.Use(newDocumentLimits(opts.DocumentLimits, cache)) // before parsing and validation
	if opts.Introspection {
		srv.Use(extension.Introspection{})
	} else {
		srv.SetDisableSuggestion(true)
	}
	srv.Use(extension.FixedComplexityLimit(opts.ComplexityLimit))
	srv.Use(depthLimit{max: opts.DepthLimit})
	srv.Use(noNUL{})
	srv.AroundOperations(subscriptionsOnWebsocket)
	srv.AroundOperations(h.websocketOperation)
	srv.AroundOperations(limitSubscriptionsPerConnection)

	log := opts.Logger
	srv.SetErrorPresenter(func(ctx context.Context, err error) *gqlerror.Error {
		return presentError(ctx, log, err)
	})
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		return domain.Internal(fmt.Errorf("panic in resolver: %v\n%s", v, debug.Stack()))
	})
	h.gql = srv

	cop := http.NewCrossOriginProtection()
	for _, o := range opts.TrustedOrigins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			panic("graph: bad trusted origin " + o + ": " + err.Error())
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeErrors(w, http.StatusForbidden, transportError("FORBIDDEN", "cross_origin_request",
			"cross-origin requests are not allowed"))
	}))
	protected := cop.Handler(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpx.APIHeaders(w.Header())
		protected.ServeHTTP(w, r)
	})
}

type httpHandler struct {
	svc         *service.Service
	ownOrigin   string // BaseURL's origin
	opts        Options
	checkOrigin func(*http.Request) bool
	gql         *handler.Server
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	upgrade := r.Header.Get("Upgrade") != ""
	switch {
	case upgrade:
		// A browser page on another site could open a socket carrying the user's cookie;
		// refuse it before upgrading (the websocket implementation checks again).
		if !h.checkOrigin(r) {
			writeErrors(w, http.StatusForbidden, transportError("FORBIDDEN", "cross_origin_request",
				"cross-origin websocket connections are not allowed"))
			return
		}
	case r.Method == http.MethodGet && r.Header.Get("Sec-WebSocket-Key") != "":
		// A websocket handshake without its Upgrade header: a proxy in front dropped it (nginx
		// without proxy_http_version 1.1 and the Upgrade/Connection headers). Say so, to the
		// client and in the log, rather than answer a query that is not there.
		h.opts.Logger.Warn("graphql: a websocket handshake arrived without its Upgrade header: the proxy in front must pass Upgrade and Connection (docs/operations.md)",
			"request_id", httpx.RequestIDFrom(r.Context()))
		writeErrors(w, http.StatusBadRequest, transportError("INVALID", "websocket_upgrade_missing",
			"this websocket handshake arrived without its Upgrade header: a proxy in front must pass the Upgrade and Connection headers"))
		return
	case r.Method == http.MethodPost:
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mt != "application/json" {
			writeErrors(w, http.StatusUnsupportedMediaType, transportError("INVALID", "unsupported_media_type",
				"POST requests must have Content-Type: application/json"))
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
		if err != nil {
			status, reason, msg := http.StatusBadRequest, "unreadable_body", "could not read the request body"
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				status, reason = http.StatusRequestEntityTooLarge, "payload_too_large"
				msg = fmt.Sprintf("the request body is larger than %d bytes", h.opts.MaxBodyBytes)
			}
			writeErrors(w, status, transportError("INVALID", reason, msg))
			return
		}
		if gqlErr := checkBody(body); gqlErr != nil {
			writeErrors(w, http.StatusBadRequest, gqlErr)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}

	ctx := r.Context()
	actor, err := h.authenticate(ctx, r)
	if err != nil {
		e := domain.ErrorOf(err)
		if e.Code == domain.CodeUnauthenticated {
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeErrors(w, http.StatusUnauthorized, presentError(ctx, h.opts.Logger, e))
			return
		}
		writeErrors(w, httpx.Status(e), presentError(ctx, h.opts.Logger, e))
		return
	}
	if actor != nil {
		if actor.IsKey() {
			// The key's bucket is the one /api/v1 spends too.
			v := h.opts.Limiter.Take(actor.KeyID)
			v.WriteHeaders(w.Header())
			if err := v.Err(); err != nil {
				writeErrors(w, http.StatusTooManyRequests, presentError(ctx, h.opts.Logger, err))
				return
			}
		}
		ctx = service.WithActor(ctx, *actor)
	}
	if upgrade {
		ctx = context.WithValue(ctx, websocketKey{}, true)
		ctx = context.WithValue(ctx, foreignOriginKey{}, httpx.ForeignOrigin(r, h.ownOrigin))
	} else {
		ctx = context.WithValue(ctx, exchangeKey{}, &exchange{w: w, r: r, opts: &h.opts})
	}
	h.gql.ServeHTTP(w, r.WithContext(ctx))
}

// authenticate returns the caller of an HTTP request: the API key of an Authorization
// header, else the session of the cookie, else nobody (nil). A bad key is an error (the
// caller meant to authenticate); a stale session cookie makes the request anonymous (the
// console sees viewer.user null and signs in again).
func (h *httpHandler) authenticate(ctx context.Context, r *http.Request) (*service.Actor, error) {
	auth, err := httpx.Authorization(r)
	if err != nil {
		return nil, err
	}
	if auth != "" {
		a, err := h.svc.Keys.AuthenticateBearer(ctx, auth, httpx.ForeignOrigin(r, h.ownOrigin))
		return &a, err
	}
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	a, err := h.svc.Users.Authenticate(ctx, c.Value)
	if domain.IsCode(err, domain.CodeUnauthenticated) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// initWebsocket authenticates a websocket connection from its connection_init payload
// ({"authorization": "Bearer <key>"}), else keeps the actor of the upgrade request's
// session cookie. A connection with neither is refused (close code 4403). The context
// returned carries the connection's subscription count (MaxSubscriptionsPerConnection).
func (h *httpHandler) initWebsocket(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	refuse := func(err error) (context.Context, *transport.InitPayload, error) {
		e := domain.ErrorOf(err)
		msg := e.Message
		if e.Code == domain.CodeInternal {
			h.opts.Logger.Error("graphql websocket init", "err", e)
			msg = "internal error"
		}
		ctx = transport.WithWebsocketCloseCode(ctx, 4403)
		// The close reason says why, for clients of graphql-transport-ws, which gets no
		// connection_error message: "Forbidden: expired_api_key" (refresh the key) is not
		// "Forbidden: invalid_api_key".
		reason := "Forbidden"
		if e.Reason != "" && e.Code != domain.CodeInternal {
			reason += ": " + e.Reason
		}
		return transport.AppendCloseReason(ctx, reason), nil, errors.New(msg)
	}
	if auth := p.Authorization(); auth != "" {
		origin, _ := ctx.Value(foreignOriginKey{}).(string)
		a, err := h.svc.Keys.AuthenticateBearer(ctx, auth, origin)
		if err != nil {
			return refuse(err)
		}
		// Opening a subscription connection with a key costs a token, as a request does.
		if err := h.opts.Limiter.Take(a.KeyID).Err(); err != nil {
			ctx = transport.WithWebsocketCloseCode(ctx, 4429)
			return transport.AppendCloseReason(ctx, "Too many requests"), nil, errors.New(domain.ErrorOf(err).Message)
		}
		return withConnSubscriptions(service.WithActor(ctx, a)), nil, nil
	}
	if _, ok := service.ActorFrom(ctx); ok {
		return withConnSubscriptions(ctx), nil, nil
	}
	return refuse(&domain.Error{Code: domain.CodeUnauthenticated,
		Message: `sign in, or send {"authorization": "Bearer <api key>"} in connection_init`})
}

// websocketOperation gives each operation on a websocket what an HTTP request gets: a check
// that the key or session the connection was opened with is still valid (revoked or expired:
// refused, as REST answers 401 from then on), and for a query or mutation its key's rate
// limit (one token, from the bucket /api/v1 spends too). Subscriptions are long-lived and
// capped instead (MaxSubscriptionsPerConnection, service.MaxLiveStreamsPerWorkspace). The
// connection authenticated once; its operations may come for hours.
func (h *httpHandler) websocketOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	a, ok := service.ActorFrom(ctx)
	op := graphql.GetOperationContext(ctx).Operation
	if ctx.Value(websocketKey{}) == nil || !ok || op == nil {
		return next(ctx)
	}
	refuse := func(err error) graphql.ResponseHandler {
		return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{presentError(ctx, h.opts.Logger, err)}})
	}
	if a.IsKey() && op.Operation != ast.Subscription {
		if err := h.opts.Limiter.Take(a.KeyID).Err(); err != nil {
			return refuse(err)
		}
	}
	if err := h.svc.CredentialValid(ctx, a); err != nil {
		return refuse(err)
	}
	return next(ctx)
}

// subscriptionsOnWebsocket refuses subscriptions over GET and POST, where they would hold
// a request open until the first event.
func subscriptionsOnWebsocket(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	op := graphql.GetOperationContext(ctx).Operation
	if op != nil && op.Operation == ast.Subscription && ctx.Value(websocketKey{}) == nil {
		return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{
			transportError("INVALID", "websocket_required", "subscriptions need the websocket transport")}})
	}
	return next(ctx)
}

type (
	websocketKey     struct{}
	foreignOriginKey struct{} // the upgrade request's foreign origin, for key checks at init
)

// exchange gives resolvers the HTTP request and response of a POST or GET operation, so
// signUp, signIn and signOut can set the session cookie. Websocket operations have none.
type exchange struct {
	w    http.ResponseWriter
	r    *http.Request
	opts *Options
}

type exchangeKey struct{}

func exchangeFrom(ctx context.Context) (*exchange, bool) {
	x, ok := ctx.Value(exchangeKey{}).(*exchange)
	return x, ok
}

var errNeedsHTTP = &domain.Error{Code: domain.CodeInvalid, Reason: "http_required",
	Message: "sign-in operations must be sent over HTTP, not the websocket"}

func (x *exchange) setSession(token string) {
	http.SetCookie(x.w, &http.Cookie{
		Name:     SessionCookie,
		Value:    token,
		Path:     "/",
		MaxAge:   int(x.opts.SessionMaxAge / time.Second),
		HttpOnly: true,
		Secure:   x.secure(),
		SameSite: http.SameSiteLaxMode,
	})
}

func (x *exchange) clearSession() {
	http.SetCookie(x.w, &http.Cookie{
		Name:     SessionCookie,
		Value:    "",
		Path:     "/",
		MaxAge:   -1,
		HttpOnly: true,
		Secure:   x.secure(),
		SameSite: http.SameSiteLaxMode,
	})
}

func (x *exchange) sessionToken() string {
	if c, err := x.r.Cookie(SessionCookie); err == nil {
		return c.Value
	}
	return ""
}

func (x *exchange) secure() bool { return x.opts.SecureCookies || x.r.TLS != nil }

func (x *exchange) client() service.ClientInfo {
	return service.ClientInfo{IP: x.opts.ClientIP(x.r), UserAgent: x.r.UserAgent()}
}

func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// writeErrors writes a GraphQL response holding only errors, for requests refused before
// any operation runs.
func writeErrors(w http.ResponseWriter, status int, errs ...*gqlerror.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(graphql.Response{Errors: errs})
}

// errBatch refuses a JSON array body (a batch of operations) with a fixed message; the body is
// never echoed back.
var errBatch = transportError("INVALID", "batch_not_supported",
	"batched requests are not supported; send one operation per request")

// checkBody refuses a POST body that is not one JSON object before gqlgen decodes it (gqlgen's
// own decoding error repeats the body). Batches get their own message.
func checkBody(body []byte) *gqlerror.Error {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		return errBatch
	case len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed):
		return transportError("INVALID", "invalid_body",
			`the request body must be one JSON object such as {"query": "{ viewer { user { id } } }"}`)
	}
	// The members gqlgen reads, of the types it needs: its own refusal repeats the body.
	var m struct{ Query, OperationName, Variables, Extensions json.RawMessage }
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return transportError("INVALID", "invalid_body", "the request body must be one JSON object")
	}
	for _, c := range []struct {
		name, want string
		raw        json.RawMessage
	}{{"query", `"`, m.Query}, {"operationName", `"`, m.OperationName}, {"variables", "{", m.Variables}, {"extensions", "{", m.Extensions}} {
		if len(c.raw) > 0 && string(c.raw) != "null" && !strings.HasPrefix(string(c.raw), c.want) {
			kind := "a JSON object"
			if c.want == `"` {
				kind = "a string"
			}
			e := transportError("INVALID", "invalid_body", c.name+" must be "+kind)
			e.Extensions["field"] = c.name
			return e
		}
	}
	// A key given twice (in variables, say) is refused as REST refuses it in a body.
	if err := httpx.NoDuplicateKeys(trimmed); err != nil {
		de := domain.ErrorOf(err)
		e := transportError("INVALID", "duplicate_key", de.Message)
		e.Extensions["field"] = de.Param
		return e
	}
	return nil
}

func transportError(code, reason, message string) *gqlerror.Error {
	return &gqlerror.Error{Message: message, Extensions: map[string]any{"code": code, "reason": reason}}
}
