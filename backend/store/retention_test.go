package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

const day = 24 * time.Hour

func mustTx(t *testing.T, s *store.Store, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := s.Tx(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// countRows counts a table's rows through a connection of the test's own.
func countRows(t *testing.T, s *store.Store, table string) int {
	t.Helper()
	db, err := sql.Open(driverOf(s.Dialect()), dsnOf(s.URL()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Events older than the cutoff go in batches of the limit, oldest first; newer ones stay. A
// cursor at or below the last pruned id is refused with cursor_expired; a newer one is fine.
func TestPruneEventsInBatches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, ws := seedUser(t, s, "ev@example.com")
		old := make([]domain.Event, 2500)
		for i := range old {
			old[i] = domain.Event{ID: domain.NewID(domain.PrefixEvent), WorkspaceID: ws.ID, Type: "test.old", Data: []byte(`{}`),
				Timestamp: t0.Add(-40 * day).Add(time.Duration(i) * time.Millisecond)}
		}
		for i := 0; i < len(old); i += 500 {
			mustTx(t, s, func(tx *store.Tx) error { return tx.InsertEvents(ctx, old[i:i+500]) })
		}
		recent := domain.Event{ID: domain.NewID(domain.PrefixEvent), WorkspaceID: ws.ID, Type: "test.new", Data: []byte(`{}`), Timestamp: t0}
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertEvent(ctx, recent) })

		if err := s.CheckCursor(ctx, store.TableEvents, old[10].ID); err != nil {
			t.Fatalf("cursor before any pruning: %v", err)
		}
		var batches []int64
		for {
			p, err := s.PruneEvents(ctx, t0.Add(-30*day), 1000)
			if err != nil {
				t.Fatal(err)
			}
			batches = append(batches, p[store.TableEvents])
			if p[store.TableEvents] < 1000 {
				break
			}
		}
		if !reflect.DeepEqual(batches, []int64{1000, 1000, 500}) {
			t.Fatalf("batches %v, want 1000, 1000, 500", batches)
		}
		if n := countRows(t, s, "events"); n != 1 {
			t.Fatalf("%d events left, want the recent one", n)
		}
		if _, err := s.Event(ctx, ws.ID, recent.ID); err != nil {
			t.Fatalf("the recent event: %v", err)
		}
		err := s.CheckCursor(ctx, store.TableEvents, old[10].ID)
		if e := domain.ErrorOf(err); e == nil || e.Reason != store.ReasonCursorExpired || e.Param != "after" {
			t.Fatalf("cursor into pruned events: %v", err)
		}
		if err := s.CheckCursor(ctx, store.TableEvents, old[len(old)-1].ID); err == nil {
			t.Fatal("a cursor at the last pruned event must be expired")
		}
		if err := s.CheckCursor(ctx, store.TableEvents, recent.ID); err != nil {
			t.Fatalf("cursor at a kept event: %v", err)
		}
		if err := s.CheckCursor(ctx, store.TableDeliveries, old[10].ID); err != nil {
			t.Fatalf("another list's marks are its own: %v", err)
		}
	})
}

// Finished deliveries older than the cutoff go with their attempts; pending ones and newer
// ones stay.
func TestPruneDeliveries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, ws := seedUser(t, s, "wh@example.com")
		hook := domain.Webhook{ID: domain.NewID(domain.PrefixWebhook), WorkspaceID: ws.ID, URL: "https://example.com/h",
			EventTypes: []string{"*"}, Enabled: true, CreatedAt: t0, UpdatedAt: t0}
		mk := func(at time.Time) store.NewDelivery {
			return store.NewDelivery{ID: domain.NewID(domain.PrefixDelivery), WebhookID: hook.ID, WorkspaceID: ws.ID,
				EventID: domain.NewID(domain.PrefixEvent), EventType: "test", MaxAttempts: 8, DueAt: at, CreatedAt: at}
		}
		oldDone, oldFailed, oldPending, recentDone := mk(t0.Add(-31*day)), mk(t0.Add(-31*day)), mk(t0.Add(-31*day)), mk(t0)
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.CreateWebhook(ctx, hook, "whsec_x"); err != nil {
				return err
			}
			if err := tx.InsertDeliveries(ctx, []store.NewDelivery{oldDone, oldFailed, oldPending, recentDone}); err != nil {
				return err
			}
			var rs []store.DeliveryResult
			for _, d := range []struct {
				id, status string
			}{{oldDone.ID, domain.DeliverySucceeded}, {oldFailed.ID, domain.DeliveryFailed}, {recentDone.ID, domain.DeliverySucceeded}} {
				rs = append(rs, store.DeliveryResult{DeliveryID: d.id, N: 1, Status: d.status,
					Attempt: domain.DeliveryAttempt{AttemptedAt: t0, StatusCode: 200}})
			}
			return tx.RecordDeliveryResults(ctx, rs)
		})
		p, err := s.PruneDeliveries(ctx, t0.Add(-30*day), 1000)
		if err != nil {
			t.Fatal(err)
		}
		if p[store.TableDeliveries] != 2 || p[store.TableAttempts] != 2 {
			t.Fatalf("pruned %v, want 2 deliveries with 2 attempts", p)
		}
		left, err := s.Deliveries(ctx, ws.ID, hook.ID, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range left {
			ids = append(ids, d.ID)
		}
		if len(ids) != 2 || ids[0] != recentDone.ID || ids[1] != oldPending.ID {
			t.Fatalf("left %v, want the recent and the pending delivery", ids)
		}
		if n := countRows(t, s, "webhook_delivery_attempts"); n != 1 {
			t.Fatalf("%d attempts left, want the recent delivery's", n)
		}
		if err := s.CheckCursor(ctx, store.TableDeliveries, oldFailed.ID); !domain.IsCode(err, domain.CodeInvalid) {
			t.Fatalf("cursor into pruned deliveries: %v", err)
		}
	})
}

