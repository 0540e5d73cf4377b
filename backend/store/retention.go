package store

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Bounded storage: the tables that grow with traffic are pruned by one periodic job
// (service/retention) in small batches, each its own short transaction, oldest rows first by
// an indexed time column. These are the batches; the job decides the cutoffs and the pace.

// The tables pruned, by the names the pruning metric and the cursor marks use.
const (
	TableEvents      = "events"
	TableDeliveries  = "webhook_deliveries"
	TableAttempts    = "webhook_delivery_attempts" // removed with their deliveries
	TableClicks      = "link_clicks"
	TableCalls       = "automation_calls"
	TableRuns        = "automation_runs"
	TableFailedJobs  = "jobs" // failed jobs only: a job that succeeds is deleted at once
	TableIdempotency = "idempotency_keys"
)

// Pruned is what one batch removed: rows per table (attempts apart from their deliveries).
type Pruned map[string]int64

// skipLocked completes a batch's row selection on PostgreSQL so that pruning never waits
// on a row a writer holds (it is pruned by a later batch).
func (q q) skipLocked() string {
	if q.s.dialect == Postgres {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}

// pruneSpec is a table pruned by id, oldest first by timeCol, with extra conditions.
type pruneSpec struct {
	table, timeCol string
	cond           string // " AND ..." (rows that must stay: pending deliveries, queued runs)
	args           []any
	marked         bool // listed with after= cursors: the deleted ids raise its mark
}

// pruneByID deletes up to limit rows of a table older than before, in one transaction.
func (s *Store) pruneByID(ctx context.Context, p pruneSpec, before time.Time, limit int) (int64, error) {
	var n int64
	err := s.Tx(ctx, func(tx *Tx) error {
		var ids []string
		args := append(append([]any{before.UTC()}, p.args...), limit)
		if err := tx.sel(ctx, &ids, `DELETE FROM `+p.table+` WHERE id IN (SELECT id FROM `+p.table+` WHERE `+p.timeCol+` < ?`+
			p.cond+` ORDER BY `+p.timeCol+` LIMIT ?`+tx.skipLocked()+`) RETURNING id`, args...); err != nil {
			return err
		}
		n = int64(len(ids))
		if p.marked {
			return tx.raiseMark(ctx, p.table, ids)
		}
		return nil
	})
	return n, err
}

// PruneEvents deletes up to limit events recorded before before.
func (s *Store) PruneEvents(ctx context.Context, before time.Time, limit int) (Pruned, error) {
	n, err := s.pruneByID(ctx, pruneSpec{table: TableEvents, timeCol: "created_at", marked: true}, before, limit)
	return Pruned{TableEvents: n}, err
}

// PruneDeliveries deletes up to limit finished (succeeded or failed) webhook deliveries
// created before before, with their attempts. Pending deliveries stay whatever their age.
func (s *Store) PruneDeliveries(ctx context.Context, before time.Time, limit int) (Pruned, error) {
	out := Pruned{TableDeliveries: 0, TableAttempts: 0}
	err := s.Tx(ctx, func(tx *Tx) error {
		var ids []string
		if err := tx.sel(ctx, &ids, `SELECT id FROM webhook_deliveries WHERE created_at < ? AND status <> ?
			ORDER BY created_at LIMIT ?`+tx.skipLocked(), before.UTC(), domain.DeliveryPending, limit); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		res, err := tx.exec(ctx, `DELETE FROM webhook_delivery_attempts WHERE delivery_id IN (`+placeholders(len(ids))+`)`, anys(ids)...)
		if err != nil {
			return err
		}
		out[TableAttempts], _ = res.RowsAffected()
		var gone []string
		if err := tx.sel(ctx, &gone, `DELETE FROM webhook_deliveries WHERE id IN (`+placeholders(len(ids))+`) RETURNING id`,
			anys(ids)...); err != nil {
			return err
		}
		out[TableDeliveries] = int64(len(gone))
		return tx.raiseMark(ctx, TableDeliveries, gone)
	})
	return out, err
}

// PruneAutomation deletes up to limit inbound calls received before before, and up to limit
// finished action runs created before it.
func (s *Store) PruneAutomation(ctx context.Context, before time.Time, limit int) (Pruned, error) {
	calls, err := s.pruneByID(ctx, pruneSpec{table: TableCalls, timeCol: "received_at", marked: true}, before, limit)
	if err != nil {
		return nil, err
	}
	runs, err := s.pruneByID(ctx, pruneSpec{table: TableRuns, timeCol: "created_at", cond: " AND status <> ?",
		args: []any{domain.RunQueued}, marked: true}, before, limit)
	return Pruned{TableCalls: calls, TableRuns: runs}, err
}

// PruneFailedJobs deletes up to limit jobs that failed (ran out of attempts) before before,
// and pacing slots unused since then. Inbound provider callbacks are channel.event jobs:
// applied ones are deleted at once, failed ones stay this long for inspection.
func (s *Store) PruneFailedJobs(ctx context.Context, before time.Time, limit int) (Pruned, error) {
	n, err := s.pruneByID(ctx, pruneSpec{table: TableFailedJobs, timeCol: "updated_at", cond: " AND status = ?",
		args: []any{JobFailed}}, before, limit)
	if err != nil || n == int64(limit) {
		return Pruned{TableFailedJobs: n}, err
	}
	// job_pacing holds one row per pacing key ever used (an instance, a chat): small.
	_, err = s.exec(ctx, `DELETE FROM job_pacing WHERE pacing_key IN (SELECT pacing_key FROM job_pacing WHERE next_at < ? LIMIT ?)`,
		before.UTC(), limit)
	return Pruned{TableFailedJobs: n}, err
}

// PruneIdempotency deletes up to limit idempotency records created before before.
func (s *Store) PruneIdempotency(ctx context.Context, before time.Time, limit int) (Pruned, error) {
	res, err := s.exec(ctx, `DELETE FROM idempotency_keys WHERE (workspace_id, key) IN (
		SELECT workspace_id, key FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ?)`, before.UTC(), limit)
	if err != nil {
		return nil, err
	}
	n, _ := res.RowsAffected()
	return Pruned{TableIdempotency: n}, nil
}

// raiseMark records that ids of table were pruned: its mark becomes the greatest pruned id.
func (t *Tx) raiseMark(ctx context.Context, table string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	last := slices.Max(ids)
	_, err := t.exec(ctx, `INSERT INTO retention_marks (name, last_id, updated_at) VALUES (?, ?, CURRENT_TIMESTAMP)
		ON CONFLICT (name) DO UPDATE SET updated_at = excluded.updated_at,
		last_id = CASE WHEN excluded.last_id > retention_marks.last_id THEN excluded.last_id ELSE retention_marks.last_id END`,
		table, last)
	return err
}

// ReasonCursorExpired is the reason of the error answering a cursor into pruned rows
// (HTTP 410).
const ReasonCursorExpired = "cursor_expired"

// listNames names the rows of a pruned table in errors.
var listNames = map[string]string{TableEvents: "events", TableDeliveries: "deliveries", TableClicks: "clicks",
	TableCalls: "calls", TableRuns: "runs"}

// CheckCursor refuses an after= cursor of a list over a pruned table when the rows it
// points past have been deleted (its id is at or below the greatest id pruned): the page
// would silently end or come back empty, so the caller is told to start over instead.
// No cursor, or a table never pruned, is fine.
func (q q) CheckCursor(ctx context.Context, table, after string) error {
	if after == "" {
		return nil
	}
	var marks []string
	if err := q.sel(ctx, &marks, `SELECT last_id FROM retention_marks WHERE name = ? AND last_id >= ?`, table, after); err != nil {
		return err
	}
	if len(marks) == 0 {
		return nil
	}
	what := listNames[table]
	return &domain.Error{Code: domain.CodeInvalid, Reason: ReasonCursorExpired, Param: "after",
		Message: "after points to " + what + " older than the retention period, which have been deleted; list again without after"}
}

// PruneClicks takes the next step of pruning raw clicks older than before (rounded down to a
// UTC midnight): the link whose click is the oldest has that click's day rolled up into
// link_click_rollups and link_visitor_rollups (if not done yet), and up to limit of its raw
// clicks counted by the rollups are deleted. Stats read the rollups before the link's
// clicks_rolled_up_to and raw clicks after it, so their totals never change while raw rows
// go. done reports that no click older than before is left.
func (s *Store) PruneClicks(ctx context.Context, before time.Time, limit int) (p Pruned, done bool, err error) {
	before = before.UTC().Truncate(24 * time.Hour)
	var oldest []struct {
		LinkID string    `db:"link_id"`
		At     time.Time `db:"at"`
	}
	if err := s.sel(ctx, &oldest, `SELECT link_id, at FROM link_clicks WHERE at < ? ORDER BY at LIMIT 1`, before); err != nil {
		return nil, false, err
	}
	if len(oldest) == 0 {
		return Pruned{TableClicks: 0}, true, nil
	}
	linkID, day := oldest[0].LinkID, oldest[0].At.UTC().Truncate(24*time.Hour)
	upTo := day.Add(24 * time.Hour)
	mark, err := s.clicksRolledUpTo(ctx, linkID)
	switch {
	case err != nil && !domain.IsCode(err, domain.CodeNotFound):
		return nil, false, err
	case err != nil:
		upTo = before // the link's row is gone: its clicks count nowhere
	case mark == nil || !day.Before(*mark):
		if err := s.Tx(ctx, func(tx *Tx) error { return tx.rollUpClicks(ctx, linkID, day, upTo) }); err != nil {
			return nil, false, err
		}
	default:
		upTo = *mark // rolled up before; its raw rows are still going
	}
	n, err := s.pruneByID(ctx, pruneSpec{table: TableClicks, timeCol: "at", cond: " AND link_id = ?", args: []any{linkID},
		marked: true}, upTo, limit)
	return Pruned{TableClicks: n}, false, err
}

// clicksRolledUpTo reads a link's clicks_rolled_up_to (nil: nothing rolled up).
func (q q) clicksRolledUpTo(ctx context.Context, linkID string) (*time.Time, error) {
	var rows []struct {
		At *time.Time `db:"clicks_rolled_up_to"`
	}
	if err := q.sel(ctx, &rows, `SELECT clicks_rolled_up_to FROM links WHERE id = ?`, linkID); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, domain.NotFound("link")
	}
	return utcPtr(rows[0].At), nil
}

