package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// clearEnv unsets every setting for the test, so the developer's environment cannot leak in.
func clearEnv(t *testing.T) {
	for _, s := range app.Settings {
		t.Setenv(s.Env, "")
	}
	t.Setenv("SWITCHBOARD_PPROF_ADDR", "") // checked with the settings, though --help leaves it out
}

func TestHelpListsEverySetting(t *testing.T) {
	var out bytes.Buffer
	if code := cli(t.Context(), []string{"help"}, &out, &out); code != 0 {
		t.Fatal(code)
	}
	for _, s := range app.Settings {
		if !strings.Contains(out.String(), s.Env) {
			t.Errorf("--help does not mention %s", s.Env)
		}
	}
	for _, flag := range []string{"--addr", "--database-url", "--base-url", "--version", "healthcheck"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("--help does not mention %s", flag)
		}
	}
}

// The README's configuration table lists every setting with the default the code uses.
func TestREADMEListsEverySettingAndItsDefault(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "| `") {
			cells := strings.Split(line, "|")
			rows[strings.Trim(cells[1], " `")] = line
		}
	}
	for _, s := range app.Settings {
		row, ok := rows[s.Env]
		if !ok {
			t.Errorf("README: no row for %s", s.Env)
			continue
		}
		if cells := strings.Split(row, "|"); s.Default != "" && strings.TrimSpace(cells[3]) != "`"+s.Default+"`" {
			t.Errorf("README: %s default %s, the code says %q", s.Env, strings.TrimSpace(cells[3]), s.Default)
		}
		if s.Flag != "" && !strings.Contains(row, "`--"+s.Flag+"`") {
			t.Errorf("README: %s row does not name --%s", s.Env, s.Flag)
		}
	}
}

func TestHelpFlagSucceeds(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"serve", "--help"}, {"migrate", "-h"}} {
		var stdout, stderr bytes.Buffer
		if code := cli(t.Context(), args, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "DATABASE_URL") || stderr.Len() > 0 {
			t.Fatalf("%v: exit %d\nstdout %s\nstderr %s", args, code, stdout.String(), stderr.String())
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}, {"-v"}} {
		var stdout, stderr bytes.Buffer
		if code := cli(t.Context(), args, &stdout, &stderr); code != 0 || stdout.String() != "switchboard "+version+"\n" || stderr.Len() > 0 {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, stdout.String(), stderr.String())
		}
	}
}

// A command-line mistake is reported once, with a one-line hint rather than the whole usage,
// and exits with status 2.
func TestCommandLineMistakes(t *testing.T) {
	clearEnv(t)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"serve", "--addr"}, "flag needs an argument: -addr"},
		{[]string{"migrate", "-x"}, "flag provided but not defined: -x"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"serve", "now"}, `unexpected argument "now"`},
		{[]string{"version", "extra"}, `version takes no arguments (got "extra")`},
	} {
		var stdout, stderr bytes.Buffer
		code := cli(t.Context(), c.args, &stdout, &stderr)
		want := "switchboard: " + c.says + "\nRun 'switchboard --help' for usage.\n"
		if code != 2 || stderr.String() != want || stdout.Len() > 0 {
			t.Errorf("%v: exit %d\nstderr %q\nwant   %q\nstdout %q", c.args, code, stderr.String(), want, stdout.String())
		}
	}
}

