package rest_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/sandbox"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// newMessagingEnv is newEnv with the messaging surface as the app wires it: the sandbox
// channel and a running job engine (sends, channel events, connections), on the real clock
// (the sandbox's receipts and the engine's due times are real time).
func newMessagingEnv(t *testing.T, d store.Dialect) *env {
	t.Helper()
	return newMessagingEnvAt(t, d, domain.SystemClock{})
}

// newMessagingEnvAt is newMessagingEnv with the service and the sandbox reading clk.
func newMessagingEnvAt(t *testing.T, d store.Dialect, clk domain.Clock) *env {
	t.Helper()
	svc, st := servicetest.New(t, d, service.Config{LastUsedFlush: time.Hour, Clock: clk})
	msg := messaging.New(svc, channels.NewRegistry(sandbox.New().WithClock(clk.Now)), messaging.Config{})
	engine := jobs.New(st, jobs.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	for _, k := range msg.Kinds(messaging.DefaultWorkers) {
		engine.Register(k)
	}
	if err := engine.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(engine.Close)
	return newEnvOn(t, svc, st, newTestClock(), rest.Options{Messaging: msg, Clock: domain.SystemClock{},
		RateLimit: 1e6, Burst: 1e6})
}

// eventually polls cond until it holds, failing the test after a deadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fastSandbox is a sandbox config that pairs itself and answers receipts at once.
func fastSandbox() map[string]any {
	return map[string]any{"auto_pair": true, "delivered_after_ms": 0, "read_after_ms": 0}
}

// connectedInstance creates a sandbox instance that pairs itself and waits until it is
// connected; it returns the instance as GET shows it.
func (e *env) connectedInstance(t *testing.T, secret, name string) map[string]any {
	t.Helper()
	created := e.do("POST", "/api/v1/instances", secret, map[string]any{"name": name, "config": fastSandbox(), "connect": true}).
		want(t, http.StatusCreated).json(t)
	if created["status"] != "connecting" {
		t.Fatalf("created with connect: %v", created)
	}
	return e.waitStatus(t, secret, created["id"].(string), "connected")
}

func (e *env) waitStatus(t *testing.T, secret, id, status string) map[string]any {
	t.Helper()
	var got map[string]any
	eventually(t, "instance "+id+" "+status, func() bool {
		got = e.do("GET", "/api/v1/instances/"+id, secret, nil).want(t, http.StatusOK).json(t)
		return got["status"] == status
	})
	return got
}

// items is the data of a list response.
func (e *env) items(t *testing.T, secret, path string) []map[string]any {
	t.Helper()
	res := e.do("GET", path, secret, nil).want(t, http.StatusOK).json(t)
	var out []map[string]any
	for _, x := range res["data"].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

func TestMessagingJourney(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)

		// A pairs itself; B pairs by hand, with the code its QR endpoint shows.
		a := e.connectedInstance(t, secret, "A")
		aID, aAddr := a["id"].(string), a["address"].(string)
		if !strings.HasPrefix(aAddr, "+1555") || a["config"].(map[string]any)["auto_pair"] != true {
			t.Fatalf("A: %v", a)
		}
		b := e.do("POST", "/api/v1/instances", secret, map[string]any{"name": "B",
			"config": map[string]any{"delivered_after_ms": 0, "read_after_ms": 0}}).want(t, http.StatusCreated).json(t)
		bID := b["id"].(string)
		if b["status"] != "disconnected" || b["address"] != nil {
			t.Fatalf("B: %v", b)
		}
		e.do("GET", "/api/v1/instances/"+bID+"/qr", secret, nil).wantError(t, http.StatusConflict, "instance_not_pairing")
		e.do("POST", "/api/v1/instances/"+bID+"/sandbox/pair", secret, nil).wantError(t, http.StatusConflict, "instance_not_pairing")
		if got := e.do("POST", "/api/v1/instances/"+bID+"/connect", secret, nil).want(t, http.StatusAccepted).json(t); got["status"] != "connecting" {
			t.Fatalf("connect: %v", got)
		}
		e.waitStatus(t, secret, bID, "pairing")
		qr := e.do("GET", "/api/v1/instances/"+bID+"/qr", secret, nil).want(t, http.StatusOK).json(t)
		code := qr["pairing_code"].(string)
		if !strings.HasPrefix(qr["qr_code"].(string), "data:image/png;base64,") || !strings.Contains(qr["qr_payload"].(string), code) {
			t.Fatalf("qr: %v", qr)
		}
		e.do("POST", "/api/v1/instances/"+bID+"/sandbox/pair", secret, map[string]any{"pairing_code": "AAAA-AAAA"}).
			wantError(t, http.StatusBadRequest, "validation_failed")
		b = e.do("POST", "/api/v1/instances/"+bID+"/sandbox/pair", secret, map[string]any{"pairing_code": code}).want(t, http.StatusOK).json(t)
		bAddr, _ := b["address"].(string)
		if b["status"] != "connected" || !strings.HasPrefix(bAddr, "+1555") || bAddr == aAddr {
			t.Fatalf("paired: %v", b)
		}

		// A writes to B: queued at once, then received by B, delivered at A.
		sent := e.do("POST", "/api/v1/instances/"+aID+"/messages", secret, map[string]any{"to": bAddr, "text": "Hello B"}).
			want(t, http.StatusAccepted).json(t)
		msgID := sent["id"].(string)
		if !strings.HasPrefix(msgID, "msg_") || sent["status"] != "queued" || sent["direction"] != "outbound" ||
			sent["from"] != aAddr || sent["to"] != bAddr || sent["text"] != "Hello B" || sent["type"] != "text" {
			t.Fatalf("sent: %v", sent)
		}
		var inbound []map[string]any
		eventually(t, "B receives the message", func() bool {
			inbound = e.items(t, secret, "/api/v1/instances/"+bID+"/messages?direction=inbound")
			return len(inbound) == 1
		})
		if m := inbound[0]; m["text"] != "Hello B" || m["from"] != aAddr || m["to"] != bAddr || m["status"] != "received" {
			t.Fatalf("B received: %v", m)
		}
		status := func() string {
			return e.do("GET", "/api/v1/instances/"+aID+"/messages/"+msgID, secret, nil).want(t, http.StatusOK).json(t)["status"].(string)
		}
		eventually(t, "A's message delivered", func() bool { return status() == "delivered" })

		// B reads the chat: unread goes to 0 and A's message becomes read.
		chats := e.items(t, secret, "/api/v1/instances/"+bID+"/chats")
		if len(chats) != 1 || chats[0]["address"] != aAddr || chats[0]["unread_count"] != float64(1) || chats[0]["type"] != "direct" {
			t.Fatalf("B's chats: %v", chats)
		}
		chatID := chats[0]["id"].(string)
		if last := chats[0]["last_message"].(map[string]any); last["id"] != inbound[0]["id"] {
			t.Errorf("last message: %v", last)
		}
		read := e.do("POST", "/api/v1/instances/"+bID+"/chats/"+chatID+"/read", secret, nil).want(t, http.StatusOK).json(t)
		if read["unread_count"] != float64(0) {
			t.Errorf("read chat: %v", read)
		}
		eventually(t, "A's message read", func() bool { return status() == "read" })
		got := e.do("GET", "/api/v1/instances/"+aID+"/messages/"+msgID, secret, nil).json(t)
		if got["sent_at"] == nil || got["delivered_at"] == nil || got["read_at"] == nil || got["provider_message_id"] == nil {
			t.Errorf("read message: %v", got)
		}

		// B's contact for A was created from the traffic.
		contacts := e.items(t, secret, "/api/v1/instances/"+bID+"/contacts")
		if len(contacts) != 1 || contacts[0]["address"] != aAddr {
			t.Fatalf("B's contacts: %v", contacts)
		}

		// A group made by A with B in it appears at B, and a message to it arrives there.
		g := e.do("POST", "/api/v1/instances/"+aID+"/groups", secret, map[string]any{"subject": "Launch team",
			"participants": []string{bAddr}}).want(t, http.StatusCreated).json(t)
		gAddr := g["address"].(string)
		if g["owner"] != aAddr || len(g["participants"].([]any)) != 2 || g["left"] != false {
			t.Fatalf("group: %v", g)
		}
		var bGroups []map[string]any
		eventually(t, "B learns of the group", func() bool {
			bGroups = e.items(t, secret, "/api/v1/instances/"+bID+"/groups")
			return len(bGroups) == 1
		})
		if bGroups[0]["address"] != gAddr || bGroups[0]["subject"] != "Launch team" {
			t.Fatalf("B's group: %v", bGroups[0])
		}
		toGroup := e.do("POST", "/api/v1/instances/"+aID+"/messages", secret, map[string]any{"to": g["id"], "text": "Hi team"}).
			want(t, http.StatusAccepted).json(t)
		if toGroup["to"] != gAddr {
			t.Errorf("to a group: %v", toGroup)
		}
		eventually(t, "B receives the group message", func() bool {
			got := e.items(t, secret, "/api/v1/instances/"+bID+"/messages?direction=inbound&address="+gAddr)
			return len(got) == 1 && got[0]["text"] == "Hi team" && got[0]["from"] == aAddr && got[0]["to"] == gAddr
		})

		// Every step was an event.
		for _, typ := range []string{"instance.created", "instance.status_changed", "message.queued", "message.sent",
			"message.received", "message.status_updated", "chat.updated", "group.created", "contact.created"} {
			if n := len(e.items(t, secret, "/api/v1/events?type="+typ)); n == 0 {
				t.Errorf("no %s event", typ)
			}
		}
	})
}

