// Command sbsoak is `make soak`: it drives mixed traffic across every surface of the real
// binary (the models and events APIs, GraphQL queries and mutations, message sends between
// two sandbox instances, short-link redirects, inbound publications to an automation
// endpoint), with a signed webhook endpoint verified by an in-process receiver and a live
// GraphQL subscription, for -seconds against a PostgreSQL server of its own. A third of
// the way in it restarts the database (fast), two thirds in it stops it for -stop and
// starts it again. At the end it compares the event log with what the webhook receiver
// and the subscription got, every accepted send, click and publication with what the
// server stored, and prints requests, losses, 5xx outside outages, recovery per fault and
// the process's memory at the start, the 2-minute mark and the end. It exits 1 when a
// target is missed:
//
//   - nothing lost, nothing duplicated (webhooks, subscription, sends, clicks, publications);
//   - no 5xx (nor a request left unanswered) outside the outages;
//   - every failed answer during an outage an honest 503 with Retry-After (GraphQL: UNAVAILABLE);
//   - every surface answering again within 5 s of the database's return;
//   - resident memory and heap at the end within 25% of the 2-minute mark.
//
// A request is "in an outage" when it overlaps the time from the fault's start to its
// surface's first success after the database came back, plus -slack.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/backend/pgserver"
)

type config struct {
	bin          string
	seconds      int
	rate         float64
	stopFor      time.Duration
	slack        time.Duration
	mutateEvery  time.Duration
	maxInflight  int
	keep         bool
	recoveryGoal time.Duration
	memoryGoal   float64
}

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "../bin/switchboard", "the switchboard binary (make build)")
	flag.IntVar(&c.seconds, "seconds", 600, "how long the traffic runs, in seconds (make soak: SOAK_SECONDS)")
	flag.Float64Var(&c.rate, "rate", 120, "requests per second in all, shared by the surfaces")
	flag.DurationVar(&c.stopFor, "stop", 10*time.Second, "how long the database stays stopped in the second fault")
	flag.DurationVar(&c.slack, "slack", time.Second, "how long after a surface's first success an outage still covers its requests")
	flag.DurationVar(&c.mutateEvery, "mutate-every", 3*time.Second, "interval of the GraphQL mutations (webhook create/delete, key create)")
	flag.IntVar(&c.maxInflight, "max-inflight", 1024, "requests in flight at most (beyond, scheduled requests are skipped and counted)")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary directory (database, server log) for inspection")
	flag.Parse()
	c.recoveryGoal, c.memoryGoal = 5*time.Second, 0.25
	if c.seconds < 30 || c.rate <= 0 {
		fmt.Fprintln(os.Stderr, "sbsoak: -seconds must be at least 30 and -rate positive")
		os.Exit(2)
	}
	bin, err := filepath.Abs(c.bin)
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sbsoak: the binary %s: %v (run make build)\n", c.bin, err)
		os.Exit(2)
	}
	c.bin = bin
	os.Exit(run(c))
}

