package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// openSQLite returns a migrated SQLite store and its URL.
func openSQLite(t *testing.T) (*store.Store, string) {
	t.Helper()
	u := storetest.URL(t, store.SQLite)
	s, err := store.Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s, u
}

// addUser writes a user and its workspace in one transaction: a consistent copy has as many
// of one as of the other.
func addUser(ctx context.Context, s *store.Store, n int) error {
	u := domain.User{ID: domain.NewID(domain.PrefixUser), Email: fmt.Sprintf("u%d@example.com", n), Name: "U", PasswordHash: "h", CreatedAt: t0}
	w := domain.Workspace{ID: domain.NewID(domain.PrefixWorkspace), Name: "W", OwnerID: u.ID, CreatedAt: t0}
	return s.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateUser(ctx, u); err != nil {
			return err
		}
		return tx.CreateWorkspace(ctx, w)
	})
}

// counts opens a backup read-only and counts its users and workspaces.
func counts(t *testing.T, path string) (users, workspaces int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM workspaces)`).Scan(&users, &workspaces); err != nil {
		t.Fatal(err)
	}
	return users, workspaces
}

// Backups taken while a writer commits: each is a whole database (integrity check, the
// migrations, opens as a store), and a snapshot of one moment: users and their workspaces,
// written together, are counted alike; the count lies between the commits finished before
// the backup began and those finished after it ended, and never goes back.
func TestBackupUnderConcurrentWrites(t *testing.T) {
	s, u := openSQLite(t)
	ctx := t.Context()
	latest, err := store.LatestMigration(store.SQLite)
	if err != nil || latest < 1 {
		t.Fatal(latest, err)
	}

	var committed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := addUser(ctx, s, n); err != nil {
				writeErr = err
				return
			}
			committed.Add(1)
		}
	}()
	defer func() {
		close(stop)
		wg.Wait()
		if writeErr != nil {
			t.Errorf("writer: %v", writeErr)
		}
	}()
	for committed.Load() < 20 {
		time.Sleep(time.Millisecond)
	}

	dir := t.TempDir()
	last := 0
	for i := range 5 {
		dest := filepath.Join(dir, fmt.Sprintf("b%d.db", i))
		before := int(committed.Load())
		res, err := store.Backup(ctx, u, dest, false)
		after := int(committed.Load())
		if err != nil {
			t.Fatalf("backup %d: %v", i, err)
		}
		if info, err := os.Stat(dest); err != nil || res.Bytes != info.Size() || res.Bytes == 0 {
			t.Fatalf("backup %d: result %+v, file %v %v", i, res, info, err)
		}
		version, err := store.CheckBackup(ctx, dest)
		if err != nil || version != latest {
			t.Fatalf("backup %d: version %d (want %d), %v", i, version, latest, err)
		}
		users, workspaces := counts(t, dest)
		// One writer: at most one commit has landed but not been counted yet.
		if users != workspaces || users < before || users > after+1 || users < last {
			t.Fatalf("backup %d: %d users, %d workspaces; %d commits before, %d after, %d in the previous backup",
				i, users, workspaces, before, after, last)
		}
		t.Logf("backup %d: %d users (%d commits before it, %d after), %d bytes in %v", i, users, before, after, res.Bytes, res.Took)
		last = users
		b, err := store.Open(ctx, "sqlite://"+dest)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.UserByEmail(ctx, "u0@example.com"); err != nil {
			t.Fatalf("backup %d: the first user: %v", i, err)
		}
		b.Close()
	}
	// Nothing but the backups is left behind (no temporary files).
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "b") || strings.Contains(e.Name(), "tmp") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestBackupRefusals(t *testing.T) {
	s, u := openSQLite(t)
	ctx := t.Context()
	if err := addUser(ctx, s, 1); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dest := filepath.Join(dir, "b.db")
	if _, err := store.Backup(ctx, u, dest, false); err != nil {
		t.Fatal(err)
	}
	// An existing file needs force.
	if _, err := store.Backup(ctx, u, dest, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("existing file: %v", err)
	}
	if err := addUser(ctx, s, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Backup(ctx, u, dest, true); err != nil {
		t.Fatal(err)
	}
	if users, _ := counts(t, dest); users != 2 {
		t.Fatalf("forced backup has %d users", users)
	}
	// The database and its own files are never a target, even with force.
	db, _ := store.SQLitePath(u)
	for _, target := range []string{db, db + "-wal", db + ".lock"} {
		if _, err := store.Backup(ctx, u, target, true); err == nil {
			t.Fatalf("backup onto %s accepted", target)
		}
	}
	if users, _ := counts(t, db); users != 2 {
		t.Fatal("the database changed")
	}
	// A missing database is not created (an empty backup would look fine).
	missing := filepath.Join(dir, "nope", "x.db")
	if _, err := store.Backup(ctx, "sqlite://"+missing, filepath.Join(dir, "m.db"), false); err == nil {
		t.Fatal("missing database backed up")
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a backup of a missing database created its directory")
	}
	// A destination directory that does not exist is named, not created.
	if _, err := store.Backup(ctx, u, filepath.Join(dir, "backups", "b.db"), false); err == nil ||
		!strings.Contains(err.Error(), "the directory "+filepath.Join(dir, "backups")+" does not exist") {
		t.Fatalf("a missing destination directory: %v", err)
	}
	// An SQLite file that is not Switchboard's.
	other := filepath.Join(dir, "other.db")
	o, _ := sql.Open("sqlite", "file:"+other)
	_, _ = o.Exec(`CREATE TABLE t (x)`)
	o.Close()
	if _, err := store.Backup(ctx, other, filepath.Join(dir, "o.db"), false); err == nil || !strings.Contains(err.Error(), "not a Switchboard database") {
		t.Fatalf("foreign database: %v", err)
	}
	// PostgreSQL is pg_dump's job.
	for _, pg := range []string{"postgres://u:p@h/db", "postgresql://h/db"} {
		if _, err := store.Backup(ctx, pg, filepath.Join(dir, "pg.db"), false); !errors.Is(err, store.ErrPostgres) {
			t.Fatalf("%s: %v", pg, err)
		}
		if _, err := store.Restore(ctx, pg, dest); !errors.Is(err, store.ErrPostgres) {
			t.Fatalf("%s: %v", pg, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Fatalf("left behind: %v", entries)
	}
}

// A restore replaces the database whole (the rows written after the backup are gone, none of
// the old WAL survives) and refuses while a server holds the lock or any connection has the
// database open.
func TestBackupRestore(t *testing.T) {
	ctx := t.Context()
	s, u := openSQLite(t)
	for n := range 10 {
		if err := addUser(ctx, s, n); err != nil {
			t.Fatal(err)
		}
	}
	backup := filepath.Join(t.TempDir(), "b.db")
	if _, err := store.Backup(ctx, u, backup, false); err != nil {
		t.Fatal(err)
	}
	if err := addUser(ctx, s, 10); err != nil { // after the backup: lost by the restore
		t.Fatal(err)
	}

	// The store is open: refused, and nothing changed.
	_, err := store.Restore(ctx, u, backup)
	if !errors.Is(err, store.ErrInUse) || !strings.Contains(err.Error(), "stop it") {
		t.Fatalf("restore under an open store: %v", err)
	}
	if _, err := s.UserByEmail(ctx, "u10@example.com"); err != nil {
		t.Fatal("the database changed:", err)
	}
	s.Close()

	// A server's lock: refused, with the holder named.
	unlock, err := store.LockForServe(u)
	if err != nil {
		t.Fatal(err)
	}
	_, err = store.Restore(ctx, u, backup)
	if !errors.Is(err, store.ErrInUse) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("restore under the lock: %v", err)
	}
	// …and the lock keeps a second server out.
	if _, err := store.LockForServe(u); !errors.Is(err, store.ErrInUse) {
		t.Fatalf("second lock: %v", err)
	}
	unlock()
	unlock() // idempotent

	res, err := store.Restore(ctx, u, backup)
	if err != nil {
		t.Fatal(err)
	}
	latest, _ := store.LatestMigration(store.SQLite)
	if res.Schema != latest || res.Latest != latest || res.Bytes == 0 {
		t.Fatalf("result %+v", res)
	}
	db, _ := store.SQLitePath(u)
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(db + suffix); err == nil {
			t.Errorf("%s left beside the restored database", suffix)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(db))
	for _, e := range entries {
		if strings.Contains(e.Name(), "restore") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	r, err := store.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for n := range 10 {
		if _, err := r.UserByEmail(ctx, fmt.Sprintf("u%d@example.com", n)); err != nil {
			t.Fatalf("user %d: %v", n, err)
		}
	}
	if _, err := r.UserByEmail(ctx, "u10@example.com"); err == nil {
		t.Fatal("a row written after the backup survived the restore")
	}
	// And a server may lock it again.
	unlock, err = store.LockForServe(u)
	if err != nil {
		t.Fatal(err)
	}
	unlock()

	// Into a directory that does not exist yet.
	fresh := "sqlite://" + filepath.Join(t.TempDir(), "new", "sb.db")
	if _, err := store.Restore(ctx, fresh, backup); err != nil {
		t.Fatal(err)
	}
	f, err := store.Open(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.UserByEmail(ctx, "u9@example.com"); err != nil {
		t.Fatal(err)
	}
}

// A restore refuses what is not a whole Switchboard database of a version this binary knows,
// before touching the database.
func TestBackupRestoreRefusesBadFiles(t *testing.T) {
	ctx := t.Context()
	s, u := openSQLite(t)
	if err := addUser(ctx, s, 0); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	if _, err := store.Backup(ctx, u, good, false); err != nil {
		t.Fatal(err)
	}
	s.Close()
	target := "sqlite://" + filepath.Join(t.TempDir(), "sb.db")

	text := filepath.Join(dir, "text.db")
	_ = os.WriteFile(text, []byte("hello, this is not a database at all"), 0o600)

	foreign := filepath.Join(dir, "foreign.db")
	o, _ := sql.Open("sqlite", "file:"+foreign)
	_, _ = o.Exec(`CREATE TABLE goose_db_version (version_id INTEGER)`)
	o.Close()

	newer := filepath.Join(dir, "newer.db")
	copyTo(t, good, newer)
	n, _ := sql.Open("sqlite", "file:"+newer)
	if _, err := n.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, 1)`); err != nil {
		t.Fatal(err)
	}
	n.Close()

	// Damaged: a page in the middle overwritten.
	damaged := filepath.Join(dir, "damaged.db")
	copyTo(t, good, damaged)
	raw, _ := os.ReadFile(damaged)
	pageSize := int(raw[16])<<8 | int(raw[17])
	for i := 2 * pageSize; i < 3*pageSize && i < len(raw); i++ {
		raw[i] = 0xA5
	}
	_ = os.WriteFile(damaged, raw, 0o600)

	for file, says := range map[string]string{
		text:                       "not an SQLite database",
		foreign:                    "not a Switchboard database",
		newer:                      "newer than this binary",
		damaged:                    "",
		filepath.Join(dir, "none"): "no such file",
	} {
		_, err := store.Restore(ctx, target, file)
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v", filepath.Base(file), err)
		}
	}
	p, _ := store.SQLitePath(target)
	if _, err := os.Stat(filepath.Dir(p)); err == nil {
		entries, _ := os.ReadDir(filepath.Dir(p))
		if len(entries) > 0 {
			t.Fatalf("a refused restore left %s", entries[0].Name())
		}
	}
	if _, err := store.Restore(ctx, target, good); err != nil {
		t.Fatal(err)
	}
}

func copyTo(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