func TestMessagingResources(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		a := e.connectedInstance(t, secret, "A")
		b := e.connectedInstance(t, secret, "B")
		aID, bID, bAddr := a["id"].(string), b["id"].(string), b["address"].(string)
		inst := "/api/v1/instances/" + aID

		// Instances: list, update, restart.
		if list := e.items(t, secret, "/api/v1/instances"); len(list) != 2 || list[0]["id"] != bID {
			t.Errorf("instances: %v", list)
		}
		upd := e.do("PATCH", inst, secret, map[string]any{"name": "A (renamed)", "messages_per_second": 5,
			"config": map[string]any{"token": "s3cret", "echo": nil}}).want(t, http.StatusOK).json(t)
		cfg := upd["config"].(map[string]any)
		if upd["name"] != "A (renamed)" || upd["messages_per_second"] != float64(5) || cfg["token"] != "********" || cfg["echo"] != false {
			t.Errorf("updated: %v", upd)
		}
		if got := e.do("POST", inst+"/restart", secret, nil).want(t, http.StatusAccepted).json(t); got["status"] != "connecting" {
			t.Errorf("restart: %v", got)
		}
		e.waitStatus(t, secret, aID, "connected") // its session is kept: no pairing

		// Messages: other types, edit, delete, typing, filters.
		img := e.do("POST", inst+"/messages", secret, map[string]any{"to": bAddr, "type": "image",
			"media": map[string]any{"url": "https://example.com/cat.jpg", "caption": "A cat"}}).want(t, http.StatusAccepted).json(t)
		if img["text"] != nil || img["media"].(map[string]any)["caption"] != "A cat" {
			t.Errorf("image: %v", img)
		}
		for _, body := range []map[string]any{
			{"to": bAddr, "type": "location", "location": map[string]any{"latitude": 51.5, "longitude": -0.12, "name": "Big Ben"}},
			{"to": bAddr, "type": "contact", "contact": map[string]any{"name": "Ada", "phones": []string{"+15551234567"}}},
			{"to": bAddr, "type": "poll", "poll": map[string]any{"question": "Tea?", "options": []string{"Yes", "No"}}},
			{"to": bAddr, "type": "reaction", "reaction": map[string]any{"message_id": img["id"], "emoji": "👍"}},
			{"to": bAddr, "text": "A reply", "reply_to": img["id"]},
		} {
			e.do("POST", inst+"/messages", secret, body).want(t, http.StatusAccepted)
		}
		text := e.do("POST", inst+"/messages", secret, map[string]any{"to": bAddr, "text": "Frist"}).want(t, http.StatusAccepted).json(t)
		msg := inst + "/messages/" + text["id"].(string)
		eventually(t, "the text is delivered", func() bool {
			return e.do("GET", msg, secret, nil).json(t)["status"] == "delivered"
		})
		edited := e.do("PATCH", msg, secret, map[string]any{"text": "First"}).want(t, http.StatusOK).json(t)
		if edited["text"] != "First" || edited["edited_at"] == nil {
			t.Errorf("edited: %v", edited)
		}
		gone := e.do("DELETE", msg, secret, nil).want(t, http.StatusOK).json(t)
		if gone["deleted_at"] == nil {
			t.Errorf("deleted: %v", gone)
		}
		e.do("DELETE", msg, secret, nil).wantError(t, http.StatusConflict, "message_not_changeable")
		if got := e.do("POST", inst+"/typing", secret, map[string]any{"to": bAddr}).want(t, http.StatusAccepted).json(t); got["state"] != "composing" {
			t.Errorf("typing: %v", got)
		}
		e.do("POST", inst+"/typing", secret, map[string]any{"to": bAddr, "state": "dancing"}).wantError(t, http.StatusBadRequest, "validation_failed")
		if n := len(e.items(t, secret, inst+"/messages?direction=outbound")); n == 0 {
			t.Error("no outbound messages listed")
		}
		if got := e.items(t, secret, inst+"/messages?direction=outbound&limit=2"); len(got) != 2 {
			t.Errorf("limit 2: %d", len(got))
		}
		if got := e.items(t, secret, inst+"/messages?since="+time.Now().Add(time.Hour).UTC().Format(time.RFC3339)); len(got) != 0 {
			t.Errorf("since an hour ahead: %v", got)
		}
		if got := e.items(t, secret, inst+"/messages?until="+time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)); len(got) != 0 {
			t.Errorf("until an hour ago: %v", got)
		}
		if got := e.items(t, secret, inst+"/messages?status=queued&direction=inbound"); len(got) != 0 {
			t.Errorf("queued inbound: %v", got)
		}

		// Chats: archive, filter, unarchive.
		chat := e.items(t, secret, inst+"/chats")[0]
		chatPath := inst + "/chats/" + chat["id"].(string)
		if got := e.do("PATCH", chatPath, secret, map[string]any{"archived": true}).want(t, http.StatusOK).json(t); got["archived"] != true {
			t.Errorf("archived: %v", got)
		}
		if n := len(e.items(t, secret, inst+"/chats?archived=false")); n != 0 {
			t.Errorf("%d unarchived chats", n)
		}
		if n := len(e.items(t, secret, inst+"/chats?archived=true")); n != 1 {
			t.Errorf("%d archived chats", n)
		}
		e.do("PATCH", chatPath, secret, map[string]any{}).wantError(t, http.StatusBadRequest, "validation_failed")
		if got := e.do("GET", chatPath, secret, nil).want(t, http.StatusOK).json(t); got["id"] != chat["id"] {
			t.Errorf("chat: %v", got)
		}

		// Simulated inbound messages (sandbox).
		in := e.do("POST", inst+"/sandbox/inbound", secret, map[string]any{"from": "+15557654321", "from_name": "Grace", "text": "Hi!"}).
			want(t, http.StatusCreated).json(t)
		if in["direction"] != "inbound" || in["from"] != "+15557654321" || in["to"] != a["address"] || in["status"] != "received" {
			t.Errorf("inbound: %v", in)
		}

		// Contacts: created by traffic and by hand, changed, checked, deleted.
		ct := e.do("POST", inst+"/contacts", secret, map[string]any{"address": "+15551112222", "name": "Ada", "labels": []string{"vip"},
			"attributes": map[string]string{"plan": "pro"}}).want(t, http.StatusCreated).json(t)
		ctPath := inst + "/contacts/" + ct["id"].(string)
		e.do("POST", inst+"/contacts", secret, map[string]any{"address": "+15551112222"}).wantError(t, http.StatusConflict, "contact_exists")
		upd = e.do("PATCH", ctPath, secret, map[string]any{"labels": []string{"beta"}}).want(t, http.StatusOK).json(t)
		if upd["name"] != "Ada" || upd["labels"].([]any)[0] != "beta" || upd["attributes"].(map[string]any)["plan"] != "pro" {
			t.Errorf("contact updated: %v", upd)
		}
		if got := e.do("GET", ctPath, secret, nil).want(t, http.StatusOK).json(t); got["address"] != "+15551112222" {
			t.Errorf("contact: %v", got)
		}
		addrs := map[string]bool{}
		for _, c := range e.items(t, secret, inst+"/contacts") {
			addrs[c["address"].(string)] = true
		}
		if !addrs["+15557654321"] || !addrs["+15551112222"] {
			t.Errorf("contacts: %v", addrs)
		}
		check := e.do("POST", inst+"/contacts/check", secret, map[string]any{"addresses": []string{"+15551234567", "+15550001234"}}).
			want(t, http.StatusOK).json(t)["data"].([]any)
		if len(check) != 2 || check[0].(map[string]any)["reachable"] != true || check[1].(map[string]any)["reachable"] != false {
			t.Errorf("check: %v", check)
		}
		if got := e.do("DELETE", ctPath, secret, nil).want(t, http.StatusOK).json(t); got["deleted"] != true || got["object"] != "contact" {
			t.Errorf("contact deleted: %v", got)
		}
		e.do("GET", ctPath, secret, nil).wantError(t, http.StatusNotFound, "not_found")

		// Groups: update, members, leave.
		g := e.do("POST", inst+"/groups", secret, map[string]any{"subject": "Team", "participants": []string{bAddr}}).
			want(t, http.StatusCreated).json(t)
		gPath := inst + "/groups/" + g["id"].(string)
		if got := e.do("PATCH", gPath, secret, map[string]any{"subject": "Team v2"}).want(t, http.StatusOK).json(t); got["subject"] != "Team v2" {
			t.Errorf("group updated: %v", got)
		}
		got := e.do("POST", gPath+"/participants", secret, map[string]any{"add": []string{"+15553334444"}}).want(t, http.StatusOK).json(t)
		if len(got["participants"].([]any)) != 3 {
			t.Errorf("added: %v", got)
		}
		got = e.do("POST", gPath+"/participants", secret, map[string]any{"remove": []string{"+15553334444"}}).want(t, http.StatusOK).json(t)
		if len(got["participants"].([]any)) != 2 {
			t.Errorf("removed: %v", got)
		}
		if got := e.do("GET", gPath, secret, nil).want(t, http.StatusOK).json(t); got["subject"] != "Team v2" {
			t.Errorf("group: %v", got)
		}
		if got := e.do("POST", gPath+"/leave", secret, nil).want(t, http.StatusOK).json(t); got["left"] != true {
			t.Errorf("left: %v", got)
		}
		e.do("POST", gPath+"/leave", secret, nil).wantError(t, http.StatusConflict, "group_left")
		e.do("POST", inst+"/messages", secret, map[string]any{"to": g["id"], "text": "Anyone?"}).wantError(t, http.StatusConflict, "group_left")

		// Disconnected: sends and channel operations are refused; connect pairs again.
		if got := e.do("POST", inst+"/disconnect", secret, nil).want(t, http.StatusOK).json(t); got["status"] != "disconnected" {
			t.Errorf("disconnect: %v", got)
		}
		before := len(e.items(t, secret, inst+"/messages?limit=100"))
		e.do("POST", inst+"/messages", secret, map[string]any{"to": bAddr, "text": "Hello?"}).wantError(t, http.StatusConflict, "instance_not_connected")
		e.do("POST", inst+"/typing", secret, map[string]any{"to": bAddr}).wantError(t, http.StatusConflict, "instance_not_connected")
		e.do("POST", inst+"/groups", secret, map[string]any{"subject": "T", "participants": []string{bAddr}}).
			wantError(t, http.StatusConflict, "instance_not_connected")
		e.do("POST", inst+"/contacts/check", secret, map[string]any{"addresses": []string{bAddr}}).
			wantError(t, http.StatusConflict, "instance_not_connected")
		e.do("POST", inst+"/sandbox/inbound", secret, map[string]any{"from": bAddr, "text": "Hi"}).
			wantError(t, http.StatusConflict, "instance_not_connected")
		if after := len(e.items(t, secret, inst+"/messages?limit=100")); after != before {
			t.Errorf("%d messages after refused sends, want %d", after, before)
		}

		// Delete: the instance and everything of it are gone.
		if got := e.do("DELETE", inst, secret, nil).want(t, http.StatusOK).json(t); got["deleted"] != true || got["object"] != "instance" {
			t.Errorf("instance deleted: %v", got)
		}
		e.do("GET", inst, secret, nil).wantError(t, http.StatusNotFound, "not_found")
		e.do("GET", inst+"/messages", secret, nil).wantError(t, http.StatusNotFound, "not_found")
	})
}

