package service

import (
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// throttle counts failures per key in a fixed window. It lives in process memory: with
// several replicas each one counts on its own (documented in docs/operations.md).
type throttle struct {
	clock domain.Clock
	mu    sync.Mutex
	hits  map[string]*window
}

type window struct {
	start time.Time
	n     int
}

func newThrottle(c domain.Clock) *throttle {
	return &throttle{clock: c, hits: map[string]*window{}}
}

// blocked reports whether key has reached limit failures in the current window.
func (t *throttle) blocked(key string, limit int, win time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.hits[key]
	if w == nil || t.clock.Now().Sub(w.start) >= win {
		return false
	}
	return w.n >= limit
}

// fail records a failure for key.
func (t *throttle) fail(key string, win time.Duration) {
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

// reset forgets key's failures (after a successful sign-in).
func (t *throttle) reset(key string) {
	t.mu.Lock()
	delete(t.hits, key)
	t.mu.Unlock()
}
