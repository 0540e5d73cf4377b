package store

import (
	"context"
	"database/sql"
	"hash/fnv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Job statuses. A job that succeeds is deleted (its kind records the outcome).
const (
	JobQueued  = "queued"
	JobRunning = "running"
	JobFailed  = "failed"
)

// NewJob is a job to enqueue.
type NewJob struct {
	ID          string
	Kind        string
	Payload     string
	RunAt       time.Time
	MaxAttempts int
	// Attempts already made (a job that continues earlier work, such as a webhook delivery
	// retried by hand, keeps its place in the retry schedule).
	Attempts         int
	ConcurrencyKey   string
	ConcurrencyLimit int // 0: the kind's default
	// GroupKey is a wider concurrency key (a tenant): at most GroupLimit (0: the kind's
	// default) of its jobs run at once, whatever their concurrency keys.
	GroupKey       string
	GroupLimit     int
	PacingKey      string
	PacingInterval time.Duration
	OrderingKey    string
	CreatedAt      time.Time
}

// InsertJobs enqueues jobs in one statement (in the caller's transaction: the outbox).
func (q q) InsertJobs(ctx context.Context, js []NewJob) error {
	if len(js) == 0 {
		return nil
	}
	var b strings.Builder
	args := make([]any, 0, len(js)*16)
	b.WriteString(`INSERT INTO jobs (id, kind, payload, status, run_at, attempts, max_attempts, concurrency_key,
		concurrency_limit, group_key, group_limit, pacing_key, pacing_interval_ms, ordering_key, created_at, updated_at) VALUES `)
	for i, j := range js {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		args = append(args, j.ID, j.Kind, j.Payload, JobQueued, j.RunAt.UTC(), j.Attempts, j.MaxAttempts, j.ConcurrencyKey,
			j.ConcurrencyLimit, j.GroupKey, j.GroupLimit, j.PacingKey, j.PacingInterval.Milliseconds(), j.OrderingKey, j.CreatedAt.UTC(), j.CreatedAt.UTC())
	}
	_, err := q.exec(ctx, b.String(), args...)
	return err
}

// JobState is a job's row as the engine sees it (tests and inspection).
type JobState struct {
	ID          string     `db:"id"`
	Kind        string     `db:"kind"`
	Status      string     `db:"status"`
	RunAt       time.Time  `db:"run_at"`
	Attempts    int        `db:"attempts"`
	MaxAttempts int        `db:"max_attempts"`
	LockedBy    *string    `db:"locked_by"`
	LockedUntil *time.Time `db:"locked_until"`
	LastError   string     `db:"last_error"`
}

// Job loads a job's state; a finished (succeeded) job is not found.
func (q q) Job(ctx context.Context, id string) (JobState, error) {
	var j JobState
	err := q.get(ctx, &j, `SELECT id, kind, status, run_at, attempts, max_attempts, locked_by, locked_until, last_error
		FROM jobs WHERE id = ?`, id)
	if err != nil {
		return j, notFoundAs(err, "job")
	}
	j.RunAt = j.RunAt.UTC()
	j.LockedUntil = utcPtr(j.LockedUntil)
	return j, nil
}

// ClaimJobsParams selects due jobs of one kind for a worker pool.
type ClaimJobsParams struct {
	Kind       string
	Now        time.Time
	LeaseUntil time.Time
	// Token identifies this claim (the lease holder); finishing and renewing check it.
	Token string
	// Owner is the claiming replica's prefix of its tokens ("owner/") and Held the jobs it
	// still holds: a replica never takes over a job it holds (its heartbeat renews it, late
	// or not), but does take over its own expired jobs it let go (their outcome could not
	// be written while the database was away), which no other replica may be there to take.
	Owner string
	Held  []string
	// Limit is the most jobs to claim.
	Limit int
	// Concurrency is the limit per concurrency key of jobs enqueued without their own.
	Concurrency int
	// GroupConcurrency is the limit per group key of jobs enqueued without their own
	// (0: none).
	GroupConcurrency int
	// Paced says the kind's jobs may carry pacing keys: the claim then also reports when
	// the next held-back job may start.
	Paced bool
}

// ClaimedJob is a job a worker holds a lease on.
type ClaimedJob struct {
	ID             string    `db:"id"`
	Kind           string    `db:"kind"`
	Payload        string    `db:"payload"`
	Attempts       int       `db:"attempts"` // including this one
	MaxAttempts    int       `db:"max_attempts"`
	ConcurrencyKey string    `db:"concurrency_key"`
	OrderingKey    string    `db:"ordering_key"`
	CreatedAt      time.Time `db:"created_at"`
	Token          string    `db:"-"`
}

type jobCandidate struct {
	ID               string `db:"id"`
	ConcurrencyKey   string `db:"concurrency_key"`
	ConcurrencyLimit int    `db:"concurrency_limit"`
	GroupKey         string `db:"group_key"`
	GroupLimit       int    `db:"group_limit"`
	PacingKey        string `db:"pacing_key"`
	PacingIntervalMS int64  `db:"pacing_interval_ms"`
}

// ClaimJobs leases due jobs of a kind, oldest due first: queued jobs whose time has come and
// running jobs whose lease expired (their worker died). It keeps the per-key rules across
// every replica: at most the limit running per concurrency key and per group key (only
// unexpired leases count, so a dead replica's jobs stop counting when their lease ends), one start per
// pacing interval per pacing key, and per ordering key only the oldest unfinished job.
// On PostgreSQL claims of one kind are serialised by an advisory lock held for the
// transaction (a few statements), which makes those counts exact between replicas; SQLite
// is one process with serialised write transactions.
//
// It also returns when this kind should be looked at again for work it could not take now
// (a pacing key's next slot), nil when nothing waits on one.
func (s *Store) ClaimJobs(ctx context.Context, p ClaimJobsParams) ([]ClaimedJob, *time.Time, error) {
	var claimed []ClaimedJob
	var wake *time.Time
	err := s.Tx(ctx, func(tx *Tx) error {
		if err := tx.AsyncCommit(ctx); err != nil {
			return err
		}
		var err error
		claimed, wake, err = tx.ClaimJobs(ctx, p)
		return err
	})
	return claimed, wake, err
}

// ClaimJobs claims in the caller's transaction (the one that records finished jobs, so a
// worker that frees a slot takes its next job without a transaction of its own).
func (tx *Tx) ClaimJobs(ctx context.Context, p ClaimJobsParams) ([]ClaimedJob, *time.Time, error) {
	now := p.Now.UTC()
	s := tx.s
	var claimed []ClaimedJob
	var wake *time.Time
	err := func() error {
		if s.dialect == Postgres {
			if _, err := tx.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, kindLock(p.Kind)); err != nil {
				return err
			}
		}
		// Running jobs per concurrency key: those whose lease holds count toward its limit,
		// those whose lease expired are to be taken over.
		var running []struct {
			Key     string `db:"concurrency_key"`
			Limit   int    `db:"lim"`
			N       int    `db:"n"`
			Expired int    `db:"expired"`
		}
		if err := tx.sel(ctx, &running, `SELECT concurrency_key, MAX(concurrency_limit) AS lim,
			SUM(CASE WHEN locked_until > ? THEN 1 ELSE 0 END) AS n, SUM(CASE WHEN locked_until > ? THEN 0 ELSE 1 END) AS expired
			FROM jobs WHERE kind = ? AND status = ? GROUP BY concurrency_key`, now, now, p.Kind, JobRunning); err != nil {
			return err
		}
		busy := map[string]int{}
		var full []any
		expired := 0
		for _, r := range running {
			expired += r.Expired
			if r.Key == "" {
				continue
			}
			busy[r.Key] = r.N
			if r.N >= limitOr(r.Limit, p.Concurrency) {
				full = append(full, r.Key)
			}
		}
		// The same per group key.
		var groups []struct {
			Key   string `db:"group_key"`
			Limit int    `db:"lim"`
			N     int    `db:"n"`
		}
		if err := tx.sel(ctx, &groups, `SELECT group_key, MAX(group_limit) AS lim, COUNT(*) AS n FROM jobs
			WHERE kind = ? AND status = ? AND locked_until > ? AND group_key <> '' GROUP BY group_key`, p.Kind, JobRunning, now); err != nil {
			return err
		}
		groupBusy := map[string]int{}
		var groupFull []any
		for _, g := range groups {
			groupBusy[g.Key] = g.N
			if g.N >= limitOr(g.Limit, p.GroupConcurrency) {
				groupFull = append(groupFull, g.Key)
			}
		}
		notFull := ""
		if len(full) > 0 {
			notFull = ` AND concurrency_key NOT IN (` + placeholders(len(full)) + `)`
		}
		if len(groupFull) > 0 {
			notFull += ` AND group_key NOT IN (` + placeholders(len(groupFull)) + `)`
		}
		lock := ""
		if s.dialect == Postgres {
			lock = ` FOR UPDATE SKIP LOCKED`
		}
		// Taken over first: jobs whose worker died.
		var cands []jobCandidate
		cols := `SELECT id, concurrency_key, concurrency_limit, group_key, group_limit, pacing_key, pacing_interval_ms FROM jobs j`
		notMine, args := "", []any{p.Kind, JobRunning, now}
		if p.Owner != "" && len(p.Held) > 0 {
			notMine, args = ` AND (locked_by NOT LIKE ? OR id NOT IN (`+placeholders(len(p.Held))+`))`,
				append(append(args, p.Owner+"%"), anys(p.Held)...)
		}
		args = append(append(args, full...), groupFull...)
		if expired > 0 {
			if err := tx.sel(ctx, &cands, cols+` WHERE kind = ? AND status = ? AND locked_until <= ?`+notMine+notFull+
				` ORDER BY locked_until, id LIMIT ?`+lock, append(args, p.Limit)...); err != nil {
				return err
			}
		}
		// Then due jobs: first those without a pacing key, oldest first; then, for each pacing
		// key with queued jobs whose next slot has come, its oldest job that may start. Asking
		// per key keeps a claim's cost to the number of keys, not the length of a backlog, and
		// one instance's backlog cannot take the candidate slots of another's jobs.
		pacing, err := tx.pacing(ctx, cands)
		if err != nil {
			return err
		}
		var ids []any
		later := func(at time.Time) { // look again when a held-back job's key has its next slot
			if wake == nil || at.Before(*wake) {
				w := at
				wake = &w
			}
		}
		take := func(cs []jobCandidate) error {
			for _, c := range cs {
				if len(ids) == p.Limit {
					return nil
				}
				if c.ConcurrencyKey != "" && busy[c.ConcurrencyKey] >= limitOr(c.ConcurrencyLimit, p.Concurrency) {
					continue
				}
				if c.GroupKey != "" && groupBusy[c.GroupKey] >= limitOr(c.GroupLimit, p.GroupConcurrency) {
					continue
				}
				if c.PacingKey != "" {
					if next, ok := pacing[c.PacingKey]; ok && next.After(now) {
						later(next)
						continue
					}
					pacing[c.PacingKey] = now.Add(time.Duration(c.PacingIntervalMS) * time.Millisecond)
					if err := tx.setPacing(ctx, c.PacingKey, pacing[c.PacingKey]); err != nil {
						return err
					}
				}
				if c.ConcurrencyKey != "" {
					busy[c.ConcurrencyKey]++
					if busy[c.ConcurrencyKey] >= limitOr(c.ConcurrencyLimit, p.Concurrency) {
						full = append(full, c.ConcurrencyKey)
					}
				}
				if c.GroupKey != "" {
					groupBusy[c.GroupKey]++
					if groupBusy[c.GroupKey] >= limitOr(c.GroupLimit, p.GroupConcurrency) {
						groupFull = append(groupFull, c.GroupKey)
					}
				}
				ids = append(ids, c.ID)
			}
			return nil
		}
		due := func(cond string, condArgs []any, limit int) ([]jobCandidate, error) {
			where, args := ` WHERE kind = ? AND status = ? AND run_at <= ?`+cond, append([]any{p.Kind, JobQueued, now}, condArgs...)
			if len(full) > 0 {
				where, args = where+` AND concurrency_key NOT IN (`+placeholders(len(full))+`)`, append(args, full...)
			}
			if len(groupFull) > 0 {
				where, args = where+` AND group_key NOT IN (`+placeholders(len(groupFull))+`)`, append(args, groupFull...)
			}
			if len(ids) > 0 {
				where, args = where+` AND id NOT IN (`+placeholders(len(ids))+`)`, append(args, ids...)
			}
			var out []jobCandidate
			err := tx.sel(ctx, &out, cols+where+`
				AND (ordering_key = '' OR NOT EXISTS (SELECT 1 FROM jobs e WHERE e.kind = j.kind AND e.ordering_key = j.ordering_key
					AND e.ordering_key <> '' -- lets the planner use the partial index jobs_ordering
					AND e.id < j.id AND e.status IN (?, ?)))
				ORDER BY run_at, id LIMIT ?`+lock, append(args, JobQueued, JobRunning, limit)...)
			return out, err
		}
		if err := take(cands); err != nil {
			return err
		}
		if len(ids) < p.Limit {
			unpaced, err := due(` AND pacing_key = ''`, nil, p.Limit*4+16)
			if err != nil {
				return err
			}
			if err := take(unpaced); err != nil {
				return err
			}
		}
		if p.Paced {
			keys, err := tx.queuedPacingKeys(ctx, p.Kind)
			if err != nil {
				return err
			}
			next, err := tx.pacingOf(ctx, keys)
			if err != nil {
				return err
			}
			for _, k := range keys {
				if at, ok := next[k]; ok && at.After(now) {
					later(at)
					continue
				}
				if len(ids) == p.Limit {
					continue
				}
				if _, ok := pacing[k]; !ok {
					pacing[k] = next[k]
				}
				// A few, in case the oldest wait behind their chat's earlier message.
				js, err := due(` AND pacing_key = ?`, []any{k}, 16)
				if err != nil {
					return err
				}
				if err := take(js); err != nil {
					return err
				}
				// The key may have more queued (some waiting behind their chat): its next slot.
				if at, ok := pacing[k]; ok && at.After(now) {
					later(at)
				}
			}
		}
		if len(ids) == 0 {
			return nil
		}
		if err := tx.sel(ctx, &claimed, `UPDATE jobs SET status = ?, locked_by = ?, locked_until = ?, attempts = attempts + 1,
			updated_at = ? WHERE id IN (`+placeholders(len(ids))+`)
			RETURNING id, kind, payload, attempts, max_attempts, concurrency_key, ordering_key, created_at`,
			append([]any{JobRunning, p.Token, p.LeaseUntil.UTC(), now}, ids...)...); err != nil {
			return err
		}
		for i := range claimed {
			claimed[i].Token = p.Token
			claimed[i].CreatedAt = claimed[i].CreatedAt.UTC()
		}
		return nil
	}()
	return claimed, wake, err
}

