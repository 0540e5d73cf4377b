// Command sbbaseline is the baseline of the load benchmark (scripts/bench-load.sh): a bare
// net/http server that answers every request with the same bytes, as fast as Go's HTTP server
// can. The script serves it the exact body bin/switchboard answered GET /api/v1/models with,
// so the two differ only by what Switchboard does per request.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	bodyFile := flag.String("body", "", "file holding the response body")
	contentType := flag.String("content-type", "application/json", "Content-Type of the response")
	flag.Parse()
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sbbaseline:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sbbaseline:", err)
		os.Exit(1)
	}
	fmt.Printf("sbbaseline listening on %s\n", ln.Addr())
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", *contentType)
		_, _ = w.Write(body)
	}))
}
