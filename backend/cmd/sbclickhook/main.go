// Command sbclickhook measures click → link.clicked webhook latency on a running Switchboard
// (scripts/bench-links.sh runs it; the server needs SWITCHBOARD_WEBHOOK_ALLOWLIST=127.0.0.1).
//
// It listens on loopback, registers a webhook for link.clicked pointing at itself, visits
// GET /l/{slug} -rate times a second for -duration with a browser User-Agent (each visit a
// counted click, numbered in its Referer), waits for every click's event, and prints
// percentiles of two latencies: arrival − the click's own data.click.timestamp (the server's
// clock when it answered the redirect, milliseconds), and arrival − when this tool sent the
// visit (matched by the number in data.click.referrer). The webhook is deleted at the end.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// chrome is a desktop browser's User-Agent: a visit the redirect counts (not a bot).
const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// refPrefix numbers the visits: the Referer of visit n is refPrefix + n.
const refPrefix = "https://bench.example/click/"

type event struct {
	Type string `json:"type"`
	Data struct {
		Click struct {
			ID        string    `json:"id"`
			Timestamp time.Time `json:"timestamp"`
			Referrer  *string   `json:"referrer"`
		} `json:"click"`
	} `json:"data"`
}

type receiver struct {
	mu      sync.Mutex
	seen    map[string]bool // click ids: a redelivery is counted once
	sent    map[int]time.Time
	fromTS  []time.Duration // arrival − data.click.timestamp
	fromReq []time.Duration // arrival − the visit's send time
	dups    int
	got     chan struct{} // a new click arrived
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	body, err := io.ReadAll(r.Body)
	var e event
	if err != nil || json.Unmarshal(body, &e) != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusOK)
	if e.Type != "link.clicked" {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.seen[e.Data.Click.ID] {
		rc.dups++
		return
	}
	rc.seen[e.Data.Click.ID] = true
	rc.fromTS = append(rc.fromTS, arrived.Sub(e.Data.Click.Timestamp))
	if ref := e.Data.Click.Referrer; ref != nil {
		if n, err := strconv.Atoi(strings.TrimPrefix(*ref, refPrefix)); err == nil {
			if t, ok := rc.sent[n]; ok {
				rc.fromReq = append(rc.fromReq, arrived.Sub(t))
			}
		}
	}
	select {
	case rc.got <- struct{}{}:
	default:
	}
}

func main() {
	base := flag.String("base", "", "Switchboard base URL")
	key := flag.String("key", "", "API key with webhooks:write")
	slug := flag.String("slug", "", "slug of the link to visit")
	rate := flag.Int("rate", 50, "visits per second")
	duration := flag.Duration("duration", 10*time.Second, "how long to visit")
	listen := flag.String("listen", "127.0.0.1:0", "where the receiver listens")
	wait := flag.Duration("wait", 60*time.Second, "how long to wait for the last events")
	flag.Parse()
	if *base == "" || *key == "" || *slug == "" || *rate <= 0 {
		fail(fmt.Errorf("-base, -key, -slug and a positive -rate are required"))
	}
	rc := &receiver{seen: map[string]bool{}, sent: map[int]time.Time{}, got: make(chan struct{}, 1)}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fail(err)
	}
	go func() { _ = http.Serve(ln, rc) }()

	api := &http.Client{Timeout: 10 * time.Second}
	var hook struct {
		ID string `json:"id"`
	}
	if err := call(api, "POST", *base+"/api/v1/webhooks", *key, map[string]any{
		"url": "http://" + ln.Addr().String() + "/hook", "event_types": []string{"link.clicked"},
		"description": "sbclickhook"}, &hook); err != nil {
		fail(err)
	}
	defer func() { _ = call(api, "DELETE", *base+"/api/v1/webhooks/"+hook.ID, *key, nil, nil) }()

	visits := &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	total := int(int64(*rate) * int64(*duration) / int64(time.Second))
	var wg sync.WaitGroup
	errs := make(chan error, total)
	tick := time.NewTicker(time.Second / time.Duration(*rate))
	for n := range total {
		<-tick.C
		req, _ := http.NewRequest("GET", *base+"/l/"+*slug, nil)
		req.Header.Set("User-Agent", chrome)
		req.Header.Set("Referer", refPrefix+strconv.Itoa(n))
		rc.mu.Lock()
		rc.sent[n] = time.Now()
		rc.mu.Unlock()
		wg.Go(func() {
			resp, err := visits.Do(req)
			if err != nil {
				errs <- err
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusFound {
				errs <- fmt.Errorf("GET /l/%s: %d", *slug, resp.StatusCode)
			}
		})
	}
	tick.Stop()
	wg.Wait()
	close(errs)
	for err := range errs {
		fail(err)
	}

	deadline := time.After(*wait)
	for {
		rc.mu.Lock()
		n := len(rc.fromTS)
		rc.mu.Unlock()
		if n >= total {
			break
		}
		select {
		case <-rc.got:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			fail(fmt.Errorf("%d of %d link.clicked events arrived within %s", n, total, *wait))
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	fmt.Printf("link.clicked webhooks: %d clicks at %d/s, %d events (%d redelivered); click timestamp → arrival: p50 %s p99 %s max %s; visit sent → arrival: p50 %s p99 %s max %s\n",
		total, *rate, len(rc.fromTS), rc.dups, pct(rc.fromTS, 50), pct(rc.fromTS, 99), pct(rc.fromTS, 100),
		pct(rc.fromReq, 50), pct(rc.fromReq, 99), pct(rc.fromReq, 100))
}

// call sends a JSON request with the key and decodes a JSON answer into out (when not nil).
func call(c *http.Client, method, url, key string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, raw)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// pct is the p-th percentile of ds (nearest rank), in milliseconds.
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(min(i, len(s))-1, 0)].Round(time.Millisecond)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sbclickhook:", err)
	os.Exit(1)
}
