// Command sbrate measures latency at a fixed request rate (scripts/bench-links.sh runs it
// against GET /l/{slug} and the bare redirect of sbbaseline): it sends -rate GETs a second
// for -duration over a pool of -conns keep-alive connections and prints percentiles. With
// -body it POSTs that file's bytes as JSON instead (scripts/bench-hooks.sh, against
// /hooks/{token}: every request the same body, which is one new call each, as no
// Idempotency-Key is sent).
//
// It does what wrk2 does and wrk does not: requests follow a schedule (start + i/rate), and
// each latency is measured from the request's scheduled time, not from when a connection
// was free to send it. A stall therefore counts against every request that should have been
// sent during it (no coordinated omission). Redirects are not followed: a 302 is an answer.
//
// Like wrk it speaks just enough HTTP/1.1 itself (one prepared request, answers read up to
// their Content-Length), so that the load generator, which shares the machine's cores with
// the server, costs little CPU: about 22 µs a request on the machine of docs/benchmarks.md,
// mostly its write and read system calls.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
)

// chrome is a desktop browser's User-Agent: a visit the redirect counts (not a bot).
const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

type result struct {
	latency time.Duration // answer read − scheduled time
	lag     time.Duration // sent − scheduled time (the client's own delay)
	err     bool
}

func main() {
	target := flag.String("url", "", "the http:// URL to GET (or POST, with -body)")
	rate := flag.Int("rate", 1000, "requests per second")
	duration := flag.Duration("duration", 10*time.Second, "how long to send")
	conns := flag.Int("conns", 64, "keep-alive connections (one request in flight on each)")
	ua := flag.String("user-agent", chrome, "User-Agent header")
	want := flag.Int("status", http.StatusFound, "expected status; others are counted as errors")
	label := flag.String("label", "", "name printed with the figures")
	bodyFile := flag.String("body", "", "a file whose bytes each request POSTs as application/json (default: GET)")
	flag.Parse()
	u, err := url.Parse(*target)
	if err != nil || u.Scheme != "http" || *rate <= 0 || *conns <= 0 {
		fmt.Fprintln(os.Stderr, "sbrate: an http:// -url, a positive -rate and -conns are required")
		os.Exit(2)
	}
	req := []byte("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: " + *ua + "\r\n\r\n")
	if *bodyFile != "" {
		body, err := os.ReadFile(*bodyFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sbrate:", err)
			os.Exit(2)
		}
		req = append([]byte("POST "+u.RequestURI()+" HTTP/1.1\r\nHost: "+u.Host+"\r\nUser-Agent: "+*ua+
			"\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	}
	total := int(int64(*rate) * int64(*duration) / int64(time.Second))
	interval := time.Second / time.Duration(*rate)

	// Open the pool first, each connection answering one request, so that set-up is not in
	// the figures.
	workers := make([]*conn, *conns)
	for i := range workers {
		c := &conn{addr: u.Host, req: req, want: *want}
		if r := c.get(time.Now()); r.err {
			fmt.Fprintf(os.Stderr, "sbrate: first request on connection %d failed: %v\n", i, c.lastErr)
			os.Exit(1)
		}
		workers[i] = c
	}

	// The schedule is queued in full ahead of need, so the sender never blocks on busy
	// connections: when they fall behind, requests wait in the queue and their waiting counts.
	due := make(chan time.Time, total)
	results := make([][]result, *conns)
	var wg sync.WaitGroup
	for w, c := range workers {
		wg.Go(func() {
			out := make([]result, 0, total / *conns + 1)
			for sched := range due {
				out = append(out, c.get(sched))
			}
			results[w] = out
		})
	}
	start := time.Now().Add(10 * time.Millisecond)
	for i := 0; i < total; {
		now := time.Now()
		for ; i < total; i++ {
			sched := start.Add(time.Duration(i) * interval)
			if sched.After(now) {
				break
			}
			due <- sched
		}
		if i < total {
			time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		}
	}
	close(due)
	elapsed := time.Since(start)
	wg.Wait()

	var lat, lag []time.Duration
	errs := 0
	for _, rs := range results {
		for _, r := range rs {
			if r.err {
				errs++
				continue
			}
			lat = append(lat, r.latency)
			lag = append(lag, r.lag)
		}
	}
	if len(lat) == 0 {
		fmt.Fprintln(os.Stderr, "sbrate: no successful request")
		os.Exit(1)
	}
	name := *label
	if name == "" {
		name = *target
	}
	fmt.Printf("%s: %d requests at %d/s over %s (%d conns), %d errors; latency from scheduled time: p50 %s p90 %s p99 %s p99.9 %s max %s; client send lag p99 %s\n",
		name, len(lat)+errs, *rate, elapsed.Round(time.Millisecond), *conns, errs,
		pct(lat, 50), pct(lat, 90), pct(lat, 99), pct(lat, 99.9), pct(lat, 100), pct(lag, 99))
	if errs > 0 {
		for _, c := range workers {
			if c.lastErr != nil {
				fmt.Fprintln(os.Stderr, "sbrate: for example:", c.lastErr)
				break
			}
		}
		os.Exit(1)
	}
}

// conn is one keep-alive connection, redialled when the server closes it.
type conn struct {
	addr    string
	req     []byte
	want    int
	c       net.Conn
	r       *bufio.Reader
	lastErr error
}

// get sends the request scheduled at sched and reads the answer.
func (c *conn) get(sched time.Time) result {
	sent := time.Now()
	keep, err := c.roundTrip()
	if err != nil {
		c.lastErr = err
		c.close()
		return result{err: true}
	}
	done := time.Now()
	if !keep {
		c.close()
	}
	return result{latency: done.Sub(sched), lag: sent.Sub(sched)}
}

func (c *conn) close() {
	if c.c != nil {
		_ = c.c.Close()
		c.c = nil
	}
}

// roundTrip writes the request and reads one answer: status line, headers, and a body of
// Content-Length bytes. It reports whether the connection stays open.
func (c *conn) roundTrip() (keep bool, err error) {
	if c.c == nil {
		if c.c, err = net.Dial("tcp", c.addr); err != nil {
			return false, err
		}
		c.r = bufio.NewReaderSize(c.c, 4096)
	}
	if _, err := c.c.Write(c.req); err != nil {
		return false, err
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return false, err
	}
	// "HTTP/1.1 302 Found\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return false, fmt.Errorf("bad status line %q", line)
	}
	status, _ := strconv.Atoi(string(line[9:12]))
	length, keep := 0, true
	for {
		h, err := c.r.ReadSlice('\n')
		if err != nil {
			return false, err
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			break
		}
		name, value, _ := bytes.Cut(h, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return false, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			return false, errors.New("chunked answers are not supported")
		case bytes.EqualFold(name, []byte("Connection")) && bytes.EqualFold(value, []byte("close")):
			keep = false
		}
	}
	if _, err := c.r.Discard(length); err != nil {
		return false, err
	}
	if status != c.want {
		return keep, fmt.Errorf("status %d, want %d", status, c.want)
	}
	return keep, nil
}

// pct is the p-th percentile of ds (nearest rank), in µs precision.
func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(min(i, len(s)-1), 0)].Round(time.Microsecond)
}
