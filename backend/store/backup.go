package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrPostgres is returned by Backup and Restore for a PostgreSQL URL: PostgreSQL is backed
// up with its own tools (pg_dump, pg_restore).
var ErrPostgres = errors.New("store: backup and restore copy the embedded SQLite database; this is PostgreSQL")

// ErrInUse is returned when another process uses the database: a server (LockForServe), a
// restore, or any open SQLite connection.
var ErrInUse = errors.New("store: the database is in use")

// knownTables are tables every Switchboard SQLite database has since its first migration:
// a file without them is not one.
var knownTables = []string{"users", "workspaces", "api_keys", "events"}

// gooseTable is where goose records the applied migrations.
const gooseTable = goose.DefaultTablename

// BackupResult describes a finished backup.
type BackupResult struct {
	Source string // the database file
	Path   string // the backup written
	Bytes  int64
	Took   time.Duration
}

// RestoreResult describes a finished restore.
type RestoreResult struct {
	Path   string // the database file replaced
	Bytes  int64
	Took   time.Duration
	Schema int64 // the restored file's migration version
	Latest int64 // this binary's latest migration (the server migrates up to it at start)
}

// SQLitePath returns the file of an SQLite database URL, ErrPostgres for a PostgreSQL one.
func SQLitePath(rawURL string) (string, error) {
	d, path, err := parseURL(rawURL)
	if err != nil {
		return "", err
	}
	if d == Postgres {
		return "", ErrPostgres
	}
	return path, nil
}

// LatestMigration is the version of the newest migration of dialect d in this binary.
func LatestMigration(d Dialect) (int64, error) {
	entries, err := fs.ReadDir(migrations, "migrations/"+string(d))
	if err != nil {
		return 0, err
	}
	var latest int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		v, err := goose.NumericComponent(e.Name())
		if err != nil {
			return 0, err
		}
		latest = max(latest, v)
	}
	return latest, nil
}

