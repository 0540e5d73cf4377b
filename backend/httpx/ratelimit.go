package httpx

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Defaults of the per-key rate limit.
const (
	DefaultRateLimit = 20 // requests per second per key
	DefaultBurst     = 40 // requests a key may make at once
)

// Limiter is an in-memory token bucket per API key: Burst tokens, refilled at Rate per
// second. One Limiter serves every transport, so a key spends one bucket whether it calls
// /api/v1 or /graphql. Each replica limits on its own, so with N replicas a key may get up
// to N times the rate; that is the usual trade for not paying a shared round trip per
// request.
type Limiter struct {
	clock domain.Clock
	rate  float64 // tokens per second
	burst float64

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time

	// Header values that never change, allocated once.
	limitHeader []string
}

type bucket struct {
	tokens float64
	at     time.Time // when tokens was computed
}

// maxIdleBuckets is how many buckets are kept before full (idle) ones are forgotten.
const maxIdleBuckets = 10_000

// NewLimiter returns a limiter refilling rate tokens per second into buckets of burst tokens
// (zero or less: the defaults). A nil clock is the system clock.
func NewLimiter(clock domain.Clock, rate float64, burst int) *Limiter {
	if rate <= 0 {
		rate = DefaultRateLimit
	}
	if burst <= 0 {
		burst = DefaultBurst
	}
	if clock == nil {
		clock = systemClock{}
	}
	return &Limiter{clock: clock, rate: rate, burst: float64(burst), buckets: map[string]*bucket{},
		limitHeader: []string{strconv.Itoa(burst)}}
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// Verdict is the outcome of one request against a bucket.
type Verdict struct {
	Allowed    bool
	Limit      int
	Remaining  int
	Reset      time.Duration // until the bucket is full again
	RetryAfter time.Duration // until one token is available (when refused)

	l *Limiter
}

// Take spends a token of key's bucket, if there is one.
func (l *Limiter) Take(key string) Verdict {
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
	v := Verdict{Limit: int(l.burst), l: l}
	if b.tokens >= 1 {
		b.tokens--
		v.Allowed = true
	} else {
		v.RetryAfter = l.seconds(1 - b.tokens)
	}
	v.Remaining = int(b.tokens)
	v.Reset = l.seconds(l.burst - b.tokens)
	l.mu.Unlock()
	return v
}

// sweep forgets buckets that have refilled completely: a new bucket starts full anyway.
func (l *Limiter) sweep(now time.Time) {
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

func (l *Limiter) seconds(tokens float64) time.Duration {
	if tokens <= 0 {
		return 0
	}
	return time.Duration(tokens / l.rate * float64(time.Second))
}

// ceilSeconds rounds up to whole seconds, as the headers carry.
func ceilSeconds(d time.Duration) string {
	return strconv.FormatInt(int64(math.Ceil(d.Seconds())), 10)
}

// WriteHeaders reports the bucket in the x-ratelimit-* headers (every response of a key
// carries them) and, when the request was refused, Retry-After.
func (v Verdict) WriteHeaders(h http.Header) {
	// Canonical keys set directly: this runs on every request.
	if v.l != nil && v.Limit == int(v.l.burst) {
		h["X-Ratelimit-Limit"] = v.l.limitHeader
	} else {
		h["X-Ratelimit-Limit"] = []string{strconv.Itoa(v.Limit)}
	}
	vals := new([2]string) // one allocation for both values
	vals[0], vals[1] = strconv.Itoa(v.Remaining), ceilSeconds(v.Reset)
	h["X-Ratelimit-Remaining"] = vals[0:1:1]
	h["X-Ratelimit-Reset"] = vals[1:2:2]
	if !v.Allowed {
		h["Retry-After"] = []string{v.retryAfter()}
	}
}

func (v Verdict) retryAfter() string {
	if retry := ceilSeconds(v.RetryAfter); retry != "0" {
		return retry
	}
	return "1"
}

// Err is the error of a refused request (nil when it was allowed): rate_limited, with the
// stable reason rate_limit_exceeded, the same on every transport.
func (v Verdict) Err() error {
	if v.Allowed {
		return nil
	}
	rate := DefaultRateLimit * 1.0
	if v.l != nil {
		rate = v.l.rate
	}
	return &domain.Error{Code: domain.CodeRateLimited, Reason: "rate_limit_exceeded",
		Message: "too many requests for this API key; retry after " + v.retryAfter() + " s (limit: " +
			strconv.Itoa(v.Limit) + " requests at once, " + strconv.FormatFloat(rate, 'g', -1, 64) + " per second)"}
}
