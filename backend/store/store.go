// Package store keeps Switchboard's state in PostgreSQL (production) or SQLite (the embedded
// default). SQL is plain, written once with ? placeholders and rebound per dialect. The store
// maps driver errors to domain errors at its edge and never decides who may do what.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Dialect names the database behind a Store.
type Dialect string

const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

//go:embed migrations
var migrations embed.FS

// Store is the database handle. Reads run on it directly; writes run in Tx.
type Store struct {
	q
	db      *sqlx.DB
	url     string
	dialect Dialect

	// queries counts statements sent to the database, so tests can prove a hot path
	// (a cached API key) costs none.
	queries atomic.Int64

	// handlers receive notifications (see Tx.Notify) by channel. SQLite calls them after
	// commit in process; PostgreSQL receives them through LISTEN on every replica.
	notifyMu sync.RWMutex
	handlers map[string][]func(payload string)
	listener *pq.Listener // set while Listen runs (PostgreSQL)
	// reconnects counts the listener's reconnections.
	reconnects atomic.Int64

	announcer announcer // Tx.Announce's batches (announce.go)
	stmts     prepared  // the batch writers' statements (prepared.go)
	gate      *gate     // at most the pool's size of users at once (gate.go)

	// probe is a one-connection handle of its own for Ping: a readiness check must tell
	// whether the database answers, not wait in line behind a busy pool.
	probe *sqlx.DB

	// statementTimeout bounds each wait for PostgreSQL's answer (deadline.go), nanoseconds.
	statementTimeout atomic.Int64
	conns            connSet // the pool's and the probe's open connections (deadline.go)
}

// Open connects to url: postgres://… or postgresql://… for PostgreSQL, sqlite://path,
// sqlite:path or a plain file path (no scheme) for SQLite. Any other scheme is refused (a
// typo such as postgress:// must not start on an SQLite file named after it). It does not
// migrate; call Migrate.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	s, err := open(ctx, rawURL)
	if err != nil {
		return nil, redactPassword(err, rawURL)
	}
	return s, nil
}

// redactPassword keeps the URL's password out of an error about it (a URL that does not
// parse is quoted whole by the errors of net/url and the driver).
func redactPassword(err error, rawURL string) error {
	rest, ok := strings.CutPrefix(rawURL, "postgres://")
	if !ok {
		rest, ok = strings.CutPrefix(rawURL, "postgresql://")
	}
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	at := strings.LastIndex(rest, "@")
	_, password, hasPassword := strings.Cut(rest[:max(at, 0)], ":")
	if !ok || at < 0 || !hasPassword || password == "" || !strings.Contains(err.Error(), password) {
		return err
	}
	return redacted{msg: strings.ReplaceAll(err.Error(), password, "xxxxx"), err: err}
}

// redacted is an error whose text leaves out a secret; errors.Is and As still see the cause.
type redacted struct {
	msg string
	err error
}

func (r redacted) Error() string { return r.msg }
func (r redacted) Unwrap() error { return r.err }

func open(ctx context.Context, rawURL string) (*Store, error) {
	s := &Store{url: rawURL}
	dialect, path, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	s.dialect = dialect
	switch dialect {
	case Postgres:
		s.db, err = s.openPostgres(rawURL)
		if err != nil {
			return nil, err
		}
		s.db.SetMaxOpenConns(DefaultPoolSize)
		s.db.SetMaxIdleConns(DefaultPoolSize / 2)
		s.probe, err = s.openPostgres(rawURL)
	default:
		// The database holds password and key hashes and sealed secrets: its directory and
		// file are the owner's alone (SQLite gives its -wal and -shm files the file's mode).
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("store: create %s: %w", dir, err)
			}
		}
		if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			f.Close()
		} else if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("store: create %s: %w", path, err)
		}
		// WAL lets readers run beside the one writer; immediate transactions queue writers
		// on busy_timeout instead of failing on lock upgrade.
		dsn := "file:" + url.PathEscape(path) + "?_txlock=immediate&_time_format=sqlite" +
			"&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
		s.db, err = sqlx.Open("sqlite", dsn)
		if err != nil {
			return nil, err
		}
		s.db.SetMaxOpenConns(8)
		s.probe, err = sqlx.Open("sqlite", dsn)
	}
	if err != nil {
		s.db.Close()
		return nil, err
	}
	s.probe.SetMaxOpenConns(1)
	s.probe.SetMaxIdleConns(1)
	s.gate = newGate(s.db.Stats().MaxOpenConnections, dialect == SQLite, s.mapErr)
	s.q = q{x: s.db, s: s, pooled: true}
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		s.probe.Close()
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	return s, nil
}

