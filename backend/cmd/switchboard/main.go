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
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// defaultGCPercent is the binary's GOGC when the environment sets none (see serve).
const defaultGCPercent = 400

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stdout, stderr)
	case "migrate":
		return migrate(args, stderr)
	case "version":
		fmt.Fprintln(stdout, "switchboard", version)
		return nil
	case "help":
		usage(stdout)
		return nil
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q", cmd)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Switchboard: messaging channels, short links and automation behind one API.

Usage:
  switchboard serve [flags]     run the service (the default command)
  switchboard migrate [flags]   apply database migrations and exit
  switchboard version           print the version

Flags (serve, migrate):
  --addr          listen address            ($SWITCHBOARD_ADDR)
  --database-url  database connection URL   ($DATABASE_URL)
  --base-url      public origin             ($SWITCHBOARD_BASE_URL)
  --models-file   model catalog JSON file   ($SWITCHBOARD_MODELS_FILE)

Environment:
`)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, s := range app.Settings {
		def := s.Default
		if def == "" {
			def = "(empty)"
		}
		fmt.Fprintf(tw, "  %s\t%s\tdefault %s\n", s.Env, s.Help, def)
	}
	tw.Flush()
}

// config reads the environment, then lets flags override it.
func config(name string, args []string, stderr io.Writer) (app.Config, error) {
	cfg, err := app.FromEnv(os.Getenv)
	if err != nil {
		return cfg, err
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { usage(stderr) }
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address")
	fs.StringVar(&cfg.DatabaseURL, "database-url", cfg.DatabaseURL, "database connection URL")
	fs.StringVar(&cfg.BaseURL, "base-url", cfg.BaseURL, "public origin")
	fs.StringVar(&cfg.ModelsFile, "models-file", cfg.ModelsFile, "model catalog JSON file")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return cfg, nil
}

func logger(cfg app.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
	}
	// slog's JSON handler, with a direct path for the access log's lines (same output).
	return slog.New(httpx.NewJSONHandler(w, level))
}

func migrate(args []string, stderr io.Writer) error {
	cfg, err := config("migrate", args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	logger(cfg, stderr).Info("migrations applied", "database", string(st.Dialect()))
	return nil
}

func serve(args []string, stdout, stderr io.Writer) error {
	cfg, err := config("serve", args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil // usage was printed
	}
	if err != nil {
		return err
	}
	// Log lines (one per request) are written in batches, not one system call each; Close
	// writes the last ones when serve returns, after in-flight requests have finished.
	if os.Getenv("GOGC") == "" {
		// The live heap is small (about 15 MB) but each collection also scans large package
		// data (the embedded SQLite, the GraphQL schema) and every goroutine's stack, so at
		// Go's default (collect when the heap doubles) the API spent about a third of its CPU
		// in the collector under load. Collecting at 5× the live heap costs some tens of MB
		// and most of that CPU back. GOGC (and GOMEMLIMIT) set by the operator win.
		debug.SetGCPercent(defaultGCPercent)
	}
	logs := httpx.NewLogWriter(stderr)
	defer logs.Close()
	log := logger(cfg, logs)
	servePprof(log)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	a, err := app.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		a.Close()
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

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		a.Close()
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	cancelBase()
	a.Close()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}
