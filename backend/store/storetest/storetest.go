// Package storetest opens real, freshly migrated databases for tests: a temporary SQLite file,
// and a new PostgreSQL database per call (dropped when the test ends).
//
// PostgreSQL is found at TEST_DATABASE_URL, else DATABASE_URL, else
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable. When it cannot be reached the
// PostgreSQL half is skipped locally but fails when CI is set: CI must test both.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/lib/pq" // the PostgreSQL driver for the admin connection

	"github.com/switchboard-dev/switchboard/backend/store"
)

// Dialects are the databases every store test runs against.
var Dialects = []store.Dialect{store.SQLite, store.Postgres}

// Each runs fn once per dialect as a subtest, each with a fresh migrated store.
func Each(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	for _, d := range Dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, Open(t, d)) })
	}
}

// Open returns a fresh, migrated store of dialect d, closed and removed when t ends.
func Open(t testing.TB, d store.Dialect) *store.Store {
	t.Helper()
	u := URL(t, d)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := store.Open(ctx, u)
	if err != nil {
		t.Fatalf("open %s: %v", d, err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate %s: %v", d, err)
	}
	return s
}

// URL returns the connection string of a new empty database of dialect d.
func URL(t testing.TB, d store.Dialect) string {
	t.Helper()
	if d == store.SQLite {
		return "sqlite://" + filepath.Join(t.TempDir(), "test.db")
	}
	admin := AdminURL()
	db, err := sql.Open("postgres", admin)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = db.PingContext(ctx)
		cancel()
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL at %s is required in CI: %v", redact(admin), err)
		}
		t.Skipf("PostgreSQL not reachable at %s (set TEST_DATABASE_URL): %v", redact(admin), err)
	}
	name := "sbtest_" + randomHex(6)
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		_, _ = db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		db.Close()
	})
	pu, _ := url.Parse(admin)
	pu.Path = "/" + name
	return pu.String()
}

// AdminURL is the PostgreSQL server tests create their databases on.
func AdminURL() string {
	for _, k := range []string{"TEST_DATABASE_URL", "DATABASE_URL"} {
		if v := os.Getenv(k); strings.HasPrefix(v, "postgres") {
			return v
		}
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

func redact(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return "(unparseable URL)"
	}
	return pu.Redacted()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
