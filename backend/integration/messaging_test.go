package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

type instanceObject struct {
	ID      string  `json:"id"`
	Status  string  `json:"status"`
	Address *string `json:"address"`
}

type messageObject struct {
	ID     string  `json:"id"`
	Status string  `json:"status"`
	Text   *string `json:"text"`
}

type messageList struct {
	Data    []messageObject `json:"data"`
	HasMore bool            `json:"has_more"`
}

// connectedInstance creates a sandbox instance that pairs itself, and waits until it is
// connected.
func connectedInstance(t *testing.T, r *replica, key, name string, perSecond int) instanceObject {
	t.Helper()
	var in instanceObject
	r.mustREST(t, key, http.MethodPost, "/api/v1/instances", map[string]any{"name": name, "connect": true,
		"messages_per_second": perSecond, "config": map[string]any{"auto_pair": true}}, &in)
	waitFor(t, 15*time.Second, name+" to connect", func() bool {
		r.mustREST(t, key, http.MethodGet, "/api/v1/instances/"+in.ID, nil, &in)
		return in.Status == "connected"
	})
	return in
}

func messagesOf(t *testing.T, r *replica, key, instanceID, query string) []messageObject {
	t.Helper()
	var l messageList
	r.mustREST(t, key, http.MethodGet, "/api/v1/instances/"+instanceID+"/messages?limit=100&"+query, nil, &l)
	return l.Data
}

// A replica killed with -9 while an instance's sends are queued and going out loses none
// and repeats none: another replica takes the queue over, every message is delivered, and
// the other instance has each exactly once, in order.
func TestKilledReplicaSendsEachMessageOnce(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	a := startReplica(t, "A", db)
	o := signUp(t, a)
	x := connectedInstance(t, a, o.key, "X", 4)
	y := connectedInstance(t, a, o.key, "Y", 20)

	const n = 16
	for i := range n {
		a.mustREST(t, o.key, http.MethodPost, "/api/v1/instances/"+x.ID+"/messages",
			map[string]any{"to": *y.Address, "text": fmt.Sprintf("k%02d", i)}, nil)
	}
	waitFor(t, 15*time.Second, "the first messages to arrive", func() bool {
		return len(messagesOf(t, a, o.key, y.ID, "direction=inbound")) >= 3
	})
	a.kill()
	if got := len(messagesOf(t, startReplica(t, "probe", db, "SWITCHBOARD_MESSAGE_WORKERS=0"), o.key, y.ID, "direction=inbound")); got >= n {
		t.Fatalf("all %d messages arrived before the kill: the test proves nothing", got)
	}

	b := startReplica(t, "B", db)
	// Delivered on X, and stored on Y: the receipt and Y's inbound message are separate
	// channel events (Y's applied in order per chat), so wait for both.
	waitFor(t, 60*time.Second, "every message to be delivered and stored", func() bool {
		for _, m := range messagesOf(t, b, o.key, x.ID, "direction=outbound") {
			if m.Status != "delivered" {
				return false
			}
		}
		return len(messagesOf(t, b, o.key, y.ID, "direction=inbound")) >= n
	})
	time.Sleep(300 * time.Millisecond) // room for a duplicate to show, were there one
	got := messagesOf(t, b, o.key, y.ID, "direction=inbound")
	if len(got) != n {
		t.Fatalf("Y has %d messages, want %d", len(got), n)
	}
	for i, m := range got { // newest first
		if want := fmt.Sprintf("k%02d", n-1-i); m.Text == nil || *m.Text != want {
			t.Fatalf("Y's message %d is %v, want %s", i, m.Text, want)
		}
	}
}