// rollUpClicks counts a link's raw clicks in [from, to) (whole UTC days) into the rollups
// and moves its clicks_rolled_up_to to to. Moving the mark first locks the link's row, so
// two pruners never roll up the same day. Clicks are rolled up by the quarter hour (the
// column is still named hour, which it was before): every time zone's hours start on a
// quarter hour (Asia/Kolkata's at :30 UTC, Asia/Kathmandu's at :15), so stats in any zone
// count pruned days exactly.
func (t *Tx) rollUpClicks(ctx context.Context, linkID string, from, to time.Time) error {
	res, err := t.exec(ctx, `UPDATE links SET clicks_rolled_up_to = ?
		WHERE id = ? AND (clicks_rolled_up_to IS NULL OR clicks_rolled_up_to <= ?)`, to.UTC(), linkID, from.UTC())
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // rolled up meanwhile
	}
	hour := t.period("at", "quarter")
	var groups []struct {
		Hour         string `db:"hour"`
		Bot          bool   `db:"bot"`
		Country      string `db:"country"`
		Device       string `db:"device"`
		Browser      string `db:"browser"`
		OS           string `db:"os"`
		ReferrerHost string `db:"referrer_host"`
		Clicks       int64  `db:"clicks"`
	}
	dims := `bot, country, device, browser, os, referrer_host`
	if err := t.sel(ctx, &groups, `SELECT `+hour+` AS hour, `+dims+`, COUNT(*) AS clicks FROM link_clicks
		WHERE link_id = ? AND at >= ? AND at < ? GROUP BY `+hour+`, `+dims, linkID, from.UTC(), to.UTC()); err != nil {
		return err
	}
	const perStatement = 500 // 9 parameters each
	for len(groups) > 0 {
		n := min(len(groups), perStatement)
		args := make([]any, 0, n*9)
		for _, g := range groups[:n] {
			at, err := time.Parse(periodLayouts["quarter"], g.Hour)
			if err != nil {
				return domain.Internal(err)
			}
			args = append(args, linkID, at, g.Bot, g.Country, g.Device, g.Browser, g.OS, g.ReferrerHost, g.Clicks)
		}
		if _, err := t.exec(ctx, `INSERT INTO link_click_rollups (link_id, hour, `+dims+`, clicks) VALUES `+
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?), ", n), ", "), args...); err != nil {
			return err
		}
		groups = groups[n:]
	}
	// Distinct visitors per hour and for the day (the visitor hash is per day).
	for _, p := range []string{"hour", "day"} {
		var rows []struct {
			Start    string `db:"start"`
			Humans   int64  `db:"humans"`
			Everyone int64  `db:"everyone"`
		}
		expr := t.period("at", p)
		if err := t.sel(ctx, &rows, `SELECT `+expr+` AS start, COUNT(DISTINCT CASE WHEN bot = ? THEN visitor END) AS humans,
			COUNT(DISTINCT visitor) AS everyone FROM link_clicks WHERE link_id = ? AND at >= ? AND at < ? GROUP BY `+expr,
			false, linkID, from.UTC(), to.UTC()); err != nil {
			return err
		}
		for _, r := range rows {
			start, err := time.Parse(periodLayouts[p], r.Start)
			if err != nil {
				return domain.Internal(err)
			}
			if _, err := t.exec(ctx, `INSERT INTO link_visitor_rollups (link_id, period, start, humans, everyone) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (link_id, period, start) DO UPDATE SET humans = link_visitor_rollups.humans + excluded.humans,
				everyone = link_visitor_rollups.everyone + excluded.everyone`, linkID, p, start, r.Humans, r.Everyone); err != nil {
				return err
			}
		}
	}
	return nil
}

