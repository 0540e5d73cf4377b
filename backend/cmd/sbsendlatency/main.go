// Command sbsendlatency measures send-to-sent and send-to-delivered latency of messages on
// a running Switchboard (scripts/bench-messages.sh runs it): it sends at a steady rate
// through the REST API, waits until every message is delivered, then reads the messages'
// server-side times (created_at, sent_at, delivered_at) and prints percentiles.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"
)

type message struct {
	ID          string     `json:"id"`
	Status      string     `json:"status"`
	CreatedAt   time.Time  `json:"created_at"`
	SentAt      *time.Time `json:"sent_at"`
	DeliveredAt *time.Time `json:"delivered_at"`
}

func main() {
	base := flag.String("base", "", "Switchboard base URL")
	key := flag.String("key", "", "API key with messages:send and messages:read")
	instance := flag.String("instance", "", "connected instance id")
	chats := flag.Int("chats", 20, "how many recipients the messages go to, in turn (each is a chat: one send at a time)")
	rate := flag.Int("rate", 50, "messages per second")
	duration := flag.Duration("duration", 10*time.Second, "how long to send")
	flag.Parse()
	if *base == "" || *key == "" || *instance == "" {
		fail(fmt.Errorf("-base, -key and -instance are required"))
	}
	c := client{base: *base, key: *key, http: &http.Client{Timeout: 10 * time.Second}}
	path := "/api/v1/instances/" + *instance + "/messages"

	// Steady rate: one send per tick, each on its own goroutine so a slow answer does not
	// delay the next send.
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(*rate))
	stop := time.After(*duration)
loop:
	for n := 0; ; n++ {
		select {
		case <-stop:
			break loop
		case <-tick.C:
		}
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			var m message
			if err := c.do("POST", path, map[string]any{"to": fmt.Sprintf("+1555765%04d", n%*chats), "text": fmt.Sprintf("latency %d", n)}, &m); err != nil {
				fail(err)
			}
			mu.Lock()
			ids = append(ids, m.ID)
			mu.Unlock()
		}(n)
	}
	tick.Stop()
	wg.Wait()

	var sent, delivered []time.Duration
	deadline := time.Now().Add(2 * time.Minute)
	for _, id := range ids {
		for {
			var m message
			if err := c.do("GET", path+"/"+id, nil, &m); err != nil {
				fail(err)
			}
			if m.DeliveredAt != nil || m.Status == "read" {
				sent = append(sent, m.SentAt.Sub(m.CreatedAt))
				delivered = append(delivered, m.DeliveredAt.Sub(m.CreatedAt))
				break
			}
			if m.Status == "failed" || time.Now().After(deadline) {
				fail(fmt.Errorf("message %s is %s", id, m.Status))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	fmt.Printf("messages %d at %d/s to %d chats: send→sent p50 %s p99 %s max %s; send→delivered p50 %s p99 %s max %s\n",
		len(ids), *rate, *chats, pct(sent, 50), pct(sent, 99), pct(sent, 100), pct(delivered, 50), pct(delivered, 99), pct(delivered, 100))
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(min(i, len(s))-1, 0)].Round(time.Millisecond)
}

type client struct {
	base, key string
	http      *http.Client
}

func (c client) do(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sbsendlatency:", err)
	os.Exit(1)
}
