package rest

import (
	"net/http"

	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/service"
)

// CORS: browsers may call the API from any site, without credentials (no cookies are ever
// used here). Whether a given site may use a given key is decided per key, after
// authentication (see authenticate), so the CORS answer itself can be "*".
const (
	corsAllowMethods  = "GET, POST, PATCH, DELETE, OPTIONS"
	corsAllowHeaders  = "Authorization, Content-Type, Idempotency-Key, X-Request-Id"
	corsExposeHeaders = "X-Request-Id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, Retry-After, Idempotent-Replayed"
	corsMaxAge        = "600"
)

// cors answers preflight requests (without authentication) and lets browsers read every
// response, errors included.
func (a *api) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if httpx.HeaderValue(r.Header, "Origin") == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", corsAllowMethods)
			h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			h.Set("Access-Control-Max-Age", corsMaxAge)
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		next.ServeHTTP(w, r)
	})
}

// authenticate turns the Bearer key into the request's actor. The service applies the
// origin rule: a browser request from another site is served only if the key lists that
// origin (or "*"); the service's own origin (the console) is always allowed.
func (a *api) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, err := httpx.Authorization(r)
		if err != nil {
			a.error(w, r, err)
			return
		}
		actor, err := a.svc.Keys.AuthenticateBearer(r.Context(), auth, httpx.ForeignOrigin(r, a.ownOrigin))
		if err != nil {
			a.error(w, r, err)
			return
		}
		if q := httpx.RequestFrom(r.Context()); q != nil {
			q.SetActor(actor) // in the request's state: no new context, no request copy
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r.WithContext(service.WithActor(r.Context(), actor)))
	})
}

// limitBody refuses bodies over the limit: at once when Content-Length says so, else when
// the reader passes it (decode reports 413). Bodies of GET and DELETE are never read.
func (a *api) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost && r.Method != http.MethodPatch && r.Method != http.MethodPut {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > a.opts.MaxBodyBytes {
			a.error(w, r, payloadTooLarge(a.opts.MaxBodyBytes))
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, a.opts.MaxBodyBytes)
		}
		next.ServeHTTP(w, r)
	})
}

// rateLimit spends a token of the calling key per request (from the limiter /graphql shares)
// and reports the bucket in the x-ratelimit-* headers of every response; an empty bucket is
// 429 with Retry-After.
func (a *api) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := a.limiter.Take(actor(r).KeyID)
		v.WriteHeaders(w.Header())
		if err := v.Err(); err != nil {
			a.error(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// actor is the authenticated caller of a request (set by authenticate).
func actor(r *http.Request) service.Actor {
	a, _ := httpx.ActorFrom(r.Context())
	return a
}
