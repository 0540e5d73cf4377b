package integration

import (
	"os"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/pgserver"
)

// pgServer is a PostgreSQL server of the test's own (backend/pgserver), so the test may
// restart and stop it at will; a failed stop or start fails the test.
type pgServer struct {
	t *testing.T
	*pgserver.Server
}

// startPostgres initialises and starts a server; it is stopped when the test ends.
func startPostgres(t *testing.T) *pgServer {
	t.Helper()
	dir, err := os.MkdirTemp("", "switchboard-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s, err := pgserver.Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Kill)
	return &pgServer{t: t, Server: s}
}

func (p *pgServer) check(err error) {
	p.t.Helper()
	if err != nil {
		p.t.Fatal(err)
	}
}

func (p *pgServer) start()   { p.t.Helper(); p.check(p.Start()) }
func (p *pgServer) stop()    { p.t.Helper(); p.check(p.Stop()) }
func (p *pgServer) restart() { p.t.Helper(); p.check(p.Restart()) }

// sinceStart is a small helper for recovery figures.
func sinceStart(t0 time.Time) time.Duration { return time.Since(t0).Round(time.Millisecond) }
