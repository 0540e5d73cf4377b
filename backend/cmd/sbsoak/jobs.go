package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	_ "github.com/lib/pq" // the soak's own database, read for the stuck-jobs section
)

// stuckJobs reads the soak's own database when the queues did not drain: the jobs still
// running whose lease has expired (nobody renews them, nobody takes them over) and what is
// queued behind them, by kind and ordering key.
func stuckJobs(dbURL string) []string {
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return []string{err.Error()}
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []string
	rows, err := db.QueryContext(ctx, `SELECT id, kind, attempts, locked_until, ordering_key, last_error FROM jobs
		WHERE status = 'running' AND locked_until < now() ORDER BY locked_until, id LIMIT 20`)
	if err != nil {
		return []string{err.Error()}
	}
	for rows.Next() {
		var id, kind, key, lastErr string
		var attempts int
		var until time.Time
		if err := rows.Scan(&id, &kind, &attempts, &until, &key, &lastErr); err != nil {
			break
		}
		out = append(out, fmt.Sprintf("running, lease expired %s: %s %s attempts %d ordering %q last error %q",
			until.Local().Format("15:04:05.000"), kind, id, attempts, key, lastErr))
	}
	rows.Close()
	rows, err = db.QueryContext(ctx, `SELECT kind, ordering_key, count(*), min(created_at) FROM jobs
		WHERE status = 'queued' GROUP BY kind, ordering_key ORDER BY count(*) DESC LIMIT 10`)
	if err != nil {
		return append(out, err.Error())
	}
	defer rows.Close()
	for rows.Next() {
		var kind, key string
		var n int
		var oldest time.Time
		if err := rows.Scan(&kind, &key, &n, &oldest); err != nil {
			break
		}
		out = append(out, fmt.Sprintf("queued: %d %s ordering %q, the oldest since %s", n, kind, key, oldest.Local().Format("15:04:05.000")))
	}
	return out
}
