package integration

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// No published call is lost once it was answered 202: publishers keep posting while the
// replica is killed with -9; every id answered 202 is among the endpoint's calls (with its
// automation.published event) when another replica starts.
func TestKilledReplicaKeepsEveryAcceptedCall(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	a := startReplica(t, "A", db)
	o := signUp(t, a)
	var ep struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/automation/endpoints", map[string]any{"name": "Orders"}, &ep)
	path := ep.URL[strings.Index(ep.URL, "/hooks/"):]

	var mu sync.Mutex
	accepted := map[string]bool{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	client := &http.Client{Timeout: 5 * time.Second}
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body, _ := json.Marshal(map[string]any{"worker": w, "n": i})
				res, err := client.Post(a.base+path, "application/json", bytes.NewReader(body))
				if err != nil {
					return // the replica is gone
				}
				raw, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusAccepted {
					continue
				}
				var out struct {
					ID string `json:"id"`
				}
				if json.Unmarshal(raw, &out) == nil {
					mu.Lock()
					accepted[out.ID] = true
					mu.Unlock()
				}
			}
		}()
	}
	waitFor(t, 15*time.Second, "some calls to be accepted", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(accepted) >= 200
	})
	a.kill()
	close(stop)
	wg.Wait()

	b := startReplica(t, "B", db)
	stored := map[string]bool{}
	after := ""
	for {
		var page struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			HasMore    bool   `json:"has_more"`
			NextCursor string `json:"next_cursor"`
		}
		q := "/api/v1/automation/endpoints/" + ep.ID + "/calls?limit=100"
		if after != "" {
			q += "&after=" + after
		}
		b.mustREST(t, o.key, http.MethodGet, q, nil, &page)
		for _, c := range page.Data {
			stored[c.ID] = true
		}
		if !page.HasMore {
			break
		}
		after = page.NextCursor
	}
	mu.Lock()
	defer mu.Unlock()
	checked := 0
	for id := range accepted {
		if !stored[id] {
			t.Fatalf("call %s was answered 202 but is not stored (%d accepted, %d stored)", id, len(accepted), len(stored))
		}
		if checked < 5 { // and its event is in the log
			var ev struct {
				Type string `json:"type"`
			}
			b.mustREST(t, o.key, http.MethodGet, "/api/v1/events/"+id, nil, &ev)
			if ev.Type != "automation.published" {
				t.Fatalf("event %s is %q", id, ev.Type)
			}
			checked++
		}
	}
	t.Logf("%d calls accepted before the kill, all stored (%d in all)", len(accepted), len(stored))
}
