// Package httpx holds the HTTP middleware every route shares (request ids and the
// per-request state, access logs with their buffered writer, panic recovery) and the API
// edge that /api/v1 and /graphql share (edge.go): the per-key rate limiter both transports
// spend from, the one map from domain error codes to HTTP statuses, the Authorization header
// rule and the headers every API response carries. Route-specific middleware lives with its
// routes.
package httpx

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
)

// validRequestID accepts a caller's id only if it is short and plain (1 to 64 of
// A-Z a-z 0-9 . _ : -), so logs stay clean.
func validRequestID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// RequestID gives every request an id (the caller's X-Request-Id when sane, else a new
// req_… id), echoes it in the X-Request-Id response header and puts the request's state
// (see Request) in the context.
func RequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := &Request{start: time.Now()}
		if v := r.Header["X-Request-Id"]; len(v) > 0 && validRequestID(v[0]) {
			q.id[0] = v[0]
		} else {
			q.id[0] = newRequestID(q.start)
		}
		w.Header()["X-Request-Id"] = q.id[:]
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestKey{}, q)))
	})
}

// Request is what the middleware learns about one request, kept in one context value: its
// id, when it started and, once the transport has authenticated it, the caller. One value
// rather than a context per fact, because each r.WithContext copies the whole http.Request
// and each context.WithValue allocates, on every request.
type Request struct {
	id       [1]string // the X-Request-Id header's value slice, shared with the header
	start    time.Time
	actor    service.Actor
	hasActor bool
}

type requestKey struct{}

// RequestFrom returns the state of the request ctx belongs to (nil outside RequestID).
func RequestFrom(ctx context.Context) *Request {
	q, _ := ctx.Value(requestKey{}).(*Request)
	return q
}

// SetActor records the caller the transport authenticated. The transport calls it once,
// before the handlers run, from the request's goroutine: the context itself never changes,
// and whatever reads the actor runs after it.
func (q *Request) SetActor(a service.Actor) {
	q.actor, q.hasActor = a, true
}

// ActorFrom returns the caller of ctx: the one the transport recorded with SetActor, else
// one put in the context with service.WithActor.
func ActorFrom(ctx context.Context) (service.Actor, bool) {
	if q := RequestFrom(ctx); q != nil && q.hasActor {
		return q.actor, true
	}
	return service.ActorFrom(ctx)
}

// Request ids look like the service's other ids (req_ + 26 Crockford base32 digits: 48 bits
// of milliseconds, then 80 bits), but cost no lock and no call to the random source per
// request: the 80 bits are a random value drawn once per process plus a counter, so ids are
// unique within the process and, with 80 random bits, across replicas.
var reqIDSeq struct {
	hi uint16
	lo atomic.Uint64
}

func init() {
	var b [10]byte
	_, _ = rand.Read(b[:])
	reqIDSeq.hi = binary.BigEndian.Uint16(b[:2])
	reqIDSeq.lo.Store(binary.BigEndian.Uint64(b[2:]))
}

const crockford = "0123456789abcdefghjkmnpqrstvwxyz"

// NewRequestID returns a new req_… id.
func NewRequestID() string { return newRequestID(time.Now()) }

// newRequestID returns a new req_… id whose time part is now.
func newRequestID(now time.Time) string {
	ms := uint64(now.UnixMilli())
	lo := reqIDSeq.lo.Add(1)
	var out [4 + 26]byte
	copy(out[:], domain.PrefixRequest)
	v1 := ms<<16 | uint64(reqIDSeq.hi) // top 64 bits
	v0 := lo                           // bottom 64 bits
	for i := len(out) - 1; i >= 4; i-- {
		out[i] = crockford[v0&31]
		v0 = v0>>5 | (v1&31)<<59
		v1 >>= 5
	}
	return string(out[:])
}

// RequestIDFrom returns the request id of ctx ("" outside a request).
func RequestIDFrom(ctx context.Context) string {
	if q := RequestFrom(ctx); q != nil {
		return q.id[0]
	}
	return ""
}

// StatusRecorder remembers the status and size a handler wrote, and keeps a copy of the
// body when Body is set.
type StatusRecorder struct {
	http.ResponseWriter
	Status int
	Bytes  int
	Body   *bytes.Buffer
	// Start is when the request started, when the recorder's creator noted it (AccessLog
	// does), and End when the handler returned, when a middleware inside noted it (the
	// metrics do), so that the others reusing the recorder need not read the clock again.
	Start, End time.Time
}