// openPostgres opens a pool whose connections end a wait for the server after the statement
// timeout (deadline.go).
func (s *Store) openPostgres(rawURL string) (*sqlx.DB, error) {
	c, err := pq.NewConnector(withBinaryParameters(rawURL))
	if err != nil {
		return nil, err
	}
	c.Dialer(deadlineDialer{timeout: &s.statementTimeout, open: &s.conns})
	return sqlx.NewDb(sql.OpenDB(c), "postgres"), nil
}

// urlScheme matches a URL scheme (two characters at least, so that a Windows drive letter
// stays a path).
var urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]+):`)

// parseURL tells the dialect of a database URL and, for SQLite, the file path. The error
// names the scheme only: the URL may carry a password.
// CheckURL tells whether rawURL names a database Open can open (its scheme, and a path for
// SQLite), without opening it: configuration checks list it with the other mistakes.
func CheckURL(rawURL string) error {
	_, _, err := parseURL(rawURL)
	return err
}

func parseURL(rawURL string) (Dialect, string, error) {
	scheme := ""
	if m := urlScheme.FindStringSubmatch(rawURL); m != nil {
		scheme = m[1]
	}
	switch scheme {
	case "postgres", "postgresql":
		return Postgres, "", nil
	case "sqlite", "":
		path := rawURL
		if scheme != "" {
			path = strings.TrimPrefix(rawURL[len(scheme)+1:], "//")
		}
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		if path == "" {
			return "", "", errors.New("store: empty SQLite path (use sqlite://path/to/file.db)")
		}
		return SQLite, path, nil
	}
	return "", "", fmt.Errorf("store: unknown database URL scheme %q: use postgres://… or postgresql://… for PostgreSQL, sqlite://path or a plain file path for SQLite", scheme)
}

// withBinaryParameters asks lib/pq to send a query and its arguments in one round trip
// (otherwise it prepares each query first: two round trips per statement), unless the
// operator's URL says otherwise.
func withBinaryParameters(rawURL string) string {
	if strings.Contains(rawURL, "binary_parameters=") {
		return rawURL
	}
	sep := "?"
	if strings.Contains(rawURL, "?") {
		sep = "&"
	}
	return rawURL + sep + "binary_parameters=yes"
}

// Dialect reports which database this is.
func (s *Store) Dialect() Dialect { return s.dialect }

// URL is the connection string (for LISTEN connections).
func (s *Store) URL() string { return s.url }

// Close closes the pool.
func (s *Store) Close() error {
	s.closeAnnouncer()
	s.closePrepared()
	s.probe.Close()
	return s.db.Close()
}

// Ping checks the database answers (for /readyz), on a connection of its own: with every
// pooled connection in use it still answers at once. A probe connection the server closed
// meanwhile (a restart since, an idle-session timeout, pg_terminate_backend) fails once and
// is dropped: the ping is tried again on a new one, unless the time is up.
func (s *Store) Ping(ctx context.Context) error {
	err := s.probe.PingContext(ctx)
	if err != nil && ctx.Err() == nil {
		err = s.probe.PingContext(ctx)
	}
	return err
}

// Queries is the number of statements run so far.
func (s *Store) Queries() int64 { return s.queries.Load() }

// Migrate applies every embedded migration of the dialect that is not applied yet.
func (s *Store) Migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations/"+string(s.dialect))
	if err != nil {
		return err
	}
	d := goose.DialectPostgres
	if s.dialect == SQLite {
		d = goose.DialectSQLite3
	}
	p, err := goose.NewProvider(d, s.db.DB, sub)
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}

// Handle registers fn to receive the notifications sent on channel with Tx.Notify. For
// SQLite it is called after commit in this process; for PostgreSQL through the LISTEN
// connection of Listen (a channel registered while it runs is listened to at once).
// Several parts of the process may handle the same channel.
func (s *Store) Handle(channel string, fn func(payload string)) {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	if s.handlers == nil {
		s.handlers = map[string][]func(string){}
	}
	_, known := s.handlers[channel]
	s.handlers[channel] = append(s.handlers[channel], fn)
	if !known && s.listener != nil {
		_ = s.listener.Listen(channel)
	}
}

func (s *Store) deliver(channel, payload string) {
	s.notifyMu.RLock()
	fns := s.handlers[channel]
	s.notifyMu.RUnlock()
	for _, fn := range fns {
		fn(payload)
	}
}

// Tx is a transaction. Every state change and the event it causes are written in one.
type Tx struct {
	q
	tx    *sqlx.Tx
	after []func()
	marks map[string]bool
}

// Notify sends payload on channel to every replica once the transaction commits (and never
// if it rolls back). PostgreSQL: pg_notify inside the transaction. SQLite: after commit.
func (t *Tx) Notify(ctx context.Context, channel, payload string) error {
	if t.s.dialect == Postgres {
		_, err := t.exec(ctx, `SELECT pg_notify(?, ?)`, channel, payload)
		return err
	}
	t.after = append(t.after, func() { t.s.deliver(channel, payload) })
	return nil
}

// Mark records that this transaction did something a later step of it must know (it changed
// what a cache holds, so reads of it in this transaction must skip the cache); Marked asks.
func (t *Tx) Mark(what string) {
	if t.marks == nil {
		t.marks = map[string]bool{}
	}
	t.marks[what] = true
}

// Marked reports whether Mark(what) was called in this transaction.
func (t *Tx) Marked(what string) bool { return t.marks[what] }

// AfterCommit runs fn once the transaction has committed.
func (t *Tx) AfterCommit(fn func()) { t.after = append(t.after, fn) }

// Tx runs fn in a transaction, committing if it returns nil.
func (s *Store) Tx(ctx context.Context, fn func(*Tx) error) error {
	t, err := s.tx(ctx, fn)
	if err != nil {
		return err
	}
	for _, f := range t.after {
		f()
	}
	return nil
}

// tx passes the gate, runs fn in a transaction and commits it; the caller runs its
// after-commit work (outside the gate).
func (s *Store) tx(ctx context.Context, fn func(*Tx) error) (*Tx, error) {
	if err := s.gate.enter(ctx, true); err != nil {
		return nil, err
	}
	defer s.gate.leave(true)
	sqlTx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, s.mapErr(err)
	}
	t := &Tx{q: q{x: sqlTx, s: s}, tx: sqlTx}
	if err := fn(t); err != nil {
		_ = sqlTx.Rollback()
		return nil, err
	}
	if err := sqlTx.Commit(); err != nil {
		return nil, s.mapErr(err)
	}
	return t, nil
}

// q runs statements on a pool or a transaction.
type q struct {
	x sqlx.ExtContext
	s *Store
	// pooled: x is the pool, so each statement first passes the gate.
	pooled bool
}

// writes reports whether a query that returns rows may write (INSERT/UPDATE/DELETE …
// RETURNING, or a WITH around one): on SQLite it then waits for the turn to write.
func writes(query string) bool {
	return strings.Contains(query, "RETURNING")
}

// enter passes the gate for a statement on the pool (a transaction passed it already);
// write says it may write.
func (q q) enter(ctx context.Context, write bool) error {
	if !q.pooled {
		return nil
	}
	return q.s.gate.enter(ctx, write)
}

func (q q) leave(write bool) {
	if q.pooled {
		q.s.gate.leave(write)
	}
}

func (q q) get(ctx context.Context, dest any, query string, args ...any) error {
	w := writes(query)
	if err := q.enter(ctx, w); err != nil {
		return err
	}
	defer q.leave(w)
	q.s.queries.Add(1)
	return q.s.mapErr(sqlx.GetContext(ctx, q.x, dest, q.x.Rebind(query), args...))
}

func (q q) sel(ctx context.Context, dest any, query string, args ...any) error {
	w := writes(query)
	if err := q.enter(ctx, w); err != nil {
		return err
	}
	defer q.leave(w)
	q.s.queries.Add(1)
	return q.s.mapErr(sqlx.SelectContext(ctx, q.x, dest, q.x.Rebind(query), args...))
}

func (q q) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if err := q.enter(ctx, true); err != nil {
		return nil, err
	}
	defer q.leave(true)
	q.s.queries.Add(1)
	res, err := q.x.ExecContext(ctx, q.x.Rebind(query), args...)
	return res, q.s.mapErr(err)
}

// execOne runs an UPDATE or DELETE that must touch exactly one row, else not found.
func (q q) execOne(ctx context.Context, what, query string, args ...any) error {
	res, err := q.exec(ctx, query, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return domain.NotFound(what)
	}
	return nil
}

// mapErr turns driver errors into domain errors so no caller inspects a driver type.
func (s *Store) mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return &domain.Error{Code: domain.CodeNotFound, Message: "not found", Err: err}
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23505" {
		return &domain.Error{Code: domain.CodeConflict, Message: "already exists", Err: err}
	}
	// 22021 and 22P05: text or JSON holding the NUL character or bytes that are not UTF-8,
	// which PostgreSQL cannot store (the transports refuse NUL naming the field; this is what
	// any other path answers).
	if pqErr != nil && (pqErr.Code == "22021" || pqErr.Code == "22P05") {
		return &domain.Error{Code: domain.CodeInvalid, Message: "text must be UTF-8 without the NUL character (\\u0000)", Err: err}
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		switch sqErr.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return &domain.Error{Code: domain.CodeConflict, Message: "already exists", Err: err}
		}
	}
	// 57014 is PostgreSQL's answer to a cancelled statement: lib/pq cancels on the server
	// when the request's context ends (a client gone, a server shutting down) and reports
	// that rather than the context's error.
	// It carries the reason of the other "retry later" answers: a stop cancels statements of
	// requests it answers (503 unavailable, as operations.md says).
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || (pqErr != nil && pqErr.Code == "57014") {
		return &domain.Error{Code: domain.CodeUnavailable, Reason: ReasonUnavailable, Message: "request cancelled", Err: err}
	}
	if unreachable(err) {
		return &domain.Error{Code: domain.CodeUnavailable, Reason: ReasonUnavailable,
			Message: "the database is unavailable; retry shortly", Err: err}
	}
	return domain.Internal(err)
}

// ReasonUnavailable is the reason of errors that mean "the database cannot be reached now,
// retry later" (a restart, a failover, a locked SQLite file): transports answer 503 with
// Retry-After, never 500.
const ReasonUnavailable = "unavailable"

// unreachable reports whether err says the database could not be reached or is restarting,
// rather than that the statement was wrong: connection refused or reset, a connection the
// server closed (admin shutdown 57P01, crash 57P02, starting up 57P03, class 08 connection
// exceptions, too many connections 53300, a database closed to new connections for
// maintenance: 55000 "is not currently accepting connections"), database/sql's bad and
// closed connections, and SQLite's busy and locked database past its busy timeout.
func unreachable(err error) bool {
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) {
		return true
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		switch code := string(pqErr.Code); {
		case strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03", code == "53300":
			return true
		case code == "55000": // object_not_in_prerequisite_state: only this one means "closed for now"
			return strings.Contains(pqErr.Message, "not currently accepting connections")
		}
		return false
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		switch sqErr.Code() & 0xff { // the primary code
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return true
		}
		return false
	}
	var opErr *net.OpError
	return errors.As(err, &opErr)
}

// LockWorkspace holds the workspace's row until the transaction ends, so that a limit
// checked by counting (endpoints, instances a workspace may have) holds between concurrent
// requests on several replicas. SQLite's write transactions are serialised already.
func (t *Tx) LockWorkspace(ctx context.Context, id string) error {
	if t.s.dialect != Postgres {
		return nil
	}
	var ids []string
	return t.sel(ctx, &ids, `SELECT id FROM workspaces WHERE id = ? FOR UPDATE`, id)
}