func limitOr(limit, def int) int {
	if limit > 0 {
		return limit
	}
	if def > 0 {
		return def
	}
	return int(^uint(0) >> 1)
}

// kindLock is the advisory lock key of a kind's claims.
func kindLock(kind string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("sb_jobs:" + kind))
	return int64(h.Sum64())
}

// pacing loads the next start times of the candidates' pacing keys.
func (t *Tx) pacing(ctx context.Context, cands []jobCandidate) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	var keys []string
	seen := map[string]bool{}
	for _, c := range cands {
		if c.PacingKey != "" && !seen[c.PacingKey] {
			seen[c.PacingKey] = true
			keys = append(keys, c.PacingKey)
		}
	}
	if len(keys) == 0 {
		return out, nil
	}
	var rows []struct {
		Key    string    `db:"pacing_key"`
		NextAt time.Time `db:"next_at"`
	}
	if err := t.sel(ctx, &rows, `SELECT pacing_key, next_at FROM job_pacing WHERE pacing_key IN (`+placeholders(len(keys))+`)`,
		anys(keys)...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.Key] = r.NextAt.UTC()
	}
	return out, nil
}

// queuedPacingKeys lists the pacing keys with queued jobs of a kind: a loose index scan
// (one probe of jobs_pacing per key), whatever the length of each key's queue.
func (t *Tx) queuedPacingKeys(ctx context.Context, kind string) ([]string, error) {
	var keys []string
	err := t.sel(ctx, &keys, `WITH RECURSIVE k(key) AS (
			SELECT MIN(pacing_key) FROM jobs WHERE kind = ? AND status = ? AND pacing_key > ''
			UNION ALL
			SELECT (SELECT MIN(pacing_key) FROM jobs WHERE kind = ? AND status = ? AND pacing_key > k.key) FROM k WHERE k.key IS NOT NULL
		) SELECT key FROM k WHERE key IS NOT NULL`, kind, JobQueued, kind, JobQueued)
	return keys, err
}