// periodLayouts are the Go layouts of period's values ("2006-01-02" for a day).
var periodLayouts = map[string]string{"day": "2006-01-02", "hour": "2006-01-02 15", "quarter": "2006-01-02 15:04"}

// period is the SQL that turns a time column into the UTC start of its day, hour or quarter
// hour, as "2006-01-02", "2006-01-02 15" or "2006-01-02 15:04".
func (q q) period(col, p string) string {
	if q.s.dialect == Postgres {
		if p == "quarter" {
			return `to_char(date_trunc('hour', ` + col + ` AT TIME ZONE 'UTC') + floor(date_part('minute', ` + col +
				` AT TIME ZONE 'UTC') / 15) * interval '15 minutes', 'YYYY-MM-DD HH24:MI')`
		}
		return `to_char(` + col + ` AT TIME ZONE 'UTC', '` + map[string]string{"day": "YYYY-MM-DD", "hour": "YYYY-MM-DD HH24"}[p] + `')`
	}
	if p == "quarter" { // SQLite stores times as text in UTC: "2006-01-02 15:04:05.999999999+00:00"
		return "substr(" + col + ", 1, 14) || printf('%02d', CAST(substr(" + col + ", 15, 2) AS INTEGER) / 15 * 15)"
	}
	return "substr(" + col + ", 1, " + map[string]string{"day": "10", "hour": "13"}[p] + ")"
}

// DueBy brings a queued job forward to latest when it is due later: periodic work whose
// interval was shortened runs on the new schedule, not one interval of the old one later.
func (t *Tx) DueBy(ctx context.Context, id string, latest time.Time) error {
	_, err := t.exec(ctx, `UPDATE jobs SET run_at = ?, updated_at = ? WHERE id = ? AND status = ? AND run_at > ?`,
		latest.UTC(), latest.UTC(), id, JobQueued, latest.UTC())
	return err
}

// EnsureJob inserts a job with a fixed id unless it exists; one that failed (ran out of
// attempts) is queued again, due at j.RunAt. Periodic work uses it to keep exactly one row.
func (t *Tx) EnsureJob(ctx context.Context, j NewJob) error {
	_, err := t.exec(ctx, `INSERT INTO jobs (id, kind, payload, status, run_at, attempts, max_attempts, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status, run_at = excluded.run_at, attempts = 0, last_error = '',
		updated_at = excluded.updated_at WHERE jobs.status = ?`,
		j.ID, j.Kind, j.Payload, JobQueued, j.RunAt.UTC(), j.MaxAttempts, j.CreatedAt.UTC(), j.CreatedAt.UTC(), JobFailed)
	return err
}
