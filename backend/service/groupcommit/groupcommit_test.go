package groupcommit_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service/groupcommit"
)

type req struct {
	groupcommit.Pending
	n, got int
}

// Requests arriving while a batch is stored form the next one (at most Max, one batch at
// a time); each is answered with what Store set for it, and a caller
// that leaves is told the request was cancelled.
func TestBatchesAndAnswers(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var sizes []int
	b := &groupcommit.Batcher[*req]{Max: 10}
	b.Store = func(batch []*req) {
		<-release
		mu.Lock()
		sizes = append(sizes, len(batch))
		mu.Unlock()
		for _, r := range batch {
			r.got = r.n * 2
			if r.n == 7 {
				r.Err = errors.New("seven refused")
			}
		}
	}
	var wg sync.WaitGroup
	reqs := make([]*req, 25)
	errs := make([]error, 25)
	for i := range reqs {
		reqs[i] = &req{n: i}
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = b.Do(context.Background(), reqs[i]) }()
	}
	time.Sleep(50 * time.Millisecond) // all queued behind the first batch
	close(release)
	wg.Wait()
	total := 0
	for _, n := range sizes {
		if n > 10 {
			t.Fatalf("a batch of %d (max 10)", n)
		}
		total += n
	}
	if total != 25 || len(sizes) > 4 {
		t.Fatalf("batches %v: want 25 requests in a few batches", sizes)
	}
	for i, r := range reqs {
		if r.got != 2*i || (i == 7) != (errs[i] != nil) {
			t.Fatalf("request %d: got %d err %v", i, r.got, errs[i])
		}
	}

	hold := make(chan struct{})
	b.Store = func([]*req) { <-hold }
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Do(ctx, &req{}); !domain.IsCode(err, domain.CodeUnavailable) {
		t.Fatalf("a caller that left: %v", err)
	}
	close(hold)
}
