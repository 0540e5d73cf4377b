package rest

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// limiter is an in-memory token bucket per API key: Burst tokens, refilled at Rate per
// second. Each replica limits on its own, so with N replicas a key may get up to N times the
// rate; that is the usual trade for not paying a shared round trip per request.
type limiter struct {
	clock domain.Clock
	rate  float64 // tokens per second
	burst float64

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time // when tokens was computed
}

// maxIdleBuckets is how many buckets are kept before full (idle) ones are forgotten.
const maxIdleBuckets = 10_000

func newLimiter(clock domain.Clock, rate float64, burst int) *limiter {
	return &limiter{clock: clock, rate: rate, burst: float64(burst), buckets: map[string]*bucket{}}
}

// verdict is the outcome of one request against a bucket.
type verdict struct {
	allowed    bool
	limit      int
	remaining  int
	reset      time.Duration // until the bucket is full again
	retryAfter time.Duration // until one token is available (when refused)
}

// take spends a token of key's bucket, if there is one.
func (l *limiter) take(key string) verdict {
	now := l.clock.Now()
	l.mu.Lock()
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= maxIdleBuckets {
			l.sweep(now)
		}
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	if elapsed := now.Sub(b.at).Seconds(); elapsed > 0 {
		b.tokens = math.Min(l.burst, b.tokens+elapsed*l.rate)
		b.at = now
	}
	v := verdict{limit: int(l.burst)}
	if b.tokens >= 1 {
		b.tokens--
		v.allowed = true
	} else {
		v.retryAfter = l.seconds(1 - b.tokens)
	}
	v.remaining = int(b.tokens)
	v.reset = l.seconds(l.burst - b.tokens)
	l.mu.Unlock()
	return v
}

// sweep forgets buckets that have refilled completely: a new bucket starts full anyway.
func (l *limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < time.Second {
		return
	}
	l.swept = now
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.at).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
}

func (l *limiter) seconds(tokens float64) time.Duration {
	if tokens <= 0 {
		return 0
	}
	return time.Duration(tokens / l.rate * float64(time.Second))
}

// ceilSeconds rounds up to whole seconds, as the headers carry.
func ceilSeconds(d time.Duration) string {
	return strconv.FormatInt(int64(math.Ceil(d.Seconds())), 10)
}

// rateLimit spends a token of the calling key per request and reports the bucket in the
// x-ratelimit-* headers of every response; an empty bucket is 429 with Retry-After.
func (a *api) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := a.limiter.take(actor(r).KeyID)
		h := w.Header()
		// Canonical keys set directly: this runs on every request.
		h["X-Ratelimit-Limit"] = []string{strconv.Itoa(v.limit)}
		h["X-Ratelimit-Remaining"] = []string{strconv.Itoa(v.remaining)}
		h["X-Ratelimit-Reset"] = []string{ceilSeconds(v.reset)}
		if !v.allowed {
			retry := ceilSeconds(v.retryAfter)
			if retry == "0" {
				retry = "1"
			}
			h.Set("Retry-After", retry)
			a.error(w, r, &domain.Error{Code: domain.CodeRateLimited, Reason: "rate_limit_exceeded",
				Message: "too many requests for this API key; retry after " + retry + " s (limit: " +
					strconv.Itoa(v.limit) + " requests at once, " + strconv.FormatFloat(a.opts.RateLimit, 'g', -1, 64) + " per second)"})
			return
		}
		next.ServeHTTP(w, r)
	})
}
