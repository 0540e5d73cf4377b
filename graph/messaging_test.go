package graph_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/sandbox"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
	"github.com/switchboard-dev/switchboard/graph"
)

// newMessagingHarness is the real /graphql handler with the messaging surface on the
// sandbox channel and a running job engine, so connecting, sending and receipts happen as
// in the binary.
func newMessagingHarness(t *testing.T, d store.Dialect) *harness {
	t.Helper()
	return newMessagingHarnessAt(t, d, domain.SystemClock{})
}

// newMessagingHarnessAt is newMessagingHarness with the service and the sandbox reading clk.
func newMessagingHarnessAt(t *testing.T, d store.Dialect, clk domain.Clock) *harness {
	t.Helper()
	svc, st := servicetest.New(t, d, service.Config{SecretsKey: []byte("0123456789abcdef0123456789abcdef"), Clock: clk})
	msg := messaging.New(svc, channels.NewRegistry(sandbox.New().WithClock(clk.Now)), messaging.Config{})
	engine := jobs.New(st, jobs.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PollInterval: 50 * time.Millisecond})
	for _, k := range msg.Kinds(messaging.Workers{Send: 4, Events: 4, Connect: 2}) {
		engine.Register(k)
	}
	if err := engine.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(engine.Close)
	mux := http.NewServeMux()
	mux.Handle("/graphql", graph.NewHandler(svc, graph.Options{Messaging: msg}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &harness{svc: svc, srv: srv}
}

func eachMessagingDialect(t *testing.T, fn func(t *testing.T, h *harness)) {
	t.Helper()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, newMessagingHarness(t, d)) })
	}
}

const instanceFields = `id name channel status statusReason address config messagesPerSecond connectedAt createdAt updatedAt`

const messageFields = `id instanceId chatId direction from to type text status replyTo providerMessageId
	media { url caption } error { code message } sentAt deliveredAt readAt createdAt`

type instance struct {
	ID, Name, Channel, Status string
	StatusReason, Address     *string
	Config                    map[string]any
	MessagesPerSecond         int
}

type message struct {
	ID, InstanceID, ChatID, Direction, From, To, Type, Status string
	Text, ReplyTo                                             *string
	Media                                                     *struct{ URL, Caption string }
	DeliveredAt, ReadAt                                       *string
}

type chat struct {
	ID, Address, Type string
	UnreadCount       int
	LastMessage       *message
}

// eventually waits for cond, which the job engine makes true in the background.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (h *harness) createInstance(t *testing.T, in map[string]any, opts ...option) instance {
	t.Helper()
	_, r := h.post(t, `mutation($in: CreateInstanceInput!) { createInstance(input: $in) { `+instanceFields+` } }`,
		map[string]any{"in": in}, opts...)
	var data struct{ CreateInstance instance }
	r.decode(t, &data)
	return data.CreateInstance
}

func (h *harness) instance(t *testing.T, id string, opts ...option) instance {
	t.Helper()
	_, r := h.post(t, `query($id: ID!) { instance(id: $id) { `+instanceFields+` } }`, map[string]any{"id": id}, opts...)
	var data struct{ Instance instance }
	r.decode(t, &data)
	return data.Instance
}

func (h *harness) waitStatus(t *testing.T, id, status string, opts ...option) instance {
	t.Helper()
	var in instance
	eventually(t, id+" "+status, func() bool {
		in = h.instance(t, id, opts...)
		return in.Status == status
	})
	return in
}

func (h *harness) messages(t *testing.T, instanceID string, opts ...option) []message {
	t.Helper()
	_, r := h.post(t, `query($id: ID!) { messages(instanceId: $id) { nodes { `+messageFields+` } hasMore nextCursor } }`,
		map[string]any{"id": instanceID}, opts...)
	var data struct{ Messages struct{ Nodes []message } }
	r.decode(t, &data)
	return data.Messages.Nodes
}

