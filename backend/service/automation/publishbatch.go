package automation

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/groupcommit"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Group commit of inbound calls (service/groupcommit), as for sends: on PostgreSQL a
// call's cost is its transaction's commit, not its work, so calls without a dedupe key
// that arrive together are stored together: one transaction, a few multi-row statements.
// A batch whose transaction fails is stored again one call at a time, so no call fails
// because of another, and each 202 still means stored.
const maxCallBatch = 128

// pendingCall is one call waiting in a batch.
type pendingCall struct {
	groupcommit.Pending
	p store.StoredPublisher
	c domain.Published
}

type callBatcher struct {
	a *Automation
	groupcommit.Batcher[*pendingCall]
}

func newCallBatcher(a *Automation) *callBatcher {
	b := &callBatcher{a: a}
	b.Max, b.Store = maxCallBatch, b.store
	return b
}

// publish queues pc and waits until its batch is stored.
func (b *callBatcher) publish(ctx context.Context, pc *pendingCall) error { return b.Do(ctx, pc) }

// store stores a batch, then answers each call.
func (b *callBatcher) store(batch []*pendingCall) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := b.a.st.Tx(ctx, func(tx *store.Tx) error { return b.storeIn(ctx, tx, batch) })
	if err != nil {
		for _, pc := range batch {
			_, _, pc.Err = b.a.storeOne(ctx, pc.p, pc.c, "") // no key: no replay, no conflict
		}
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
