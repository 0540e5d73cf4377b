package store_test

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

func seedWebhook(t *testing.T, s *store.Store, workspaceID, secret string) domain.Webhook {
	t.Helper()
	ctx := context.Background()
	w := domain.Webhook{ID: domain.NewID(domain.PrefixWebhook), WorkspaceID: workspaceID, URL: "https://example.com/",
		EventTypes: []string{"*"}, Enabled: true, CreatedAt: t0, UpdatedAt: t0}
	if err := s.Tx(ctx, func(tx *store.Tx) error { return tx.CreateWebhook(ctx, w, secret) }); err != nil {
		t.Fatal(err)
	}
	return w
}

// Every rotation keeps the secret it replaces, each with its own expiry (the latest first),
// and drops those expired by then; deleting the endpoint deletes them.
func TestWebhookPreviousSecrets(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, ws := seedUser(t, s, "ada@example.com")
		w := seedWebhook(t, s, ws.ID, "enc:v1:s1")
		rotate := func(secret string, at time.Time) {
			t.Helper()
			if err := s.Tx(ctx, func(tx *store.Tx) error {
				return tx.RotateWebhookSecret(ctx, ws.ID, w.ID, secret, at.Add(24*time.Hour), at)
			}); err != nil {
				t.Fatal(err)
			}
		}
		rotate("enc:v1:s2", t0)
		rotate("enc:v1:s3", t0.Add(time.Hour))
		got, err := s.WebhookSecrets(ctx, ws.ID, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := []store.PreviousSecret{{Secret: "enc:v1:s2", ExpiresAt: t0.Add(25 * time.Hour)}, {Secret: "enc:v1:s1", ExpiresAt: t0.Add(24 * time.Hour)}}
		if got.Current != "enc:v1:s3" || !samePrevious(got.Previous, want) {
			t.Fatalf("after two rotations: %+v", got)
		}
		// The delivery engine sees the same.
		if err := s.InsertDeliveries(ctx, []store.NewDelivery{{ID: "whd_1", WebhookID: w.ID, WorkspaceID: ws.ID, EventID: "evt_1",
			EventType: "x", MaxAttempts: 1, DueAt: t0, CreatedAt: t0}}); err != nil {
			t.Fatal(err)
		}
		ds, err := s.DeliveriesToSend(ctx, []string{"whd_1"})
		if err != nil || ds["whd_1"].Hook.Secrets.Current != "enc:v1:s3" || !samePrevious(ds["whd_1"].Hook.Secrets.Previous, want) {
			t.Fatalf("to send: %+v (%v)", ds["whd_1"].Hook.Secrets, err)
		}

		// A rotation after the first replaced secret expired drops it.
		rotate("enc:v1:s4", t0.Add(24*time.Hour))
		got, _ = s.WebhookSecrets(ctx, ws.ID, w.ID)
		want = []store.PreviousSecret{{Secret: "enc:v1:s3", ExpiresAt: t0.Add(48 * time.Hour)}, want[0]}
		if got.Current != "enc:v1:s4" || !samePrevious(got.Previous, want) {
			t.Fatalf("after a rotation past the first expiry: %+v", got)
		}

		// Another workspace's endpoint cannot be rotated.
		_, other := seedUser(t, s, "bob@example.com")
		err = s.Tx(ctx, func(tx *store.Tx) error {
			return tx.RotateWebhookSecret(ctx, other.ID, w.ID, "enc:v1:x", t0.Add(72*time.Hour), t0.Add(48*time.Hour))
		})
		if !domain.IsCode(err, domain.CodeNotFound) {
			t.Fatalf("rotating another workspace's endpoint: %v", err)
		}
		if got, _ = s.WebhookSecrets(ctx, ws.ID, w.ID); got.Current != "enc:v1:s4" || len(got.Previous) != 2 {
			t.Fatalf("after the refused rotation: %+v", got)
		}

		if err := s.Tx(ctx, func(tx *store.Tx) error { return tx.DeleteWebhook(ctx, ws.ID, w.ID) }); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := sqlDB(t, s).QueryRow(`SELECT COUNT(*) FROM webhook_previous_secrets`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%d previous secrets left after the delete (%v)", n, err)
		}
	})
}

func samePrevious(got, want []store.PreviousSecret) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].Secret != want[i].Secret || !got[i].ExpiresAt.Equal(want[i].ExpiresAt) {
			return false
		}
	}
	return true
}