func TestSendIsIdempotent(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		inst := "/api/v1/instances/" + e.connectedInstance(t, secret, "A")["id"].(string)
		body := map[string]any{"to": "+15551234567", "text": "Your code is 1234"}

		first := e.do("POST", inst+"/messages", secret, body, "Idempotency-Key", "otp-1").want(t, http.StatusAccepted)
		again := e.do("POST", inst+"/messages", secret, body, "Idempotency-Key", "otp-1").want(t, http.StatusAccepted)
		if again.Header.Get("Idempotent-Replayed") != "true" || again.json(t)["id"] != first.json(t)["id"] {
			t.Errorf("retry: %s\nfirst: %s", again.body, first.body)
		}
		if n := len(e.items(t, secret, inst+"/messages")); n != 1 {
			t.Errorf("%d messages stored, want 1", n)
		}
		e.do("POST", inst+"/messages", secret, map[string]any{"to": "+15551234567", "text": "Other"}, "Idempotency-Key", "otp-1").
			wantError(t, http.StatusConflict, "idempotency_conflict")
		if n := len(e.items(t, secret, "/api/v1/events?type=message.queued")); n != 1 {
			t.Errorf("%d message.queued events, want 1", n)
		}
	})
}

// ids are one object of each kind of an instance, for the scope and workspace tests.
type messagingIDs struct {
	inst, addr, peer, msg, chat, group, contact string
}

// messagingFixture makes a connected instance with a delivered message, a chat, a group and
// a contact.
func (e *env) messagingFixture(t *testing.T, secret string) messagingIDs {
	t.Helper()
	a := e.connectedInstance(t, secret, "A")
	ids := messagingIDs{inst: a["id"].(string), addr: a["address"].(string), peer: "+15551234567"}
	base := "/api/v1/instances/" + ids.inst
	ids.msg = e.do("POST", base+"/messages", secret, map[string]any{"to": ids.peer, "text": "Hi"}).want(t, http.StatusAccepted).json(t)["id"].(string)
	eventually(t, "the message is delivered", func() bool {
		s := e.do("GET", base+"/messages/"+ids.msg, secret, nil).json(t)["status"]
		return s == "delivered" || s == "read"
	})
	ids.chat = e.items(t, secret, base+"/chats")[0]["id"].(string)
	ids.group = e.do("POST", base+"/groups", secret, map[string]any{"subject": "G", "participants": []string{ids.peer}}).
		want(t, http.StatusCreated).json(t)["id"].(string)
	ids.contact = e.do("POST", base+"/contacts", secret, map[string]any{"address": "+15559998888"}).
		want(t, http.StatusCreated).json(t)["id"].(string)
	return ids
}

// messagingCall is one operation with a body it accepts and the scope it needs.
type messagingCall struct {
	method, path string
	body         any
	scope        string
}

