package main

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
)

// servePprof serves Go's profiles on their own listener when SWITCHBOARD_PPROF_ADDR is set
// (for benchmarks: scripts/bench-load.sh sets it from PPROF_ADDR). Nothing is added to the
// public handler, and nothing listens when the variable is empty. Use a loopback address.
func servePprof(log *slog.Logger) {
	addr := os.Getenv("SWITCHBOARD_PPROF_ADDR")
	if addr == "" {
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Error("pprof: listen", "addr", addr, "err", err)
		return
	}
	runtime.SetMutexProfileFraction(100) // lock contention, sampled, only while profiling is on
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	log.Warn("pprof: serving profiles (SWITCHBOARD_PPROF_ADDR)", "addr", ln.Addr().String())
	go func() { _ = http.Serve(ln, mux) }()
}
