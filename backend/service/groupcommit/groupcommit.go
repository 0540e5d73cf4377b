// Package groupcommit stores concurrent requests together. On PostgreSQL what bounds
// accepted writes per second is commits, not work: requests that arrive while a batch is
// being stored form the next one, stored in one transaction by the surface's Store. A
// request arriving while nothing is being stored starts a batch at once (no added wait).
// One batch is stored at a time: on the 2-core benchmark machine overlapping batches only
// added commits competing for the same cores (docs/benchmarks.md: one leader accepted
// about a third more sends and calls than four, with a shorter tail).
// Sends (messaging) and inbound calls (automation) use it.
package groupcommit

import (
	"context"
	"sync"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Pending is embedded by a surface's request type: Store sets Err (or the result fields)
// before it returns.
type Pending struct {
	Err  error
	done chan struct{}
}

func (p *Pending) pending() *Pending { return p }

// Batcher queues requests of type T (a pointer to a struct embedding Pending) and stores
// them in batches of at most Max, one batch at a time.
type Batcher[T interface{ pending() *Pending }] struct {
	Max int
	// Store stores a batch and sets each request's outcome; every request of the batch is
	// answered when it returns.
	Store func(batch []T)

	mu      sync.Mutex
	queue   []T
	leading bool // a goroutine is storing batches
}

// Do queues item and waits until its batch is stored; it returns item's Err.
func (b *Batcher[T]) Do(ctx context.Context, item T) error {
	p := item.pending()
	p.done = make(chan struct{})
	b.mu.Lock()
	b.queue = append(b.queue, item)
	if !b.leading {
		b.leading = true
		go b.lead()
	}
	b.mu.Unlock()
	select {
	case <-p.done:
		return p.Err
	case <-ctx.Done():
		// The client left; the request may still be stored, as with any request cut short.
		return &domain.Error{Code: domain.CodeUnavailable, Message: "request cancelled", Err: ctx.Err()}
	}
}

// lead stores batches until the queue is empty.
func (b *Batcher[T]) lead() {
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.leading = false
			b.mu.Unlock()
			return
		}
		n := min(len(b.queue), b.Max)
		batch := make([]T, n)
		copy(batch, b.queue)
		b.queue = append(b.queue[:0], b.queue[n:]...)
		b.mu.Unlock()
		b.Store(batch)
		for _, item := range batch {
			close(item.pending().done)
		}
	}
}