func messagingCalls(ids messagingIDs) []messagingCall {
	i := "/api/v1/instances/" + ids.inst
	m, c, g, ct := i+"/messages/"+ids.msg, i+"/chats/"+ids.chat, i+"/groups/"+ids.group, i+"/contacts/"+ids.contact
	return []messagingCall{
		{"GET", "/api/v1/instances", nil, "instances:read"},
		{"POST", "/api/v1/instances", map[string]any{"name": "X"}, "instances:write"},
		{"GET", i, nil, "instances:read"},
		{"PATCH", i, map[string]any{"name": "Y"}, "instances:write"},
		{"POST", i + "/connect", nil, "instances:write"},
		{"POST", i + "/disconnect", nil, "instances:write"},
		{"POST", i + "/restart", nil, "instances:write"},
		{"GET", i + "/qr", nil, "instances:write"}, // scanning it links a phone: a write-level secret
		{"POST", i + "/sandbox/pair", nil, "instances:write"},
		{"POST", i + "/sandbox/inbound", map[string]any{"from": ids.peer, "text": "Hi"}, "messages:send"},
		{"POST", i + "/messages", map[string]any{"to": ids.peer, "text": "Hi"}, "messages:send"},
		{"GET", i + "/messages", nil, "messages:read"},
		{"GET", m, nil, "messages:read"},
		{"PATCH", m, map[string]any{"text": "Hello"}, "messages:send"},
		{"DELETE", m, nil, "messages:send"},
		{"POST", i + "/typing", map[string]any{"to": ids.peer}, "messages:send"},
		{"GET", i + "/chats", nil, "messages:read"},
		{"GET", c, nil, "messages:read"},
		{"PATCH", c, map[string]any{"archived": true}, "messages:send"},
		{"POST", c + "/read", nil, "messages:send"},
		{"POST", i + "/groups", map[string]any{"subject": "G", "participants": []string{ids.peer}}, "groups:write"},
		{"GET", i + "/groups", nil, "groups:read"},
		{"GET", g, nil, "groups:read"},
		{"PATCH", g, map[string]any{"subject": "H"}, "groups:write"},
		{"POST", g + "/participants", map[string]any{"add": []string{"+15552223333"}}, "groups:write"},
		{"POST", g + "/leave", nil, "groups:write"},
		{"POST", i + "/contacts", map[string]any{"address": "+15554445555"}, "contacts:write"},
		{"POST", i + "/contacts/check", map[string]any{"addresses": []string{ids.peer}}, "contacts:read"},
		{"GET", i + "/contacts", nil, "contacts:read"},
		{"GET", ct, nil, "contacts:read"},
		{"PATCH", ct, map[string]any{"name": "Z"}, "contacts:write"},
		{"DELETE", ct, nil, "contacts:write"},
		{"DELETE", i, nil, "instances:write"},
	}
}

// readScope is the read scope of the resource a write scope is about ("" when none).
var readScope = map[string]domain.Scope{"instances:write": domain.ScopeInstancesRead, "messages:send": domain.ScopeMessagesRead,
	"groups:write": domain.ScopeGroupsRead, "contacts:write": domain.ScopeContactsRead}

func TestMessagingScopes(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, full := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		ids := e.messagingFixture(t, full)
		_, none := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead, domain.ScopeEventsRead)
		keys := map[domain.Scope]string{}
		for _, s := range readScope {
			_, keys[s] = e.owner.NewKey(t, e.svc, s)
		}
		for _, c := range messagingCalls(ids) {
			secrets := []string{none}
			if r, ok := readScope[c.scope]; ok {
				secrets = append(secrets, keys[r]) // reading is not writing
			}
			for _, secret := range secrets {
				got := e.do(c.method, c.path, secret, c.body).wantError(t, http.StatusForbidden, "insufficient_scope")
				if !strings.Contains(got["message"].(string), c.scope) {
					t.Errorf("%s %s: message %q does not name %s", c.method, c.path, got["message"], c.scope)
				}
			}
		}
		// Nothing was changed by the refused calls.
		if n := len(e.items(t, full, "/api/v1/instances")); n != 1 {
			t.Errorf("%d instances", n)
		}
		if got := e.do("GET", "/api/v1/instances/"+ids.inst, full, nil).json(t); got["name"] != "A" || got["status"] != "connected" {
			t.Errorf("instance changed: %v", got)
		}
	})
}

func TestMessagingOtherWorkspace(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, mine := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		ids := e.messagingFixture(t, mine)
		other := servicetest.NewOwner(t, e.svc)
		_, theirs := other.NewKey(t, e.svc, domain.ScopeAll)

		// Every call on our objects: 404, as if they did not exist.
		for _, c := range messagingCalls(ids) {
			if !strings.Contains(c.path, ids.inst) {
				continue
			}
			e.do(c.method, c.path, theirs, c.body).wantError(t, http.StatusNotFound, "not_found")
		}
		if n := len(e.items(t, theirs, "/api/v1/instances")); n != 0 {
			t.Errorf("the other workspace lists %d of our instances", n)
		}
		// Our message, chat, group and contact ids under their own instance: 404 too.
		their := e.connectedInstance(t, theirs, "Theirs")
		theirIDs := ids
		theirIDs.inst = their["id"].(string)
		for _, c := range messagingCalls(theirIDs) {
			if strings.Contains(c.path, ids.msg) || strings.Contains(c.path, ids.chat) || strings.Contains(c.path, ids.group) ||
				strings.Contains(c.path, ids.contact) {
				e.do(c.method, c.path, theirs, c.body).wantError(t, http.StatusNotFound, "not_found")
			}
		}
		// Replying to or reacting to our message from their instance is refused.
		e.do("POST", "/api/v1/instances/"+theirIDs.inst+"/messages", theirs, map[string]any{"to": ids.peer, "text": "Hi", "reply_to": ids.msg}).
			wantError(t, http.StatusBadRequest, "validation_failed")
		e.do("POST", "/api/v1/instances/"+theirIDs.inst+"/messages", theirs, map[string]any{"to": ids.group, "text": "Hi"}).
			wantError(t, http.StatusBadRequest, "validation_failed")
		// Ours are untouched.
		if got := e.do("GET", "/api/v1/instances/"+ids.inst+"/messages/"+ids.msg, mine, nil).want(t, http.StatusOK).json(t); got["text"] != "Hi" || got["deleted_at"] != nil {
			t.Errorf("our message: %v", got)
		}
	})
}

