// Command switchboard runs the Switchboard service: REST API, GraphQL, console, webhooks.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
	// The IANA time zones, built in (about 450 KB): link stats take a caller's zone, and a
	// host or image without /usr/share/zoneinfo (scratch, a slim distribution, Windows) must
	// know them too. The system's copy, when there is one, is read first.
	_ "time/tzdata"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// defaultGCPercent is the binary's GOGC when the environment sets none (see serve).
const defaultGCPercent = 400

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// usageError is a mistake on the command line (an unknown flag or command): it is reported
// once, with a hint instead of the whole usage, and the exit status is 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

// errHelpShown ends a command whose --help was printed.
var errHelpShown = errors.New("help shown")

// cli runs a command line and returns the exit status: 0, 1 for a failure, 2 for a usage
// mistake.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := run(ctx, args, stdout, stderr)
	var usage usageError
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "switchboard: %v\nRun 'switchboard --help' for usage.\n", usage.err)
		return 2
	default:
		fmt.Fprintln(stderr, "switchboard:", err)
		return 1
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 {
		switch args[0] {
		case "--version", "-version", "-v":
			cmd, args = "version", args[1:]
		case "--help", "-help", "-h":
			cmd, args = "help", args[1:]
		default:
			if !strings.HasPrefix(args[0], "-") {
				cmd, args = args[0], args[1:]
			}
		}
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, stdout, stderr)
	case "migrate":
		return migrate(ctx, args, stdout, stderr)
	case "healthcheck":
		return healthcheck(ctx, args, stdout)
	case "backup":
		return backup(ctx, args, stdout)
	case "restore":
		return restore(ctx, args, stdout)
	case "version":
		if len(args) > 0 {
			return usageError{fmt.Errorf("version takes no arguments (got %q)", args[0])}
		}
		fmt.Fprintln(stdout, "switchboard", version)
		return nil
	case "help":
		usage(stdout)
		return nil
	}
	return usageError{fmt.Errorf("unknown command %q", cmd)}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Switchboard: messaging channels, short links and automation behind one API.

Usage:
  switchboard serve [flags]     run the service (the default command)
  switchboard migrate [flags]   apply database migrations and exit
  switchboard backup FILE       copy the SQLite database to FILE while the server runs
                                (--force replaces FILE; PostgreSQL: prints the pg_dump recipe)
  switchboard restore FILE      replace the SQLite database with the backup FILE (server stopped)
  switchboard healthcheck       exit 0 when the local server's /readyz answers 200 (for Docker)
  switchboard version           print the version (also --version, -v)

Flags (serve, migrate; backup and restore take --database-url):
  --addr          listen address            ($SWITCHBOARD_ADDR)
  --database-url  database connection URL   ($DATABASE_URL)
  --base-url      public origin             ($SWITCHBOARD_BASE_URL)
  --models-file   model catalog JSON file   ($SWITCHBOARD_MODELS_FILE)