// pacingOf reads the next slots of pacing keys (keys never used have none).
func (t *Tx) pacingOf(ctx context.Context, keys []string) (map[string]time.Time, error) {
	cands := make([]jobCandidate, len(keys))
	for i, k := range keys {
		cands[i].PacingKey = k
	}
	return t.pacing(ctx, cands)
}

func (t *Tx) setPacing(ctx context.Context, key string, next time.Time) error {
	_, err := t.exec(ctx, `INSERT INTO job_pacing (pacing_key, next_at) VALUES (?, ?)
		ON CONFLICT (pacing_key) DO UPDATE SET next_at = excluded.next_at`, key, next.UTC())
	return err
}

// NextJobDue is when the earliest queued job of a kind is due (nil if none).
func (q q) NextJobDue(ctx context.Context, kind string) (*time.Time, error) {
	var at []time.Time
	err := q.sel(ctx, &at, `SELECT run_at FROM jobs WHERE kind = ? AND status = ? ORDER BY run_at LIMIT 1`, kind, JobQueued)
	if err != nil || len(at) == 0 {
		return nil, err
	}
	return utcPtr(&at[0]), nil
}

// JobLease names a job held by a claim token.
type JobLease struct {
	ID    string
	Token string
}

// RenewJobLeases extends the leases still held and returns the ids of those that were lost
// (taken over after expiring, or finished by someone else).
func (s *Store) RenewJobLeases(ctx context.Context, leases []JobLease, until time.Time) ([]string, error) {
	if len(leases) == 0 {
		return nil, nil
	}
	tokens := map[string]bool{}
	ids := make([]any, 0, len(leases))
	for _, l := range leases {
		tokens[l.Token] = true
		ids = append(ids, l.ID)
	}
	var rows []struct {
		ID       string `db:"id"`
		LockedBy string `db:"locked_by"`
	}
	err := s.Tx(ctx, func(tx *Tx) error {
		if err := tx.AsyncCommit(ctx); err != nil {
			return err
		}
		toks := make([]any, 0, len(tokens))
		for tok := range tokens {
			toks = append(toks, tok)
		}
		return tx.sel(ctx, &rows, `UPDATE jobs SET locked_until = ? WHERE status = ? AND id IN (`+placeholders(len(ids))+`)
			AND locked_by IN (`+placeholders(len(toks))+`) RETURNING id, locked_by`,
			append(append([]any{until.UTC(), JobRunning}, ids...), toks...)...)
	})
	if err != nil {
		return nil, err
	}
	held := map[string]bool{}
	byID := map[string]string{}
	for _, l := range leases {
		byID[l.ID] = l.Token
	}
	for _, r := range rows {
		if byID[r.ID] == r.LockedBy {
			held[r.ID] = true
		}
	}
	var lost []string
	for _, l := range leases {
		if !held[l.ID] {
			lost = append(lost, l.ID)
		}
	}
	return lost, nil
}