func TestMessagingBadInput(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		a := e.connectedInstance(t, secret, "A")
		inst := "/api/v1/instances/" + a["id"].(string)
		to := "+15551234567"
		media := func(k string, v any) map[string]any {
			m := map[string]any{"url": "https://example.com/a.jpg"}
			m[k] = v
			return map[string]any{"to": to, "type": "image", "media": m}
		}
		cases := []struct {
			name, method, path string
			body               any
			param              string
		}{
			{"empty text", "POST", "/messages", map[string]any{"to": to, "type": "text", "text": ""}, "text"},
			{"blank text", "POST", "/messages", map[string]any{"to": to, "text": "   "}, "text"},
			{"no type, no text", "POST", "/messages", map[string]any{"to": to}, "text"},
			{"attribute not a string", "POST", "/contacts", map[string]any{"address": to, "attributes": map[string]any{"plan": 1}}, "attributes.plan"},
			{"label not a string", "POST", "/contacts", map[string]any{"address": to, "labels": []any{"vip", 2}}, "labels[1]"},
			{"text too long", "POST", "/messages", map[string]any{"to": to, "text": strings.Repeat("x", 4097)}, "text"},
			{"unknown type", "POST", "/messages", map[string]any{"to": to, "type": "hologram", "text": "x"}, "type"},
			{"caption over 1024", "POST", "/messages", media("caption", strings.Repeat("c", 1025)), "media.caption"},
			{"ftp media URL", "POST", "/messages", media("url", "ftp://example.com/a.jpg"), "media.url"},
			{"relative media URL", "POST", "/messages", media("url", "/a.jpg"), "media.url"},
			{"media without url", "POST", "/messages", map[string]any{"to": to, "type": "image", "media": map[string]any{}}, "media.url"},
			{"text in an image", "POST", "/messages", map[string]any{"to": to, "type": "image", "text": "x",
				"media": map[string]any{"url": "https://example.com/a.jpg"}}, "text"},
			{"latitude 91", "POST", "/messages", map[string]any{"to": to, "type": "location",
				"location": map[string]any{"latitude": 91, "longitude": 0}}, "location.latitude"},
			{"location without latitude", "POST", "/messages", map[string]any{"to": to, "type": "location",
				"location": map[string]any{"longitude": -0.12}}, "location.latitude"},
			{"location without longitude", "POST", "/messages", map[string]any{"to": to, "type": "location",
				"location": map[string]any{"latitude": 51.5, "longitude": nil}}, "location.longitude"},
			{"inbound location without coordinates", "POST", "/sandbox/inbound", map[string]any{"from": to, "type": "location",
				"location": map[string]any{"name": "Somewhere"}}, "location.latitude"},
			{"poll with one option", "POST", "/messages", map[string]any{"to": to, "type": "poll",
				"poll": map[string]any{"question": "Q?", "options": []string{"A"}}}, "poll.options"},
			{"reaction to nothing", "POST", "/messages", map[string]any{"to": to, "type": "reaction",
				"reaction": map[string]any{"message_id": "msg_01jr8d0c3b5n7q9s1u3w5y7a9c", "emoji": "👍"}}, "reaction.message_id"},
			{"bad address", "POST", "/messages", map[string]any{"to": "5551234", "text": "x"}, "to"},
			{"no address", "POST", "/messages", map[string]any{"text": "x"}, "to"},
			{"reply_to not a message", "POST", "/messages", map[string]any{"to": to, "text": "x", "reply_to": "nope"}, "reply_to"},
			{"unknown field", "POST", "/messages", map[string]any{"to": to, "text": "x", "priority": "high"}, "priority"},
			{"media of the wrong type", "POST", "/messages", map[string]any{"to": to, "type": "image", "media": "https://x"}, "media"},
			{"media by url and by id", "POST", "/messages", map[string]any{"to": to, "type": "image",
				"media": map[string]any{"url": "https://example.com/a.png", "provider_media_id": "AgAD"}}, "media.provider_media_id"},
			{"media by neither", "POST", "/messages", map[string]any{"to": to, "type": "image", "media": map[string]any{"caption": "x"}}, "media.url"},
			{"template without a name", "POST", "/messages", map[string]any{"to": to, "type": "template",
				"template": map[string]any{"name": "Order Shipped!", "language": "en_US"}}, "template.name"},
			{"template in no language", "POST", "/messages", map[string]any{"to": to, "type": "template",
				"template": map[string]any{"name": "order_shipped", "language": "English"}}, "template.language"},
			{"template components not a list", "POST", "/messages", map[string]any{"to": to, "type": "template",
				"template": map[string]any{"name": "order_shipped", "language": "en", "components": map[string]any{"type": "body"}}}, "template.components"},
			{"template on a text message", "POST", "/messages", map[string]any{"to": to, "text": "x",
				"template": map[string]any{"name": "order_shipped", "language": "en"}}, "template"},
			{"inbound from a bad address", "POST", "/sandbox/inbound", map[string]any{"from": "nobody", "text": "x"}, "from"},
			{"inbound to an unknown group", "POST", "/sandbox/inbound", map[string]any{"from": to, "text": "x", "group": "grp_01jr8d0c3b5n7q9s1u3w5y7a9c"}, "group"},
			{"contact with a bad address", "POST", "/contacts", map[string]any{"address": "abc"}, "address"},
			{"contact with 21 labels", "POST", "/contacts", map[string]any{"address": to, "labels": make([]string, 21)}, "labels"},
			{"group without participants", "POST", "/groups", map[string]any{"subject": "G", "participants": []string{}}, "participants"},
			{"group without subject", "POST", "/groups", map[string]any{"subject": " ", "participants": []string{to}}, "subject"},
			{"group with a bad participant", "POST", "/groups", map[string]any{"subject": "G", "participants": []string{"x"}}, "participants"},
			{"group of 257 with the instance", "POST", "/groups", map[string]any{"subject": "G", "participants": phones(256)}, "participants"},
			{"check nothing", "POST", "/contacts/check", map[string]any{"addresses": []string{}}, "addresses"},
			{"check a malformed address", "POST", "/contacts/check", map[string]any{"addresses": []string{"+15551234567", "not-a-number"}}, "addresses[1]"},
			{"typing without to", "POST", "/typing", map[string]any{"state": "paused"}, "to"},
			{"instance config of another channel", "PATCH", "", map[string]any{"config": map[string]any{"colour": "blue"}}, "config.colour"},
			{"instance pace 0", "PATCH", "", map[string]any{"messages_per_second": 0}, "messages_per_second"},
			{"instance config of the wrong type", "PATCH", "", map[string]any{"config": map[string]any{"echo": "yes"}}, "config.echo"},
			// PostgreSQL's text cannot hold NUL: refused on both stores, never a 500.
			{"instance name with NUL", "PATCH", "", map[string]any{"name": "A\x00"}, "name"},
			{"contact name with NUL", "POST", "/contacts", map[string]any{"address": to, "name": "Ada\x00"}, "name"},
			{"group subject with NUL", "POST", "/groups", map[string]any{"subject": "G\x00", "participants": []string{to}}, "subject"},
			{"group description with NUL", "POST", "/groups", map[string]any{"subject": "G", "description": "\x00",
				"participants": []string{to}}, "description"},
			{"inbound from_name with NUL", "POST", "/sandbox/inbound", map[string]any{"from": to, "from_name": "Grace\x00", "text": "x"}, "from_name"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				got := e.do(c.method, inst+c.path, secret, c.body).wantError(t, http.StatusBadRequest, "validation_failed")
				if got["param"] != c.param {
					t.Errorf("param %v, want %s (%v)", got["param"], c.param, got["message"])
				}
			})
		}
		// A group that names none of the instance's groups is refused as that, whatever it
		// looks like (not as a malformed phone number).
		for _, g := range []string{"team-chat", "+15550001111", "grp_01jr8d0c3b5n7q9s1u3w5y7a9c"} {
			got := e.do("POST", inst+"/sandbox/inbound", secret, map[string]any{"from": to, "text": "x", "group": g}).
				wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != "group" || !strings.Contains(got["message"].(string), "not a group of this instance") {
				t.Errorf("inbound to group %q: %v %v", g, got["param"], got["message"])
			}
		}
		creates := []struct {
			body  map[string]any
			param string
		}{
			{map[string]any{"name": ""}, "name"},
			{map[string]any{"name": strings.Repeat("n", 101)}, "name"},
			{map[string]any{"name": "X", "channel": "carrier-pigeon"}, "channel"},
			{map[string]any{"name": "X", "config": map[string]any{"delivered_after_ms": -1}}, "config.delivered_after_ms"},
			{map[string]any{"name": "X", "messages_per_second": 1001}, "messages_per_second"},
			{map[string]any{"name": "X", "config": "auto_pair"}, "config"},
			{map[string]any{"name": "X\x00Y"}, "name"},
		}
		for _, c := range creates {
			got := e.do("POST", "/api/v1/instances", secret, c.body).wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != c.param {
				t.Errorf("create %v: param %v, want %s", c.body, got["param"], c.param)
			}
		}
		queries := []struct{ path, param string }{
			{"/messages?direction=sideways", "direction"},
			{"/messages?status=lost", "status"},
			{"/messages?since=yesterday", "since"},
			{"/messages?chat_id=grp_1", "chat_id"},
			{"/messages?limit=0", "limit"},
			{"/messages?after=ct_1", "after"},
			{"/chats?archived=maybe", "archived"},
		}
		for _, q := range queries {
			got := e.do("GET", inst+q.path, secret, nil).wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != q.param {
				t.Errorf("GET %s: param %v, want %s", q.path, got["param"], q.param)
			}
		}

		// Nothing was stored by the refused requests.
		for _, path := range []string{inst + "/messages", inst + "/contacts", inst + "/groups"} {
			if n := len(e.items(t, secret, path)); n != 0 {
				t.Errorf("%s: %d objects after bad requests", path, n)
			}
		}
		if n := len(e.items(t, secret, "/api/v1/instances")); n != 1 {
			t.Errorf("%d instances after bad requests", n)
		}
		if got := e.do("GET", inst, secret, nil).json(t); got["name"] != "A" || got["messages_per_second"] != float64(20) {
			t.Errorf("instance changed by bad requests: %v", got)
		}
		for _, typ := range []string{"message.queued", "message.received", "contact.created", "group.created", "instance.updated"} {
			if n := len(e.items(t, secret, "/api/v1/events?type="+typ)); n != 0 {
				t.Errorf("%d %s events after bad requests", n, typ)
			}
		}
	})
}

