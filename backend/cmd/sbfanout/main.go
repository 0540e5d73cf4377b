// Command sbfanout benchmarks GraphQL subscription fan-out (part of `make bench`): it starts
// the real bin/switchboard, connects N websocket clients (graphql-transport-ws) subscribed to
// the workspace's events, then causes events at a steady pace and reports, per event, the
// latency from just before the change was requested to the moment the LAST client received
// it (p50/p99), and the server's resident memory per idle subscriber.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

func main() {
	bin := flag.String("bin", "bin/switchboard", "the switchboard binary")
	clients := flag.Int("clients", 1000, "concurrent websocket subscribers")
	events := flag.Int("events", 50, "events to cause")
	interval := flag.Duration("interval", 100*time.Millisecond, "time between events")
	dbURL := flag.String("database-url", "", "database (default: a temporary SQLite file)")
	flag.Parse()
	if err := run(*bin, *clients, *events, *interval, *dbURL); err != nil {
		fmt.Fprintln(os.Stderr, "sbfanout:", err)
		os.Exit(1)
	}
}

func run(bin string, nClients, nEvents int, interval time.Duration, dbURL string) error {
	dir, err := os.MkdirTemp("", "sbfanout")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if dbURL == "" {
		dbURL = "sqlite://" + filepath.Join(dir, "fanout.db")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr
	cmd := exec.Command(bin, "serve", "--addr", addr, "--database-url", dbURL, "--base-url", base)
	cmd.Env = append(os.Environ(), "SWITCHBOARD_LOG_LEVEL=error", "SWITCHBOARD_RATE_LIMIT=100000", "SWITCHBOARD_RATE_BURST=100000")
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if err := waitReady(base); err != nil {
		return err
	}

	jar, _ := cookiejar.New(nil)
	web := &http.Client{Jar: jar}
	gql := func(query string, vars map[string]any) (map[string]any, error) {
		body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		req, _ := http.NewRequest("POST", base+"/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := web.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		var out struct {
			Data   map[string]any `json:"data"`
			Errors []any          `json:"errors"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			return nil, err
		}
		if len(out.Errors) > 0 {
			return nil, fmt.Errorf("graphql: %v", out.Errors)
		}
		return out.Data, nil
	}
	if _, err := gql(`mutation($i: SignUpInput!) { signUp(input: $i) { user { id } } }`,
		map[string]any{"i": map[string]any{"email": "fanout@example.com", "password": "benchmark password", "name": "Fanout"}}); err != nil {
		return err
	}
	if _, err := gql(`mutation { ensureWorkspace { id } }`, nil); err != nil {
		return err
	}
	data, err := gql(`mutation { createApiKey(input: {name: "fanout", scopes: ["events:read"]}) { secret } }`, nil)
	if err != nil {
		return err
	}
	secret := data["createApiKey"].(map[string]any)["secret"].(string)

	rss0, err := rssKiB(cmd.Process.Pid)
	if err != nil {
		return err
	}
	subs := make([]*subscriber, nClients)
	for i := range subs {
		if subs[i], err = subscribe("ws://"+addr+"/graphql", base, secret); err != nil {
			return fmt.Errorf("client %d: %w", i, err)
		}
	}
	time.Sleep(2 * time.Second) // let the server settle before reading its memory
	rss1, _ := rssKiB(cmd.Process.Pid)

	var lat []time.Duration
	for i := range nEvents {
		name := "fanout-" + strconv.Itoa(i)
		sent := time.Now()
		if _, err := gql(`mutation($n: String!) { createApiKey(input: {name: $n, scopes: ["events:read"]}) { apiKey { id } } }`,
			map[string]any{"n": name}); err != nil {
			return err
		}
		var last time.Time
		for _, s := range subs {
			at, err := s.waitFor(name, 10*time.Second)
			if err != nil {
				return err
			}
			if at.After(last) {
				last = at
			}
		}
		lat = append(lat, last.Sub(sent))
		time.Sleep(interval)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(float64(len(lat))*p))].Round(100 * time.Microsecond)
	}
	fmt.Printf("subscription fan-out: %d websocket clients, %d events every %s\n", nClients, nEvents, interval)
	fmt.Printf("event → last client: p50 %s  p99 %s  max %s  (target p99 < 250ms)\n", pct(0.5), pct(0.99), lat[len(lat)-1])
	fmt.Printf("server RSS: %d KiB before, %d KiB with %d idle subscribers → %.1f KiB per subscriber (target < 64 KiB)\n",
		rss0, rss1, nClients, float64(rss1-rss0)/float64(nClients))
	for _, s := range subs {
		s.conn.Close()
	}
	return nil
}

func waitReady(base string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("server not ready within 30s")
}

func rssKiB(pid int) (int, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, errors.New("no VmRSS")
}

type subscriber struct {
	conn *websocket.Conn
	mu   sync.Mutex
	cond *sync.Cond
	seen map[string]time.Time // api key name → arrival
	err  error
}

func subscribe(url, origin, secret string) (*subscriber, error) {
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 10 * time.Second}
	conn, _, err := d.Dial(url, http.Header{"Origin": {origin}})
	if err != nil {
		return nil, err
	}
	if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"authorization": "Bearer " + secret}}); err != nil {
		return nil, err
	}
	var ack struct{ Type string }
	if err := conn.ReadJSON(&ack); err != nil || ack.Type != "connection_ack" {
		return nil, fmt.Errorf("no connection_ack (%q): %v", ack.Type, err)
	}
	if err := conn.WriteJSON(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{
		"query": `subscription { events(types: ["api_key.created"]) { id data } }`}}); err != nil {
		return nil, err
	}
	s := &subscriber{conn: conn, seen: map[string]time.Time{}}
	s.cond = sync.NewCond(&s.mu)
	go s.read()
	return s, nil
}

func (s *subscriber) read() {
	for {
		var msg struct {
			Type    string `json:"type"`
			Payload struct {
				Data struct {
					Events struct {
						Data struct {
							Name string `json:"name"`
						} `json:"data"`
					} `json:"events"`
				} `json:"data"`
			} `json:"payload"`
		}
		err := s.conn.ReadJSON(&msg)
		at := time.Now()
		s.mu.Lock()
		if err != nil {
			s.err = err
			s.cond.Broadcast()
			s.mu.Unlock()
			return
		}
		switch msg.Type {
		case "next":
			s.seen[msg.Payload.Data.Events.Data.Name] = at
			s.cond.Broadcast()
		case "ping":
			_ = s.conn.WriteJSON(map[string]string{"type": "pong"})
		}
		s.mu.Unlock()
	}
}

func (s *subscriber) waitFor(name string, timeout time.Duration) (time.Time, error) {
	timer := time.AfterFunc(timeout, func() {
		s.mu.Lock()
		s.err = fmt.Errorf("event %s not received within %s", name, timeout)
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if at, ok := s.seen[name]; ok {
			return at, nil
		}
		if s.err != nil {
			return time.Time{}, s.err
		}
		s.cond.Wait()
	}
}
