package rest

import (
	"net/http"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/service"
)

// CORS: browsers may call the API from any site, without credentials (no cookies are ever
// used here). Whether a given site may use a given key is decided per key, after
// authentication (see authenticate), so the CORS answer itself can be "*".
const (
	corsAllowHeaders  = "Authorization, Content-Type, Idempotency-Key, X-Request-Id"
	corsExposeHeaders = "X-Request-Id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, Retry-After, Idempotent-Replayed"
	corsMaxAge        = "600"
	// maxCORSRequestHeaders bounds the Access-Control-Request-Headers echoed back.
	maxCORSRequestHeaders = 2048
)

// corsMethods lists every method of the route table, and OPTIONS, for preflights: a method
// missing here (PUT /links/ext_{id} was) is one no browser can call.
func corsMethods(routes []route) string {
	methods := []string{}
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		for _, rt := range routes {
			if rt.method == m {
				methods = append(methods, m)
				break
			}
		}
	}
	return strings.Join(append(methods, http.MethodOptions), ", ")
}

// corsRequestHeaders returns the headers a preflight allows: the API's own, and the others
// the page asked for when they are a plain list of header names (SDKs send their own, such as
// the OpenAI SDKs' X-Stainless-*). Allowing any header name costs nothing here: credentials
// are never allowed, and every call is authenticated by its key, checked against the key's
// allowed origins.
func corsRequestHeaders(requested string) string {
	if requested == "" || len(requested) > maxCORSRequestHeaders {
		return corsAllowHeaders
	}
	extra := []string{}
	for _, name := range strings.Split(requested, ",") {
		name = strings.TrimSpace(name)
		if !headerName(name) {
			return corsAllowHeaders
		}
		if !corsOwnHeader(name) {
			extra = append(extra, name)
		}
	}
	if len(extra) == 0 {
		return corsAllowHeaders
	}
	return corsAllowHeaders + ", " + strings.Join(extra, ", ")
}

// corsOwnHeader reports whether name is in corsAllowHeaders.
func corsOwnHeader(name string) bool {
	for _, own := range strings.Split(corsAllowHeaders, ", ") {
		if strings.EqualFold(own, name) {
			return true
		}
	}
	return false
}

// headerName reports whether s is a header field name (an RFC 9110 token).
func headerName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

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
			h.Set("Access-Control-Allow-Methods", a.methods)
			h.Set("Access-Control-Allow-Headers", corsRequestHeaders(strings.Join(r.Header.Values("Access-Control-Request-Headers"), ",")))
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
