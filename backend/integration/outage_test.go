package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// createHook creates a webhook endpoint on r (its webhook.created event is what the test
// follows), retrying while the database is away: every failed answer must be an honest
// 503 unavailable with Retry-After. It returns the endpoint id and how many 503s it saw.
func createHook(t *testing.T, r *replica, key string, n int) (string, int) {
	t.Helper()
	unavailable := 0
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := json.Marshal(map[string]any{"url": fmt.Sprintf("http://127.0.0.1:9/hook/%d", n),
			"event_types": []string{"link.clicked"}})
		req, _ := http.NewRequest(http.MethodPost, r.base+"/api/v1/webhooks", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusCreated:
			var w webhookCreated
			_ = json.Unmarshal(raw, &w)
			return w.ID, unavailable
		case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "" &&
			strings.Contains(string(raw), `"code":"unavailable"`):
			unavailable++
		default:
			t.Fatalf("during the outage: %d %s (want 201, or 503 unavailable with Retry-After)", resp.StatusCode, raw)
		}
		if time.Now().After(deadline) {
			t.Fatal("the database never came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// PostgreSQL restarted (fast) and then stopped for a while, under the replicas' feet: every
// request that fails meanwhile is an honest 503 (REST `unavailable` with Retry-After,
// GraphQL UNAVAILABLE), nothing answers 500, requests succeed again within seconds of the
// database's return, and a live subscription on the other replica receives every event
// committed around the faults exactly once, in order (after its listener reconnects, the
// replica catches its subscribers up from the event log).
func TestDatabaseFaultsAnsweredHonestlyAndNothingLost(t *testing.T) {
	pg := startPostgres(t)
	a := startReplica(t, "A", pg.URL())
	b := startReplica(t, "B", pg.URL())
	o := signUp(t, a)
	ws := subscribe(t, b, o.key, `subscription { events(types: ["webhook.created"]) { id type data } }`)

	var created []string
	add := func(n int) int {
		id, unavailable := createHook(t, a, o.key, n)
		created = append(created, id)
		return unavailable
	}
	for i := range 3 {
		add(i)
	}

	// A restart: the replicas' connections and B's listener are cut; writes go on through A
	// as soon as the server is back, before B's listener has reconnected.
	pg.restart()
	for i := 3; i < 15; i++ {
		add(i)
	}

	// Stopped for a while: REST and GraphQL say "unavailable", never "internal".
	pg.stop()
	code, raw := a.rest(t, o.key, http.MethodGet, "/api/v1/webhooks", nil)
	if code != http.StatusServiceUnavailable || !strings.Contains(string(raw), `"code":"unavailable"`) {
		t.Fatalf("REST while the database is down: %d %s", code, raw)
	}
	body, _ := json.Marshal(map[string]any{"query": `{ webhooks { id } }`})
	req, _ := http.NewRequest(http.MethodPost, b.base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+o.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	graw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(graw), `"code":"UNAVAILABLE"`) || strings.Contains(string(graw), "INTERNAL") {
		t.Fatalf("GraphQL while the database is down: %s", graw)
	}
	time.Sleep(2 * time.Second)
	pg.start()
	back := time.Now()
	if unavailable := add(15); unavailable > 0 {
		t.Logf("%d requests answered 503 after the database returned", unavailable)
	}
	if took := sinceStart(back); took > 5*time.Second {
		t.Fatalf("recovery took %s (want under 5s)", took)
	}
	for i := 16; i < 20; i++ {
		add(i)
	}

	// Live on B: every endpoint's event, once, in the order they were created.
	var live []string
	seen := map[string]int{}
	for len(live) < len(created) {
		var msg struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
		if err := ws.ReadJSON(&msg); err != nil {
			t.Fatalf("subscription on B after %d of %d events: %v", len(live), len(created), err)
		}
		if msg.Type != "next" {
			t.Fatalf("subscription message %s %s after %d events", msg.Type, msg.Payload, len(live))
		}
		var next struct {
			Data struct {
				Events struct {
					Data struct {
						ID string `json:"id"`
					} `json:"data"`
				} `json:"events"`
			} `json:"data"`
		}
		if err := json.Unmarshal(msg.Payload, &next); err != nil {
			t.Fatalf("subscription payload %s: %v", msg.Payload, err)
		}
		id := next.Data.Events.Data.ID
		seen[id]++
		live = append(live, id)
	}
	for _, id := range created {
		if seen[id] != 1 {
			t.Fatalf("endpoint %s reached the subscriber %d times (live %v, created %v)", id, seen[id], live, created)
		}
	}
	if fmt.Sprint(live) != fmt.Sprint(created) {
		t.Fatalf("order: live %v, created %v", live, created)
	}
	// The replicas logged no internal errors through all of it.
	for _, r := range []*replica{a, b} {
		if strings.Contains(r.logs.String(), `"status":500`) {
			t.Fatalf("replica %s answered 500:\n%s", r.name, r.logs.String())
		}
	}
}