Environment (a flag wins over its variable):
`)
	for _, s := range app.Settings {
		def := s.Default
		if def == "" {
			def = "empty"
		}
		fmt.Fprintf(w, "  %s (default %s)\n      %s\n", s.Env, def, s.Help)
	}
}

// config parses the flags, then reads the environment with the flags in place of their
// variables, so that one check (app.Config.Validate) covers both. baseURLSet reports whether
// the base URL was given (otherwise serve derives it from the listener).
func config(name string, args []string, stdout io.Writer) (cfg app.Config, baseURLSet bool, err error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by cli
	flags := map[string]*string{}
	for _, s := range app.Settings {
		if s.Flag != "" {
			flags[s.Env] = fs.String(s.Flag, "", s.Help)
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout)
			return cfg, false, errHelpShown
		}
		return cfg, false, usageError{err}
	}
	if fs.NArg() > 0 {
		return cfg, false, usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	getenv := func(env string) string {
		if f, ok := flags[env]; ok && *f != "" {
			return *f
		}
		return os.Getenv(env)
	}
	cfg, err = app.FromEnv(getenv)
	if err != nil {
		return cfg, false, fmt.Errorf("invalid configuration:\n  %s", strings.ReplaceAll(err.Error(), "\n", "\n  "))
	}
	return cfg, strings.TrimSpace(getenv("SWITCHBOARD_BASE_URL")) != "", nil
}

func logger(cfg app.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel)) // checked by Validate
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
	}
	// slog's JSON handler, with a direct path for the access log's lines (same output).
	return slog.New(httpx.NewJSONHandler(w, level))
}

func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, _, err := config("migrate", args, stdout)
	if err != nil {
		return err
	}
	// The lock a server and a restore hold on an SQLite database: migrating under either
	// would change the schema beneath them.
	unlock, err := store.LockForServe(cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("DATABASE_URL (--database-url): %w", err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	logger(cfg, stderr).Info("migrations applied", "database", string(st.Dialect()))
	return nil
}

// serve runs the service until ctx is cancelled (SIGTERM or SIGINT), then shuts down
// gracefully.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, baseURLSet, err := config("serve", args, stdout)
	if err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		// The live heap is small (about 15 MB) but each collection also scans large package
		// data (the embedded SQLite, the GraphQL schema) and every goroutine's stack, so at
		// Go's default (collect when the heap doubles) the API spent about a third of its CPU
		// in the collector under load. Collecting at 5× the live heap costs some tens of MB
		// and most of that CPU back. GOGC (and GOMEMLIMIT) set by the operator win.
		debug.SetGCPercent(defaultGCPercent)
	}
	// Log lines (one per request) are written in batches, not one system call each; Close
	// writes the last ones when serve returns, after in-flight requests have finished.
	logs := httpx.NewLogWriter(stderr)
	defer logs.Close()
	log := logger(cfg, logs)
	servePprof(log)

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	if !baseURLSet {
		// The URL that reaches this listener (the port may be 0, the flag may differ from
		// the environment): printed, and the console's own origin.
		cfg.BaseURL = app.BaseURLFor(ln.Addr().String())
	}
	var metricsLn net.Listener
	if cfg.MetricsAddr != "" {
		if metricsLn, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			ln.Close()
			return fmt.Errorf("SWITCHBOARD_METRICS_ADDR: %w", err)
		}
	}
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		ln.Close()
		if metricsLn != nil {
			metricsLn.Close()
		}
		return err
	}
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	srv := &http.Server{
		Handler:           a.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		// Requests do not inherit the signal context: on SIGTERM in-flight requests finish;
		// long-lived ones (websockets, which Shutdown does not track) end when base is cancelled.
		BaseContext: func(net.Listener) context.Context { return base },
	}
	fmt.Fprintf(stdout, "Switchboard %s listening on %s\nConsole: %s/user/api\n", version, ln.Addr(), cfg.BaseURL)

	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	var metricsSrv *http.Server
	if metricsLn != nil {
		metricsSrv = &http.Server{Handler: a.MetricsHandler(), ReadHeaderTimeout: 10 * time.Second}
		fmt.Fprintf(stdout, "Metrics: %s/metrics\n", app.BaseURLFor(metricsLn.Addr().String()))
		go func() { errc <- metricsSrv.Serve(metricsLn) }()
	}
	select {
	case err := <-errc:
		srv.Close()
		if metricsSrv != nil {
			metricsSrv.Close()
		}
		a.Close()
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests")
	// A database that stopped answering must not hold the stop for ever: no statement waits
	// longer than the requests' grace, and what is written after them (clicks, key use
	// times, job outcomes) waits at most closeStatementTimeout a statement.
	if t := a.Store.StatementTimeout(); t == 0 || t > shutdownGrace {
		a.Store.SetStatementTimeout(shutdownGrace)
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	cancelBase()
	if metricsSrv != nil {
		metricsSrv.Close() // after the main server, so a last scrape can see the drain
	}
	a.Store.SetStatementTimeout(closeStatementTimeout)
	a.Close()
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: requests still running after %v were cut off (their clients get no answer)", shutdownGrace)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// shutdownGrace is how long in-flight requests get to finish on SIGTERM (a variable for
// tests); closeStatementTimeout bounds each database statement of the writes after them.
var shutdownGrace = 20 * time.Second

const closeStatementTimeout = 2 * time.Second

// healthcheck asks the local server's /readyz and succeeds on 200. The image has no shell or
// curl, so Docker's HEALTHCHECK runs this. The address comes from SWITCHBOARD_ADDR (a
// wildcard host is reached on 127.0.0.1), or --url (a URL without a path gets /readyz).
func healthcheck(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	target := fs.String("url", "", "URL to check (default: /readyz on SWITCHBOARD_ADDR)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "Usage: switchboard healthcheck [--url http://127.0.0.1:8080/readyz]")
			return errHelpShown
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if *target == "" {
		addr := os.Getenv("SWITCHBOARD_ADDR")
		if addr == "" {
			addr = app.DefaultAddr
		}
		*target = strings.Replace(app.BaseURLFor(addr), "//localhost:", "//127.0.0.1:", 1) + "/readyz"
	}
	// A server's address (no path) means its /readyz: the console's page would answer 200
	// whatever the database does.
	if u, err := url.Parse(*target); err == nil && (u.Path == "" || u.Path == "/") {
		u.Path = "/readyz"
		*target = u.String()
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *target, nil)
	if err != nil {
		return usageError{err}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("not ready: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("not ready: %s answered %d %s", *target, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	fmt.Fprintf(stdout, "%s\n", strings.TrimSpace(string(body)))
	return nil
}