// Backup writes a consistent copy of the SQLite database at rawURL to dest while other
// processes (a running server) keep writing: VACUUM INTO reads one snapshot of the database
// (a WAL read transaction, so writers are not blocked) into a temporary file next to dest,
// which is synced and then renamed to dest. An existing dest is refused unless force is set.
// The copy is compact (vacuumed) and in rollback-journal mode; a server opening it switches it
// to WAL.
func Backup(ctx context.Context, rawURL, dest string, force bool) (BackupResult, error) {
	start := time.Now()
	src, err := SQLitePath(rawURL)
	if err != nil {
		return BackupResult{}, err
	}
	res := BackupResult{Source: src, Path: dest}
	srcInfo, err := os.Stat(src)
	if err != nil {
		// Opening would create an empty database: a wrong path must not make an empty backup.
		return res, fmt.Errorf("store: backup: the database %s: %w", src, err)
	}
	if info, err := os.Stat(dest); err == nil {
		if os.SameFile(info, srcInfo) {
			return res, fmt.Errorf("store: backup: %s is the database itself", dest)
		}
		if info.IsDir() {
			return res, fmt.Errorf("store: backup: %s is a directory", dest)
		}
		if !force {
			return res, fmt.Errorf("store: backup: %s exists (--force replaces it)", dest)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("store: backup: %w", err)
	}
	if isSidecar(dest, src) {
		return res, fmt.Errorf("store: backup: %s is one of the database's own files", dest)
	}
	// Not created: a mistyped directory should fail here, not fill a new one.
	if info, err := os.Stat(filepath.Dir(dest)); err != nil || !info.IsDir() {
		return res, fmt.Errorf("store: backup: the directory %s does not exist (create it first)", filepath.Dir(dest))
	}

	s, err := Open(ctx, rawURL)
	if err != nil {
		return res, err
	}
	defer s.Close()
	if err := checkSwitchboard(ctx, s.db.DB); err != nil {
		return res, fmt.Errorf("store: backup: %s: %w", src, err)
	}

	// VACUUM INTO wants a new or empty file: an empty temporary one, private to this run, in
	// dest's directory so that the rename is atomic. 0600: the copy holds the secrets the
	// database holds.
	tmp, err := os.CreateTemp(filepath.Dir(dest), filepath.Base(dest)+".tmp-*")
	if err != nil {
		return res, fmt.Errorf("store: backup: %w", err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	done := false
	defer func() {
		if !done {
			os.Remove(tmpPath)
		}
	}()
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, tmpPath); err != nil {
		return res, fmt.Errorf("store: backup: VACUUM INTO: %w", err)
	}
	if err := syncFile(tmpPath); err != nil {
		return res, fmt.Errorf("store: backup: %w", err)
	}
	if err := os.Rename(tmpPath, dest); err != nil {
		return res, fmt.Errorf("store: backup: %w", err)
	}
	done = true
	if err := syncDir(filepath.Dir(dest)); err != nil {
		return res, fmt.Errorf("store: backup: %w", err)
	}
	if info, err := os.Stat(dest); err == nil {
		res.Bytes = info.Size()
	}
	res.Took = time.Since(start)
	return res, nil
}

// CheckBackup checks that the file at path is a whole Switchboard SQLite database (the
// header, PRAGMA integrity_check, the migrations table and the platform's tables) and returns
// its migration version. It opens the file read-only and writes nothing next to it.
func CheckBackup(ctx context.Context, path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	header := make([]byte, 16)
	_, err = io.ReadFull(f, header)
	f.Close()
	if err != nil || string(header) != "SQLite format 3\x00" {
		return 0, fmt.Errorf("%s is not an SQLite database", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, err
	}
	// immutable: no locks, no -wal or -shm read or created; a backup is a finished file.
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath()+"?mode=ro&immutable=1")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var problems []string
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return 0, err
		}
		problems = append(problems, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("%s: integrity check: %w", path, err)
	}
	if len(problems) != 1 || problems[0] != "ok" {
		if len(problems) > 5 {
			problems = append(problems[:5], "…")
		}
		return 0, fmt.Errorf("%s fails SQLite's integrity check: %s", path, strings.Join(problems, "; "))
	}
	if err := checkSwitchboard(ctx, db); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	var version int64
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM `+gooseTable).Scan(&version); err != nil {
		return 0, fmt.Errorf("%s: migration version: %w", path, err)
	}
	return version, nil
}

// checkSwitchboard refuses a database without the migrations table or the platform's tables.
func checkSwitchboard(ctx context.Context, db *sql.DB) error {
	for _, table := range append([]string{gooseTable}, knownTables...) {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("not a Switchboard database (no %s table)", table)
		}
	}
	return nil
}

// Restore replaces the SQLite database at rawURL with the backup at src. It refuses while a
// server uses the database (the lock of LockForServe, or any open connection), a file that
// CheckBackup refuses, and a backup whose migration version is newer than this binary's. The
// backup is copied next to the database, synced and renamed over it; the database's -wal and
// -shm files are removed first (a stale WAL would be replayed onto the restored file). The
// restored file keeps the old database's permissions (0600 for a new one).
func Restore(ctx context.Context, rawURL, src string) (RestoreResult, error) {
	start := time.Now()
	path, err := SQLitePath(rawURL)
	if err != nil {
		return RestoreResult{}, err
	}
	res := RestoreResult{Path: path}
	srcInfo, err := os.Stat(src)
	if err != nil {
		return res, fmt.Errorf("store: restore: %w", err)
	}
	if res.Latest, err = LatestMigration(SQLite); err != nil {
		return res, err
	}
	// Refuse a wrong file before touching anything.
	if res.Schema, err = CheckBackup(ctx, src); err != nil {
		return res, fmt.Errorf("store: restore: %w", err)
	}
	if res.Schema > res.Latest {
		return res, fmt.Errorf("store: restore: %s is at migration %d, newer than this binary's %d: restore it with the Switchboard version that wrote it (or a newer one)", src, res.Schema, res.Latest)
	}

	// Held until the restore ends: a server starting meanwhile refuses to start.
	unlock, err := LockForServe(rawURL)
	if err != nil {
		return res, err
	}
	defer unlock()
	mode := os.FileMode(0o600)
	if info, err := os.Stat(path); err == nil {
		if os.SameFile(info, srcInfo) {
			return res, fmt.Errorf("store: restore: %s is the database itself", src)
		}
		mode = info.Mode().Perm()
		if err := probeUnused(ctx, path); err != nil {
			return res, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("store: restore: %w", err)
	}

	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return res, fmt.Errorf("store: restore: %w", err)
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".restore-*")
	if err != nil {
		return res, fmt.Errorf("store: restore: %w", err)
	}
	tmpPath := tmp.Name()
	done := false
	defer func() {
		if !done {
			os.Remove(tmpPath)
		}
	}()
	res.Bytes, err = copyFile(tmp, src)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, fmt.Errorf("store: restore: copy %s: %w", src, err)
	}
	// The copy is what gets installed: check it, not only the file it came from.
	if v, err := CheckBackup(ctx, tmpPath); err != nil || v != res.Schema {
		return res, fmt.Errorf("store: restore: the copy of %s differs from it (changed while copying?): %v", src, err)
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("store: restore: %w", err)
		}
	}
	if err := os.Rename(tmpPath, path); err != nil {
		return res, fmt.Errorf("store: restore: %w", err)
	}
	done = true
	if err := syncDir(dir); err != nil {
		return res, fmt.Errorf("store: restore: %w", err)
	}
	res.Took = time.Since(start)
	return res, nil
}

// probeUnused refuses a database that any connection has open, whether or not its process
// took LockForServe's lock (a server of an older version, a sqlite3 shell). A connection to a
// WAL database holds a shared lock on the file as long as it is open, and leaving WAL mode
// needs an exclusive one: the switch succeeds only when no one else has the file open. It
// checkpoints the WAL into the old file, which is about to be replaced anyway.
func probeUnused(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+url.PathEscape(path)+"?_pragma=busy_timeout(500)")
	if err != nil {
		return err
	}
	defer db.Close()
	var mode string
	err = db.QueryRowContext(ctx, `PRAGMA journal_mode=DELETE`).Scan(&mode)
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		if c := sqErr.Code() & 0xff; c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED {
			return fmt.Errorf("%w: another process has %s open (a running switchboard server?): stop it before restoring", ErrInUse, path)
		}
	}
	// Any other error (a damaged database, the reason for restoring) does not stop the
	// restore: nothing holds the file.
	return nil
}

// LockForServe takes the lock a server holds on its SQLite database for as long as it runs:
// an exclusive flock on the file <database>.lock, which the operating system releases when the
// process ends, however it ends. Restore takes the same lock, so it refuses to run under a
// live server and a server refuses to start during a restore. It fails at once (ErrInUse)
// when another process holds the lock. For PostgreSQL it does nothing. Call unlock when the
// database is closed.
func LockForServe(rawURL string) (unlock func(), err error) {
	d, path, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if d == Postgres {
		return func() {}, nil
	}
	// The directory holds the database (password and key hashes): the owner's alone, as
	// Open makes it; serve creates it here first.
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("store: create %s: %w", dir, err)
		}
	}
	return lockFile(path + ".lock")
}

// isSidecar reports whether dest names one of the database's own files.
func isSidecar(dest, db string) bool {
	a, err1 := filepath.Abs(dest)
	b, err2 := filepath.Abs(db)
	if err1 != nil || err2 != nil {
		return false
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal", ".lock"} {
		if a == b+suffix {
			return true
		}
	}
	return false
}

func copyFile(dst *os.File, src string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	return io.Copy(dst, in)
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
