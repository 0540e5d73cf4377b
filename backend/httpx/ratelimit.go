package httpx

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
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
//
// Every request of a key touches its bucket, so a bucket takes no lock: it is one atomic
// "theoretical arrival time" (the generic cell rate algorithm, which is a token bucket
// stated in time): the bucket is full when it is in the past, each request moves it one
// emission interval (1/rate) later, and a request that would move it more than
// burst × interval ahead of now is refused. A lock here was the most contended one under
// load: a holder descheduled by the operating system stalled every request of the key.
type Limiter struct {
	clock    domain.Clock
	rate     float64
	burst    int64
	interval int64 // ns per token
	tau      int64 // burst × interval: how far ahead of now the arrival time may be

	buckets sync.Map // key → *atomic.Int64 (theoretical arrival time, Unix ns)
	count   atomic.Int64
	sweepMu sync.Mutex
	swept   atomic.Int64 // Unix ns of the last sweep

	// Header values that never change, allocated once.
	limitHeader []string
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
	interval := int64(math.Min(float64(time.Second)/rate, 1e15)) // at least a token per 11 days
	interval = max(interval, 1)
	tau := int64(math.Min(float64(interval)*float64(burst), math.MaxInt64/4))
	return &Limiter{clock: clock, rate: rate, burst: int64(burst), interval: interval, tau: tau,
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
	now := l.clock.Now().UnixNano()
	v, ok := l.buckets.Load(key)
	if !ok {
		if l.count.Load() >= maxIdleBuckets {
			l.sweep(now)
		}
		var loaded bool
		if v, loaded = l.buckets.LoadOrStore(key, new(atomic.Int64)); !loaded {
			l.count.Add(1)
		}
	}
	tat := v.(*atomic.Int64)
	for {
		old := tat.Load()
		next := max(old, now) + l.interval
		ahead := next - now
		if ahead > l.tau { // no token: nothing is spent
			return Verdict{Limit: int(l.burst), l: l, Remaining: 0,
				Reset: time.Duration(max(old-now, 0)), RetryAfter: time.Duration(ahead - l.tau)}
		}
		if tat.CompareAndSwap(old, next) {
			return Verdict{Allowed: true, Limit: int(l.burst), l: l,
				Remaining: int((l.tau - ahead) / l.interval), Reset: time.Duration(ahead)}
		}
	}
}

// sweep forgets buckets that have refilled completely (a new bucket starts full anyway), at
// most once a second.
func (l *Limiter) sweep(now int64) {
	if now-l.swept.Load() < int64(time.Second) || !l.sweepMu.TryLock() {
		return
	}
	defer l.sweepMu.Unlock()
	l.swept.Store(now)
	l.buckets.Range(func(k, v any) bool {
		if v.(*atomic.Int64).Load() <= now {
			l.buckets.Delete(k)
			l.count.Add(-1)
		}
		return true
	})
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
