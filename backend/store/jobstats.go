package store

import (
	"context"
	"time"
)

// JobKindStats is the state of one kind's queue.
type JobKindStats struct {
	// Queued counts the jobs waiting to run: due now, or scheduled later (retries).
	Queued int
	// Running counts the jobs held by a worker (including those whose worker died and whose
	// lease has not been taken over yet).
	Running int
	// EarliestRunAt is the earliest run_at of the kind's queued jobs, nil when none is queued.
	// When it is in the past, the oldest due job has waited since then.
	EarliestRunAt *time.Time
}

// JobStats counts the queued and running jobs of each kind that has any, and finds each
// such kind's earliest queued job (for metrics). Failed jobs, which stay until pruned, are
// not read: the counts use the partial indexes of queued and running jobs (jobs_due,
// jobs_running), so the cost follows the backlog, not the table, and the earliest job is
// one probe of jobs_due per kind.
func (q q) JobStats(ctx context.Context) (map[string]JobKindStats, error) {
	// The statuses are literals, not parameters, so the planner matches the partial
	// indexes' predicates whatever plan it caches; and no column outside those indexes is
	// read, so PostgreSQL counts with index-only scans.
	var rows []struct {
		Kind   string `db:"kind"`
		Status string `db:"status"`
		N      int    `db:"n"`
	}
	if err := q.sel(ctx, &rows, `SELECT kind, '`+JobQueued+`' AS status, COUNT(*) AS n FROM jobs WHERE status = '`+JobQueued+`' GROUP BY kind
		UNION ALL
		SELECT kind, '`+JobRunning+`' AS status, COUNT(*) AS n FROM jobs WHERE status = '`+JobRunning+`' GROUP BY kind`); err != nil {
		return nil, err
	}
	out := map[string]JobKindStats{}
	for _, r := range rows {
		st := out[r.Kind]
		if r.Status == JobQueued {
			st.Queued = r.N
		} else {
			st.Running = r.N
		}
		out[r.Kind] = st
	}
	for kind, st := range out {
		if st.Queued == 0 {
			continue
		}
		// ORDER BY … LIMIT 1 rather than MIN(): one index probe, and SQLite keeps the
		// column's time type (an aggregate's result comes back as text).
		at, err := q.NextJobDue(ctx, kind)
		if err != nil {
			return nil, err
		}
		st.EarliestRunAt = at
		out[kind] = st
	}
	return out, nil
}
