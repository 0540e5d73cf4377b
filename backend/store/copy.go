package store

import "context"

// copyMin is the batch size from which PostgreSQL is sent rows with COPY instead of a
// multi-row INSERT: for each multi-row statement PostgreSQL parses and plans thousands of
// parameters, which made it spend ≈ 40 µs of CPU per stored click (row and event) against
// ≈ 16 µs with COPY (measured on 100,000 clicks; docs/benchmarks.md).
const copyMin = 32

// usesCopy tells whether n rows go to the database with COPY.
func (t *Tx) usesCopy(n int) bool { return t.s.dialect == Postgres && n >= copyMin }

// copyRows streams n rows into table with COPY, in the transaction (lib/pq turns a prepared
// COPY … FROM STDIN into a stream of rows). cols is a comma-separated column list; row(i)
// gives row i's values in that order. Unlike INSERT … ON CONFLICT, a duplicate key fails the
// whole COPY (a conflict error).
func (t *Tx) copyRows(ctx context.Context, table, cols string, n int, row func(i int) []any) error {
	t.s.queries.Add(1)
	st, err := t.tx.PrepareContext(ctx, `COPY `+table+` (`+cols+`) FROM STDIN`)
	if err != nil {
		return t.s.mapErr(err)
	}
	defer st.Close()
	for i := range n {
		if _, err := st.ExecContext(ctx, row(i)...); err != nil {
			return t.s.mapErr(err)
		}
	}
	// The final Exec without arguments sends what is buffered and ends the COPY; errors of
	// the rows (a duplicate key) surface here.
	_, err = st.ExecContext(ctx)
	return t.s.mapErr(err)
}
