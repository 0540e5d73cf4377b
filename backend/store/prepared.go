package store

import (
	"context"
	"database/sql"
	"sync"
)

// prepared holds the statements of the batch writers on SQLite (multi-row INSERTs of a few
// fixed sizes), each prepared once per connection and reused: preparing a 200-row INSERT for
// every chunk cost ≈ 7 % of the server's CPU under a redirect load.
type prepared struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func (s *Store) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	if st, ok := s.stmts.m[query]; ok {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, s.mapErr(err)
	}
	if s.stmts.m == nil {
		s.stmts.m = map[string]*sql.Stmt{}
	}
	s.stmts.m[query] = st
	return st, nil
}

func (s *Store) closePrepared() {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	for _, st := range s.stmts.m {
		_ = st.Close()
	}
	s.stmts.m = nil
}

// chunkSizes are the row counts of the prepared multi-row statements: any batch is a few
// of them (199 rows: 3 of 50, 4 of 10, 9 of 1), and there are only these few statements
// per table to prepare.
var chunkSizes = []int{200, 50, 10, 1}

// insertRows inserts n rows of cols values each (row(i) gives row i's) as
// "INSERT INTO table (cols) VALUES (…), (…) suffix": on SQLite in prepared statements of
// chunkSizes rows, on PostgreSQL in one statement (n stays below copyMin there).
func (t *Tx) insertRows(ctx context.Context, table, cols string, ncols int, suffix string, n int, row func(i int) []any) error {
	if n == 0 {
		return nil // no rows is no statement (a VALUES list cannot be empty)
	}
	if t.s.dialect == Postgres {
		// Each statement is a round trip here, and batches this small (larger ones go by
		// COPY) are one statement: 31 rows as four prepared chunks made /hooks slower.
		args := make([]any, 0, n*ncols)
		for i := range n {
			args = append(args, row(i)...)
		}
		_, err := t.exec(ctx, `INSERT INTO `+table+` (`+cols+`) VALUES `+values(n, ncols)+suffix, args...)
		return err
	}
	done := 0
	for _, size := range chunkSizes {
		if n-done < size {
			continue
		}
		st, err := t.s.prepared(ctx, t.tx.Rebind(`INSERT INTO `+table+` (`+cols+`) VALUES `+values(size, ncols)+suffix))
		if err != nil {
			return err
		}
		txSt := t.tx.StmtContext(ctx, st)
		args := make([]any, 0, size*ncols)
		for ; n-done >= size; done += size {
			args = args[:0]
			for i := done; i < done+size; i++ {
				args = append(args, row(i)...)
			}
			t.s.queries.Add(1)
			if _, err := txSt.ExecContext(ctx, args...); err != nil {
				return t.s.mapErr(err)
			}
		}
	}
	return nil
}
