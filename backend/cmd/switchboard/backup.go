package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/store"
)

const backupUsage = `Usage: switchboard backup [--database-url URL] [--force] FILE

Writes a consistent copy of the SQLite database to FILE while the server runs (VACUUM INTO:
one snapshot, writers are not blocked). FILE must not exist unless --force is given; it is
written next to FILE first, synced, then renamed. The database is --database-url, else
$DATABASE_URL, else the default sqlite://./data/switchboard.db.

For PostgreSQL use pg_dump (the command prints the recipe).
`

const restoreUsage = `Usage: switchboard restore [--database-url URL] FILE

Replaces the SQLite database with the backup FILE. Stop the server first: restore refuses
while a server runs on the database (and a server refuses to start during a restore). FILE
must pass SQLite's integrity check and be a Switchboard database of this version or an older
one (the server migrates it at start). The database's -wal and -shm files are removed.

For PostgreSQL use pg_restore (the command prints the recipe).
`

// postgresRecipe is printed when backup or restore is given a PostgreSQL URL.
const postgresRecipe = `backup and restore copy the embedded SQLite database; this database URL is PostgreSQL: use PostgreSQL's own tools.
  Back up (online, one consistent snapshot):
    pg_dump --format=custom --no-owner --no-privileges --dbname="$DATABASE_URL" --file=switchboard.dump
  Restore (stop every replica first; then start the Switchboard version that made the dump, or a newer one):
    pg_restore --clean --if-exists --no-owner --no-privileges --single-transaction --dbname="$DATABASE_URL" switchboard.dump
  pg_dump must be as new as the server's major version; give them the URL without lib/pq-only parameters such as binary_parameters`

// fileCommand parses the flags of backup and restore (before or after FILE) and returns the
// database URL and FILE.
func fileCommand(name, help string, args []string, stdout io.Writer, force *bool) (dbURL, file string, err error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	urlFlag := fs.String("database-url", "", "database connection URL")
	if force != nil {
		fs.BoolVar(force, "force", false, "replace an existing FILE")
	}
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, help)
				return "", "", errHelpShown
			}
			return "", "", usageError{err}
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch len(files) {
	case 0:
		return "", "", usageError{fmt.Errorf("%s needs a FILE", name)}
	case 1:
	default:
		return "", "", usageError{fmt.Errorf("unexpected argument %q", files[1])}
	}
	return databaseURL(*urlFlag), files[0], nil
}

// databaseURL is the flag, else $DATABASE_URL, else the default serve uses.
func databaseURL(flagValue string) string {
	if v := strings.TrimSpace(flagValue); v != "" {
		return v
	}
	if v := strings.TrimSpace(os.Getenv("DATABASE_URL")); v != "" {
		return v
	}
	for _, s := range app.Settings {
		if s.Env == "DATABASE_URL" {
			return s.Default
		}
	}
	return ""
}

func backup(ctx context.Context, args []string, stdout io.Writer) error {
	var force bool
	dbURL, file, err := fileCommand("backup", backupUsage, args, stdout, &force)
	if err != nil {
		return err
	}
	res, err := store.Backup(ctx, dbURL, file, force)
	if errors.Is(err, store.ErrPostgres) {
		return errors.New(postgresRecipe)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Backed up %s to %s: %s in %s\n", res.Source, res.Path, size(res.Bytes), res.Took.Round(time.Millisecond))
	return nil
}

func restore(ctx context.Context, args []string, stdout io.Writer) error {
	dbURL, file, err := fileCommand("restore", restoreUsage, args, stdout, nil)
	if err != nil {
		return err
	}
	res, err := store.Restore(ctx, dbURL, file)
	if errors.Is(err, store.ErrPostgres) {
		return errors.New(postgresRecipe)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Restored %s to %s: %s in %s (migration %d)\n", file, res.Path, size(res.Bytes), res.Took.Round(time.Millisecond), res.Schema)
	if res.Schema < res.Latest {
		fmt.Fprintf(stdout, "The server migrates it to %d when it starts.\n", res.Latest)
	}
	return nil
}

// size formats a byte count for people.
func size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 3; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGT"[exp])
}