// run does the whole soak and returns the exit status.
func run(c config) int {
	dir, err := os.MkdirTemp("", "sbsoak-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "sbsoak:", err)
		return 2
	}
	_ = os.Chmod(dir, 0o755) // the database's user (postgres, under root) must reach its directory
	var cleanups []func()
	cleanup := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
		cleanups = nil
		if c.keep {
			fmt.Printf("kept %s (database in pg/, server log switchboard.log)\n", dir)
		} else {
			_ = os.RemoveAll(dir)
		}
	}
	defer cleanup()
	// Ctrl-C: stop what was started, then go.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		fmt.Fprintln(os.Stderr, "sbsoak: interrupted, cleaning up")
		cleanup()
		os.Exit(130)
	}()
	logf := func(format string, args ...any) {
		fmt.Printf("[%s] %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
	}
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "sbsoak:", err)
		return 2
	}

	pgDir := filepath.Join(dir, "pg")
	if err := os.Mkdir(pgDir, 0o700); err != nil {
		return fail(err)
	}
	pg, err := pgserver.Start(pgDir, "max_connections=200")
	if err != nil {
		return fail(err)
	}
	cleanups = append(cleanups, pg.Kill)
	logf("PostgreSQL %s at %s", pg.Version(), pg.URL())
	srv, err := startServer(c.bin, dir, pg.URL())
	if err != nil {
		return fail(err)
	}
	cleanups = append(cleanups, srv.stop)
	logf("switchboard at %s (pid %d), metrics at %s", srv.base, srv.cmd.Process.Pid, srv.metrics)

	rec := &recorder{}
	s := &soak{api: newAPI(srv.base, rec), inflight: make(chan struct{}, c.maxInflight),
		sendsOK: map[string]sendInfo{}, pubsOK: map[string]int64{}, pubsFailed: map[int64]bool{},
		churnFailed: map[string]bool{}, keysFailed: map[string]bool{}}
	rc, err := newHookReceiver()
	if err != nil {
		return fail(err)
	}
	s.rc = rc
	cleanups = append(cleanups, rc.close)
	baseline, err := s.setup(srv, logf)
	if s.sub != nil {
		cleanups = append(cleanups, func() {
			if !s.sub.isStopped() {
				s.sub.stop()
			}
		})
	}
	if err != nil {
		return fail(fmt.Errorf("set-up: %w", err))
	}

	// Traffic, faults and memory marks.
	total := time.Duration(c.seconds) * time.Second
	refMark := min(2*time.Minute, total/4)
	mems := []memory{sampleMemory(srv.metrics, "start", 0, 3, 500*time.Millisecond)}
	ctx, stop := context.WithTimeout(context.Background(), total)
	defer stop()
	began := time.Now()
	logf("traffic: %.0f requests/s for %s; restart at %s, stop for %s at %s; memory reference at %s",
		c.rate, total, total/3, c.stopFor, 2*total/3, refMark)
	trafficDone := make(chan struct{})
	go func() { s.run(ctx, c.rate, c.mutateEvery); close(trafficDone) }()

	memDone := make(chan []memory)
	go func() {
		var out []memory
		time.Sleep(time.Until(began.Add(refMark)))
		out = append(out, sampleMemory(srv.metrics, "reference", refMark, 10, time.Second))
		end := total - 11*time.Second
		time.Sleep(time.Until(began.Add(end)))
		out = append(out, sampleMemory(srv.metrics, "end", end, 10, time.Second))
		memDone <- out
	}()

	var faults []*fault
	faultErr := make(chan error, 1)
	go func() {
		defer close(faultErr)
		time.Sleep(time.Until(began.Add(total / 3)))
		f := &fault{name: "restart (fast)", start: time.Now()}
		logf("fault 1: pg_ctl restart -m fast")
		if err := pg.Restart(); err != nil {
			faultErr <- err
			return
		}
		f.back = time.Now()
		logf("fault 1: database back after %s", f.back.Sub(f.start).Round(time.Millisecond))
		faults = append(faults, f)

		time.Sleep(time.Until(began.Add(2 * total / 3)))
		f = &fault{name: fmt.Sprintf("stop %s, start", c.stopFor), start: time.Now()}
		logf("fault 2: pg_ctl stop -m fast")
		if err := pg.Stop(); err != nil {
			faultErr <- err
			return
		}
		time.Sleep(c.stopFor)
		logf("fault 2: pg_ctl start")
		if err := pg.Start(); err != nil {
			faultErr <- err
			return
		}
		f.back = time.Now()
		logf("fault 2: database back after %s", f.back.Sub(f.start).Round(time.Millisecond))
		faults = append(faults, f)
	}()
	for err := range faultErr {
		stop()
		<-trafficDone
		return fail(fmt.Errorf("fault injection: %w", err))
	}
	<-trafficDone
	trafficEnded := time.Now()
	mems = append(mems, <-memDone...)
	logf("traffic over: %d requests; draining the queues", len(rec.snapshot()))
	if srv.exited() {
		return fail(fmt.Errorf("switchboard exited during the soak; see %s (use -keep)", srv.logPath))
	}

	// Drain: the job queues empty, the click buffer written, then the event log read and
	// the deliveries awaited.
	drained, left := drain(srv.metrics, 60*time.Second)
	var stuck []string
	if drained < 0 {
		logf("queues not drained after 60 s: %s", strings.Join(left, "; "))
		stuck = stuckJobs(pg.URL())
	}
	time.Sleep(2 * time.Second)
	v, err := s.verify(baseline, 30*time.Second)
	if err != nil {
		return fail(fmt.Errorf("checks: %w", err))
	}
	mems = append(mems, sampleMemory(srv.metrics, "after drain", time.Since(began), 3, 500*time.Millisecond))
	finalMetrics, _ := scrape(srv.metrics)

	rep := &report{cfg: c, recs: rec.snapshot(), faults: faults, mems: mems, v: v, began: began,
		ended: trafficEnded, drained: drained, skipped: s.skipped.Load(), metrics: finalMetrics, pgVersion: pg.Version(), left: left, stuck: stuck}
	rep.serverLog = scanLog(srv.logPath)
	ok := rep.print(os.Stdout)
	if !ok {
		return 1
	}
	return 0
}

