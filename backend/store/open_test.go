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
		if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
			t.Errorf("%q did not create %s: %v", raw, file, err)
		}
	}
}
