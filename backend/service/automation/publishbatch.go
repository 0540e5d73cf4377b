package automation

import (
	"context"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Group commit of inbound calls, as for sends (messaging/sendbatch.go): on PostgreSQL a
// call's cost is its transaction's commit, not its work, so calls without a dedupe key
// that arrive together are stored together: one transaction, a few multi-row statements.
// A call arriving while no batch is being stored starts one at once (no added wait);
// calls arriving meanwhile form the next. A batch whose transaction fails is stored again
// one call at a time, so no call fails because of another, and each 202 still means
// stored.
const (
	maxCallBatch = 128
	callBatchers = 4
)

// pendingCall is one call waiting in a batch.
type pendingCall struct {
	p    store.StoredPublisher
	c    domain.Published
	err  error
	done chan struct{}
}

type callBatcher struct {
	a       *Automation
	mu      sync.Mutex
	queue   []*pendingCall
	leaders int
}

// publish queues pc and waits until its batch is stored.
func (b *callBatcher) publish(ctx context.Context, pc *pendingCall) error {
	pc.done = make(chan struct{})
	b.mu.Lock()
	b.queue = append(b.queue, pc)
	if b.leaders < callBatchers {
		b.leaders++
		go b.lead()
	}
	b.mu.Unlock()
	select {
	case <-pc.done:
		return pc.err
	case <-ctx.Done():
		// The caller left; the call may still be stored, as with any request cut short.
		return &domain.Error{Code: domain.CodeUnavailable, Message: "request cancelled", Err: ctx.Err()}
	}
}

// lead stores batches until the queue is empty.
func (b *callBatcher) lead() {
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.leaders--
			b.mu.Unlock()
			return
		}
		n := min(len(b.queue), maxCallBatch)
		batch := make([]*pendingCall, n)
		copy(batch, b.queue)
		b.queue = append(b.queue[:0], b.queue[n:]...)
		b.mu.Unlock()
		b.store(batch)
	}
}

// store stores a batch, then answers each call.
func (b *callBatcher) store(batch []*pendingCall) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := b.a.st.Tx(ctx, func(tx *store.Tx) error { return b.storeIn(ctx, tx, batch) })
	for _, pc := range batch {
		if err != nil {
			_, _, pc.err = b.a.storeOne(ctx, pc.p, pc.c)
		}
		close(pc.done)
	}
}

func (b *callBatcher) storeIn(ctx context.Context, tx *store.Tx, batch []*pendingCall) error {
	calls := make([]domain.Published, len(batch))
	events := make([]service.EventRecord, len(batch))
	var runs []domain.Run
	var js []jobs.NewJob
	for i, pc := range batch {
		calls[i], events[i] = pc.c, publishedEvent(pc.p, pc.c)
		if run, job, ok := queuedRun(pc.p, pc.c); ok {
			runs, js = append(runs, run), append(js, job)
		}
	}
	if err := tx.InsertCalls(ctx, calls); err != nil {
		return err
	}
	if _, err := b.a.s.RecordAll(ctx, tx, events); err != nil {
		return err
	}
	if err := tx.InsertRuns(ctx, runs); err != nil {
		return err
	}
	return jobs.Enqueue(ctx, tx, b.a.s.Clock().Now(), js...)
}
