// Command sbbench is an in-process variant of the load benchmark: it serves authenticated
// GET /api/v1/models from the real app and the same JSON from a bare net/http handler (the
// baseline), loads both with the same Go client and connection count on loopback in the same
// run, and prints requests per second, latency percentiles and the ratio. The reference
// figures come from scripts/bench-load.sh (`make bench`), which loads the real binary with
// wrk, an outside load generator; sbbench is handy for a CPU profile (-cpuprofile) of the
// app without building it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
)

func main() {
	conns := flag.Int("c", 32, "concurrent connections")
	dur := flag.Duration("d", 10*time.Second, "duration of each run")
	dbURL := flag.String("database-url", "", "database (default: a temporary SQLite file)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the switchboard run to this file")
	flag.Parse()
	profile = *cpuProfile
	if err := run(*conns, *dur, *dbURL); err != nil {
		fmt.Fprintln(os.Stderr, "sbbench:", err)
		os.Exit(1)
	}
}

func run(conns int, dur time.Duration, dbURL string) error {
	ctx := context.Background()
	if dbURL == "" {
		dir, err := os.MkdirTemp("", "sbbench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		dbURL = "sqlite://" + filepath.Join(dir, "bench.db")
	}
	cfg, err := app.FromEnv(func(string) string { return "" })
	if err != nil {
		return err
	}
	cfg.DatabaseURL = dbURL
	cfg.RateLimit, cfg.RateBurst = 1e9, 1e9 // measure the path, not the limiter refusing
	a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer a.Close()

	// A user, a workspace and a key, through the service as the console would.
	_, token, err := a.Service.Users.SignUp(ctx, service.SignUpInput{Email: "bench@example.com", Password: "benchmark password", Name: "Bench"}, service.ClientInfo{})
	if err != nil {
		return err
	}
	actor, err := a.Service.Users.Authenticate(ctx, token)
	if err != nil {
		return err
	}
	ws, err := a.Service.Workspaces.Ensure(ctx, actor)
	if err != nil {
		return err
	}
	actor.WorkspaceID = ws.ID
	_, secret, err := a.Service.Keys.Create(ctx, actor, service.CreateKeyInput{Name: "bench", Scopes: []string{string(domain.ScopeModelsRead)}})
	if err != nil {
		return err
	}

	appURL, stopApp, err := listen(a.Handler)
	if err != nil {
		return err
	}
	defer stopApp()

	// The baseline returns exactly the bytes the app returns.
	req, _ := http.NewRequest("GET", appURL+"/api/v1/models", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("app answered %d: %s", resp.StatusCode, body)
	}
	baseURL, stopBase, err := listen(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	if err != nil {
		return err
	}
	defer stopBase()

	fmt.Printf("GET /api/v1/models, %d connections, %s per run, database %s\n\n", conns, dur, a.Store.Dialect())
	warm := min(dur/5, 2*time.Second)
	load(baseURL+"/api/v1/models", "", conns, warm)
	base := load(baseURL+"/api/v1/models", "", conns, dur)
	load(appURL+"/api/v1/models", secret, conns, warm)
	q0 := a.Store.Queries()
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	sb := load(appURL+"/api/v1/models", secret, conns, dur)
	pprof.StopCPUProfile()
	queries := a.Store.Queries() - q0

	fmt.Printf("%-28s %10s %9s %9s %9s %7s\n", "target", "req/s", "p50", "p99", "max", "errors")
	for _, r := range []result{base, sb} {
		fmt.Printf("%-28s %10.0f %9s %9s %9s %7d\n", r.name, r.rps, r.p50, r.p99, r.max, r.errors)
	}
	fmt.Printf("\nratio switchboard/baseline: %.2f (in process; the target ≥ 0.85 is for scripts/bench-load.sh)\n", sb.rps/base.rps)
	fmt.Printf("database statements during the measured switchboard run: %d (%.4f per request)\n",
		queries, float64(queries)/float64(max(sb.n, 1)))
	return nil
}

var profile string

func listen(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

type result struct {
	name          string
	n, errors     int64
	rps           float64
	p50, p99, max time.Duration
}

// load sends requests from conns goroutines, each with its own keep-alive connection, for d.
func load(url, secret string, conns int, d time.Duration) result {
	name := "baseline (bare net/http)"
	if secret != "" {
		name = "switchboard (auth + limits)"
	}
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var n, errs atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 1<<14)
			req, _ := http.NewRequest("GET", url, nil)
			if secret != "" {
				req.Header.Set("Authorization", "Bearer "+secret)
			}
			for time.Now().Before(deadline) {
				t0 := time.Now()
				resp, err := client.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				if err != nil || resp.StatusCode != 200 {
					errs.Add(1)
					continue
				}
				local = append(local, time.Since(t0))
				n.Add(1)
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(float64(len(lat))*p))].Round(time.Microsecond)
	}
	return result{name: name, n: n.Load(), errors: errs.Load(), rps: float64(n.Load()) / elapsed.Seconds(),
		p50: pct(0.50), p99: pct(0.99), max: pct(1)}
}