type fault struct {
	name        string
	start, back time.Time
}

// drain waits until no job is queued or running (the metrics read the shared table); it
// returns how long that took (-1: not within), and the jobs left by kind.
func drain(url string, within time.Duration) (time.Duration, []string) {
	t0 := time.Now()
	var left []string
	for time.Since(t0) < within {
		m, err := scrape(url)
		// The retention job is always queued for its next run: it is not work left over.
		queued := m["switchboard_jobs_queued"] - m[`switchboard_jobs_queued{kind="retention.prune"}`]
		if err == nil && queued == 0 && m["switchboard_jobs_running"] == 0 {
			return time.Since(t0), nil
		}
		if err == nil {
			left = nil
			for _, st := range []string{"queued", "running"} {
				for _, x := range nonZero(m, "switchboard_jobs_"+st) {
					if !(st == "queued" && strings.HasPrefix(x, `{kind="retention.prune"}`)) {
						left = append(left, st+" "+x)
					}
				}
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	return -1, left
}

func jsonInto(raw []byte, out any) error { return json.Unmarshal(raw, out) }

// logFindings sums up the server's log: requests answered 500, and the ERROR and WARN
// lines by message (the 503s of the outages, logged as "request failed", apart).
type logFindings struct {
	lines500, logged503 int
	byMsg               map[string]int // "ERROR claim jobs" → count
	examples            []string       // 500s and ERROR lines other than the outages' 503s
}

func scanLog(path string) logFindings {
	f := logFindings{byMsg: map[string]int{}}
	raw, err := os.ReadFile(path)
	if err != nil {
		return f
	}
	for _, line := range strings.Split(string(raw), "\n") {
		var l struct {
			Level  string `json:"level"`
			Msg    string `json:"msg"`
			Status int    `json:"status"`
		}
		if json.Unmarshal([]byte(line), &l) != nil {
			continue
		}
		switch {
		case l.Status == 500:
			f.lines500++
		case l.Status == 503 && l.Msg == "request failed":
			f.logged503++
			continue
		case l.Level == "ERROR" || l.Level == "WARN":
		default:
			continue
		}
		f.byMsg[l.Level+" "+l.Msg]++
		if len(f.examples) < 6 && (l.Status == 500 || (l.Level == "ERROR" && f.byMsg[l.Level+" "+l.Msg] == 1)) {
			if len(line) > 400 {
				line = line[:400] + "…"
			}
			f.examples = append(f.examples, line)
		}
	}
	return f
}
