package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHelpListsBackupAndRestore(t *testing.T) {
	var out bytes.Buffer
	if code := cli(t.Context(), []string{"--help"}, &out, &out); code != 0 {
		t.Fatal(code)
	}
	for _, s := range []string{"switchboard backup FILE", "switchboard restore FILE", "--force"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("--help does not mention %q", s)
		}
	}
	for cmd, want := range map[string]string{"backup": backupUsage, "restore": restoreUsage} {
		var stdout, stderr bytes.Buffer
		if code := cli(t.Context(), []string{cmd, "--help"}, &stdout, &stderr); code != 0 || stdout.String() != want || stderr.Len() > 0 {
			t.Errorf("%s --help: exit %d\n%s%s", cmd, code, stdout.String(), stderr.String())
		}
	}
}

func TestBackupCommandLineMistakes(t *testing.T) {
	clearEnv(t)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"backup"}, "backup needs a FILE"},
		{[]string{"restore"}, "restore needs a FILE"},
		{[]string{"backup", "a.db", "b.db"}, `unexpected argument "b.db"`},
		{[]string{"restore", "a.db", "--force"}, "flag provided but not defined: -force"},
		{[]string{"backup", "--database-url"}, "flag needs an argument: -database-url"},
	} {
		var stdout, stderr bytes.Buffer
		code := cli(t.Context(), c.args, &stdout, &stderr)
		want := "switchboard: " + c.says + "\nRun 'switchboard --help' for usage.\n"
		if code != 2 || stderr.String() != want || stdout.Len() > 0 {
			t.Errorf("%v: exit %d\nstderr %q\nwant   %q", c.args, code, stderr.String(), want)
		}
	}
}

// PostgreSQL is refused with the pg_dump and pg_restore recipe, without echoing the URL (it
// may carry a password) and without writing anything.
func TestBackupOfPostgresPrintsTheRecipe(t *testing.T) {
	clearEnv(t)
	t.Chdir(t.TempDir())
	t.Setenv("DATABASE_URL", "postgres://sb:hunter2@db.example.com/sb")
	for _, cmd := range []string{"backup", "restore"} {
		var stdout, stderr bytes.Buffer
		code := cli(t.Context(), []string{cmd, "x.db"}, &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), `pg_dump --format=custom`) || !strings.Contains(stderr.String(), `pg_restore --clean`) ||
			strings.Contains(stderr.String(), "hunter2") || stdout.Len() > 0 {
			t.Errorf("%s: exit %d\n%s", cmd, code, stderr.String())
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) > 0 {
		t.Fatalf("left %s behind", entries[0].Name())
	}
}

// migrate → backup (the database from $DATABASE_URL, flags after FILE too) → restore
// elsewhere; an existing FILE needs --force; restore prints what it did.
func TestBackupAndRestoreCommands(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "sb.db")
	var out bytes.Buffer
	if code := cli(t.Context(), []string{"migrate", "--database-url", db}, &out, &out); code != 0 {
		t.Fatalf("migrate: %d\n%s", code, out.String())
	}
	t.Setenv("DATABASE_URL", db)
	file := filepath.Join(dir, "backup.db")
	var stdout, stderr bytes.Buffer
	if code := cli(t.Context(), []string{"backup", file}, &stdout, &stderr); code != 0 ||
		!strings.HasPrefix(stdout.String(), "Backed up "+filepath.Join(dir, "sb.db")+" to "+file+": ") || !strings.Contains(stdout.String(), "KiB in ") {
		t.Fatalf("backup: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := cli(t.Context(), []string{"backup", file}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "exists (--force replaces it)") {
		t.Fatalf("backup over a file: exit %d\n%s", code, stderr.String())
	}
	if code := cli(t.Context(), []string{"backup", file, "--force"}, &stdout, &stderr); code != 0 {
		t.Fatalf("backup --force: exit %d\n%s", code, stderr.String())
	}

	restored := filepath.Join(dir, "restored", "sb.db")
	stdout.Reset()
	if code := cli(t.Context(), []string{"restore", "--database-url", restored, file}, &stdout, &stderr); code != 0 ||
		!strings.HasPrefix(stdout.String(), "Restored "+file+" to "+restored+": ") {
		t.Fatalf("restore: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	stderr.Reset()
	if code := cli(t.Context(), []string{"restore", "--database-url", restored, filepath.Join(dir, "missing.db")}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "missing.db") {
		t.Fatalf("restore of a missing file: exit %d\n%s", code, stderr.String())
	}
}