// Inbound calls and finished runs, failed jobs and idempotency records older than their
// cutoffs go; newer ones, queued runs and jobs still queued stay.
func TestPruneAutomationJobsIdempotency(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, ws := seedUser(t, s, "auto@example.com")
		pub := store.StoredPublisher{Publisher: domain.Publisher{ID: domain.NewID(domain.PrefixPublisher), WorkspaceID: ws.ID,
			Name: "p", Verification: "none", Enabled: true, CreatedAt: t0, UpdatedAt: t0}, TokenHash: "hash"}
		call := func(at time.Time) domain.Published {
			return domain.Published{ID: domain.NewID(domain.PrefixEvent), WorkspaceID: ws.ID, EndpointID: pub.ID,
				Payload: json.RawMessage(`{}`), ReceivedAt: at}
		}
		run := func(at time.Time, status string) domain.Run {
			return domain.Run{ID: domain.NewID("run_"), WorkspaceID: ws.ID, EndpointID: pub.ID, CallID: "c", ActionType: "x",
				Status: status, CreatedAt: at, UpdatedAt: at}
		}
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.InsertPublisher(ctx, pub); err != nil {
				return err
			}
			for _, c := range []domain.Published{call(t0.Add(-31 * day)), call(t0.Add(-31 * day)), call(t0)} {
				if _, _, err := tx.InsertCall(ctx, c); err != nil {
					return err
				}
			}
			for _, r := range []domain.Run{run(t0.Add(-31*day), domain.RunSucceeded), run(t0.Add(-31*day), domain.RunQueued),
				run(t0, domain.RunFailed)} {
				if err := tx.InsertRun(ctx, r); err != nil {
					return err
				}
			}
			return nil
		})
		p, err := s.PruneAutomation(ctx, t0.Add(-30*day), 1000)
		if err != nil || p[store.TableCalls] != 2 || p[store.TableRuns] != 1 {
			t.Fatalf("pruned %v %v, want 2 calls and the finished run", p, err)
		}
		if countRows(t, s, "automation_calls") != 1 || countRows(t, s, "automation_runs") != 2 {
			t.Fatal("the recent call, the queued run and the recent run must stay")
		}

		// Failed jobs: two failed long ago, one failed recently, one queued long ago.
		mustTx(t, s, func(tx *store.Tx) error {
			var js []store.NewJob
			for i := range 3 {
				js = append(js, store.NewJob{ID: fmt.Sprintf("job_f%d", i), Kind: "test.fail", Payload: "{}", RunAt: t0.Add(-40 * day),
					MaxAttempts: 1, CreatedAt: t0.Add(-40 * day)})
			}
			js = append(js, store.NewJob{ID: "job_queued", Kind: "test.queued", Payload: "{}", RunAt: t0.Add(time.Hour),
				MaxAttempts: 1, CreatedAt: t0.Add(-40 * day)})
			return tx.InsertJobs(ctx, js)
		})
		claimed, _, err := s.ClaimJobs(ctx, store.ClaimJobsParams{Kind: "test.fail", Now: t0.Add(-40 * day),
			LeaseUntil: t0.Add(-40*day + time.Minute), Token: "tok", Limit: 10})
		if err != nil || len(claimed) != 3 {
			t.Fatalf("claim: %v %v", claimed, err)
		}
		for i, c := range claimed {
			failedAt := t0.Add(-40 * day)
			if i == 2 {
				failedAt = t0
			}
			mustTx(t, s, func(tx *store.Tx) error {
				_, err := tx.FinishJobs(ctx, []store.JobOutcome{{JobLease: store.JobLease{ID: c.ID, Token: c.Token},
					Status: store.JobFailed, RunAt: failedAt, Error: "boom"}}, failedAt)
				return err
			})
		}
		p, err = s.PruneFailedJobs(ctx, t0.Add(-30*day), 1000)
		if err != nil || p[store.TableFailedJobs] != 2 {
			t.Fatalf("pruned %v %v, want the two old failed jobs", p, err)
		}
		if countRows(t, s, "jobs") != 2 {
			t.Fatal("the recently failed job and the queued job must stay")
		}

		// Idempotency records.
		for i, at := range []time.Time{t0.Add(-25 * time.Hour), t0.Add(-25 * time.Hour), t0.Add(-time.Hour)} {
			if _, _, err := s.ClaimIdempotencyKey(ctx, store.IdempotentResponse{WorkspaceID: ws.ID, Key: fmt.Sprint("k", i),
				RequestHash: "h", CreatedAt: at}); err != nil {
				t.Fatal(err)
			}
		}
		p, err = s.PruneIdempotency(ctx, t0.Add(-24*time.Hour), 1)
		if err != nil || p[store.TableIdempotency] != 1 {
			t.Fatalf("first batch %v %v, want one record (the limit)", p, err)
		}
		p, err = s.PruneIdempotency(ctx, t0.Add(-24*time.Hour), 1)
		if err != nil || p[store.TableIdempotency] != 1 || countRows(t, s, "idempotency_keys") != 1 {
			t.Fatalf("second batch %v %v, want the other old record, the recent one kept", p, err)
		}
	})
}

