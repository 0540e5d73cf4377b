package rest

import (
	"net/http"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/domain"
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
		if r.Header.Get("Origin") == "" {
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

// authenticate turns the Bearer key into the request's actor, then applies the origin
// rule: a browser request from another site is served only if the key lists that origin
// (or "*"). The service's own origin (the console) is always allowed.
func (a *api) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := r.Header.Get("Authorization")
		if header == "" {
			a.error(w, r, service.MissingKeyError())
			return
		}
		secret, ok := bearer(header)
		if !ok {
			secret = "" // a wrong scheme is an invalid key: the service says so
		}
		actor, err := a.svc.Keys.Authenticate(r.Context(), secret)
		if err != nil {
			a.error(w, r, err)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !a.originAllowed(actor, origin) {
			a.error(w, r, &domain.Error{Code: domain.CodeForbidden, Reason: "origin_not_allowed", Param: "Origin",
				Message: "this API key may not be used from the origin " + truncate(origin, 100) +
					"; add the origin to the key's allowed origins in the console"})
			return
		}
		next.ServeHTTP(w, r.WithContext(service.WithActor(r.Context(), actor)))
	})
}

func (a *api) originAllowed(actor service.Actor, origin string) bool {
	o := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(origin), "/"))
	return (a.ownOrigin != "" && o == a.ownOrigin) || actor.AllowsOrigin(o)
}

// bearer returns the token of an "Authorization: Bearer <token>" header.
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
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

// actor is the authenticated caller of a request (set by authenticate).
func actor(r *http.Request) service.Actor {
	a, _ := service.ActorFrom(r.Context())
	return a
}
