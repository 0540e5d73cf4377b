package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/backend/pgserver"
)

// server is the switchboard process under test.
type server struct {
	base    string // http://127.0.0.1:port
	metrics string // http://127.0.0.1:port/metrics
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
}

func startServer(bin, dir, dbURL string) (*server, error) {
	port, err := pgserver.FreePort()
	if err != nil {
		return nil, err
	}
	mport, err := pgserver.FreePort()
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
	pport, err := pgserver.FreePort()
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
