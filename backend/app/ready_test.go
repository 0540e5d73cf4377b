package app

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// A database that stops answering makes readiness checks fail at their own deadline, not
// hang with it; checks meanwhile share the one ping in flight; once it answers, ready again.
func TestReadinessDoesNotWaitOnAFrozenDatabase(t *testing.T) {
	release := make(chan struct{})
	var pings atomic.Int32
	p := &pinger{ping: func(context.Context) error {
		pings.Add(1)
		<-release // frozen: ignores its context, as a stopped server's connection does
		return nil
	}}
	for range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		err := p.check(ctx)
		cancel()
		if err == nil || time.Since(start) > time.Second {
			t.Fatalf("check on a frozen database: %v after %v, want an error at its deadline", err, time.Since(start))
		}
	}
	if n := pings.Load(); n != 1 {
		t.Fatalf("%d pings in flight, want 1 shared by every check", n)
	}
	close(release)
	if err := p.check(context.Background()); err != nil {
		t.Fatalf("after the database answers: %v", err)
	}
}