// OwnedJobs locks the named jobs and returns those still held by the given leases.
func (t *Tx) OwnedJobs(ctx context.Context, leases []JobLease) (map[string]bool, error) {
	out := map[string]bool{}
	if len(leases) == 0 {
		return out, nil
	}
	ids := make([]any, len(leases))
	want := make(map[string]string, len(leases))
	for i, l := range leases {
		ids[i] = l.ID
		want[l.ID] = l.Token
	}
	query := `SELECT id, locked_by FROM jobs WHERE status = ? AND id IN (` + placeholders(len(ids)) + `)`
	if t.s.dialect == Postgres {
		query += ` ORDER BY id FOR UPDATE`
	}
	var rows []struct {
		ID       string  `db:"id"`
		LockedBy *string `db:"locked_by"`
	}
	if err := t.sel(ctx, &rows, query, append([]any{JobRunning}, ids...)...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r.LockedBy != nil && *r.LockedBy == want[r.ID] {
			out[r.ID] = true
		}
	}
	return out, nil
}

// JobOutcome is how a held job ended.
type JobOutcome struct {
	JobLease
	// Status is "" (succeeded: deleted), JobQueued (retry at RunAt, or handed back
	// untouched when Release), or JobFailed.
	Status  string
	RunAt   time.Time
	Error   string
	Release bool // handed back without an attempt (shutdown): the attempt is not counted
}