// Recording the attempt of a delivery deleted meanwhile (with its endpoint) is a quiet no-op
// that ends its job; the others of the batch are recorded.
func TestRecordDeliveryResultsOfDeletedDelivery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, ws := seedUser(t, s, "ada@example.com")
		kept, deleted := seedWebhook(t, s, ws.ID, "s1"), seedWebhook(t, s, ws.ID, "s2")
		err := s.Tx(ctx, func(tx *store.Tx) error {
			var ds []store.NewDelivery
			var js []store.NewJob
			for _, d := range []struct{ id, hook string }{{"whd_kept", kept.ID}, {"whd_gone", deleted.ID}, {"whd_gone2", deleted.ID}} {
				ds = append(ds, store.NewDelivery{ID: d.id, WebhookID: d.hook, WorkspaceID: ws.ID, EventID: "evt_1", EventType: "x",
					MaxAttempts: 8, DueAt: t0, CreatedAt: t0})
				js = append(js, store.NewJob{ID: d.id, Kind: domain.JobWebhookDelivery, Payload: "{}", RunAt: t0, MaxAttempts: 8,
					CreatedAt: t0})
			}
			if err := tx.InsertDeliveries(ctx, ds); err != nil {
				return err
			}
			return tx.InsertJobs(ctx, js)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Tx(ctx, func(tx *store.Tx) error { return tx.DeleteWebhook(ctx, ws.ID, deleted.ID) }); err != nil {
			t.Fatal(err)
		}
		next := t0.Add(5 * time.Second)
		err = s.Tx(ctx, func(tx *store.Tx) error {
			live, err := tx.LiveWebhooks(ctx, []string{kept.ID, deleted.ID})
			if err != nil {
				return err
			}
			if !live[kept.ID] || live[deleted.ID] {
				t.Errorf("live endpoints %v", live)
			}
			return tx.RecordDeliveryResults(ctx, []store.DeliveryResult{
				{DeliveryID: "whd_kept", N: 1, Status: domain.DeliveryPending, NextAttemptAt: &next,
					Attempt: domain.DeliveryAttempt{AttemptedAt: t0, StatusCode: 500}},
				{DeliveryID: "whd_gone", N: 1, Status: domain.DeliveryPending, NextAttemptAt: &next,
					Attempt: domain.DeliveryAttempt{AttemptedAt: t0, StatusCode: 500}},
				{DeliveryID: "whd_gone2", N: 1, Status: domain.DeliveryFailed,
					Attempt: domain.DeliveryAttempt{AttemptedAt: t0, StatusCode: 410}},
			})
		})
		if err != nil {
			t.Fatalf("recording with deleted deliveries: %v", err)
		}
		d, err := s.Delivery(ctx, ws.ID, kept.ID, "whd_kept")
		if err != nil || d.Status != domain.DeliveryPending || len(d.Attempts) != 1 || !d.NextAttemptAt.Equal(next) {
			t.Fatalf("the other delivery: %+v (%v)", d, err)
		}
		if _, err := s.Job(ctx, "whd_kept"); err != nil {
			t.Fatalf("the other delivery's job: %v", err)
		}
		for _, id := range []string{"whd_gone", "whd_gone2"} {
			if _, err := s.Job(ctx, id); !domain.IsCode(err, domain.CodeNotFound) {
				t.Fatalf("the job of deleted delivery %s: %v", id, err)
			}
		}
	})
}