// A send through an instance that was never connected is 409, and nothing is stored.
func TestSendNeedsAConnectedInstance(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		inst := e.do("POST", "/api/v1/instances", secret, map[string]any{"name": "Offline"}).want(t, http.StatusCreated).json(t)
		path := fmt.Sprintf("/api/v1/instances/%s/messages", inst["id"])
		got := e.do("POST", path, secret, map[string]any{"to": "+15551234567", "text": "Hello"}).
			wantError(t, http.StatusConflict, "instance_not_connected")
		if !strings.Contains(got["message"].(string), "connect") {
			t.Errorf("message: %v", got["message"])
		}
		if n := len(e.items(t, secret, path)); n != 0 {
			t.Errorf("%d messages stored", n)
		}
	})
}

// Only a group's admin changes its members: a member instance adding someone or removing
// the owner is refused as the channel refuses it, and nothing changes on either side.
func TestGroupMemberCannotChangeParticipants(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		a := e.connectedInstance(t, secret, "A")
		b := e.connectedInstance(t, secret, "B")
		aInst, bInst := "/api/v1/instances/"+a["id"].(string), "/api/v1/instances/"+b["id"].(string)
		g := e.do("POST", aInst+"/groups", secret, map[string]any{"subject": "Team", "participants": []string{b["address"].(string)}}).
			want(t, http.StatusCreated).json(t)
		var bGroup string
		eventually(t, "B learns of the group", func() bool {
			if gs := e.items(t, secret, bInst+"/groups"); len(gs) == 1 {
				bGroup = gs[0]["id"].(string)
			}
			return bGroup != ""
		})
		for _, body := range []map[string]any{
			{"add": []string{"+15553334444"}},
			{"remove": []string{a["address"].(string)}},
		} {
			got := e.do("POST", bInst+"/groups/"+bGroup+"/participants", secret, body).wantError(t, http.StatusBadRequest, "forbidden")
			if !strings.Contains(got["message"].(string), "admin") {
				t.Errorf("%v: %v", body, got["message"])
			}
		}
		for _, path := range []string{aInst + "/groups/" + g["id"].(string), bInst + "/groups/" + bGroup} {
			got := e.do("GET", path, secret, nil).want(t, http.StatusOK).json(t)
			if ps := got["participants"].([]any); len(ps) != 2 || got["left"] != false {
				t.Errorf("%s changed: %v", path, got)
			}
		}
		if n := len(e.items(t, secret, "/api/v1/events?type=group.participants_changed,group.left")); n != 0 {
			t.Errorf("%d membership events after refused changes", n)
		}
		// The admin still can; when the only admin leaves, a member becomes admin and can.
		e.do("POST", aInst+"/groups/"+g["id"].(string)+"/participants", secret, map[string]any{"add": []string{"+15553334444"}}).
			want(t, http.StatusOK)
		e.do("POST", aInst+"/groups/"+g["id"].(string)+"/leave", secret, nil).want(t, http.StatusOK)
		eventually(t, "B sees A leave", func() bool {
			// Two members without A: B may not have seen the add yet when it still counts two.
			got := e.do("GET", bInst+"/groups/"+bGroup, secret, nil).want(t, http.StatusOK).json(t)
			ps := got["participants"].([]any)
			for _, p := range ps {
				if p.(map[string]any)["address"] == a["address"] {
					return false
				}
			}
			return len(ps) == 2
		})
		got := e.do("POST", bInst+"/groups/"+bGroup+"/participants", secret, map[string]any{"remove": []string{"+15553334444"}}).
			want(t, http.StatusOK).json(t)
		if ps := got["participants"].([]any); len(ps) != 1 || ps[0].(map[string]any)["role"] != "admin" {
			t.Errorf("after the admin left: %v", ps)
		}
	})
}

// A message that brings an archived chat back records chat.updated, as archiving did, so a
// client mirroring chats through events sees it unarchived.
func TestInboundUnarchivesChatWithEvent(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		inst := "/api/v1/instances/" + e.connectedInstance(t, secret, "A")["id"].(string)
		first := e.do("POST", inst+"/sandbox/inbound", secret, map[string]any{"from": "+15557654321", "text": "Hi"}).
			want(t, http.StatusCreated).json(t)
		chatPath := inst + "/chats/" + first["chat_id"].(string)
		e.do("PATCH", chatPath, secret, map[string]any{"archived": true}).want(t, http.StatusOK)

		e.do("POST", inst+"/sandbox/inbound", secret, map[string]any{"from": "+15557654321", "text": "Still there?"}).
			want(t, http.StatusCreated)
		if got := e.do("GET", chatPath, secret, nil).want(t, http.StatusOK).json(t); got["archived"] != false {
			t.Fatalf("chat after a new message: %v", got)
		}
		evs := e.items(t, secret, "/api/v1/events?type=chat.updated")
		if len(evs) != 2 {
			t.Fatalf("%d chat.updated events, want 2 (archived, then unarchived): %v", len(evs), evs)
		}
		data := evs[0]["data"].(map[string]any)
		if data["id"] != first["chat_id"] || data["archived"] != false || data["unread_count"] != float64(2) {
			t.Errorf("newest chat.updated: %v", data)
		}
		// A message to a chat that is not archived records none.
		e.do("POST", inst+"/sandbox/inbound", secret, map[string]any{"from": "+15557654321", "text": "Hello?"}).
			want(t, http.StatusCreated)
		if n := len(e.items(t, secret, "/api/v1/events?type=chat.updated")); n != 2 {
			t.Errorf("%d chat.updated events after a message to an unarchived chat, want 2", n)
		}
	})
}

// A send brings an archived chat back with chat.updated, as a received message does: through
// the group commit of plain sends and through a send stored on its own (a reply).
func TestSendUnarchivesChatWithEvent(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		inst := "/api/v1/instances/" + e.connectedInstance(t, secret, "A")["id"].(string)
		first := e.do("POST", inst+"/sandbox/inbound", secret, map[string]any{"from": "+15557654321", "text": "Hi"}).
			want(t, http.StatusCreated).json(t)
		chatPath := inst + "/chats/" + first["chat_id"].(string)
		chatEvents := func() []map[string]any { return e.items(t, secret, "/api/v1/events?type=chat.updated") }

		for i, body := range []map[string]any{
			{"to": "+15557654321", "text": "Back soon"},                           // group commit
			{"to": "+15557654321", "text": "Here it is", "reply_to": first["id"]}, // stored on its own
		} {
			e.do("PATCH", chatPath, secret, map[string]any{"archived": true}).want(t, http.StatusOK)
			sent := e.do("POST", inst+"/messages", secret, body).want(t, http.StatusAccepted).json(t)
			if got := e.do("GET", chatPath, secret, nil).want(t, http.StatusOK).json(t); got["archived"] != false {
				t.Fatalf("send %d: chat after the send: %v", i, got)
			}
			evs := chatEvents()
			if len(evs) != 2*(i+1) {
				t.Fatalf("send %d: %d chat.updated events, want %d (archived, then unarchived each time)", i, len(evs), 2*(i+1))
			}
			data := evs[0]["data"].(map[string]any)
			last, _ := data["last_message"].(map[string]any)
			if data["id"] != first["chat_id"] || data["archived"] != false || last == nil || last["id"] != sent["id"] {
				t.Errorf("send %d: newest chat.updated: %v", i, data)
			}
		}
		// A send to a chat that is not archived records none.
		e.do("POST", inst+"/messages", secret, map[string]any{"to": "+15557654321", "text": "Anything else?"}).
			want(t, http.StatusAccepted)
		if n := len(chatEvents()); n != 4 {
			t.Errorf("%d chat.updated events after a send to an unarchived chat, want 4", n)
		}
	})
}

// aheadClock is the real clock moved ahead by a settable offset: a test lets a second pass
// between two steps (so their times differ) while receipts and jobs keep real time.
type aheadClock struct {
	mu sync.Mutex
	by time.Duration
}

func (c *aheadClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return domain.SystemClock{}.Now().Add(c.by)
}

func (c *aheadClock) tick() { c.mu.Lock(); c.by += time.Second; c.mu.Unlock() }