// A setting that makes no sense stops the start with a message naming it (exit 1), and a
// flag is checked like its variable.
func TestInvalidConfigurationIsRefused(t *testing.T) {
	clearEnv(t)
	t.Chdir(t.TempDir())
	t.Setenv("SWITCHBOARD_WEBHOOK_WORKERS", "-1")
	var stdout, stderr bytes.Buffer
	if code := cli(t.Context(), []string{"serve", "--addr", "127.0.0.1:0"}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "SWITCHBOARD_WEBHOOK_WORKERS") || stdout.Len() > 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	t.Setenv("SWITCHBOARD_WEBHOOK_WORKERS", "")
	stderr.Reset()
	if code := cli(t.Context(), []string{"serve", "--base-url", "sb.example.com"}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "SWITCHBOARD_BASE_URL (--base-url)") {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	// An unknown database scheme is refused; nothing is created on disk.
	for _, db := range []string{"mysql://root:hunter2@db/app", "postgress://u@h/db"} {
		stderr.Reset()
		if code := cli(t.Context(), []string{"migrate", "--database-url", db}, &stdout, &stderr); code != 1 ||
			!strings.Contains(stderr.String(), "postgres://") || strings.Contains(stderr.String(), "hunter2") {
			t.Fatalf("%s: exit %d\n%s", db, code, stderr.String())
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) > 0 {
		t.Fatalf("a refused start left %s behind", entries[0].Name())
	}
}

func TestMigrateOnAFreshSQLiteFile(t *testing.T) {
	clearEnv(t)
	var out bytes.Buffer
	db := "sqlite://" + t.TempDir() + "/m.db"
	if code := cli(t.Context(), []string{"migrate", "--database-url", db}, &out, &out); code != 0 {
		t.Fatalf("migrate: %d\n%s", code, out.String())
	}
	if code := cli(t.Context(), []string{"migrate", "--database-url", db}, &out, &out); code != 0 {
		t.Fatalf("second migrate is not a no-op: %d\n%s", code, out.String())
	}
}

// lockedBuffer is written by the server goroutine and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe runs `switchboard serve args...` until the test ends and returns what it
// printed once it has printed wantLines lines.
func startServe(t *testing.T, wantLines int, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() { done <- cli(ctx, append([]string{"serve"}, args...), &stdout, &stderr) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d after SIGTERM\n%s", code, stderr.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(stdout.String(), "\n") < wantLines {
		select {
		case code := <-done:
			done <- code
			t.Fatalf("serve exited %d\n%s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve printed %q in 30 s\n%s", stdout.String(), stderr.String())
		}
	}
	return stdout.String()
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The printed console URL is the one that reaches the listener (--addr wins over the
// environment, port 0 is resolved); metrics are served on their own listener only; the
// health check of the Docker image finds the server from SWITCHBOARD_ADDR.
func TestServePrintsTheListenersURL(t *testing.T) {
	clearEnv(t)
	t.Setenv("SWITCHBOARD_ADDR", "127.0.0.1:1") // overridden by --addr
	t.Setenv("SWITCHBOARD_METRICS_ADDR", "127.0.0.1:0")
	t.Setenv("SWITCHBOARD_LOG_LEVEL", "warn")
	out := startServe(t, 3, "--addr", "127.0.0.1:0", "--database-url", "sqlite://"+t.TempDir()+"/sb.db")

	m := regexp.MustCompile(`listening on 127\.0\.0\.1:(\d+)\nConsole: http://127\.0\.0\.1:(\d+)/user/api\nMetrics: (http://127\.0\.0\.1:\d+)/metrics\n`).FindStringSubmatch(out)
	if m == nil || m[1] != m[2] || m[1] == "0" {
		t.Fatalf("printed:\n%s", out)
	}
	base := "http://127.0.0.1:" + m[1]
	if code, body := get(t, base+"/user/api"); code != 200 && code != 503 { // 503: console not built
		t.Fatalf("console: %d %.200s", code, body)
	}
	get(t, base+"/api/v1/models")
	if code, _ := get(t, base+"/metrics"); code != 404 {
		t.Fatalf("/metrics on the public port: %d", code)
	}
	if code, body := get(t, m[3]+"/metrics"); code != 200 || !strings.Contains(body, `switchboard_http_requests_total{code="401",method="GET",surface="api"} 1`) {
		t.Fatalf("metrics listener: %d\n%.500s", code, body)
	}

	t.Setenv("SWITCHBOARD_ADDR", "127.0.0.1:"+m[1])
	var stdout, stderr bytes.Buffer
	if code := cli(t.Context(), []string{"healthcheck"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "ready") {
		t.Fatalf("healthcheck: %d %s %s", code, stdout.String(), stderr.String())
	}
}

func TestServePrintsAnExplicitBaseURL(t *testing.T) {
	clearEnv(t)
	t.Setenv("SWITCHBOARD_BASE_URL", "https://sb.example.com/")
	t.Setenv("SWITCHBOARD_LOG_LEVEL", "warn")
	out := startServe(t, 2, "--addr", "127.0.0.1:0", "--database-url", "sqlite://"+t.TempDir()+"/sb.db")
	if !strings.Contains(out, "\nConsole: https://sb.example.com/user/api\n") || strings.Contains(out, "Metrics:") {
		t.Fatalf("printed:\n%s", out)
	}
}

func TestHealthcheck(t *testing.T) {
	clearEnv(t)
	status := http.StatusServiceUnavailable
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"status":"…"}`))
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	if code := cli(t.Context(), []string{"healthcheck", "--url", srv.URL + "/readyz"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "503") {
		t.Fatalf("not ready: exit %d %s", code, stderr.String())
	}
	// The server's address alone asks its /readyz, not the console's page.
	for _, u := range []string{srv.URL, srv.URL + "/"} {
		if code := cli(t.Context(), []string{"healthcheck", "--url", u}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "503") {
			t.Fatalf("not ready, --url %s: exit %d %s", u, code, stderr.String())
		}
	}
	status = http.StatusOK
	if code := cli(t.Context(), []string{"healthcheck", "--url", srv.URL + "/readyz"}, &stdout, &stderr); code != 0 {
		t.Fatalf("ready: exit %d %s", code, stderr.String())
	}
	// Nothing listening: a failure, not a hang.
	t.Setenv("SWITCHBOARD_ADDR", "127.0.0.1:1")
	if code := cli(t.Context(), []string{"healthcheck"}, &stdout, &stderr); code != 1 {
		t.Fatalf("nothing listening: exit %d", code)
	}
}

// The mistakes of an operator's walk-through stop the start before the database is opened
// (no SQLite file appears; a PostgreSQL database would get no tables), naming the variable.
func TestConfigMistakesStopTheStartBeforeTheDatabase(t *testing.T) {
	for _, c := range []struct{ env, value string }{
		{"SWITCHBOARD_WEBHOOK_ALLOWLIST", "nothost/x"},
		{"SWITCHBOARD_MODELS_FILE", "/nope.json"},
		{"SWITCHBOARD_ADDR", "127.0.0.1:99999"},
		{"SWITCHBOARD_PPROF_ADDR", "0.0.0.0:0"},
		{"SWITCHBOARD_GEOIP_FILE", "/nope.mmdb"},
		{"SWITCHBOARD_MEDIA_STORE", "ftp://files.example.com/media"},
	} {
		t.Run(c.env, func(t *testing.T) {
			clearEnv(t)
			t.Setenv("SWITCHBOARD_ADDR", "127.0.0.1:0")
			t.Setenv("SWITCHBOARD_LOG_LEVEL", "error")
			t.Setenv(c.env, c.value)
			dir := t.TempDir()
			// Were the start to get through, it would serve until this ends.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			var stdout, stderr bytes.Buffer
			code := cli(ctx, []string{"serve", "--database-url", "sqlite://" + dir + "/sb.db"}, &stdout, &stderr)
			if code != 1 || !strings.HasPrefix(stderr.String(), "switchboard: invalid configuration:\n  "+c.env) {
				t.Errorf("exit %d\n%s", code, stderr.String())
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("the database was touched before the refusal: %s", entries[0].Name())
			}
		})
	}
}

// migrate takes the lock a server holds on its SQLite database, as restore does: it refuses
// to change the schema under a live server.
func TestMigrateRefusesTheDatabaseOfALiveServer(t *testing.T) {
	clearEnv(t)
	t.Setenv("SWITCHBOARD_LOG_LEVEL", "warn")
	db := "sqlite://" + t.TempDir() + "/sb.db"
	startServe(t, 2, "--addr", "127.0.0.1:0", "--database-url", db)
	var stdout, stderr bytes.Buffer
	if code := cli(t.Context(), []string{"migrate", "--database-url", db}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "the database is in use") || !strings.Contains(stderr.String(), "stop it first") {
		t.Fatalf("migrate under a live server: exit %d\n%s", code, stderr.String())
	}
}

// A stop does not wait for a database that stopped answering: requests waiting on it are
// answered within the grace, and what is written after them waits a bounded time, so the
// process exits well before an orchestrator's hard kill, not when the database thaws.
func TestStopIsBoundedOnAFrozenDatabase(t *testing.T) {
	clearEnv(t)
	t.Setenv("SWITCHBOARD_LOG_LEVEL", "debug") // the stop's steps and their times, shown on failure
	old := shutdownGrace
	shutdownGrace = time.Second
	t.Cleanup(func() { shutdownGrace = old })
	u, err := url.Parse(storetest.URL(t, store.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	f := storetest.NewFreezer(t, u.Host)
	u.Host = f.Addr()
	defer f.Frozen.Store(false)

	ctx, stop := context.WithCancel(context.Background())
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- cli(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--database-url", u.String()}, &stdout, &stderr)
	}()
	m := regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(30 * time.Second); m.FindStringSubmatch(stdout.String()) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not serving after 30 s: %s %s", stdout.String(), stderr.String())
		}
	}
	base := "http://" + m.FindStringSubmatch(stdout.String())[1]
	if code, _ := get(t, base+"/l/warm"); code != 404 {
		t.Fatalf("a visit before the freeze: %d", code)
	}

	f.Frozen.Store(true)
	answered := make(chan int, 1)
	go func() {
		client := &http.Client{Timeout: 60 * time.Second}
		resp, err := client.Get(base + "/l/frozen") // a slug not cached: it needs the database
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	stop() // SIGTERM
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("serve still stopping 30 s after SIGTERM on a frozen database\n%s", stderr.String())
	}
	// The grace, then the writes after it (the buffered clicks get up to 10 s): well under
	// the 30 s above on a loaded machine (a test run with the race detector took 11.6 s).
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the stop took %v with a 1 s grace\n%s", took, stderr.String())
	}
	if code := <-answered; code != http.StatusServiceUnavailable && code != 0 {
		t.Errorf("the visit waiting on the frozen database was answered %d, want 503 (or cut off)", code)
	}
}
