package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// postgres is a PostgreSQL server of the soak's own: initdb into a temporary directory, a
// free port, so that it can be restarted and stopped at will.
type postgres struct {
	bin  string     // the directory of initdb and pg_ctl
	dir  string     // data, log and socket live here
	port int        //
	as   *user.User // the server runs as this user (postgres, when the soak runs as root)
}

func startPostgres(dir string) (*postgres, error) {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			bins = []string{p}
		}
	}
	if len(bins) == 0 {
		return nil, errors.New("initdb not found: install PostgreSQL's server package (apt-get install -y postgresql)")
	}
	p := &postgres{bin: filepath.Dir(bins[len(bins)-1]), dir: dir}
	if os.Geteuid() == 0 { // PostgreSQL refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs a postgres user: %w", err)
		}
		p.as = u
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		// the temporary directory's parent must be traversable by that user
		_ = os.Chmod(filepath.Dir(dir), 0o755)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p.port = port
	if err := p.run("initdb", "-D", p.data(), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"); err != nil {
		return nil, err
	}
	return p, p.start()
}

// version is what pg_ctl --version says, without the program's name.
func (p *postgres) version() string {
	out, err := exec.Command(filepath.Join(p.bin, "pg_ctl"), "--version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "pg_ctl (PostgreSQL) ")
}

func (p *postgres) data() string { return filepath.Join(p.dir, "data") }

// URL is the database URL of the server.
func (p *postgres) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

func (p *postgres) cmd(name string, args ...string) *exec.Cmd {
	path := filepath.Join(p.bin, name)
	if p.as != nil {
		return exec.Command("runuser", append([]string{"-u", p.as.Username, "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (p *postgres) run(name string, args ...string) error {
	if out, err := p.cmd(name, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

func (p *postgres) ctl(args ...string) error {
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c fsync=off -c max_connections=200", p.port, p.dir)
	return p.run("pg_ctl", append([]string{"-D", p.data(), "-l", filepath.Join(p.dir, "log"), "-o", opts, "-w", "-t", "60"}, args...)...)
}

func (p *postgres) start() error   { return p.ctl("start") }
func (p *postgres) stop() error    { return p.ctl("-m", "fast", "stop") }
func (p *postgres) restart() error { return p.ctl("-m", "fast", "restart") }

// kill stops the server at once (the end of the soak).
func (p *postgres) kill() { _ = p.ctl("-m", "immediate", "stop") }

// server is the switchboard process under test.
type server struct {
	base    string // http://127.0.0.1:port
	metrics string // http://127.0.0.1:port/metrics
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
}

func startServer(bin, dir, dbURL string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	mport, err := freePort()
	if err != nil {
		return nil, err
	}
	media := filepath.Join(dir, "media")
	if err := os.MkdirAll(media, 0o755); err != nil {
		return nil, err
	}
	s := &server{
		base:    fmt.Sprintf("http://127.0.0.1:%d", port),
		metrics: fmt.Sprintf("http://127.0.0.1:%d/metrics", mport),
		logPath: filepath.Join(dir, "switchboard.log"),
		done:    make(chan struct{}),
	}
	logf, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	s.cmd = exec.Command(bin, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--database-url", dbURL, "--base-url", s.base)
	pport, err := freePort()
	if err != nil {
		return nil, err
	}
	gcURL = fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap?gc=1", pport)
	s.cmd.Env = append(os.Environ(),
		fmt.Sprintf("SWITCHBOARD_METRICS_ADDR=127.0.0.1:%d", mport),
		fmt.Sprintf("SWITCHBOARD_PPROF_ADDR=127.0.0.1:%d", pport),
		"SWITCHBOARD_WEBHOOK_ALLOWLIST=127.0.0.1",
		"SWITCHBOARD_MEDIA_STORE=file://"+filepath.ToSlash(media),
		"SWITCHBOARD_SECRETS_KEY=soak-secrets-key-0123456789",
		"SWITCHBOARD_RATE_LIMIT=5000", "SWITCHBOARD_RATE_BURST=5000",
		"SWITCHBOARD_LOG_LEVEL=info",
	)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	go func() { _ = s.cmd.Wait(); logf.Close(); close(s.done) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("switchboard exited at start; see %s", s.logPath)
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("switchboard not ready after 60s; see %s", s.logPath)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends SIGTERM to the process (by its pid) and SIGKILL if it has not ended in 25 s.
func (s *server) stop() {
	if s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	select {
	case <-s.done:
	case <-ctx.Done():
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}