// Chats are listed by latest activity by default (the chat with the newest message first, a
// chat without messages by its creation), or newest created first with sort=created; pages
// of the activity order never repeat a chat that becomes active while a client pages.
func TestChatsListByLatestActivity(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		clk := &aheadClock{}
		e := newMessagingEnvAt(t, d, clk)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		inst := "/api/v1/instances/" + e.connectedInstance(t, secret, "A")["id"].(string)
		chatOf := map[string]string{} // chat id → name in this test
		inbound := func(name, from string) {
			clk.tick()
			m := e.do("POST", inst+"/sandbox/inbound", secret, map[string]any{"from": from, "text": "Hi"}).
				want(t, http.StatusCreated).json(t)
			chatOf[m["chat_id"].(string)] = name
		}
		inbound("ada", "+15557000001")
		inbound("bob", "+15557000002")
		inbound("cy", "+15557000003")
		clk.tick()
		g := e.do("POST", inst+"/groups", secret, map[string]any{"subject": "Quiet", "participants": []string{"+15557000009"}}).
			want(t, http.StatusCreated).json(t)
		for _, c := range e.items(t, secret, inst+"/chats?sort=created") {
			if c["address"] == g["address"] {
				chatOf[c["id"].(string)] = "group" // no message yet: it counts from its creation
			}
		}
		clk.tick()
		e.do("POST", inst+"/messages", secret, map[string]any{"to": "+15557000001", "text": "Hello again"}).
			want(t, http.StatusAccepted)

		names := func(path string) (out []string, next string) {
			res := e.do("GET", path, secret, nil).want(t, http.StatusOK).json(t)
			for _, c := range res["data"].([]any) {
				out = append(out, chatOf[c.(map[string]any)["id"].(string)])
			}
			next, _ = res["next_cursor"].(string)
			return out, next
		}
		for path, want := range map[string]string{
			inst + "/chats":                                  "ada group cy bob",
			inst + "/chats?sort=last_message":                "ada group cy bob",
			inst + "/chats?sort=created":                     "group cy bob ada",
			inst + "/chats?sort=last_message&archived=false": "ada group cy bob",
		} {
			if got, _ := names(path); strings.Join(got, " ") != want {
				t.Errorf("%s: %v, want %s", path, got, want)
			}
		}

		// Paging: ada and the group on the first page; then ada (seen) and cy (not yet seen)
		// get messages. The next page repeats neither; cy, now ahead of the cursor, is in the
		// next pass. Nothing that stayed put is skipped.
		first, cursor := names(inst + "/chats?limit=2")
		if strings.Join(first, " ") != "ada group" || cursor == "" {
			t.Fatalf("first page %v, cursor %q", first, cursor)
		}
		inbound("ada", "+15557000001")
		inbound("cy", "+15557000003")
		if rest, next := names(inst + "/chats?limit=2&after=" + cursor); strings.Join(rest, " ") != "bob" || next != "" {
			t.Errorf("second page %v (next %q), want bob and no more", rest, next)
		}
		if again, _ := names(inst + "/chats"); strings.Join(again, " ") != "cy ada group bob" {
			t.Errorf("a new pass: %v", again)
		}
		// sort=created pages by id, unmoved by activity.
		page, next := names(inst + "/chats?sort=created&limit=3")
		if rest, _ := names(inst + "/chats?sort=created&limit=3&after=" + next); strings.Join(append(page, rest...), " ") != "group cy bob ada" {
			t.Errorf("created pages: %v then %v", page, rest)
		}

		// Bad input: the offending parameter is named, and a cursor belongs to its sort.
		for query, param := range map[string]string{
			"sort=newest":                  "sort",
			"sort=created&after=" + cursor: "after",
			"after=" + next:                "after",
			"after=" + next + ".x":         "after",
		} {
			got := e.do("GET", inst+"/chats?"+query, secret, nil).wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != param {
				t.Errorf("?%s: param %v, want %s", query, got["param"], param)
			}
		}
	})
}

// group.participants_changed names only who really joined: adding a member again, or the
// instance itself, changes nothing and records nothing.
func TestGroupParticipantsEventNamesRealChanges(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		a := e.connectedInstance(t, secret, "A")
		inst := "/api/v1/instances/" + a["id"].(string)
		g := e.do("POST", inst+"/groups", secret, map[string]any{"subject": "Team", "participants": []string{"+15551110001"}}).
			want(t, http.StatusCreated).json(t)
		members := inst + "/groups/" + g["id"].(string) + "/participants"
		events := func() []map[string]any {
			return e.items(t, secret, "/api/v1/events?type=group.participants_changed")
		}
		for _, body := range []map[string]any{
			{"add": []string{"+15551110001"}},
			{"remove": []string{a["address"].(string)}},
		} {
			got := e.do("POST", members, secret, body).want(t, http.StatusOK).json(t)
			if ps := got["participants"].([]any); len(ps) != 2 {
				t.Errorf("%v: participants %v", body, ps)
			}
		}
		if evs := events(); len(evs) != 0 {
			t.Errorf("events after changes that changed nothing: %v", evs)
		}
		got := e.do("POST", members, secret, map[string]any{"add": []string{"+15551110001", "+15551110002"}}).want(t, http.StatusOK).json(t)
		if ps := got["participants"].([]any); len(ps) != 3 {
			t.Errorf("participants: %v", ps)
		}
		evs := events()
		if len(evs) != 1 {
			t.Fatalf("%d events, want 1", len(evs))
		}
		data := evs[0]["data"].(map[string]any)
		if added := data["added"].([]any); len(added) != 1 || added[0] != "+15551110002" {
			t.Errorf("added %v, want only +15551110002", data["added"])
		}
	})
}

// phones returns n distinct sandbox numbers.
func phones(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("+1555400%04d", i)
	}
	return out
}

// A PATCH that changes nothing (the same values, or nothing at all) records no event and
// keeps updated_at, as for links; a real change still records one.
func TestUnchangedPatchRecordsNoEvent(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		a := e.connectedInstance(t, secret, "A")
		inst := "/api/v1/instances/" + a["id"].(string)
		e.do("PATCH", inst, secret, map[string]any{"config": map[string]any{"token": "s3cret"}}).want(t, http.StatusOK)
		ct := e.do("POST", inst+"/contacts", secret, map[string]any{"address": "+15551112222", "name": "Ada",
			"labels": []string{"vip"}, "attributes": map[string]string{"plan": "pro"}}).want(t, http.StatusCreated).json(t)
		ctPath := inst + "/contacts/" + ct["id"].(string)
		count := func(typ string) int { return len(e.items(t, secret, "/api/v1/events?type="+typ)) }
		instEvents, ctEvents := count("instance.updated"), count("contact.updated")
		before := e.do("GET", inst, secret, nil).want(t, http.StatusOK).json(t)

		for _, body := range []map[string]any{
			{},
			{"name": "A", "messages_per_second": 20},
			{"config": map[string]any{"auto_pair": true, "delivered_after_ms": 0, "token": "********"}},
			{"config": map[string]any{"echo": nil}},
		} {
			got := e.do("PATCH", inst, secret, body).want(t, http.StatusOK).json(t)
			if got["updated_at"] != before["updated_at"] {
				t.Errorf("%v: updated_at %v, want %v", body, got["updated_at"], before["updated_at"])
			}
		}
		for _, body := range []map[string]any{
			{},
			{"name": "Ada", "labels": []string{"vip"}, "attributes": map[string]string{"plan": "pro"}},
		} {
			got := e.do("PATCH", ctPath, secret, body).want(t, http.StatusOK).json(t)
			if got["updated_at"] != ct["updated_at"] || got["name"] != "Ada" {
				t.Errorf("contact %v: %v", body, got)
			}
		}
		// Nor a group given its own subject again, a chat read again, or archived again.
		g := e.do("POST", inst+"/groups", secret, map[string]any{"subject": "Team", "participants": []string{"+15551112222"}}).
			want(t, http.StatusCreated).json(t)
		e.do("PATCH", inst+"/groups/"+g["id"].(string), secret, map[string]any{"subject": "Team", "description": ""}).want(t, http.StatusOK)
		if n := count("group.updated"); n != 0 {
			t.Errorf("%d group.updated events after an unchanged PATCH", n)
		}
		chat := e.do("POST", inst+"/sandbox/inbound", secret, map[string]any{"from": "+15551112222", "text": "Hi"}).
			want(t, http.StatusCreated).json(t)["chat_id"].(string)
		chatPath := inst + "/chats/" + chat
		e.do("POST", chatPath+"/read", secret, nil).want(t, http.StatusOK)
		e.do("PATCH", chatPath, secret, map[string]any{"archived": true}).want(t, http.StatusOK)
		chatEvents := count("chat.updated")
		e.do("POST", chatPath+"/read", secret, nil).want(t, http.StatusOK)
		if got := e.do("PATCH", chatPath, secret, map[string]any{"archived": true}).want(t, http.StatusOK).json(t); got["archived"] != true {
			t.Errorf("archived again: %v", got)
		}
		if n := count("chat.updated"); n != chatEvents {
			t.Errorf("%d chat.updated events after unchanged calls, want %d", n, chatEvents)
		}
		if n := count("instance.updated"); n != instEvents {
			t.Errorf("%d instance.updated events after unchanged PATCHes, want %d", n, instEvents)
		}
		if n := count("contact.updated"); n != ctEvents {
			t.Errorf("%d contact.updated events after unchanged PATCHes, want %d", n, ctEvents)
		}

		e.do("PATCH", inst, secret, map[string]any{"config": map[string]any{"token": "n3w"}}).want(t, http.StatusOK)
		e.do("PATCH", ctPath, secret, map[string]any{"labels": []string{"vip", "beta"}}).want(t, http.StatusOK)
		if count("instance.updated") != instEvents+1 || count("contact.updated") != ctEvents+1 {
			t.Errorf("changes: %d instance.updated, %d contact.updated", count("instance.updated"), count("contact.updated"))
		}
	})
}