// Pruning raw clicks rolls them up first: every count stats read (totals, uniques, bots,
// the day and hour series, each dimension) is the same before, during (rolled up, raw rows
// partly deleted) and after pruning, and deleting the link deletes its rollups. The clicks
// of series in zones whose hours start half or a quarter past a UTC hour (Asia/Kolkata,
// Asia/Kathmandu) stay exact too: rollups are kept by the quarter hour.
func TestClickRollupsKeepCounts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, ws := seedUser(t, s, "clk@example.com")
		link := store.StoredLink{Link: domain.Link{ID: domain.NewID(domain.PrefixLink), WorkspaceID: ws.ID, Slug: "rollup",
			URL: "https://example.com", Tags: []string{}, RedirectStatus: 302, Metadata: json.RawMessage(`{}`),
			CreatedAt: t0.Add(-200 * day), UpdatedAt: t0.Add(-200 * day)}}
		mustTx(t, s, func(tx *store.Tx) error { _, err := tx.InsertLink(ctx, link); return err })
		countries := []string{"US", "GB", "", "FR"}
		devices := []string{"desktop", "mobile", "tablet"}
		browsers := []string{"Chrome", "Firefox", "Safari", ""}
		referrers := []string{"", "news.example", "t.co"}
		var clicks []domain.Click
		start := t0.Truncate(day).Add(-100 * day) // three days, 100 to 98 days ago, and today
		for i := range 60 {
			at := start.Add(time.Duration(i%3)*day + time.Duration(i*37%24)*time.Hour + time.Duration(i)*time.Minute)
			if i >= 50 {
				at = t0.Add(-time.Duration(i) * time.Minute)
			}
			c := domain.Click{ID: domain.NewID(domain.PrefixClick), WorkspaceID: ws.ID, LinkID: link.ID, At: at,
				Country: countries[i%4], Device: devices[i%3], Browser: browsers[i%4], OS: "os" + fmt.Sprint(i%2),
				ReferrerHost: referrers[i%3], Visitor: fmt.Sprint("v", i%7), Bot: i%9 == 0}
			if c.Bot {
				c.Device = domain.DeviceBot
			}
			clicks = append(clicks, c)
		}
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertClicks(ctx, clicks) })

		type snapshot map[string]any
		dims := []string{"total", "country", "device", "browser", "os", "referrer_host"}
		kolkata, _ := time.LoadLocation("Asia/Kolkata")
		kathmandu, _ := time.LoadLocation("Asia/Kathmandu")
		// bounds are n instants from from, each next after the last: days or hours of a zone.
		bounds := func(from time.Time, n int, next func(time.Time) time.Time) []time.Time {
			out := []time.Time{from}
			for len(out) < n {
				out = append(out, next(out[len(out)-1]))
			}
			return out
		}
		nextDay := func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }
		nextHour := func(t time.Time) time.Time { return t.Add(time.Hour) }
		series := []struct {
			name   string
			bounds []time.Time
			exact  bool // uniques too (UTC days and hours)
		}{
			{"UTC days", bounds(start.Add(-day), 6, nextDay), true},
			{"UTC hours of an old day", bounds(start.Add(day), 25, nextHour), true},
			{"UTC hours across the cutoff", bounds(start.Add(2*day).Add(-5*time.Hour), 30, nextHour), true},
			{"Kolkata days", bounds(time.Date(start.Year(), start.Month(), start.Day()-1, 0, 0, 0, 0, kolkata), 6, nextDay), false},
			{"Kolkata hours", bounds(start.Add(day).In(kolkata).Add(30*time.Minute), 49, nextHour), false},
			{"Kathmandu hours", bounds(start.Add(day).In(kathmandu).Add(15*time.Minute), 49, nextHour), false},
		}
		read := func() snapshot {
			snap := snapshot{}
			for _, r := range []struct {
				name     string
				from, to time.Time
				dims     []string
			}{
				{"year", t0.Truncate(day).Add(-365 * day), t0.Truncate(day).Add(day), dims},
				{"old days", start, start.Add(3 * day), dims},
				{"one old day", start.Add(day), start.Add(2 * day), []string{"total"}},
				{"hours across the cutoff", start.Add(2 * day).Add(-5 * time.Hour), start.Add(3 * day), []string{"total", "country"}},
			} {
				for _, bots := range []bool{false, true} {
					for _, by := range r.dims {
						rows, err := s.ClickCounts(ctx, link.ID, r.from, r.to, bots, by)
						if err != nil {
							t.Fatal(err)
						}
						if by != "total" {
							for i := range rows {
								rows[i].Uniques = 0 // not kept by dimension
							}
						}
						snap[fmt.Sprint(r.name, bots, by)] = rows
					}
				}
				n, err := s.CountBotClicks(ctx, link.ID, r.from, r.to)
				if err != nil {
					t.Fatal(err)
				}
				snap[r.name+" bots"] = n
			}
			for _, sr := range series {
				for _, bots := range []bool{false, true} {
					rows, err := s.ClickSeries(ctx, link.ID, sr.bounds, bots)
					if err != nil {
						t.Fatal(err)
					}
					if !sr.exact {
						for i := range rows {
							rows[i].Uniques = 0 // a visitor may count twice once pruned
						}
					}
					snap[fmt.Sprint(sr.name, bots)] = rows
				}
			}
			return snap
		}
		before := read()
		if total := before["yeartruetotal"].([]store.ClickCount); total[0].Clicks != 60 {
			t.Fatalf("before pruning: %+v", total)
		}
		for _, sr := range series {
			var sum int64
			for _, c := range before[sr.name+"true"].([]store.SeriesCount) {
				sum += c.Clicks
			}
			if sum == 0 {
				t.Fatalf("%s: no clicks: the series must cover old clicks", sr.name)
			}
		}
		cutoff := start.Add(2 * day) // two of the three old days go
		// One step: the oldest link-day is rolled up and its raw clicks partly deleted.
		p, done, err := s.PruneClicks(ctx, cutoff, 3)
		if err != nil || done || p[store.TableClicks] != 3 {
			t.Fatalf("first step: %v %v %v", p, done, err)
		}
		if mid := read(); !reflect.DeepEqual(mid, before) {
			diff(t, "partly pruned", before, mid)
		}
		var steps int
		for {
			_, done, err := s.PruneClicks(ctx, cutoff, 3)
			if err != nil {
				t.Fatal(err)
			}
			if done {
				break
			}
			steps++
		}
		if steps < 4 {
			t.Fatalf("pruned in %d steps: the batch limit was not kept", steps)
		}
		left := countRows(t, s, "link_clicks")
		kept := 0
		for _, c := range clicks {
			if !c.At.Before(cutoff) {
				kept++
			}
		}
		if left != kept || kept == 60 {
			t.Fatalf("%d raw clicks left, want the %d on or after the cutoff", left, kept)
		}
		if after := read(); !reflect.DeepEqual(after, before) {
			diff(t, "pruned", before, after)
		}
		if err := s.CheckCursor(ctx, store.TableClicks, clicks[0].ID); err == nil {
			t.Fatal("a cursor into pruned clicks must be expired")
		}
		mustTx(t, s, func(tx *store.Tx) error { return tx.DeleteLink(ctx, link.ID, t0) })
		if countRows(t, s, "link_click_rollups")+countRows(t, s, "link_visitor_rollups") != 0 {
			t.Fatal("a deleted link's rollups must go with it")
		}
	})
}

func diff[T comparable](t *testing.T, when string, want, got map[T]any) {
	t.Helper()
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("%s: %v = %+v, want %+v", when, k, got[k], w)
		}
	}
	t.FailNow()
}