// The journey the console makes: two sandbox instances connect (one paired automatically,
// one with its pairing code), one sends to the other, the other receives it and marks the
// chat read, and the sender's message moves queued → delivered → read.
func TestMessagingFlow(t *testing.T) {
	eachMessagingDialect(t, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		s := withSession(token)

		a := h.createInstance(t, map[string]any{"name": "Support", "channel": "sandbox",
			"config": map[string]any{"auto_pair": true, "token": "tok_secret"}, "connect": true}, s)
		if !strings.HasPrefix(a.ID, "inst_") || a.Name != "Support" || a.Channel != "sandbox" || a.Status != "connecting" ||
			a.Config["auto_pair"] != true || a.Config["token"] != "********" || a.MessagesPerSecond != 20 {
			t.Fatalf("created %+v", a)
		}
		a = h.waitStatus(t, a.ID, "connected", s)
		if a.Address == nil || !strings.HasPrefix(*a.Address, "+1555") {
			t.Fatalf("connected %+v", a)
		}

		// B pairs by hand: the QR code and the code, then pairSandboxInstance with the code.
		b := h.createInstance(t, map[string]any{"name": "Sales"}, s)
		if b.Status != "disconnected" || b.Channel != "sandbox" {
			t.Fatalf("created %+v", b)
		}
		_, r := h.post(t, `mutation($id: ID!) { connectInstance(id: $id) { status } }`, map[string]any{"id": b.ID}, s)
		var conn struct{ ConnectInstance struct{ Status string } }
		r.decode(t, &conn)
		if conn.ConnectInstance.Status != "connecting" {
			t.Fatalf("connectInstance: %+v", conn)
		}
		h.waitStatus(t, b.ID, "pairing", s)
		_, r = h.post(t, `query($id: ID!) { instancePairing(id: $id) { instanceId pairingCode qrCode qrPayload expiresAt } }`,
			map[string]any{"id": b.ID}, s)
		var pairing struct {
			InstancePairing struct{ InstanceID, PairingCode, QRCode, QRPayload, ExpiresAt string }
		}
		r.decode(t, &pairing)
		p := pairing.InstancePairing
		if p.InstanceID != b.ID || p.PairingCode == "" || !strings.HasPrefix(p.QRCode, "data:image/png;base64,") ||
			!strings.Contains(p.QRPayload, p.PairingCode) || p.ExpiresAt == "" {
			t.Fatalf("pairing %+v", p)
		}
		const pair = `mutation($id: ID!, $code: String) { pairSandboxInstance(id: $id, pairingCode: $code) { status address } }`
		_, r = h.post(t, pair, map[string]any{"id": b.ID, "code": "WRONG1"}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "pairingCode" {
			t.Fatalf("wrong code: %+v", r.Errors)
		}
		_, r = h.post(t, pair, map[string]any{"id": b.ID, "code": p.PairingCode}, s)
		var paired struct{ PairSandboxInstance instance }
		r.decode(t, &paired)
		if paired.PairSandboxInstance.Status != "connected" || paired.PairSandboxInstance.Address == nil {
			t.Fatalf("paired %+v", paired)
		}
		bAddr := *paired.PairSandboxInstance.Address

		// Both are listed, newest first.
		_, r = h.post(t, `{ instances { nodes { id status } hasMore nextCursor } }`, nil, s)
		var list struct {
			Instances struct {
				Nodes   []instance
				HasMore bool
			}
		}
		r.decode(t, &list)
		if len(list.Instances.Nodes) != 2 || list.Instances.Nodes[0].ID != b.ID || list.Instances.Nodes[1].ID != a.ID {
			t.Fatalf("instances %+v", list)
		}

		// A sends to B: queued at once, then delivered.
		const send = `mutation($id: ID!, $in: SendMessageInput!) { sendMessage(instanceId: $id, input: $in) { ` + messageFields + ` } }`
		_, r = h.post(t, send, map[string]any{"id": a.ID, "in": map[string]any{"to": bAddr, "text": "Hello B"}}, s)
		var sent struct{ SendMessage message }
		r.decode(t, &sent)
		m := sent.SendMessage
		if !strings.HasPrefix(m.ID, "msg_") || m.Status != "queued" || m.Direction != "outbound" || m.Type != "text" ||
			m.Text == nil || *m.Text != "Hello B" || m.From != *a.Address || m.To != bAddr {
			t.Fatalf("sent %+v", m)
		}
		eventually(t, "delivered", func() bool {
			ms := h.messages(t, a.ID, s)
			return len(ms) == 1 && ms[0].ID == m.ID && ms[0].Status == "delivered" && ms[0].DeliveredAt != nil
		})

		// B received it, in a chat with one unread message.
		var in message
		eventually(t, "received", func() bool {
			ms := h.messages(t, b.ID, s)
			if len(ms) == 1 {
				in = ms[0]
			}
			return len(ms) == 1
		})
		if in.Direction != "inbound" || in.Status != "received" || *in.Text != "Hello B" || in.From != *a.Address || in.To != bAddr {
			t.Fatalf("received %+v", in)
		}
		_, r = h.post(t, `query($id: ID!) { chats(instanceId: $id) { nodes { id address type unreadCount lastMessage { id text } } } }`,
			map[string]any{"id": b.ID}, s)
		var chats struct{ Chats struct{ Nodes []chat } }
		r.decode(t, &chats)
		if len(chats.Chats.Nodes) != 1 || chats.Chats.Nodes[0].UnreadCount != 1 || chats.Chats.Nodes[0].Address != *a.Address ||
			chats.Chats.Nodes[0].Type != "direct" || chats.Chats.Nodes[0].LastMessage == nil || chats.Chats.Nodes[0].LastMessage.ID != in.ID {
			t.Fatalf("chats %+v", chats)
		}

		// B reads the chat: its unread count drops and A's message becomes read.
		_, r = h.post(t, `mutation($id: ID!, $chat: ID!) { markChatRead(instanceId: $id, chatId: $chat) { id unreadCount } }`,
			map[string]any{"id": b.ID, "chat": chats.Chats.Nodes[0].ID}, s)
		var read struct{ MarkChatRead chat }
		r.decode(t, &read)
		if read.MarkChatRead.UnreadCount != 0 {
			t.Fatalf("markChatRead %+v", read)
		}
		eventually(t, "read", func() bool {
			ms := h.messages(t, a.ID, s)
			return ms[0].Status == "read" && ms[0].ReadAt != nil
		})

		// A message by id, and a filter.
		_, r = h.post(t, `query($id: ID!, $m: ID!) { message(instanceId: $id, id: $m) { id status } }`,
			map[string]any{"id": a.ID, "m": m.ID}, s)
		var one struct{ Message message }
		r.decode(t, &one)
		if one.Message.Status != "read" {
			t.Fatalf("message %+v", one)
		}
		_, r = h.post(t, `query($id: ID!) { messages(instanceId: $id, filter: {direction: "inbound"}) { nodes { id } } }`,
			map[string]any{"id": a.ID}, s)
		var none struct{ Messages struct{ Nodes []message } }
		r.decode(t, &none)
		if len(none.Messages.Nodes) != 0 {
			t.Fatalf("inbound on A: %+v", none)
		}

		// Media by URL with a caption.
		_, r = h.post(t, send, map[string]any{"id": a.ID, "in": map[string]any{"to": bAddr, "type": "image",
			"media": map[string]any{"url": "https://example.com/cat.png", "caption": "A cat"}}}, s)
		var media struct{ SendMessage message }
		r.decode(t, &media)
		if media.SendMessage.Type != "image" || media.SendMessage.Media == nil || media.SendMessage.Media.Caption != "A cat" ||
			media.SendMessage.Text != nil {
			t.Fatalf("media %+v", media.SendMessage)
		}

		// Bad input is refused with the field named, nothing stored.
		for name, c := range map[string]struct {
			in    map[string]any
			field string
		}{
			"blank text":    {map[string]any{"to": bAddr, "text": " "}, "text"},
			"bad address":   {map[string]any{"to": "nobody", "text": "hi"}, "to"},
			"media no url":  {map[string]any{"to": bAddr, "type": "image", "media": map[string]any{"url": "ftp://x"}}, "media.url"},
			"foreign reply": {map[string]any{"to": bAddr, "text": "hi", "replyTo": "msg_nope"}, "replyTo"},
		} {
			_, r = h.post(t, send, map[string]any{"id": a.ID, "in": c.in}, s)
			if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != c.field {
				t.Errorf("%s: %+v", name, r.Errors)
			}
		}
		if n := len(h.messages(t, a.ID, s)); n != 2 {
			t.Fatalf("A has %d messages, want 2", n)
		}
		_, r = h.post(t, `mutation($in: CreateInstanceInput!) { createInstance(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"name": "x", "config": map[string]any{"nope": 1}}}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "config.nope" {
			t.Fatalf("unknown config: %+v", r.Errors)
		}
		_, r = h.post(t, `{ instances(first: 0) { nodes { id } } }`, nil, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "first" {
			t.Fatalf("first: 0: %+v", r.Errors)
		}
	})
}

func TestMessagingGroupsAndContacts(t *testing.T) {
	eachMessagingDialect(t, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		s := withSession(token)
		a := h.createInstance(t, map[string]any{"name": "A", "config": map[string]any{"auto_pair": true}, "connect": true}, s)
		h.waitStatus(t, a.ID, "connected", s)

		const groupFields = `id address subject description owner left participants { address role }`
		_, r := h.post(t, `mutation($id: ID!, $in: CreateGroupInput!) { createGroup(instanceId: $id, input: $in) { `+groupFields+` } }`,
			map[string]any{"id": a.ID, "in": map[string]any{"subject": "Launch", "participants": []string{"+15551230001"}}}, s)
		var created struct {
			CreateGroup struct {
				ID, Subject  string
				Left         bool
				Participants []struct{ Address, Role string }
			}
		}
		r.decode(t, &created)
		g := created.CreateGroup
		if !strings.HasPrefix(g.ID, "grp_") || g.Subject != "Launch" || len(g.Participants) < 2 {
			t.Fatalf("group %+v", g)
		}
		_, r = h.post(t, `mutation($id: ID!, $g: ID!) { changeGroupParticipants(instanceId: $id, id: $g, add: ["+15551230002"], remove: ["+15551230001"]) { participants { address } } }`,
			map[string]any{"id": a.ID, "g": g.ID}, s)
		var changed struct {
			ChangeGroupParticipants struct{ Participants []struct{ Address string } }
		}
		r.decode(t, &changed)
		got := []string{}
		for _, p := range changed.ChangeGroupParticipants.Participants {
			got = append(got, p.Address)
		}
		if strings.Contains(strings.Join(got, ","), "+15551230001") || !strings.Contains(strings.Join(got, ","), "+15551230002") {
			t.Fatalf("participants %v", got)
		}
		_, r = h.post(t, `mutation($id: ID!, $g: ID!) { leaveGroup(instanceId: $id, id: $g) { left } }`, map[string]any{"id": a.ID, "g": g.ID}, s)
		var left struct{ LeaveGroup struct{ Left bool } }
		r.decode(t, &left)
		if !left.LeaveGroup.Left {
			t.Fatal("not left")
		}
		_, r = h.post(t, `query($id: ID!) { groups(instanceId: $id) { nodes { id left } } }`, map[string]any{"id": a.ID}, s)
		var groups struct {
			Groups struct{ Nodes []struct{ Left bool } }
		}
		r.decode(t, &groups)
		if len(groups.Groups.Nodes) != 1 || !groups.Groups.Nodes[0].Left {
			t.Fatalf("groups %+v", groups)
		}

		const contactFields = `id address name labels attributes`
		type contact struct {
			ID, Address, Name string
			Labels            []string
			Attributes        map[string]string
		}
		_, r = h.post(t, `mutation($id: ID!, $in: CreateContactInput!) { createContact(instanceId: $id, input: $in) { `+contactFields+` } }`,
			map[string]any{"id": a.ID, "in": map[string]any{"address": "+15551230009", "name": "Ada", "labels": []string{"vip"},
				"attributes": map[string]any{"plan": "pro"}}}, s)
		var cc struct{ CreateContact contact }
		r.decode(t, &cc)
		if cc.CreateContact.Name != "Ada" || cc.CreateContact.Attributes["plan"] != "pro" || len(cc.CreateContact.Labels) != 1 {
			t.Fatalf("contact %+v", cc)
		}
		_, r = h.post(t, `mutation($id: ID!, $c: ID!) { updateContact(instanceId: $id, id: $c, input: {name: "Ada L", labels: []}) { `+contactFields+` } }`,
			map[string]any{"id": a.ID, "c": cc.CreateContact.ID}, s)
		var uc struct{ UpdateContact contact }
		r.decode(t, &uc)
		if uc.UpdateContact.Name != "Ada L" || len(uc.UpdateContact.Labels) != 0 || uc.UpdateContact.Attributes["plan"] != "pro" {
			t.Fatalf("updated %+v", uc)
		}
		_, r = h.post(t, `mutation($id: ID!) { createContact(instanceId: $id, input: {address: "+15551230010", attributes: {n: 1}}) { id } }`,
			map[string]any{"id": a.ID}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "attributes.n" {
			t.Fatalf("number attribute: %+v", r.Errors)
		}
		_, r = h.post(t, `mutation($id: ID!) { checkContacts(instanceId: $id, addresses: ["+15551230009", "+15550001234"]) { address reachable } }`,
			map[string]any{"id": a.ID}, s)
		var check struct {
			CheckContacts []struct {
				Address   string
				Reachable bool
			}
		}
		r.decode(t, &check)
		if len(check.CheckContacts) != 2 || !check.CheckContacts[0].Reachable || check.CheckContacts[1].Reachable {
			t.Fatalf("check %+v", check)
		}
		_, r = h.post(t, `mutation($id: ID!, $c: ID!) { deleteContact(instanceId: $id, id: $c) { id } }`,
			map[string]any{"id": a.ID, "c": cc.CreateContact.ID}, s)
		r.decode(t, &struct{}{})
		_, r = h.post(t, `query($id: ID!) { contacts(instanceId: $id) { nodes { id } } }`, map[string]any{"id": a.ID}, s)
		var contacts struct{ Contacts struct{ Nodes []contact } }
		r.decode(t, &contacts)
		if len(contacts.Contacts.Nodes) != 0 {
			t.Fatalf("contacts %+v", contacts)
		}

		_, r = h.post(t, `mutation($id: ID!) { deleteInstance(id: $id) { id } }`, map[string]any{"id": a.ID}, s)
		r.decode(t, &struct{}{})
		_, r = h.post(t, `query($id: ID!) { instance(id: $id) { id } }`, map[string]any{"id": a.ID}, s)
		if r.code(t) != "NOT_FOUND" {
			t.Fatalf("deleted instance: %+v", r.Errors)
		}
	})
}

// Keys need the scopes REST needs; another workspace's instance does not exist.
func TestMessagingAccess(t *testing.T) {
	eachMessagingDialect(t, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		s := withSession(token)
		a := h.createInstance(t, map[string]any{"name": "A", "config": map[string]any{"auto_pair": true}, "connect": true}, s)
		h.waitStatus(t, a.ID, "connected", s)

		_, noRead := h.createKey(t, token, "messages:read")
		_, r := h.post(t, `{ instances { nodes { id } } }`, nil, withKey(noRead))
		if r.code(t) != "FORBIDDEN" || r.Errors[0].Extensions["reason"] != "insufficient_scope" ||
			!strings.Contains(r.Errors[0].Message, "instances:read") {
			t.Fatalf("without instances:read: %+v", r.Errors)
		}
		_, r = h.post(t, `mutation($id: ID!) { sendMessage(instanceId: $id, input: {to: "+15551230001", text: "hi"}) { id } }`,
			map[string]any{"id": a.ID}, withKey(noRead))
		if r.code(t) != "FORBIDDEN" {
			t.Fatalf("send without messages:send: %+v", r.Errors)
		}
		_, reader := h.createKey(t, token, "instances:read")
		_, r = h.post(t, `{ instances { nodes { id } } }`, nil, withKey(reader))
		var list struct{ Instances struct{ Nodes []instance } }
		r.decode(t, &list)
		if len(list.Instances.Nodes) != 1 || list.Instances.Nodes[0].ID != a.ID {
			t.Fatalf("with instances:read: %+v", list)
		}
		_, r = h.post(t, `mutation { createInstance(input: {name: "x"}) { id } }`, nil, withKey(reader))
		if r.code(t) != "FORBIDDEN" {
			t.Fatalf("create without instances:write: %+v", r.Errors)
		}
		// The pairing QR links a phone to the instance: reading it is writing.
		_, r = h.post(t, `query($id: ID!) { instancePairing(id: $id) { qrCode } }`, map[string]any{"id": a.ID}, withKey(reader))
		if r.code(t) != "FORBIDDEN" || r.Errors[0].Extensions["reason"] != "insufficient_scope" ||
			!strings.Contains(r.Errors[0].Message, "instances:write") {
			t.Fatalf("instancePairing without instances:write: %+v", r.Errors)
		}
		// Signed out.
		_, r = h.post(t, `{ instances { nodes { id } } }`, nil)
		if r.code(t) != "UNAUTHENTICATED" {
			t.Fatalf("signed out: %+v", r.Errors)
		}

		// Another workspace: not found, for reads and writes alike.
		other, _ := h.owner(t)
		o := withSession(other)
		for name, q := range map[string]string{
			"instance":   `query($id: ID!) { instance(id: $id) { id } }`,
			"messages":   `query($id: ID!) { messages(instanceId: $id) { nodes { id } } }`,
			"chats":      `query($id: ID!) { chats(instanceId: $id) { nodes { id } } }`,
			"groups":     `query($id: ID!) { groups(instanceId: $id) { nodes { id } } }`,
			"contacts":   `query($id: ID!) { contacts(instanceId: $id) { nodes { id } } }`,
			"connect":    `mutation($id: ID!) { connectInstance(id: $id) { id } }`,
			"disconnect": `mutation($id: ID!) { disconnectInstance(id: $id) { id } }`,
			"delete":     `mutation($id: ID!) { deleteInstance(id: $id) { id } }`,
			"send":       `mutation($id: ID!) { sendMessage(instanceId: $id, input: {to: "+15551230001", text: "hi"}) { id } }`,
		} {
			_, r = h.post(t, q, map[string]any{"id": a.ID}, o)
			if r.code(t) != "NOT_FOUND" {
				t.Errorf("%s of another workspace's instance: %+v", name, r.Errors)
			}
		}
		_, r = h.post(t, `{ instances { nodes { id } } }`, nil, o)
		var theirs struct{ Instances struct{ Nodes []instance } }
		r.decode(t, &theirs)
		if len(theirs.Instances.Nodes) != 0 {
			t.Fatalf("other workspace sees %+v", theirs)
		}
		// Still there for its owner.
		if got := h.instance(t, a.ID, s); got.Status != "connected" {
			t.Fatalf("after the other workspace's attempts: %+v", got)
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

// chats orders by latest activity unless sort: CREATED, as REST's sort does, and a cursor
// works only with the sort that made it.
func TestMessagingChatsSort(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			clk := &aheadClock{}
			h := newMessagingHarnessAt(t, d, clk)
			token, _ := h.owner(t)
			s := withSession(token)
			a := h.createInstance(t, map[string]any{"name": "A", "config": map[string]any{"auto_pair": true}, "connect": true}, s)
			h.waitStatus(t, a.ID, "connected", s)
			for _, from := range []string{"+15557000001", "+15557000002"} {
				clk.tick()
				_, r := h.post(t, `mutation($id: ID!, $from: String!) { injectSandboxMessage(instanceId: $id, input: {from: $from, text: "Hi"}) { id } }`,
					map[string]any{"id": a.ID, "from": from}, s)
				r.decode(t, &struct{}{})
			}
			clk.tick()
			_, r := h.post(t, `mutation($id: ID!) { sendMessage(instanceId: $id, input: {to: "+15557000001", text: "Again"}) { id } }`,
				map[string]any{"id": a.ID}, s)
			r.decode(t, &struct{}{})

			type page struct {
				Chats struct {
					Nodes      []chat
					NextCursor *string
				}
			}
			list := func(sort string, first int, after *string) (addrs []string, next *string, r gqlResponse) {
				vars := map[string]any{"id": a.ID, "first": first, "after": after}
				q := `query($id: ID!, $first: Int, $after: String) { chats(instanceId: $id, first: $first, after: $after) { nodes { address } nextCursor } }`
				if sort != "" {
					vars["sort"] = sort
					q = `query($id: ID!, $sort: ChatSort, $first: Int, $after: String) { chats(instanceId: $id, sort: $sort, first: $first, after: $after) { nodes { address } nextCursor } }`
				}
				_, r = h.post(t, q, vars, s)
				if len(r.Errors) > 0 {
					return nil, nil, r
				}
				var p page
				r.decode(t, &p)
				for _, c := range p.Chats.Nodes {
					addrs = append(addrs, c.Address)
				}
				return addrs, p.Chats.NextCursor, r
			}
			for sort, want := range map[string]string{
				"":             "+15557000001 +15557000002",
				"LAST_MESSAGE": "+15557000001 +15557000002",
				"CREATED":      "+15557000002 +15557000001",
			} {
				if got, _, r := list(sort, 20, nil); strings.Join(got, " ") != want {
					t.Errorf("sort %q: %v %+v, want %s", sort, got, r.Errors, want)
				}
			}
			first, cursor, _ := list("", 1, nil)
			if rest, _, _ := list("", 1, cursor); len(first) != 1 || len(rest) != 1 || first[0] != "+15557000001" || rest[0] != "+15557000002" {
				t.Errorf("pages %v then %v", first, rest)
			}
			if _, _, r := list("CREATED", 1, cursor); r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "after" {
				t.Errorf("a last-message cursor with sort CREATED: %+v", r.Errors)
			}
			_, r = h.post(t, `query($id: ID!) { chats(instanceId: $id, sort: NEWEST) { nodes { id } } }`, map[string]any{"id": a.ID}, s)
			if len(r.Errors) == 0 {
				t.Errorf("sort NEWEST was accepted")
			}
		})
	}
}

// channels lists what createInstance accepts; sendTyping shows an indicator on a connected
// instance and returns the state shown, with the service's checks and scopes.
func TestMessagingTypingAndChannels(t *testing.T) {
	eachMessagingDialect(t, func(t *testing.T, h *harness) {
		// A catalog, like scopes and eventTypes: answered signed out too.
		_, r := h.post(t, `{ channels { name callsBack capabilities { messageTypes receipts pairing createGroups }
			configFields { name type secret required default } } }`, nil)
		var ch struct {
			Channels []struct {
				Name         string
				CallsBack    bool
				Capabilities struct {
					MessageTypes, Receipts []string
					Pairing, CreateGroups  bool
				}
				ConfigFields []struct {
					Name, Type       string
					Secret, Required bool
					Default          any
				}
			}
		}
		r.decode(t, &ch)
		if len(ch.Channels) != 1 || ch.Channels[0].Name != "sandbox" || ch.Channels[0].CallsBack ||
			!ch.Channels[0].Capabilities.Pairing || !slices.Contains(ch.Channels[0].Capabilities.Receipts, "read") {
			t.Fatalf("channels %+v", ch)
		}
		fields := map[string]any{}
		for _, f := range ch.Channels[0].ConfigFields {
			fields[f.Name] = f.Default
		}
		if fields["auto_pair"] != false || fields["delivered_after_ms"] != float64(200) {
			t.Fatalf("config fields with defaults: %+v", ch.Channels[0].ConfigFields)
		}

		token, _ := h.owner(t)
		s := withSession(token)
		a := h.createInstance(t, map[string]any{"name": "A", "config": map[string]any{"auto_pair": true}, "connect": true}, s)
		h.waitStatus(t, a.ID, "connected", s)

		const typing = `mutation($id: ID!, $to: String!, $state: String) { sendTyping(instanceId: $id, to: $to, state: $state) }`
		const typingDefault = `mutation($id: ID!, $to: String!) { sendTyping(instanceId: $id, to: $to) }`
		var shown struct{ SendTyping string }
		_, r = h.post(t, typingDefault, map[string]any{"id": a.ID, "to": "+15551230001"}, s)
		r.decode(t, &shown)
		if shown.SendTyping != "composing" {
			t.Fatalf("default state: %+v", shown)
		}
		for _, state := range []string{"recording", "paused"} {
			_, r = h.post(t, typing, map[string]any{"id": a.ID, "to": "+15551230001", "state": state}, s)
			r.decode(t, &shown)
			if shown.SendTyping != state {
				t.Fatalf("%s: %+v", state, shown)
			}
		}

		for name, c := range map[string]struct {
			vars        map[string]any
			code, field string
		}{
			"bad state":  {map[string]any{"id": a.ID, "to": "+15551230001", "state": "shouting"}, "INVALID", "state"},
			"blank to":   {map[string]any{"id": a.ID, "to": " ", "state": "composing"}, "INVALID", "to"},
			"bad to":     {map[string]any{"id": a.ID, "to": "nobody", "state": "composing"}, "INVALID", "to"},
			"no such id": {map[string]any{"id": "inst_nope", "to": "+15551230001", "state": "composing"}, "NOT_FOUND", ""},
		} {
			_, r = h.post(t, typing, c.vars, s)
			if r.code(t) != c.code || (c.field != "" && r.Errors[0].Extensions["field"] != c.field) {
				t.Errorf("%s: %+v", name, r.Errors)
			}
		}

		// Keys need messages:send; the instance must be connected.
		_, reader := h.createKey(t, token, "messages:read")
		_, r = h.post(t, typingDefault, map[string]any{"id": a.ID, "to": "+15551230001"}, withKey(reader))
		if r.code(t) != "FORBIDDEN" || !strings.Contains(r.Errors[0].Message, "messages:send") {
			t.Fatalf("without messages:send: %+v", r.Errors)
		}
		_, sender := h.createKey(t, token, "messages:send")
		_, r = h.post(t, typingDefault, map[string]any{"id": a.ID, "to": "+15551230001"}, withKey(sender))
		r.decode(t, &shown)
		if shown.SendTyping != "composing" {
			t.Fatalf("with messages:send: %+v", shown)
		}
		_, r = h.post(t, `mutation($id: ID!) { disconnectInstance(id: $id) { id } }`, map[string]any{"id": a.ID}, s)
		r.decode(t, &struct{}{})
		h.waitStatus(t, a.ID, "disconnected", s)
		_, r = h.post(t, typingDefault, map[string]any{"id": a.ID, "to": "+15551230001"}, s)
		if r.code(t) != "CONFLICT" || r.Errors[0].Extensions["reason"] != "instance_not_connected" {
			t.Fatalf("disconnected: %+v", r.Errors)
		}

		// Signed out; another workspace's instance does not exist.
		_, r = h.post(t, typingDefault, map[string]any{"id": a.ID, "to": "+15551230001"})
		if r.code(t) != "UNAUTHENTICATED" {
			t.Fatalf("signed out: %+v", r.Errors)
		}
		other, _ := h.owner(t)
		_, r = h.post(t, typingDefault, map[string]any{"id": a.ID, "to": "+15551230001"}, withSession(other))
		if r.code(t) != "NOT_FOUND" {
			t.Fatalf("another workspace: %+v", r.Errors)
		}
	})
}

// updateInstance tells null from absent as REST's PATCH does: null is refused for name and
// config, and sets messagesPerSecond back to its default.
func TestUpdateInstanceNulls(t *testing.T) {
	eachMessagingDialect(t, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		s := withSession(token)
		a := h.createInstance(t, map[string]any{"name": "Support", "channel": "sandbox", "messagesPerSecond": 3}, s)
		update := `mutation($id: ID!, $in: UpdateInstanceInput!) { updateInstance(id: $id, input: $in) { ` + instanceFields + ` } }`
		for _, field := range []string{"name", "config"} {
			_, r := h.post(t, update, map[string]any{"id": a.ID, "in": map[string]any{field: nil}}, s)
			if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != field {
				t.Errorf("%s null: %+v", field, r.Errors)
			}
		}
		_, r := h.post(t, update, map[string]any{"id": a.ID, "in": map[string]any{"messagesPerSecond": nil}}, s)
		var out struct{ UpdateInstance instance }
		r.decode(t, &out)
		if out.UpdateInstance.MessagesPerSecond != 20 || out.UpdateInstance.Name != "Support" {
			t.Errorf("messagesPerSecond null: %+v", out.UpdateInstance)
		}
	})
}

// threadId in GraphQL follows REST's rules: a channel without threads (the sandbox) refuses
// it before anything is stored, a threadId that is no topic number is INVALID naming it, and
// messages outside threads read threadId null.
func TestMessagingThreadID(t *testing.T) {
	eachMessagingDialect(t, func(t *testing.T, h *harness) {
		_, r := h.post(t, `{ channels { name capabilities { threads } } }`, nil)
		var ch struct {
			Channels []struct {
				Name         string
				Capabilities struct{ Threads bool }
			}
		}
		r.decode(t, &ch)
		if len(ch.Channels) != 1 || ch.Channels[0].Capabilities.Threads {
			t.Fatalf("the sandbox declares threads: %+v", ch)
		}
		token, _ := h.owner(t)
		s := withSession(token)
		a := h.createInstance(t, map[string]any{"name": "A", "config": map[string]any{"auto_pair": true}, "connect": true}, s)
		h.waitStatus(t, a.ID, "connected", s)
		const send = `mutation($id: ID!, $input: SendMessageInput!) { sendMessage(instanceId: $id, input: $input) { id threadId } }`
		_, r = h.post(t, send, map[string]any{"id": a.ID, "input": map[string]any{"to": "+15551230001", "text": "x", "threadId": "7"}}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["reason"] != "unsupported_by_channel" {
			t.Errorf("threadId on the sandbox: %+v", r.Errors)
		}
		_, r = h.post(t, send, map[string]any{"id": a.ID, "input": map[string]any{"to": "+15551230001", "text": "x", "threadId": "general"}}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "threadId" {
			t.Errorf("a threadId that is no number: %+v", r.Errors)
		}
		var sent struct {
			SendMessage struct{ ID, ThreadID *string }
		}
		_, r = h.post(t, send, map[string]any{"id": a.ID, "input": map[string]any{"to": "+15551230001", "text": "no thread"}}, s)
		r.decode(t, &sent)
		if sent.SendMessage.ID == nil || sent.SendMessage.ThreadID != nil {
			t.Errorf("a message outside threads: %+v", sent)
		}
		const list = `query($id: ID!, $thread: String) { messages(instanceId: $id, filter: {threadId: $thread}) { nodes { id } } }`
		var listed struct {
			Messages struct{ Nodes []struct{ ID string } }
		}
		_, r = h.post(t, list, map[string]any{"id": a.ID, "thread": "7"}, s)
		r.decode(t, &listed)
		if len(listed.Messages.Nodes) != 0 {
			t.Errorf("thread 7 lists %+v", listed)
		}
		_, r = h.post(t, list, map[string]any{"id": a.ID, "thread": "seven"}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "threadId" {
			t.Errorf("filter by a threadId that is no number: %+v", r.Errors)
		}
	})
}