// The address filter takes a group by its grp_ id too, as sends and typing do.
func TestMessagesFilterByGroupID(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		inst := "/api/v1/instances/" + e.connectedInstance(t, secret, "A")["id"].(string)
		g := e.do("POST", inst+"/groups", secret, map[string]any{"subject": "Team", "participants": []string{"+15551112222"}}).
			want(t, http.StatusCreated).json(t)
		e.do("POST", inst+"/messages", secret, map[string]any{"to": g["id"], "text": "Hi team"}).want(t, http.StatusAccepted)
		e.do("POST", inst+"/messages", secret, map[string]any{"to": "+15551112222", "text": "Hi you"}).want(t, http.StatusAccepted)
		byID := e.items(t, secret, inst+"/messages?address="+g["id"].(string))
		byAddress := e.items(t, secret, inst+"/messages?address="+g["address"].(string))
		if len(byID) != 1 || len(byAddress) != 1 || byID[0]["id"] != byAddress[0]["id"] {
			t.Errorf("by id %v, by address %v", byID, byAddress)
		}
		got := e.do("GET", inst+"/messages?address=grp_01jr8d0c3b5n7q9s1u3w5y7a9c", secret, nil).wantError(t, http.StatusBadRequest, "validation_failed")
		if got["param"] != "address" {
			t.Errorf("unknown group: %v", got)
		}
	})
}

// PATCH tells null from a left-out field, as api.md says: null is refused for what an
// object cannot be without (an instance's name and config, a group's subject), resets
// messages_per_second, and removes a contact's name, labels and attributes and a group's
// description.
func TestMessagingPatchNulls(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		a := e.connectedInstance(t, secret, "A")
		inst := "/api/v1/instances/" + a["id"].(string)
		e.do("PATCH", inst, secret, map[string]any{"messages_per_second": 3}).want(t, http.StatusOK)
		for _, field := range []string{"name", "config"} {
			if got := e.do("PATCH", inst, secret, `{"`+field+`": null}`).wantError(t, http.StatusBadRequest, "validation_failed"); got["param"] != field {
				t.Errorf("instance %s null: %v", field, got)
			}
		}
		if got := e.do("PATCH", inst, secret, `{"messages_per_second": null}`).want(t, http.StatusOK).json(t); got["messages_per_second"] != float64(20) || got["name"] != a["name"] {
			t.Errorf("messages_per_second null: %v", got)
		}

		c := e.do("POST", inst+"/contacts", secret, map[string]any{"address": "+15551230001", "name": "Ada", "labels": []string{"vip"},
			"attributes": map[string]string{"plan": "team"}}).want(t, http.StatusCreated).json(t)
		got := e.do("PATCH", inst+"/contacts/"+c["id"].(string), secret, `{"name": null, "labels": null, "attributes": null}`).want(t, http.StatusOK).json(t)
		if got["name"] != nil && got["name"] != "" || len(got["labels"].([]any)) != 0 || len(got["attributes"].(map[string]any)) != 0 {
			t.Errorf("contact fields null: %v", got)
		}

		g := e.do("POST", inst+"/groups", secret, map[string]any{"subject": "Team", "description": "About", "participants": []string{"+15551110001"}}).
			want(t, http.StatusCreated).json(t)
		group := inst + "/groups/" + g["id"].(string)
		if bad := e.do("PATCH", group, secret, `{"subject": null}`).wantError(t, http.StatusBadRequest, "validation_failed"); bad["param"] != "subject" {
			t.Errorf("subject null: %v", bad)
		}
		if got := e.do("PATCH", group, secret, `{"description": null}`).want(t, http.StatusOK).json(t); got["description"] != "" && got["description"] != nil || got["subject"] != "Team" {
			t.Errorf("description null: %v", got)
		}
	})
}

// Through the API as a user meets it: marking a chat read records message.status_updated
// (status read) for each inbound message it read, and none for a chat already read; an
// edit to the text a message already has answers the message unchanged and records nothing.
func TestChatReadAndSameTextEditOverREST(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newMessagingEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		a := e.connectedInstance(t, secret, "A")
		inst := "/api/v1/instances/" + a["id"].(string)
		var inbound []string
		for _, text := range []string{"Hi", "Are you there?"} {
			m := e.do("POST", inst+"/sandbox/inbound", secret, map[string]any{"from": "+15557654321", "text": text}).
				want(t, http.StatusCreated).json(t)
			inbound = append(inbound, m["id"].(string))
		}
		chat := e.do("GET", inst+"/messages/"+inbound[0], secret, nil).want(t, http.StatusOK).json(t)["chat_id"].(string)
		readEvents := func() map[string]int {
			got := map[string]int{}
			for _, ev := range e.items(t, secret, "/api/v1/events?type=message.status_updated") {
				data := ev["data"].(map[string]any)
				if data["status"] == "read" {
					got[data["id"].(string)]++
				}
			}
			return got
		}
		before := readEvents()
		e.do("POST", inst+"/chats/"+chat+"/read", secret, nil).want(t, http.StatusOK)
		after := readEvents()
		for _, id := range inbound {
			if after[id]-before[id] != 1 {
				t.Fatalf("message %s: %d read events from marking the chat read, want 1 (%v)", id, after[id]-before[id], after)
			}
		}
		e.do("POST", inst+"/chats/"+chat+"/read", secret, nil).want(t, http.StatusOK)
		if again := readEvents(); fmt.Sprint(again) != fmt.Sprint(after) {
			t.Fatalf("marking a read chat read again recorded events: %v, before %v", again, after)
		}

		sent := e.do("POST", inst+"/messages", secret, map[string]any{"to": "+15557654321", "text": "Launch on Monday"}).
			want(t, http.StatusAccepted).json(t)
		msg := inst + "/messages/" + sent["id"].(string)
		eventually(t, "the message to be sent", func() bool {
			s := e.do("GET", msg, secret, nil).want(t, http.StatusOK).json(t)["status"]
			return s != "queued" && s != "sending"
		})
		edited := e.do("PATCH", msg, secret, map[string]any{"text": "Launch on Tuesday"}).want(t, http.StatusOK).json(t)
		if edited["edited_at"] == nil || edited["text"] != "Launch on Tuesday" {
			t.Fatalf("the edit answered %v", edited)
		}
		edits := len(e.items(t, secret, "/api/v1/events?type=message.edited"))
		same := e.do("PATCH", msg, secret, map[string]any{"text": "Launch on Tuesday"}).want(t, http.StatusOK).json(t)
		if same["edited_at"] != edited["edited_at"] || same["text"] != edited["text"] {
			t.Fatalf("the same edit again answered %v, want %v unchanged", same, edited)
		}
		if n := len(e.items(t, secret, "/api/v1/events?type=message.edited")); n != edits {
			t.Fatalf("%d message.edited events after an edit to the same text, want %d", n, edits)
		}
	})
}
