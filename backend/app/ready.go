package app

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// readyTimeout is how long /readyz waits for the database.
const readyTimeout = 2 * time.Second

// pinger runs at most one database ping at a time and lets every readiness check wait for
// it, up to its own deadline. A database that stops answering (a frozen server, a network
// partition) may not honour a cancelled context, so a check must not wait on the ping
// itself, and probes arriving meanwhile must not pile up pings.
type pinger struct {
	ping func(context.Context) error

	mu      sync.Mutex
	flight  chan struct{} // closed when the ping in flight ends; nil when none is
	lastErr error
}

// check answers the result of the ping in flight (or of a new one), or a timeout error
// once ctx ends first.
func (p *pinger) check(ctx context.Context) error {
	p.mu.Lock()
	done := p.flight
	if done == nil {
		done = make(chan struct{})
		p.flight = done
		go func() {
			// Its own deadline: the request's ends with the request.
			pctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err := p.ping(pctx)
			cancel()
			p.mu.Lock()
			p.lastErr, p.flight = err, nil
			p.mu.Unlock()
			close(done)
		}()
	}
	p.mu.Unlock()
	select {
	case <-done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.lastErr
	case <-ctx.Done():
		return fmt.Errorf("the database did not answer within %s", readyTimeout)
	}
}

// ready reports whether the database answers, within readyTimeout, on a connection of its
// own: a replica whose pool is busy is still ready (each request that cannot get a connection
// in time is answered 503 with Retry-After), because taking every busy replica out of
// rotation would turn an overload into an outage. The body says when the pool is busy.
func (a *App) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	w.Header().Set("Content-Type", "application/json")
	if err := a.ping.check(ctx); err != nil {
		a.log.Warn("readiness check failed", "err", err)
		state := "unreachable"
		if ctx.Err() != nil {
			state = "not answering"
		}
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = fmt.Fprintf(w, `{"status":"unavailable","database":%q}`, state)
		return
	}
	pool := "ok"
	if st := a.Store.PoolStats(); st.MaxOpenConnections > 0 && st.InUse >= st.MaxOpenConnections {
		pool = "busy"
	}
	_, _ = fmt.Fprintf(w, `{"status":"ready","database":%q,"pool":%q}`, a.Store.Dialect(), pool)
}
