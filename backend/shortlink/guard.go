package shortlink

import (
	"context"
	"runtime"
	"time"

	"github.com/switchboard-dev/switchboard/backend/httpx"
)

// Password tries are limited twice. Per visitor and link: a burst of passwordBurst tries,
// then one every passwordEvery, so guessing a link's password is slow. Across the process:
// at most passwordSlots checks at once (each is a deliberately costly hash), so a crowd of
// guesses cannot take the cores the redirects need; a try that finds no slot within
// passwordWait is answered 429 too.
const (
	passwordBurst = 5
	passwordEvery = 12 * time.Second
	passwordWait  = time.Second
)

type passwordGuard struct {
	tries *httpx.Limiter
	slots chan struct{}
}

func newPasswordGuard() *passwordGuard {
	return &passwordGuard{tries: httpx.NewLimiter(nil, float64(time.Second)/float64(passwordEvery), passwordBurst),
		slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))}
}

// enter admits a password try of the visitor ip on slug. ok false: refused, retry after
// the duration. Otherwise call release when the check is done.
func (g *passwordGuard) enter(ctx context.Context, slug, ip string) (release func(), retry time.Duration, ok bool) {
	if v := g.tries.Take(ip + " " + slug); !v.Allowed {
		return nil, v.RetryAfter, false
	}
	t := time.NewTimer(passwordWait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, 0, true
	case <-t.C:
		return nil, time.Second, false
	case <-ctx.Done():
		return nil, time.Second, false
	}
}