// What the issue calls done, from outside: with only an API key, two sandbox instances
// hold a conversation, in a group too, and every step reaches a signed webhook (checked
// with the Standard Webhooks library) and a live subscription on the other replica.
func TestConversationReachesWebhooksAndSubscriptions(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	a := startReplica(t, "A", db)
	b := startReplica(t, "B", db)
	o := signUp(t, a)
	x := connectedInstance(t, a, o.key, "X", 20)
	y := connectedInstance(t, a, o.key, "Y", 20)

	rc := newHookReceiver(t)
	var hook webhookCreated
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": rc.URL + "/hook",
		"event_types": []string{"message.received", "group.created"}, "instance_id": y.ID}, &hook)
	rc.setSecret(hook.Secret)
	ws := subscribe(t, b, o.key, `subscription { events(types: ["message.received"], instanceId: "`+y.ID+`") { id type data } }`)

	a.mustREST(t, o.key, http.MethodPost, "/api/v1/instances/"+x.ID+"/messages", map[string]any{"to": *y.Address, "text": "hello Y"}, nil)
	var group struct {
		ID string `json:"id"`
	}
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/instances/"+x.ID+"/groups",
		map[string]any{"subject": "Launch", "participants": []string{*y.Address}}, &group)
	waitFor(t, 15*time.Second, "Y to learn of the group", func() bool {
		var l struct{ Data []json.RawMessage }
		a.mustREST(t, o.key, http.MethodGet, "/api/v1/instances/"+y.ID+"/groups", nil, &l)
		return len(l.Data) == 1
	})
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/instances/"+x.ID+"/messages", map[string]any{"to": group.ID, "text": "hello group"}, nil)

	// Live, on the other replica: Y's two messages, in order.
	var texts []string
	for len(texts) < 2 {
		var msg struct {
			Type    string `json:"type"`
			Payload struct {
				Data struct {
					Events struct {
						Type string          `json:"type"`
						Data json.RawMessage `json:"data"`
					} `json:"events"`
				} `json:"data"`
			} `json:"payload"`
		}
		_ = ws.SetReadDeadline(time.Now().Add(15 * time.Second))
		if err := ws.ReadJSON(&msg); err != nil {
			t.Fatalf("subscription on replica B after %v: %v", texts, err)
		}
		var m messageObject
		if err := json.Unmarshal(msg.Payload.Data.Events.Data, &m); err != nil || m.Text == nil {
			t.Fatalf("event data %s: %v", msg.Payload.Data.Events.Data, err)
		}
		texts = append(texts, *m.Text)
	}
	if fmt.Sprint(texts) != "[hello Y hello group]" {
		t.Fatalf("live messages %v", texts)
	}
	// Signed webhooks: Y's two messages and the group, nothing of X's (instance filter).
	waitFor(t, 15*time.Second, "three webhook deliveries", func() bool {
		_, byID, _ := rc.snapshot()
		return len(byID) == 3
	})
	if _, _, bad := rc.snapshot(); len(bad) > 0 {
		t.Fatalf("signatures rejected by the Standard Webhooks library: %v", bad)
	}
}

// The endpoints a replica caches per workspace are dropped on every replica when one
// changes them: an endpoint created on A receives the events B records next.
func TestWebhookCreatedOnOneReplicaServedByOther(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	a := startReplica(t, "A", db)
	b := startReplica(t, "B", db)
	o := signUp(t, a)
	// B records an event while the workspace has no endpoint: it caches "none".
	var in instanceObject
	b.mustREST(t, o.key, http.MethodPost, "/api/v1/instances", map[string]any{"name": "before"}, &in)

	rc := newHookReceiver(t)
	var hook webhookCreated
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": rc.URL + "/hook",
		"event_types": []string{"instance.updated"}}, &hook)
	rc.setSecret(hook.Secret)
	// The invalidation travels by notification (milliseconds); each update is an event
	// recorded on B, and one of the first must reach the new endpoint.
	deadline := time.Now().Add(5 * time.Second)
	for n := 0; ; n++ {
		b.mustREST(t, o.key, http.MethodPatch, "/api/v1/instances/"+in.ID, map[string]any{"name": fmt.Sprintf("after %d", n)}, nil)
		if _, byID, _ := rc.snapshot(); len(byID) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("events recorded on B never reached the endpoint created on A: B kept its cached list")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, _, bad := rc.snapshot(); len(bad) > 0 {
		t.Fatalf("signatures rejected: %v", bad)
	}
}

// An API-only replica (SWITCHBOARD_MESSAGE_WORKERS=0) accepts sends but sends nothing; a
// replica with workers sends them.
func TestAPIOnlyReplicaQueuesSends(t *testing.T) {
	db := storetest.URL(t, store.Postgres)
	w := startReplica(t, "workers", db)
	o := signUp(t, w)
	x := connectedInstance(t, w, o.key, "X", 20)
	w.kill()

	api := startReplica(t, "api-only", db, "SWITCHBOARD_MESSAGE_WORKERS=0")
	var m messageObject
	api.mustREST(t, o.key, http.MethodPost, "/api/v1/instances/"+x.ID+"/messages", map[string]any{"to": "+15557654321", "text": "later"}, &m)
	time.Sleep(1500 * time.Millisecond) // more than a poll: an API-only replica would have sent it by now
	api.mustREST(t, o.key, http.MethodGet, "/api/v1/instances/"+x.ID+"/messages/"+m.ID, nil, &m)
	if m.Status != "queued" {
		t.Fatalf("an API-only replica sent the message: %s", m.Status)
	}
	startReplica(t, "sender", db)
	waitFor(t, 20*time.Second, "the sender replica to send it", func() bool {
		api.mustREST(t, o.key, http.MethodGet, "/api/v1/instances/"+x.ID+"/messages/"+m.ID, nil, &m)
		return m.Status == "delivered" || m.Status == "read"
	})
}
