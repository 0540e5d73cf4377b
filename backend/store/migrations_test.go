package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// The PostgreSQL and SQLite migrations describe the same schema: the same tables, the same
// columns with the same nullability, and the same indexes over the same columns (partial
// index conditions included by name only). Only column types may differ. Every new
// surface's migration pair is held to this.
func TestMigrationsAreEquivalent(t *testing.T) {
	schemas := map[store.Dialect][]string{}
	for _, d := range storetest.Dialects {
		st := storetest.Open(t, d)
		db, err := sql.Open(driverOf(d), dsnOf(st.URL()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if d == store.Postgres {
			schemas[d] = postgresSchema(t, db)
		} else {
			schemas[d] = sqliteSchema(t, db)
		}
	}
	pg, lite := schemas[store.Postgres], schemas[store.SQLite]
	if len(pg) < 20 {
		t.Fatalf("introspection found too little: %v", pg)
	}
	for _, line := range pg {
		if !slices.Contains(lite, line) {
			t.Errorf("PostgreSQL only: %s", line)
		}
	}
	for _, line := range lite {
		if !slices.Contains(pg, line) {
			t.Errorf("SQLite only: %s", line)
		}
	}
}

func driverOf(d store.Dialect) string {
	if d == store.Postgres {
		return "postgres"
	}
	return "sqlite"
}

func dsnOf(u string) string { return strings.TrimPrefix(u, "sqlite://") }

// Lines are "table.column null|not null" and "index table(col, col)".
func postgresSchema(t *testing.T, db *sql.DB) []string {
	var out []string
	rows, err := db.Query(`SELECT c.table_name, c.column_name, c.is_nullable FROM information_schema.columns c
		WHERE c.table_schema = 'public' AND c.table_name NOT LIKE 'goose%'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var table, col, nullable string
		if err := rows.Scan(&table, &col, &nullable); err != nil {
			t.Fatal(err)
		}
		out = append(out, column(table, col, nullable == "YES"))
	}
	rows.Close()
	// Explicit indexes (not those behind primary keys or unique constraints), with their
	// columns in order; an expression is "<expr>" (compared by place, not by text, which
	// the dialects spell differently).
	rows, err = db.Query(`SELECT i.relname, t.relname, COALESCE(a.attname, '<expr>'), k.n
		FROM pg_index ix
		JOIN pg_class i ON i.oid = ix.indexrelid
		JOIN pg_class t ON t.oid = ix.indrelid
		JOIN pg_namespace n ON n.oid = t.relnamespace
		CROSS JOIN LATERAL unnest(ix.indkey::int[]) WITH ORDINALITY AS k(attnum, n)
		LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum AND k.attnum <> 0
		WHERE n.nspname = 'public' AND t.relname NOT LIKE 'goose%'
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = ix.indexrelid)
		ORDER BY 1, 4`)
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string][]string{}
	for rows.Next() {
		var name, table, col string
		var pos int
		if err := rows.Scan(&name, &table, &col, &pos); err != nil {
			t.Fatal(err)
		}
		key := name + " " + table
		idx[key] = append(idx[key], col)
	}
	rows.Close()
	for k, cols := range idx {
		out = append(out, index(k, cols))
	}
	slices.Sort(out)
	return out
}

func sqliteSchema(t *testing.T, db *sql.DB) []string {
	var out []string
	tables := names(t, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'goose%'`)
	for _, table := range tables {
		rows, err := db.Query(`SELECT name, "notnull", pk FROM pragma_table_info(?)`, table)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var col string
			var notNull, pk int
			if err := rows.Scan(&col, &notNull, &pk); err != nil {
				t.Fatal(err)
			}
			// A primary key column is never null in PostgreSQL; say so here too.
			out = append(out, column(table, col, notNull == 0 && pk == 0))
		}
		rows.Close()
	}
	type ix struct{ name, table string }
	var idxs []ix
	rows, err := db.Query(`SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'
		AND tbl_name NOT LIKE 'goose%'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var i ix
		if err := rows.Scan(&i.name, &i.table); err != nil {
			t.Fatal(err)
		}
		idxs = append(idxs, i)
	}
	rows.Close()
	for _, i := range idxs {
		cols := names(t, db, `SELECT COALESCE(name, '<expr>') FROM pragma_index_info(?) ORDER BY seqno`, i.name)
		out = append(out, index(i.name+" "+i.table, cols))
	}
	slices.Sort(out)
	return out
}

func names(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func column(table, col string, nullable bool) string {
	if nullable {
		return fmt.Sprintf("%s.%s null", table, col)
	}
	return fmt.Sprintf("%s.%s not null", table, col)
}

func index(nameTable string, cols []string) string {
	name, table, _ := strings.Cut(nameTable, " ")
	return fmt.Sprintf("index %s on %s(%s)", name, table, strings.Join(cols, ", "))
}
