package service

import (
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Throttle counts failures per key in a fixed window (sign-ins, short-link passwords). It
// lives in process memory: with several replicas each one counts on its own (documented in
// docs/operations.md).
type Throttle struct {
	clock domain.Clock
	mu    sync.Mutex
	hits  map[string]*window
}

type window struct {
	start time.Time
	n     int
}

// NewThrottle returns an empty throttle on clock c.
func NewThrottle(c domain.Clock) *Throttle {
	return &Throttle{clock: c, hits: map[string]*window{}}
}

// Blocked reports whether key has reached limit failures in the current window.
func (t *Throttle) Blocked(key string, limit int, win time.Duration) bool {
	return t.RetryAfter(key, limit, win) > 0
}

// RetryAfter is how long key stays blocked (0: it is not).
func (t *Throttle) RetryAfter(key string, limit int, win time.Duration) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.hits[key]
	if w == nil || w.n < limit {
		return 0
	}
	return max(win-t.clock.Now().Sub(w.start), 0)
}

// Fail records a failure for key.
func (t *Throttle) Fail(key string, win time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	w := t.hits[key]
	if w == nil || now.Sub(w.start) >= win {
		if len(t.hits) > 100_000 { // bound memory under a spray of addresses
			for k, old := range t.hits {
				if now.Sub(old.start) >= win {
					delete(t.hits, k)
				}
			}
		}
		w = &window{start: now}
		t.hits[key] = w
	}
	w.n++
}

// Reset forgets key's failures (after a success).
func (t *Throttle) Reset(key string) {
	t.mu.Lock()
	delete(t.hits, key)
	t.mu.Unlock()
}
