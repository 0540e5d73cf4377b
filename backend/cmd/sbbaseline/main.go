// Command sbbaseline is the baseline of the load benchmark (scripts/bench-load.sh): a bare
// net/http server that answers every request with the same bytes, as fast as Go's HTTP server
// can. The script serves it the exact body bin/switchboard answered GET /api/v1/models with,
// so the two differ only by what Switchboard does per request.
//
// With -database-url it is the baseline of the send benchmark (scripts/bench-messages.sh):
// every POST commits one row in its own PostgreSQL transaction before answering 202, the
// floor of "accepted durably" on this database, without anything Switchboard adds.
//
// With -redirect it is the baseline of the short-link benchmark (scripts/bench-links.sh):
// every request is answered 302 Found to that location with the headers the redirect of
// GET /l/{slug} sends (Location, Cache-Control: private, max-age=0, X-Robots-Tag: noindex)
// and no body, as Switchboard answers it.
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	_ "github.com/lib/pq"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	bodyFile := flag.String("body", "", "file holding the response body")
	contentType := flag.String("content-type", "application/json", "Content-Type of the response")
	dbURL := flag.String("database-url", "", "PostgreSQL URL: commit one row per POST before answering")
	redirect := flag.String("redirect", "", "answer every request 302 Found to this location (no -body needed)")
	flag.Parse()
	if *redirect != "" {
		serve(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Cache-Control", "private, max-age=0")
			h.Set("X-Robots-Tag", "noindex")
			h.Set("Location", *redirect)
			w.WriteHeader(http.StatusFound)
		}))
		return
	}
	var db *sql.DB
	if *dbURL != "" {
		var err error
		if db, err = openScratch(*dbURL); err != nil {
			fmt.Fprintln(os.Stderr, "sbbaseline:", err)
			os.Exit(1)
		}
	}
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sbbaseline:", err)
		os.Exit(1)
	}
	serve(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", *contentType)
		if db != nil && r.Method == http.MethodPost {
			in, _ := io.ReadAll(r.Body)
			if _, err := db.ExecContext(r.Context(), `INSERT INTO sbbaseline_rows (body) VALUES ($1)`, string(in)); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusAccepted)
		}
		_, _ = w.Write(body)
	}))
}

// serve answers on addr with h until the process ends.
func serve(addr string, h http.Handler) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sbbaseline:", err)
		os.Exit(1)
	}
	fmt.Printf("sbbaseline listening on %s\n", ln.Addr())
	_ = http.Serve(ln, h)
}

// openScratch connects (with the pool size and one-round-trip statements Switchboard
// uses) and creates the table the POSTs write to.
func openScratch(url string) (*sql.DB, error) {
	db, err := sql.Open("postgres", url+"&binary_parameters=yes")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(10)
	_, err = db.Exec(`CREATE TABLE IF NOT EXISTS sbbaseline_rows (id BIGSERIAL PRIMARY KEY, body TEXT NOT NULL)`)
	return db, err
}