func (s *StatusRecorder) WriteHeader(code int) {
	if s.Status == 0 {
		s.Status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *StatusRecorder) Write(b []byte) (int, error) {
	if s.Status == 0 {
		s.Status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.Bytes += n
	if s.Body != nil {
		s.Body.Write(b[:n])
	}
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer (flush, hijack).
func (s *StatusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Hijack passes through so websocket upgrades work behind the recorder.
func (s *StatusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := s.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("httpx: response writer cannot hijack")
	}
	if s.Status == 0 {
		s.Status = http.StatusSwitchingProtocols
	}
	return h.Hijack()
}

// Flush passes through for streaming responses.
func (s *StatusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// AccessLog writes one structured line per request (give it a logger writing through a
// LogWriter so that the line costs no system call of its own). Middleware inside it may
// reuse its *StatusRecorder (the ResponseWriter it passes on) rather than wrap another. It never logs headers or bodies, so no
// secret (API key, cookie, password) can reach the log.
func AccessLog(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			q := RequestFrom(ctx)
			var start time.Time
			if q != nil {
				start = q.start // behind RequestID: its clock reading will do
			} else {
				start = time.Now()
			}
			rec := &StatusRecorder{ResponseWriter: w, Start: start}
			next.ServeHTTP(rec, r)
			if rec.Status == 0 {
				rec.Status = http.StatusOK
			}
			h := log.Handler()
			if !h.Enabled(ctx, slog.LevelInfo) {
				return
			}
			end := rec.End
			if end.IsZero() {
				end = time.Now()
			}
			var id string
			if q != nil {
				id = q.id[0]
			}
			// The line goes straight to the handler (written directly by a JSONHandler):
			// Logger.LogAttrs would also walk the stack for a source position nobody logs.
			logAccess(ctx, h, &accessLine{time: end, requestID: id, method: r.Method,
				path: LoggedPath(r.URL.Path), status: rec.Status, bytes: rec.Bytes,
				durationMS: float64(end.Sub(start).Microseconds()) / 1000})
		})
	}
}

// Recover turns a panic into a 500 (logged with its stack) instead of a dropped connection.
func Recover(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if v := recover(); v != nil {
					if v == http.ErrAbortHandler {
						panic(v)
					}
					log.Error("panic", "request_id", RequestIDFrom(r.Context()), "panic", v, "stack", string(debug.Stack()))
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusInternalServerError)
					_, _ = w.Write([]byte(`{"error":{"message":"internal error","type":"api_error","param":null,"code":"internal_error","request_id":` +
						strconv.Quote(RequestIDFrom(r.Context())) + `}}`))
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// ClientIP is the connection's remote address (no proxy headers are trusted by default).
func ClientIP(r *http.Request) string {
	host := r.RemoteAddr
	for i := len(host) - 1; i >= 0; i-- {
		if host[i] == ':' {
			host = host[:i]
			break
		}
	}
	if len(host) > 1 && host[0] == '[' {
		host = host[1 : len(host)-1]
	}
	return host
}

// ForeignOrigin returns the request's browser Origin (lower-case, without a trailing slash)
// when it names another site: not ownOrigin (the service's public origin) and not the host
// the request was sent to. It returns "" for non-browser calls and the service's own pages.
func ForeignOrigin(r *http.Request, ownOrigin string) string {
	origin := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(HeaderValue(r.Header, "Origin")), "/"))
	if origin == "" || origin == strings.ToLower(ownOrigin) {
		return ""
	}
	if u, err := url.Parse(origin); err == nil && strings.EqualFold(u.Host, r.Host) {
		return ""
	}
	return origin
}

// HeaderValue is h.Get(key) for a key already in canonical form, as the constants of the
// per-request middleware are: it skips canonicalizing the key on every request.
func HeaderValue(h http.Header, canonicalKey string) string {
	if v := h[canonicalKey]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// LoggedPath is a path as the access log shows it: the tokens of /hooks/{token} and
// /channels/{driver}/{token} are secrets (they let anyone publish, or route a provider's
// call), so they never reach a log.
func LoggedPath(p string) string {
	if strings.HasPrefix(p, "/hooks/") {
		return "/hooks/{token}"
	}
	if rest, ok := strings.CutPrefix(p, "/channels/"); ok {
		driver, _, _ := strings.Cut(rest, "/")
		return "/channels/" + driver + "/{token}"
	}
	return p
}
