package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/store"
)

// An unknown scheme, or a typo of a known one, is refused with the accepted forms, without
// creating anything on disk and without echoing the URL (it may carry a password).
func TestOpenRefusesUnknownSchemes(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, raw := range []string{"mysql://root:hunter2@db/app", "postgress://u:hunter2@h/db", "Postgres://u@h/db",
		"sqlite3://x.db", "file:x.db", "mysql:x", ""} {
		s, err := store.Open(t.Context(), raw)
		if err == nil {
			s.Close()
			t.Errorf("%q was accepted", raw)
			continue
		}
		if raw != "" && (!strings.Contains(err.Error(), "postgres://") || !strings.Contains(err.Error(), "sqlite://")) {
			t.Errorf("%q: the error does not list the accepted forms: %v", raw, err)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: the error shows the password: %v", raw, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Fatalf("a refused URL created %s", entries[0].Name())
	}
}

// Every SQLite form opens the file it names.
func TestOpenSQLiteForms(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for raw, file := range map[string]string{
		"sqlite://" + filepath.Join(dir, "abs.db"): "abs.db",
		"sqlite://./a/rel.db":                      filepath.Join("a", "rel.db"),
		"sqlite:b.db?mode=x":                       "b.db",
		"plain.db":                                 "plain.db",
		"./c/plain.db":                             filepath.Join("c", "plain.db"),
	} {
		s, err := store.Open(t.Context(), raw)
		if err != nil {
			t.Errorf("%q: %v", raw, err)
			continue
		}
		if s.Dialect() != store.SQLite {
			t.Errorf("%q: dialect %s", raw, s.Dialect())
		}
		s.Close()
		st, err := os.Stat(filepath.Join(dir, file))
		if err != nil {
			t.Errorf("%q did not create %s: %v", raw, file, err)
			continue
		}
		// Password and key hashes live there: the file is the owner's alone, and so is a
		// directory created for it.
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", file, st.Mode().Perm())
		}
		if d := filepath.Dir(file); d != "." {
			if ds, err := os.Stat(filepath.Join(dir, d)); err != nil {
				t.Error(err)
			} else if ds.Mode().Perm() != 0o700 {
				t.Errorf("directory %s has mode %v, want 0700", d, ds.Mode().Perm())
			}
		}
	}
}

// serve takes its lock before it opens the database, creating the directory: the owner's
// alone there too (it was 0755, whatever Open then meant to make it).
func TestServeLockCreatesAPrivateDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "sb")
	unlock, err := store.LockForServe("sqlite://" + filepath.Join(dir, "switchboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("directory: %v, err %v, want mode 0700", st.Mode().Perm(), err)
	}
}

// A PostgreSQL URL that does not parse, or names a server that refuses, is reported without
// its password (net/url and the driver quote the URL whole).
func TestOpenErrorsHideThePassword(t *testing.T) {
	for _, raw := range []string{"postgres://admin:Hunter2Secret@[bad", "postgres://admin:Hunter2Secret%@127.0.0.1:5432/db",
		"postgresql://admin:Hunter2Secret@127.0.0.1:1/db?sslmode=disable"} {
		s, err := store.Open(t.Context(), raw)
		if err == nil {
			s.Close()
			t.Errorf("%q was accepted", raw)
			continue
		}
		if strings.Contains(err.Error(), "Hunter2Secret") {
			t.Errorf("%q: the error shows the password: %v", raw, err)
		}
	}
}