// FinishJobs applies the outcomes of jobs, each only if its lease is still held, and
// returns the ids it applied (the others were taken over meanwhile: their outcome is
// dropped). Successes are one statement for the whole batch.
func (t *Tx) FinishJobs(ctx context.Context, outs []JobOutcome, now time.Time) (map[string]bool, error) {
	owned := map[string]bool{}
	var cond []string
	var done []any
	for _, o := range outs {
		var res sql.Result
		var err error
		switch {
		case o.Status == "":
			cond = append(cond, "(id = ? AND locked_by = ?)")
			done = append(done, o.ID, o.Token)
			continue
		case o.Release:
			res, err = t.exec(ctx, `UPDATE jobs SET status = ?, attempts = attempts - 1, locked_by = NULL, locked_until = NULL,
				updated_at = ? WHERE id = ? AND locked_by = ? AND status = ?`, JobQueued, now.UTC(), o.ID, o.Token, JobRunning)
		default:
			res, err = t.exec(ctx, `UPDATE jobs SET status = ?, run_at = ?, last_error = ?, locked_by = NULL, locked_until = NULL,
				updated_at = ? WHERE id = ? AND locked_by = ? AND status = ?`, o.Status, o.RunAt.UTC(), domain.StorableText(o.Error, 1000),
				now.UTC(), o.ID, o.Token, JobRunning)
		}
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			owned[o.ID] = true
		}
	}
	if len(cond) > 0 {
		var ids []string
		if err := t.sel(ctx, &ids, `DELETE FROM jobs WHERE status = ? AND (`+strings.Join(cond, " OR ")+`) RETURNING id`,
			append([]any{JobRunning}, done...)...); err != nil {
			return nil, err
		}
		for _, id := range ids {
			owned[id] = true
		}
	}
	return owned, nil
}