// Migration 15 moves each endpoint's one previous secret (sealed as it was) to the new
// table, and back on the way down.
func TestPreviousSecretMigration(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			u := storetest.URL(t, d)
			dsn := dsnOf(u)
			dialect := goose.DialectPostgres
			if d == store.SQLite {
				dsn, dialect = "file:"+dsn+"?_time_format=sqlite&_pragma=foreign_keys(1)", goose.DialectSQLite3
			}
			db, err := sql.Open(driverOf(d), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			p, err := goose.NewProvider(dialect, db, os.DirFS("migrations/"+string(d)))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.UpTo(ctx, 14); err != nil {
				t.Fatal(err)
			}
			exp := t0.Add(24 * time.Hour)
			for _, q := range []struct {
				query string
				args  []any
			}{
				{`INSERT INTO users (id, email, name, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)`,
					[]any{"usr_1", "ada@example.com", "Ada", "h", t0}},
				{`INSERT INTO workspaces (id, name, owner_id, created_at) VALUES ($1, $2, $3, $4)`, []any{"ws_1", "Ada's", "usr_1", t0}},
				{`INSERT INTO webhooks (id, workspace_id, kind, url, description, event_types, instance_id, enabled, disabled_reason,
					secret, previous_secret, previous_secret_expires_at, failing_since, created_at, updated_at)
					VALUES ($1, 'ws_1', 'webhook', 'https://example.com/', '', '["*"]', NULL, TRUE, '', $2, $3, $4, NULL, $5, $5)`,
					[]any{"wh_rotated", "enc:v1:new", "enc:v1:old", exp, t0}},
				{`INSERT INTO webhooks (id, workspace_id, kind, url, description, event_types, instance_id, enabled, disabled_reason,
					secret, previous_secret, previous_secret_expires_at, failing_since, created_at, updated_at)
					VALUES ($1, 'ws_1', 'webhook', 'https://example.com/', '', '["*"]', NULL, TRUE, '', $2, '', NULL, NULL, $3, $3)`,
					[]any{"wh_never", "enc:v1:only", t0}},
			} {
				if _, err := db.ExecContext(ctx, q.query, q.args...); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := p.UpTo(ctx, 15); err != nil {
				t.Fatal(err)
			}
			// Replicas of the previous version still read the old columns during a rolling
			// upgrade: they stay.
			var old string
			if err := db.QueryRowContext(ctx, `SELECT previous_secret FROM webhooks WHERE id = 'wh_rotated'`).Scan(&old); err != nil {
				t.Fatalf("the previous version's column after the migration: %v", err)
			}
			s, err := store.Open(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			got, err := s.WebhookSecrets(ctx, "ws_1", "wh_rotated")
			if err != nil || got.Current != "enc:v1:new" || !samePrevious(got.Previous, []store.PreviousSecret{{Secret: "enc:v1:old", ExpiresAt: exp}}) {
				t.Fatalf("rotated endpoint after the migration: %+v (%v)", got, err)
			}
			if got, err := s.WebhookSecrets(ctx, "ws_1", "wh_never"); err != nil || got.Current != "enc:v1:only" || len(got.Previous) != 0 {
				t.Fatalf("never rotated endpoint after the migration: %+v (%v)", got, err)
			}

			// Down keeps the secret replaced last.
			if err := s.Tx(ctx, func(tx *store.Tx) error {
				return tx.RotateWebhookSecret(ctx, "ws_1", "wh_rotated", "enc:v1:newer", t0.Add(25*time.Hour), t0.Add(time.Hour))
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := p.DownTo(ctx, 14); err != nil {
				t.Fatal(err)
			}
			var prev string
			var until time.Time
			if err := db.QueryRowContext(ctx, `SELECT previous_secret, previous_secret_expires_at FROM webhooks WHERE id = 'wh_rotated'`).
				Scan(&prev, &until); err != nil || prev != "enc:v1:new" || !until.Equal(t0.Add(25*time.Hour)) {
				t.Fatalf("after down: %q %v (%v)", prev, until, err)
			}
		})
	}
}

// sqlDB opens a plain connection to s's database.
func sqlDB(t *testing.T, s *store.Store) *sql.DB {
	t.Helper()
	db, err := sql.Open(driverOf(s.Dialect()), dsnOf(s.URL()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// On PostgreSQL an endpoint deleted while its attempts are being recorded waits for the
// recording (which holds the endpoint first, LiveWebhooks) instead of deadlocking with it:
// the delete holds the endpoint and then cascades to the deliveries, while the recording
// holds the deliveries and then marks the endpoint failing. (SQLite runs one write
// transaction at a time.)
func TestRecordingAndDeletingDoNotDeadlock(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, store.Postgres)
	_, ws := seedUser(t, s, "ada@example.com")
	w := seedWebhook(t, s, ws.ID, "s1")
	if err := s.InsertDeliveries(ctx, []store.NewDelivery{{ID: "whd_1", WebhookID: w.ID, WorkspaceID: ws.ID, EventID: "evt_1",
		EventType: "x", MaxAttempts: 8, DueAt: t0, CreatedAt: t0}}); err != nil {
		t.Fatal(err)
	}
	db := sqlDB(t, s)
	deleted := make(chan error, 1)
	next := t0.Add(5 * time.Second)
	err := s.Tx(ctx, func(tx *store.Tx) error {
		live, err := tx.LiveWebhooks(ctx, []string{w.ID})
		if err != nil || !live[w.ID] {
			t.Fatalf("live: %v %v", live, err)
		}
		if err := tx.RecordDeliveryResults(ctx, []store.DeliveryResult{{DeliveryID: "whd_1", N: 1, Status: domain.DeliveryPending,
			NextAttemptAt: &next, Attempt: domain.DeliveryAttempt{AttemptedAt: t0, StatusCode: 500}}}); err != nil {
			return err
		}
		go func() {
			deleted <- s.Tx(ctx, func(tx *store.Tx) error { return tx.DeleteWebhook(ctx, ws.ID, w.ID) })
		}()
		// Once the delete waits on a lock, the recording goes on to the endpoint.
		deadline := time.Now().Add(10 * time.Second)
		for {
			var waiting int
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
				return err
			}
			if waiting > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the delete never waited")
			}
			time.Sleep(5 * time.Millisecond)
		}
		_, err = tx.MarkWebhookFailing(ctx, w.ID, t0)
		return err
	})
	if err != nil {
		t.Fatalf("recording: %v", err)
	}
	if err := <-deleted; err != nil {
		t.Fatalf("deleting: %v", err)
	}
	if _, err := s.Webhook(ctx, ws.ID, w.ID); !domain.IsCode(err, domain.CodeNotFound) {
		t.Fatalf("after the delete: %v", err)
	}
}
