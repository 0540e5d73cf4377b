package integration

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pgServer is a PostgreSQL server of the test's own (initdb into a temporary directory, a
// free port), so the test may restart and stop it at will.
type pgServer struct {
	t    *testing.T
	bin  string // the directory of initdb and pg_ctl
	dir  string
	port int
	as   *user.User // the server runs as this user (postgres, when the test runs as root)
}

// startPostgres initialises and starts a server; it is stopped when the test ends.
func startPostgres(t *testing.T) *pgServer {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			bins = []string{p}
		}
	}
	if len(bins) == 0 {
		t.Fatal("initdb not found: install PostgreSQL's server package (the CI script does)")
	}
	p := &pgServer{t: t, bin: filepath.Dir(bins[len(bins)-1])}
	dir, err := os.MkdirTemp("", "switchboard-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 { // PostgreSQL refuses to run as root
		if p.as, err = user.Lookup("postgres"); err != nil {
			t.Fatalf("running as root needs a postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(p.as.Uid)
		gid, _ := strconv.Atoi(p.as.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	p.run("initdb", "-D", filepath.Join(dir, "data"), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
	p.start()
	t.Cleanup(func() { _ = p.cmd("pg_ctl", "-D", filepath.Join(p.dir, "data"), "-m", "immediate", "stop").Run() })
	return p
}

// URL is the database URL of the server.
func (p *pgServer) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

func (p *pgServer) cmd(name string, args ...string) *exec.Cmd {
	path := filepath.Join(p.bin, name)
	if p.as != nil {
		return exec.Command("runuser", append([]string{"-u", p.as.Username, "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (p *pgServer) run(name string, args ...string) {
	p.t.Helper()
	if out, err := p.cmd(name, args...).CombinedOutput(); err != nil {
		p.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func (p *pgServer) ctl(args ...string) {
	p.t.Helper()
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c fsync=off", p.port, p.dir)
	p.run("pg_ctl", append([]string{"-D", filepath.Join(p.dir, "data"), "-l", filepath.Join(p.dir, "log"), "-o", opts, "-w", "-t", "30"}, args...)...)
}

func (p *pgServer) start() { p.ctl("start") }

// stop stops the server the way a minor-version upgrade does (fast: sessions are ended).
func (p *pgServer) stop() { p.ctl("-m", "fast", "stop") }

// restart restarts it (fast).
func (p *pgServer) restart() { p.ctl("-m", "fast", "restart") }

// sinceStart is a small helper for recovery figures.
func sinceStart(t0 time.Time) time.Duration { return time.Since(t0).Round(time.Millisecond) }