// RequeueJob makes a job due now. A queued job is brought forward; a failed one is queued
// again with extra more attempts; a running one is left alone (conflict). A job that no
// longer exists is inserted from fresh.
func (t *Tx) RequeueJob(ctx context.Context, id string, extra int, now time.Time, fresh NewJob) error {
	var st []struct {
		Status string `db:"status"`
	}
	if err := t.sel(ctx, &st, `SELECT status FROM jobs WHERE id = ?`, id); err != nil {
		return err
	}
	if len(st) == 0 {
		return t.InsertJobs(ctx, []NewJob{fresh})
	}
	if st[0].Status == JobRunning {
		return &domain.Error{Code: domain.CodeConflict, Reason: "job_in_progress", Message: "this work is being done right now; try again in a moment"}
	}
	_, err := t.exec(ctx, `UPDATE jobs SET run_at = ?, status = ?, last_error = '', updated_at = ?,
		max_attempts = CASE WHEN status = ? THEN attempts + ? ELSE max_attempts END WHERE id = ?`,
		now.UTC(), JobQueued, now.UTC(), JobFailed, extra, id)
	return err
}

// CancelQueuedJobs deletes the queued (not running) jobs of a kind and concurrency key and
// returns their ids.
func (t *Tx) CancelQueuedJobs(ctx context.Context, kind, concurrencyKey string) ([]string, error) {
	var ids []string
	err := t.sel(ctx, &ids, `DELETE FROM jobs WHERE kind = ? AND concurrency_key = ? AND status = ? RETURNING id`,
		kind, concurrencyKey, JobQueued)
	return ids, err
}

// CountJobs counts the jobs of a kind not finished (queued, running or retrying).
func (q q) CountJobs(ctx context.Context, kind string) (int, error) {
	var n int
	err := q.get(ctx, &n, `SELECT COUNT(*) FROM jobs WHERE kind = ? AND status <> 'failed'`, kind)
	return n, err
}

// RepaceJobs sets the pacing interval of a pacing key's waiting jobs of a kind (an
// instance's new messages per second applies to its queue too).
func (t *Tx) RepaceJobs(ctx context.Context, kind, pacingKey string, interval time.Duration) error {
	_, err := t.exec(ctx, `UPDATE jobs SET pacing_interval_ms = ? WHERE kind = ? AND pacing_key = ? AND status = ?`,
		interval.Milliseconds(), kind, pacingKey, JobQueued)
	return err
}

// RefreshJobStats analyzes the jobs table when more than changes rows changed since its
// last analyze (PostgreSQL; SQLite plans without them).
func (s *Store) RefreshJobStats(ctx context.Context, changes int) error {
	if s.dialect != Postgres {
		return nil
	}
	var n []int64
	if err := s.sel(ctx, &n, `SELECT n_mod_since_analyze FROM pg_stat_user_tables WHERE relid = 'jobs'::regclass`); err != nil {
		return err
	}
	if len(n) == 0 || n[0] < int64(changes) {
		return nil
	}
	_, err := s.exec(ctx, `ANALYZE jobs`)
	return err
}
