package jobs

import (
	"slices"
	"strings"
	"sync/atomic"
)

// KindStats counts what this replica's engine did with one kind since it started (for
// metrics: counters that only grow).
type KindStats struct {
	Kind string
	// Attempts counts the attempts whose outcome this replica recorded: succeeded,
	// scheduled again or failed. Attempts handed back untouched (shutdown, lost lease) and
	// outcomes dropped because the lease was taken over are not counted.
	Attempts int64
	// Retries counts the attempts that failed and were scheduled to run again.
	Retries int64
	// Failures counts the attempts that failed for good: a permanent error, or the last
	// attempt the kind allows.
	Failures int64
}

// kindCounters are one kind's counters, updated once its outcomes are committed.
type kindCounters struct {
	attempts, retries, failures atomic.Int64
}

// recorded counts outcomes written to the database.
func (c *kindCounters) recorded(done []Done) {
	var retries, failures int64
	for _, d := range done {
		switch d.Outcome {
		case Retrying:
			retries++
		case Failed:
			failures++
		}
	}
	c.attempts.Add(int64(len(done)))
	c.retries.Add(retries)
	c.failures.Add(failures)
}

// Stats returns the counters of every registered kind, by name.
func (e *Engine) Stats() []KindStats {
	e.mu.Lock()
	out := make([]KindStats, 0, len(e.runners))
	for name, r := range e.runners {
		out = append(out, KindStats{Kind: name, Attempts: r.counters.attempts.Load(), Retries: r.counters.retries.Load(),
			Failures: r.counters.failures.Load()})
	}
	e.mu.Unlock()
	slices.SortFunc(out, func(a, b KindStats) int { return strings.Compare(a.Kind, b.Kind) })
	return out
}
