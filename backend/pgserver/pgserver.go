// Package pgserver runs a PostgreSQL server of the caller's own: initdb into a directory,
// a free loopback port, trust authentication. The outage integration test and the soak
// (cmd/sbsoak) use it to restart and stop the database at will, which a shared server
// must not be put through. It needs PostgreSQL's server package (initdb, pg_ctl).
package pgserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// Server is a running (or stopped) server.
type Server struct {
	bin      string     // the directory of initdb and pg_ctl
	dir      string     // data, log and socket live here
	port     int        //
	as       *user.User // the server runs as this user (postgres, when the caller is root)
	settings []string   // extra -c name=value settings
}

// FreePort asks the kernel for a free loopback port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start initialises a cluster in dir (which must exist and be empty) and starts it.
// settings are extra server settings ("max_connections=200"). fsync is off: what is
// tested is the service's handling of a stop or restart, not the disk.
func Start(dir string, settings ...string) (*Server, error) {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			bins = []string{p}
		}
	}
	if len(bins) == 0 {
		return nil, errors.New("initdb not found: install PostgreSQL's server package (apt-get install -y postgresql)")
	}
	s := &Server{bin: filepath.Dir(bins[len(bins)-1]), dir: dir, settings: settings}
	if os.Geteuid() == 0 { // PostgreSQL refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs a postgres user: %w", err)
		}
		s.as = u
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		// the directory's parent must be traversable by that user
		_ = os.Chmod(filepath.Dir(dir), 0o755)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	s.port = port
	if err := s.run("initdb", "-D", s.data(), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"); err != nil {
		return nil, err
	}
	return s, s.Start()
}

// URL is the database URL of the server.
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// Version is what pg_ctl --version says, without the program's name.
func (s *Server) Version() string {
	out, err := exec.Command(filepath.Join(s.bin, "pg_ctl"), "--version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "pg_ctl (PostgreSQL) ")
}

// Start starts the stopped server and waits until it accepts connections.
func (s *Server) Start() error { return s.ctl("start") }

// Stop stops it the way a minor-version upgrade does (fast: sessions are ended).
func (s *Server) Stop() error { return s.ctl("-m", "fast", "stop") }

// Restart restarts it (fast).
func (s *Server) Restart() error { return s.ctl("-m", "fast", "restart") }

// Kill stops it at once (the end of a test or soak).
func (s *Server) Kill() { _ = s.ctl("-m", "immediate", "stop") }

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

func (s *Server) cmd(name string, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, name)
	if s.as != nil {
		return exec.Command("runuser", append([]string{"-u", s.as.Username, "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (s *Server) run(name string, args ...string) error {
	if out, err := s.cmd(name, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

func (s *Server) ctl(args ...string) error {
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c fsync=off", s.port, s.dir)
	for _, kv := range s.settings {
		opts += " -c " + kv
	}
	return s.run("pg_ctl", append([]string{"-D", s.data(), "-l", filepath.Join(s.dir, "log"), "-o", opts, "-w", "-t", "60"}, args...)...)
}
