package messaging_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/sandbox"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// Two sandbox instances of a workspace hold a conversation: the message arrives at the
// other instance, its contact is created, receipts come back, and a reply quotes it.
func TestConversationBetweenSandboxInstances(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a, b := e.connected("A", nil), e.connected("B", nil)
		if a.Address == "" || a.Address == b.Address || !strings.HasPrefix(a.Address, "+1555") {
			t.Fatalf("addresses %q and %q", a.Address, b.Address)
		}
		sent := e.send(a.ID, b.Address, "Hello B")
		if sent.Status != domain.MessageQueued || sent.Direction != domain.Outbound {
			t.Fatalf("send returned %+v", sent)
		}
		got := e.inbound(b.ID, 1)[0]
		if got.Content.Text != "Hello B" || got.Sender != a.Address || got.Status != domain.MessageReceived {
			t.Fatalf("B received %+v", got)
		}
		e.waitMessageStatus(a.ID, sent.ID, domain.MessageDelivered)

		chats, err := e.m.Chats.List(e.ctx, e.a, b.ID, domain.ChatFilter{}, domain.ListParams{})
		if err != nil || len(chats.Data) != 1 {
			t.Fatalf("B's chats: %v %+v", err, chats)
		}
		chat := chats.Data[0]
		if chat.UnreadCount != 1 || chat.Address != a.Address || chat.LastMessage == nil || chat.LastMessage.ID != got.ID {
			t.Fatalf("B's chat %+v", chat)
		}
		contacts, err := e.m.Contacts.List(e.ctx, e.a, b.ID, domain.ListParams{})
		if err != nil || len(contacts.Data) != 1 || contacts.Data[0].Address != a.Address {
			t.Fatalf("B's contacts: %v %+v", err, contacts)
		}

		// B reads the chat: A's message is read (and never goes back to delivered).
		read, _, err := e.m.Chats.MarkRead(e.ctx, e.a, b.ID, chat.ID)
		if err != nil || read.UnreadCount != 0 {
			t.Fatalf("mark read: %v %+v", err, read)
		}
		m := e.waitMessageStatus(a.ID, sent.ID, domain.MessageRead)
		if m.SentAt == nil || m.DeliveredAt == nil || m.ReadAt == nil {
			t.Fatalf("times of a read message: %+v", m)
		}
		in := e.message(b.ID, got.ID)
		if in.Status != domain.MessageRead || in.ReadAt == nil {
			t.Fatalf("B's copy after reading: %s (read_at %v)", in.Status, in.ReadAt)
		}
		// Its change is an event, as every change is: the copy as it now is.
		copyEvents := func() (out []domain.MessageObject) {
			for _, ev := range e.events(domain.EventMessageStatusUpdated) {
				var o domain.MessageObject
				if err := json.Unmarshal(ev.Data, &o); err != nil {
					t.Fatal(err)
				}
				if o.ID == got.ID {
					out = append(out, o)
				}
			}
			return out
		}
		readEvents := copyEvents()
		if len(readEvents) != 1 || readEvents[0].Status != domain.MessageRead || readEvents[0].ReadAt == nil ||
			!time.Time(*readEvents[0].ReadAt).Equal(*in.ReadAt) {
			t.Fatalf("events of B's copy after reading: %+v", readEvents)
		}
		// Reading the chat again changes nothing and records nothing.
		if _, _, err := e.m.Chats.MarkRead(e.ctx, e.a, b.ID, chat.ID); err != nil {
			t.Fatal(err)
		}
		if n := len(copyEvents()); n != 1 {
			t.Fatalf("%d events of B's copy after reading the chat twice, want 1", n)
		}

		// B answers, quoting A's message: A sees the quote as its own message.
		reply, err := e.m.Messages.Send(e.ctx, e.a, b.ID, messaging.SendInput{To: a.Address, ReplyTo: got.ID,
			ContentInput: messaging.ContentInput{Text: "Hi A"}})
		if err != nil {
			t.Fatal(err)
		}
		back := e.inbound(a.ID, 1)[0]
		if back.Content.Text != "Hi A" || back.ReplyTo == nil || *back.ReplyTo != sent.ID {
			t.Fatalf("A received %+v (reply_to %v)", back, back.ReplyTo)
		}
		e.waitMessageStatus(b.ID, reply.ID, domain.MessageDelivered)

		// Every step of A's message is an event, in order.
		var steps []string
		for _, ev := range e.events(domain.EventMessageQueued, domain.EventMessageSent, domain.EventMessageStatusUpdated) {
			var o domain.MessageObject
			if err := json.Unmarshal(ev.Data, &o); err != nil {
				t.Fatal(err)
			}
			if o.ID == sent.ID {
				steps = append([]string{ev.Type + ":" + o.Status}, steps...)
			}
		}
		want := "message.queued:queued message.sent:sent message.status_updated:delivered message.status_updated:read"
		if strings.Join(steps, " ") != want {
			t.Fatalf("events of A's message:\n got %v\nwant %s", steps, want)
		}
	})
}

// Pairing: connecting shows a QR code and a code; the right code connects, a wrong one
// is refused; disconnecting logs out; restarting keeps the session.
func TestPairing(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		in, err := e.m.Instances.Create(e.ctx, e.a, messaging.CreateInstanceInput{Name: "Phone"})
		if err != nil || in.Status != domain.InstanceDisconnected {
			t.Fatalf("create: %v %+v", err, in)
		}
		_, err = e.m.Instances.Pairing(e.ctx, e.a, in.ID)
		wantCode(t, err, domain.CodeConflict, "instance_not_pairing", "")
		if in, err = e.m.Instances.Connect(e.ctx, e.a, in.ID); err != nil || in.Status != domain.InstanceConnecting {
			t.Fatalf("connect: %v %+v", err, in)
		}
		e.waitStatus(in.ID, domain.InstancePairing)
		p, err := e.m.Instances.Pairing(e.ctx, e.a, in.ID)
		if err != nil || !strings.HasPrefix(p.QRCode, "data:image/png;base64,") || len(p.PairingCode) != 9 {
			t.Fatalf("pairing: %v %+v", err, p)
		}
		_, err = e.m.Instances.Pair(e.ctx, e.a, in.ID, "AAAA-AAAA")
		wantCode(t, err, domain.CodeInvalid, "", "pairing_code")
		in, err = e.m.Instances.Pair(e.ctx, e.a, in.ID, strings.ToLower(p.PairingCode))
		if err != nil || in.Status != domain.InstanceConnected || in.Address == "" {
			t.Fatalf("pair: %v %+v", err, in)
		}
		address := in.Address

		// A restart reconnects without pairing and keeps the number.
		if _, err := e.m.Instances.Restart(e.ctx, e.a, in.ID); err != nil {
			t.Fatal(err)
		}
		in = e.waitStatus(in.ID, domain.InstanceConnected)
		if in.Address != address {
			t.Fatalf("address after restart %q, want %q", in.Address, address)
		}
		// A logout ends the session: connecting again pairs again, the number stays.
		if in, err = e.m.Instances.Disconnect(e.ctx, e.a, in.ID); err != nil || in.Status != domain.InstanceDisconnected {
			t.Fatalf("disconnect: %v %+v", err, in)
		}
		e.m.Instances.Connect(e.ctx, e.a, in.ID)
		e.waitStatus(in.ID, domain.InstancePairing)

		var transitions []string
		for _, ev := range e.events(domain.EventInstanceStatusChanged) {
			var c domain.InstanceStatusChange
			if err := json.Unmarshal(ev.Data, &c); err != nil {
				t.Fatal(err)
			}
			transitions = append([]string{c.From + ">" + c.To}, transitions...)
		}
		want := "disconnected>connecting connecting>pairing pairing>connected connected>connecting connecting>connected " +
			"connected>disconnected disconnected>connecting connecting>pairing"
		if strings.Join(transitions, " ") != want {
			t.Fatalf("transitions:\n got %v\nwant %s", transitions, want)
		}
	})
}

// A simulated peer returns receipts and, asked to, echoes; a number off the network fails.
func TestSimulatedPeer(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.connected("A", map[string]any{"echo": true, "delivered_after_ms": 10, "read_after_ms": 10})
		m := e.send(a.ID, "+15557654321", "ping")
		e.waitMessageStatus(a.ID, m.ID, domain.MessageRead)
		echo := e.inbound(a.ID, 1)[0]
		if echo.Content.Text != "Echo: ping" || echo.Sender != "+15557654321" || echo.ReplyTo == nil || *echo.ReplyTo != m.ID {
			t.Fatalf("echo %+v", echo)
		}
		lost := e.send(a.ID, sandbox.UnreachablePrefix+"1234", "anyone?")
		f := e.waitMessageStatus(a.ID, lost.ID, domain.MessageFailed)
		if f.Error == nil || f.Error.Code != "recipient_unreachable" || f.FailedAt == nil {
			t.Fatalf("failed message %+v", f)
		}
		if len(e.events(domain.EventMessageFailed)) != 1 {
			t.Fatal("want one message.failed event")
		}
	})
}

// Messages to one chat arrive in the order they were sent.
func TestOrderPerChat(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a, b := e.connected("A", nil), e.connected("B", nil)
		const n = 15
		for i := range n {
			e.send(a.ID, b.Address, fmt.Sprintf("m%02d", i))
		}
		got := e.inbound(b.ID, n)
		for i, m := range got {
			if want := fmt.Sprintf("m%02d", i); m.Content.Text != want {
				t.Fatalf("message %d arrived as %q, want %q", i, m.Content.Text, want)
			}
		}
	})
}

// Bad input is refused with the offending field, and nothing is stored.
func TestSendRefusals(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.connected("A", nil)
		long := strings.Repeat("x", messaging.MaxCaptionLength+1)
		cases := []struct {
			name   string
			in     messaging.SendInput
			code   domain.Code
			reason string
			param  string
		}{
			{"empty text", messaging.SendInput{To: "+15551234567"}, domain.CodeInvalid, "", "text"},
			{"blank text", messaging.SendInput{To: "+15551234567", ContentInput: messaging.ContentInput{Text: "  "}}, domain.CodeInvalid, "", "text"},
			{"no to", messaging.SendInput{ContentInput: messaging.ContentInput{Text: "hi"}}, domain.CodeInvalid, "", "to"},
			{"bad address", messaging.SendInput{To: "12345", ContentInput: messaging.ContentInput{Text: "hi"}}, domain.CodeInvalid, "", "to"},
			{"ftp media", messaging.SendInput{To: "+15551234567", ContentInput: messaging.ContentInput{Type: "image",
				Media: &domain.Media{URL: "ftp://example.com/a.png"}}}, domain.CodeInvalid, "", "media.url"},
			{"long caption", messaging.SendInput{To: "+15551234567", ContentInput: messaging.ContentInput{Type: "image",
				Media: &domain.Media{URL: "https://example.com/a.png", Caption: long}}}, domain.CodeInvalid, "", "media.caption"},
			{"text in an image", messaging.SendInput{To: "+15551234567", ContentInput: messaging.ContentInput{Type: "image", Text: "x",
				Media: &domain.Media{URL: "https://example.com/a.png"}}}, domain.CodeInvalid, "", "text"},
			{"unknown type", messaging.SendInput{To: "+15551234567", ContentInput: messaging.ContentInput{Type: "hologram"}}, domain.CodeInvalid, "", "type"},
			{"one poll option", messaging.SendInput{To: "+15551234567", ContentInput: messaging.ContentInput{Type: "poll",
				Poll: &domain.Poll{Question: "?", Options: []string{"yes"}}}}, domain.CodeInvalid, "", "poll.options"},
			{"reply to a stranger", messaging.SendInput{To: "+15551234567", ReplyTo: "msg_01jr8d0c3b5n7q9s1u3w5y7a9c",
				ContentInput: messaging.ContentInput{Text: "hi"}}, domain.CodeInvalid, "", "reply_to"},
			{"unknown group", messaging.SendInput{To: "grp_01jr8d0c3b5n7q9s1u3w5y7a9c", ContentInput: messaging.ContentInput{Text: "hi"}}, domain.CodeInvalid, "", "to"},
		}
		for _, c := range cases {
			_, err := e.m.Messages.Send(e.ctx, e.a, a.ID, c.in)
			if err == nil {
				t.Fatalf("%s: accepted", c.name)
			}
			wantCode(t, err, c.code, c.reason, c.param)
		}
		if ms := e.messages(a.ID, domain.MessageFilter{}); len(ms) != 0 {
			t.Fatalf("refused sends stored %d messages", len(ms))
		}
		if len(e.events(domain.EventMessageQueued)) != 0 {
			t.Fatal("refused sends recorded events")
		}

		// An instance that is not connected refuses sends with 409.
		off, err := e.m.Instances.Create(e.ctx, e.a, messaging.CreateInstanceInput{Name: "Off"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.m.Messages.Send(e.ctx, e.a, off.ID, messaging.SendInput{To: "+15551234567", ContentInput: messaging.ContentInput{Text: "hi"}})
		wantCode(t, err, domain.CodeConflict, "instance_not_connected", "")
	})
}

// textOnly is the sandbox declaring text only, to check that the service asks a channel's
// capabilities before anything reaches the driver.
type textOnly struct {
	*sandbox.Driver
}

func (textOnly) Name() string { return "textonly" }
func (textOnly) Capabilities() channels.Capabilities {
	return channels.Capabilities{Types: []string{domain.TypeText}}
}

func TestCapabilitiesGateOperations(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			sb := sandbox.New()
			e := newEnv(t, d, service.Config{}, sb, textOnly{Driver: sb})
			in, err := e.m.Instances.Create(e.ctx, e.a, messaging.CreateInstanceInput{Name: "T", Channel: "textonly",
				Config: map[string]any{"auto_pair": true}, Connect: true})
			if err != nil {
				t.Fatal(err)
			}
			in = e.waitStatus(in.ID, domain.InstanceConnected)
			_, err = e.m.Messages.Send(e.ctx, e.a, in.ID, messaging.SendInput{To: "+15551234567",
				ContentInput: messaging.ContentInput{Type: "location", Location: &domain.Location{Latitude: 1, Longitude: 2}}})
			wantCode(t, err, domain.CodeInvalid, "unsupported_by_channel", "")
			_, err = e.m.Groups.Create(e.ctx, e.a, in.ID, messaging.CreateGroupInput{Subject: "x", Participants: []string{"+15551234567"}})
			wantCode(t, err, domain.CodeInvalid, "unsupported_by_channel", "")
			_, err = e.m.Contacts.Check(e.ctx, e.a, in.ID, []string{"+15551234567"})
			wantCode(t, err, domain.CodeInvalid, "unsupported_by_channel", "")
			_, err = e.m.Messages.Typing(e.ctx, e.a, in.ID, messaging.TypingInput{To: "+15551234567"})
			wantCode(t, err, domain.CodeInvalid, "unsupported_by_channel", "")
			_, _, err = e.m.Messages.Inject(e.ctx, e.a, in.ID, messaging.InjectInput{From: "+15551234567",
				ContentInput: messaging.ContentInput{Text: "made up"}})
			wantCode(t, err, domain.CodeInvalid, "unsupported_by_channel", "")
		})
	}
}

// slowSend is the sandbox whose provider takes a while to confirm a send, so the peer's
// answer (the echo) arrives before the send commits its provider id.
type slowSend struct {
	*sandbox.Driver
}

func (slowSend) Name() string { return "slowsend" }
func (d slowSend) Send(ctx context.Context, in channels.Instance, m channels.Outbound) (channels.Sent, error) {
	sent, err := d.Driver.Send(ctx, in, m)
	time.Sleep(300 * time.Millisecond)
	return sent, err
}

// A reply to a message whose send is still in flight waits for it and quotes it.
func TestReplyBeforeSendCommits(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			sb := sandbox.New()
			e := newEnv(t, d, service.Config{}, sb, slowSend{Driver: sb})
			in, err := e.m.Instances.Create(e.ctx, e.a, messaging.CreateInstanceInput{Name: "S", Channel: "slowsend",
				Config: map[string]any{"auto_pair": true, "echo": true, "delivered_after_ms": 0, "read_after_ms": 0}, Connect: true})
			if err != nil {
				t.Fatal(err)
			}
			e.waitStatus(in.ID, domain.InstanceConnected)
			m := e.send(in.ID, "+15557654321", "quick")
			echo := e.inbound(in.ID, 1)[0]
			if echo.ReplyTo == nil || *echo.ReplyTo != m.ID {
				t.Fatalf("the echo quotes %v, want %s", echo.ReplyTo, m.ID)
			}
		})
	}
}

// Groups work across sandbox instances: members learn of the group, its messages, its
// changes and their removal.
func TestGroupsAcrossInstances(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a, b := e.connected("A", nil), e.connected("B", nil)
		g, err := e.m.Groups.Create(e.ctx, e.a, a.ID, messaging.CreateGroupInput{Subject: "Launch",
			Participants: []string{b.Address, "+15557654321", b.Address}})
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Participants) != 3 || g.Participants[0].Role != domain.RoleAdmin || g.Owner != a.Address {
			t.Fatalf("group %+v", g)
		}
		var bg domain.Group
		e.eventually("B's group", func() bool {
			p, err := e.m.Groups.List(e.ctx, e.a, b.ID, domain.ListParams{})
			if err == nil && len(p.Data) == 1 {
				bg = p.Data[0]
			}
			return bg.ID != ""
		})
		if bg.Address != g.Address || bg.Subject != "Launch" {
			t.Fatalf("B's group %+v", bg)
		}
		e.send(a.ID, g.ID, "Hello group")
		in := e.inbound(b.ID, 1)[0]
		if in.ChatAddress != g.Address || in.Sender != a.Address || in.Content.Text != "Hello group" {
			t.Fatalf("B's group message %+v", in)
		}
		if _, err := e.m.Groups.Update(e.ctx, e.a, a.ID, g.ID, messaging.UpdateGroupInput{Subject: ptr("Launch v2")}); err != nil {
			t.Fatal(err)
		}
		e.eventually("B sees the new subject", func() bool {
			got, err := e.m.Groups.Get(e.ctx, e.a, b.ID, bg.ID)
			return err == nil && got.Subject == "Launch v2"
		})
		if _, err := e.m.Groups.ChangeParticipants(e.ctx, e.a, a.ID, g.ID, nil, []string{b.Address}); err != nil {
			t.Fatal(err)
		}
		e.eventually("B is out", func() bool {
			got, err := e.m.Groups.Get(e.ctx, e.a, b.ID, bg.ID)
			return err == nil && got.Left
		})
		_, err = e.m.Messages.Send(e.ctx, e.a, b.ID, messaging.SendInput{To: bg.ID, ContentInput: messaging.ContentInput{Text: "still here?"}})
		wantCode(t, err, domain.CodeConflict, "group_left", "")
		left, err := e.m.Groups.Leave(e.ctx, e.a, a.ID, g.ID)
		if err != nil || !left.Left {
			t.Fatalf("leave: %v %+v", err, left)
		}
		types := map[string]int{}
		for _, ev := range e.events(domain.EventGroupCreated, domain.EventGroupUpdated, domain.EventGroupParticipants, domain.EventGroupLeft) {
			types[ev.Type]++
		}
		if types[domain.EventGroupCreated] != 2 || types[domain.EventGroupUpdated] != 2 || types[domain.EventGroupLeft] != 2 ||
			types[domain.EventGroupParticipants] < 1 {
			t.Fatalf("group events %v", types)
		}
	})
}

// An edit or a delete of a group message reaches the member instances' copies, as in a
// direct chat: their copy changes and they record message.edited and message.deleted.
func TestGroupEditsAndDeletesReachMembers(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a, b, c := e.connected("A", nil), e.connected("B", nil), e.connected("C", nil)
		g, err := e.m.Groups.Create(e.ctx, e.a, a.ID, messaging.CreateGroupInput{Subject: "Team",
			Participants: []string{b.Address, c.Address, "+15557654321"}})
		if err != nil {
			t.Fatal(err)
		}
		sent := e.send(a.ID, g.ID, "Launch on Monday")
		copies := map[string]domain.Message{b.ID: e.inbound(b.ID, 1)[0], c.ID: e.inbound(c.ID, 1)[0]}
		e.waitSent(a.ID, sent.ID)

		if _, _, err := e.m.Messages.Edit(e.ctx, e.a, a.ID, sent.ID, "Launch on Tuesday"); err != nil {
			t.Fatal(err)
		}
		for id, cp := range copies {
			e.eventually("the edit reaches "+id, func() bool {
				m := e.message(id, cp.ID)
				return m.Content.Text == "Launch on Tuesday" && m.EditedAt != nil
			})
		}
		if _, _, err := e.m.Messages.Delete(e.ctx, e.a, a.ID, sent.ID); err != nil {
			t.Fatal(err)
		}
		for id, cp := range copies {
			e.eventually("the delete reaches "+id, func() bool { return e.message(id, cp.ID).DeletedAt != nil })
		}
		// Each copy's change is an event of its own instance.
		seen := map[string]int{}
		for _, ev := range e.events(domain.EventMessageEdited, domain.EventMessageDeleted) {
			var o domain.MessageObject
			if err := json.Unmarshal(ev.Data, &o); err != nil {
				t.Fatal(err)
			}
			if ev.InstanceID != nil && o.ID == copies[*ev.InstanceID].ID {
				seen[*ev.InstanceID+" "+ev.Type]++
			}
		}
		for _, id := range []string{b.ID, c.ID} {
			if seen[id+" "+domain.EventMessageEdited] != 1 || seen[id+" "+domain.EventMessageDeleted] != 1 {
				t.Errorf("events of %s's copy: %v", id, seen)
			}
		}

		// Once the instance has left the group, its messages there cannot be changed: it can
		// no longer reach the members, as it can no longer send to them.
		other := e.send(a.ID, g.ID, "See you there")
		e.waitSent(a.ID, other.ID)
		if _, err := e.m.Groups.Leave(e.ctx, e.a, a.ID, g.ID); err != nil {
			t.Fatal(err)
		}
		_, _, err = e.m.Messages.Edit(e.ctx, e.a, a.ID, other.ID, "Changed")
		wantCode(t, err, domain.CodeConflict, "group_left", "")
		_, _, err = e.m.Messages.Delete(e.ctx, e.a, a.ID, other.ID)
		wantCode(t, err, domain.CodeConflict, "group_left", "")
	})
}

// An edit to the text the message already has changes nothing: the answer is the message
// as it is, its edited_at stays, nothing reaches the channel and no event is recorded, as for
// any call that changes nothing.
func TestEditWithTheSameTextChangesNothing(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a, b := e.connected("A", nil), e.connected("B", nil)
		sent := e.send(a.ID, b.Address, "Launch on Monday")
		copyID := e.inbound(b.ID, 1)[0].ID
		e.waitSent(a.ID, sent.ID)
		first, _, err := e.m.Messages.Edit(e.ctx, e.a, a.ID, sent.ID, "Launch on Tuesday")
		if err != nil {
			t.Fatal(err)
		}
		e.eventually("the edit reaches B", func() bool { return e.message(b.ID, copyID).Content.Text == "Launch on Tuesday" })
		edits := len(e.events(domain.EventMessageEdited))
		again, _, err := e.m.Messages.Edit(e.ctx, e.a, a.ID, sent.ID, "Launch on Tuesday")
		if err != nil {
			t.Fatal(err)
		}
		if again.EditedAt == nil || !again.EditedAt.Equal(*first.EditedAt) || again.Content.Text != "Launch on Tuesday" {
			t.Fatalf("the same edit again: edited_at %v, want %v kept", again.EditedAt, first.EditedAt)
		}
		if m := e.message(a.ID, sent.ID); !m.EditedAt.Equal(*first.EditedAt) {
			t.Fatalf("stored edited_at %v, want %v", m.EditedAt, first.EditedAt)
		}
		time.Sleep(200 * time.Millisecond) // room for a wrongly sent edit to reach B and be recorded
		if n := len(e.events(domain.EventMessageEdited)); n != edits {
			t.Fatalf("%d message.edited events after the same edit, want %d", n, edits)
		}
	})
}

// A participants change's event carries the group as stored by that change: its updated_at
// is the change's, as in the answer, not the one before.
func TestParticipantsEventCarriesTheUpdatedGroup(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.connected("A", nil)
		g, err := e.m.Groups.Create(e.ctx, e.a, a.ID, messaging.CreateGroupInput{Subject: "Team", Participants: []string{"+15557654321"}})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		changed, err := e.m.Groups.ChangeParticipants(e.ctx, e.a, a.ID, g.ID, []string{"+15557654322"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !changed.UpdatedAt.After(g.UpdatedAt) {
			t.Fatalf("updated_at %v after the change, created %v", changed.UpdatedAt, g.UpdatedAt)
		}
		evs := e.events(domain.EventGroupParticipants)
		if len(evs) != 1 {
			t.Fatalf("%d participants events, want 1", len(evs))
		}
		var data domain.GroupParticipantsChange
		if err := json.Unmarshal(evs[0].Data, &data); err != nil {
			t.Fatal(err)
		}
		if want := changed.Object().UpdatedAt; !time.Time(data.Group.UpdatedAt).Equal(time.Time(want)) {
			t.Fatalf("the event's group.updated_at %v, want the change's %v", data.Group.UpdatedAt, want)
		}
	})
}

// Contacts: created by hand or by inbound traffic, never twice.
func TestContacts(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.connected("A", nil)
		ct, err := e.m.Contacts.Create(e.ctx, e.a, a.ID, messaging.ContactInput{Address: "+15557654321", Name: ptr("Ada"),
			Labels: &[]string{"vip", "vip"}, Attributes: &map[string]string{"plan": "pro"}})
		if err != nil || len(ct.Labels) != 1 || ct.Attributes["plan"] != "pro" {
			t.Fatalf("create: %v %+v", err, ct)
		}
		_, err = e.m.Contacts.Create(e.ctx, e.a, a.ID, messaging.ContactInput{Address: "+15557654321"})
		wantCode(t, err, domain.CodeConflict, "contact_exists", "address")
		_, err = e.m.Contacts.Create(e.ctx, e.a, a.ID, messaging.ContactInput{Address: "not a number"})
		wantCode(t, err, domain.CodeInvalid, "", "address")

		// The contact writes: no second contact.
		if _, _, err := e.m.Messages.Inject(e.ctx, e.a, a.ID, messaging.InjectInput{From: "+15557654321",
			ContentInput: messaging.ContentInput{Text: "hi"}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.m.Messages.Inject(e.ctx, e.a, a.ID, messaging.InjectInput{From: "+15550101010", FromName: "Bob",
			ContentInput: messaging.ContentInput{Text: "hello"}}); err != nil {
			t.Fatal(err)
		}
		p, err := e.m.Contacts.List(e.ctx, e.a, a.ID, domain.ListParams{})
		if err != nil || len(p.Data) != 2 || p.Data[0].Name != "Bob" {
			t.Fatalf("contacts: %v %+v", err, p.Data)
		}
		up, err := e.m.Contacts.Update(e.ctx, e.a, a.ID, ct.ID, messaging.ContactInput{Name: ptr("Ada L.")})
		if err != nil || up.Name != "Ada L." || len(up.Labels) != 1 {
			t.Fatalf("update: %v %+v", err, up)
		}
		if _, err := e.m.Contacts.Delete(e.ctx, e.a, a.ID, ct.ID); err != nil {
			t.Fatal(err)
		}
		_, err = e.m.Contacts.Get(e.ctx, e.a, a.ID, ct.ID)
		wantCode(t, err, domain.CodeNotFound, "", "")
		r, err := e.m.Contacts.Check(e.ctx, e.a, a.ID, []string{"+15557654321", sandbox.UnreachablePrefix + "0000"})
		if err != nil || !r[0].Reachable || r[1].Reachable {
			t.Fatalf("check: %v %+v", err, r)
		}
		counts := map[string]int{}
		for _, ev := range e.events(domain.EventContactCreated, domain.EventContactUpdated, domain.EventContactDeleted) {
			counts[ev.Type]++
		}
		if counts[domain.EventContactCreated] != 2 || counts[domain.EventContactUpdated] != 1 || counts[domain.EventContactDeleted] != 1 {
			t.Fatalf("contact events %v", counts)
		}
	})
}

// Another workspace's objects are not found; a key needs the scope of what it does.
func TestIsolationAndScopes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a, b := e.connected("A", nil), e.connected("B", nil)
		sent := e.send(a.ID, b.Address, "hi")
		got := e.inbound(b.ID, 1)[0]
		g, err := e.m.Groups.Create(e.ctx, e.a, a.ID, messaging.CreateGroupInput{Subject: "G", Participants: []string{b.Address}})
		if err != nil {
			t.Fatal(err)
		}
		chats, _ := e.m.Chats.List(e.ctx, e.a, b.ID, domain.ChatFilter{}, domain.ListParams{})
		contacts, _ := e.m.Contacts.List(e.ctx, e.a, b.ID, domain.ListParams{})

		other := servicetest.NewOwner(t, e.svc).Actor
		checks := map[string]error{}
		_, checks["instance"] = e.m.Instances.Get(e.ctx, other, a.ID)
		_, _, checks["message"] = e.m.Messages.Get(e.ctx, other, a.ID, sent.ID)
		_, _, checks["chat"] = e.m.Chats.Get(e.ctx, other, b.ID, chats.Data[0].ID)
		_, checks["group"] = e.m.Groups.Get(e.ctx, other, a.ID, g.ID)
		_, checks["contact"] = e.m.Contacts.Get(e.ctx, other, b.ID, contacts.Data[0].ID)
		_, checks["send"] = e.m.Messages.Send(e.ctx, other, a.ID, messaging.SendInput{To: b.Address, ContentInput: messaging.ContentInput{Text: "x"}})
		_, checks["delete"] = e.m.Instances.Delete(e.ctx, other, a.ID)
		_, checks["list messages"] = e.m.Messages.List(e.ctx, other, b.ID, domain.MessageFilter{}, domain.ListParams{})
		for what, err := range checks {
			if !domain.IsCode(err, domain.CodeNotFound) {
				t.Errorf("%s of another workspace: %v, want not found", what, err)
			}
		}
		if m := e.message(b.ID, got.ID); m.ID != got.ID {
			t.Fatal("the owner lost the message")
		}

		reader := e.keyActor(domain.ScopeMessagesRead, domain.ScopeInstancesRead)
		_, err = e.m.Messages.Send(e.ctx, reader, a.ID, messaging.SendInput{To: b.Address, ContentInput: messaging.ContentInput{Text: "x"}})
		wantCode(t, err, domain.CodeForbidden, "insufficient_scope", "")
		if _, err := e.m.Messages.List(e.ctx, reader, a.ID, domain.MessageFilter{}, domain.ListParams{}); err != nil {
			t.Fatalf("a reader lists messages: %v", err)
		}
		_, err = e.m.Groups.List(e.ctx, reader, a.ID, domain.ListParams{})
		wantCode(t, err, domain.CodeForbidden, "insufficient_scope", "")
		_, err = e.m.Instances.Create(e.ctx, reader, messaging.CreateInstanceInput{Name: "x"})
		wantCode(t, err, domain.CodeForbidden, "insufficient_scope", "")
	})
}

// Write-only settings show as ******** and are stored sealed; sending the mask back keeps
// the value; unknown settings are refused.
func TestConfigSecretsAreWriteOnly(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d, service.Config{SecretsKey: []byte("a secrets key of enough length")}, sandbox.New())
			in, err := e.m.Instances.Create(e.ctx, e.a, messaging.CreateInstanceInput{Name: "S",
				Config: map[string]any{"token": "tok-very-secret", "delivered_after_ms": 5.0}})
			if err != nil {
				t.Fatal(err)
			}
			o := in.Object()
			if o.Config["token"] != domain.Redacted || o.Config["delivered_after_ms"] != 5 || o.Config["auto_pair"] != false {
				t.Fatalf("config shown %v", o.Config)
			}
			raw, _ := json.Marshal(o)
			if strings.Contains(string(raw), "tok-very-secret") {
				t.Fatal("the secret leaked into the object")
			}
			stored := storedSecrets(t, e.st, in)
			if stored == "" || strings.Contains(stored, "tok-very-secret") {
				t.Fatalf("secret stored as %q", stored)
			}
			up, err := e.m.Instances.Update(e.ctx, e.a, in.ID, messaging.UpdateInstanceInput{
				Config: map[string]any{"token": domain.Redacted, "echo": true}})
			if err != nil || up.Object().Config["token"] != domain.Redacted || up.Object().Config["echo"] != true {
				t.Fatalf("update: %v %+v", err, up)
			}
			_, err = e.m.Instances.Update(e.ctx, e.a, in.ID, messaging.UpdateInstanceInput{Config: map[string]any{"colour": "red"}})
			wantCode(t, err, domain.CodeInvalid, "", "config.colour")
			_, err = e.m.Instances.Update(e.ctx, e.a, in.ID, messaging.UpdateInstanceInput{Config: map[string]any{"read_after_ms": -1.0}})
			wantCode(t, err, domain.CodeInvalid, "", "config.read_after_ms")
			_, err = e.m.Instances.Create(e.ctx, e.a, messaging.CreateInstanceInput{Name: "x", Channel: "carrier-pigeon"})
			wantCode(t, err, domain.CodeInvalid, "", "channel")
		})
	}
}

func storedSecrets(t *testing.T, st *store.Store, in domain.Instance) string {
	t.Helper()
	got, err := st.Instance(context.Background(), in.WorkspaceID, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got.SealedSecrets
}

// Deleting an instance drops its queued sends and its data; its events stay in the log.
func TestDeleteInstance(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.connected("A", map[string]any{})
		if _, err := e.m.Instances.Update(e.ctx, e.a, a.ID, messaging.UpdateInstanceInput{MessagesPerSecond: ptr(1)}); err != nil {
			t.Fatal(err)
		}
		for range 5 {
			e.send(a.ID, "+15557654321", "queued")
		}
		if pendingJobs(t, e.st, domain.JobMessageSend) == 0 {
			t.Fatal("the sends should still be queued at 1 a second")
		}
		sentBefore := len(e.events(domain.EventMessageSent))
		if _, err := e.m.Instances.Delete(e.ctx, e.a, a.ID); err != nil {
			t.Fatal(err)
		}
		// The queued ones are dropped at once; one already in flight ends (its outcome finds
		// no message to record).
		e.eventually("no send of the deleted instance left", func() bool { return pendingJobs(t, e.st, domain.JobMessageSend) == 0 },
			func() string { return fmt.Sprintf("%d left", pendingJobs(t, e.st, domain.JobMessageSend)) })
		// At 1 a second at most the one in flight goes out; the four queued behind it never do.
		if after := len(e.events(domain.EventMessageSent)); after > sentBefore+1 {
			t.Fatalf("dropped sends went out: %d message.sent before the delete, %d after", sentBefore, after)
		}
		_, err := e.m.Instances.Get(e.ctx, e.a, a.ID)
		wantCode(t, err, domain.CodeNotFound, "", "")
		if len(e.events(domain.EventInstanceDeleted)) != 1 {
			t.Fatal("want an instance.deleted event")
		}
	})
}

// A late receipt never moves a message back: read, then a delayed delivered, stays read.
func TestReceiptsOnlyMoveForward(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.connected("A", map[string]any{"delivered_after_ms": 1500})
		b := e.connected("B", nil)
		sent := e.send(a.ID, b.Address, "read me first")
		got := e.inbound(b.ID, 1)[0]
		if _, _, err := e.m.Chats.MarkRead(e.ctx, e.a, b.ID, got.ChatID); err != nil {
			t.Fatal(err)
		}
		e.waitMessageStatus(a.ID, sent.ID, domain.MessageRead)
		// The delivered receipt is due 1.5 s after the send; wait until it has been applied.
		e.eventually("the late receipt", func() bool { return pendingJobs(t, e.st, domain.JobChannelEvent) == 0 })
		if m := e.message(a.ID, sent.ID); m.Status != domain.MessageRead {
			t.Fatalf("status after a late delivered: %s", m.Status)
		}
		for _, ev := range e.events(domain.EventMessageStatusUpdated) {
			var o domain.MessageObject
			_ = json.Unmarshal(ev.Data, &o)
			if o.ID == sent.ID && o.Status == domain.MessageDelivered {
				t.Fatal("a late delivered was recorded after read")
			}
		}
	})
}

func pendingJobs(t *testing.T, st *store.Store, kind string) int {
	t.Helper()
	n, err := st.CountJobs(context.Background(), kind)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Each instance keeps its own pace: a slow one (1 message a second) does not hold back
// another instance's sends.
func TestPacingPerInstance(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		slow := e.connected("slow", nil)
		if _, err := e.m.Instances.Update(e.ctx, e.a, slow.ID, messaging.UpdateInstanceInput{MessagesPerSecond: ptr(2)}); err != nil {
			t.Fatal(err)
		}
		fast := e.connected("fast", nil)
		var slowIDs []string
		for i := range 5 {
			slowIDs = append(slowIDs, e.send(slow.ID, fmt.Sprintf("+1555765432%d", i), "slow").ID)
		}
		quick := e.send(fast.ID, "+15557654329", "fast")
		e.waitSent(fast.ID, quick.ID)
		if m := e.message(slow.ID, slowIDs[4]); m.Status != domain.MessageQueued {
			t.Fatalf("the slow instance's last message is %s while the fast one's was sent; want it still queued", m.Status)
		}
		first, last := e.waitSent(slow.ID, slowIDs[0]), e.waitSent(slow.ID, slowIDs[4])
		// Paced, the last starts at least four intervals (2 s) after the first, which starts
		// after it was queued; so the last is sent at least 2 s after the first was queued
		// (sent_at is stamped at commit, so it cannot be earlier). Unpaced: milliseconds.
		if gap := last.SentAt.Sub(first.CreatedAt); gap < 2*time.Second-10*time.Millisecond {
			t.Fatalf("5 sends at 2 a second took %v, want about 2 s", gap)
		}
	})
}

// A send the channel received but whose outcome was lost (a crash before the commit) runs
// again with the same message id: the other side still gets one message.
func TestRetriedSendArrivesOnce(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			sb := sandbox.New()
			e := newEnv(t, d, service.Config{}, sb)
			a, b := e.connected("A", nil), e.connected("B", nil)
			m := e.send(a.ID, b.Address, "once")
			e.waitMessageStatus(a.ID, m.ID, domain.MessageDelivered)
			again := channels.Outbound{MessageID: m.ID, ChatAddress: b.Address, Type: domain.TypeText, Content: m.Content}
			if _, err := sb.Send(e.ctx, channels.Instance{ID: a.ID, WorkspaceID: a.WorkspaceID, Address: a.Address, Config: a.Config}, again); err != nil {
				t.Fatal(err)
			}
			e.eventually("the repeated send's events", func() bool { return pendingJobs(t, e.st, domain.JobChannelEvent) == 0 })
			if got := e.messages(b.ID, domain.MessageFilter{Direction: domain.Inbound}); len(got) != 1 {
				t.Fatalf("B has %d messages, want 1", len(got))
			}
			if n := len(e.events(domain.EventMessageReceived)); n != 1 {
				t.Fatalf("%d message.received events, want 1", n)
			}
		})
	}
}

// A new pace applies to messages already queued.
func TestNewPaceAppliesToTheQueue(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.connected("A", nil)
		if _, err := e.m.Instances.Update(e.ctx, e.a, a.ID, messaging.UpdateInstanceInput{MessagesPerSecond: ptr(1)}); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i := range 6 {
			ids = append(ids, e.send(a.ID, fmt.Sprintf("+1555765432%d", i), "x").ID)
		}
		if _, err := e.m.Instances.Update(e.ctx, e.a, a.ID, messaging.UpdateInstanceInput{MessagesPerSecond: ptr(1000)}); err != nil {
			t.Fatal(err)
		}
		first := e.waitSent(a.ID, ids[1])
		last := e.waitSent(a.ID, ids[5])
		if gap := last.SentAt.Sub(*first.SentAt); gap > 2*time.Second {
			t.Fatalf("4 sends after raising the pace to 1000/s took %v (the old pace of 1/s would take 4 s)", gap)
		}
	})
}

// Receipts that arrive together (delivered and read at once) apply one after the other:
// every message ends read, none is overwritten back to delivered.
func TestReceiptsArrivingTogether(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.connected("A", map[string]any{"delivered_after_ms": 0, "read_after_ms": 0})
		var ids []string
		for i := range 20 {
			ids = append(ids, e.send(a.ID, fmt.Sprintf("+155576543%02d", i), "x").ID)
		}
		for _, id := range ids {
			e.waitMessageStatus(a.ID, id, domain.MessageRead)
		}
		e.eventually("the receipts", func() bool { return pendingJobs(t, e.st, domain.JobChannelEvent) == 0 })
		for _, id := range ids {
			if m := e.message(a.ID, id); m.Status != domain.MessageRead {
				t.Fatalf("message %s went back to %s", id, m.Status)
			}
		}
	})
}

// shiftedClock is the real clock moved ahead by a settable offset, so a test can let ten
// minutes pass while the job engine keeps real time.
type shiftedClock struct {
	mu sync.Mutex
	by time.Duration
}

func (c *shiftedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return domain.SystemClock{}.Now().Add(c.by)
}

func (c *shiftedClock) advance(d time.Duration) { c.mu.Lock(); c.by += d; c.mu.Unlock() }

// A pairing code expires: the QR and pairing are refused with pairing_expired, and
// connecting again starts a new pairing with a new code.
func TestPairingCodeExpires(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			clk := &shiftedClock{}
			e := newEnv(t, d, service.Config{Clock: clk}, sandbox.New().WithClock(clk.Now))
			in, err := e.m.Instances.Create(e.ctx, e.a, messaging.CreateInstanceInput{Name: "Phone", Connect: true})
			if err != nil {
				t.Fatal(err)
			}
			e.waitStatus(in.ID, domain.InstancePairing)
			first, err := e.m.Instances.Pairing(e.ctx, e.a, in.ID)
			if err != nil {
				t.Fatal(err)
			}
			clk.advance(sandbox.PairingTTL + time.Second)
			_, err = e.m.Instances.Pairing(e.ctx, e.a, in.ID)
			wantCode(t, err, domain.CodeConflict, "pairing_expired", "")
			_, err = e.m.Instances.Pair(e.ctx, e.a, in.ID, first.PairingCode)
			wantCode(t, err, domain.CodeConflict, "pairing_expired", "")
			if in, err = e.m.Instances.Connect(e.ctx, e.a, in.ID); err != nil || in.Status != domain.InstanceConnecting {
				t.Fatalf("connect after expiry: %v %+v", err, in)
			}
			e.waitStatus(in.ID, domain.InstancePairing)
			second, err := e.m.Instances.Pairing(e.ctx, e.a, in.ID)
			if err != nil || second.PairingCode == first.PairingCode {
				t.Fatalf("new pairing: %v %+v (first code %s)", err, second, first.PairingCode)
			}
		})
	}
}

// Many sends at once (stored in batches) are each stored once, answered with their own
// message, refused with the same errors as one send alone, and leave every chat pointing at
// its newest message; sends to a group, to a disconnected instance or to another
// workspace's instance in the same burst get what they would alone.
func TestConcurrentSends(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.connected("A", nil)
		g, err := e.m.Groups.Create(e.ctx, e.a, a.ID, messaging.CreateGroupInput{Subject: "Burst", Participants: []string{"+15557000001"}})
		if err != nil {
			t.Fatal(err)
		}
		off, err := e.m.Instances.Create(e.ctx, e.a, messaging.CreateInstanceInput{Name: "Off"})
		if err != nil {
			t.Fatal(err)
		}
		other := servicetest.NewOwner(t, e.svc)
		theirs, err := e.m.Instances.Create(e.ctx, other.Actor, messaging.CreateInstanceInput{Name: "Theirs"})
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			kind string
			m    domain.Message
			err  error
		}
		var sends []func() result
		for i := range 60 {
			to := fmt.Sprintf("+155576543%02d", i%6)
			sends = append(sends, func() result {
				m, err := e.m.Messages.Send(e.ctx, e.a, a.ID, messaging.SendInput{To: to, ContentInput: messaging.ContentInput{Text: fmt.Sprint(i)}})
				return result{"ok", m, err}
			})
		}
		for i := range 5 {
			sends = append(sends,
				func() result {
					m, err := e.m.Messages.Send(e.ctx, e.a, a.ID, messaging.SendInput{To: g.Address, ContentInput: messaging.ContentInput{Text: fmt.Sprint("group ", i)}})
					return result{"group", m, err}
				},
				func() result {
					_, err := e.m.Messages.Send(e.ctx, e.a, off.ID, messaging.SendInput{To: "+15557654300", ContentInput: messaging.ContentInput{Text: "x"}})
					return result{"off", domain.Message{}, err}
				},
				func() result {
					_, err := e.m.Messages.Send(e.ctx, e.a, theirs.ID, messaging.SendInput{To: "+15557654300", ContentInput: messaging.ContentInput{Text: "x"}})
					return result{"theirs", domain.Message{}, err}
				},
				func() result {
					_, err := e.m.Messages.Send(e.ctx, e.a, a.ID, messaging.SendInput{To: "+44 20 7946 0000", ContentInput: messaging.ContentInput{Text: "x"}})
					return result{"bad", domain.Message{}, err}
				})
		}
		q0 := e.st.Queries()
		results := make([]result, len(sends))
		var wg sync.WaitGroup
		for i, f := range sends {
			wg.Add(1)
			go func() { defer wg.Done(); results[i] = f() }()
		}
		wg.Wait()
		t.Logf("%d statements for %d sends", e.st.Queries()-q0, len(sends))
		ids := map[string]bool{}
		for _, r := range results {
			switch r.kind {
			case "ok", "group":
				if r.err != nil || r.m.Status != domain.MessageQueued || r.m.ChatID == "" || ids[r.m.ID] {
					t.Fatalf("%s send: %v %+v", r.kind, r.err, r.m)
				}
				ids[r.m.ID] = true
				if got := e.message(a.ID, r.m.ID); got.ChatID != r.m.ChatID || got.Content.Text != r.m.Content.Text {
					t.Fatalf("stored %+v, answered %+v", got, r.m)
				}
			case "off":
				wantCode(t, r.err, domain.CodeConflict, "instance_not_connected", "")
			case "theirs":
				wantCode(t, r.err, domain.CodeNotFound, "", "")
			case "bad":
				wantCode(t, r.err, domain.CodeInvalid, "", "to")
			}
		}
		if len(ids) != 65 {
			t.Fatalf("%d messages stored, want 65", len(ids))
		}
		if n := len(e.events(domain.EventMessageQueued)); n != 65 {
			t.Fatalf("%d message.queued events, want 65", n)
		}
		chats, err := e.m.Chats.List(e.ctx, e.a, a.ID, domain.ChatFilter{}, domain.ListParams{Limit: ptr(100)})
		if err != nil || len(chats.Data) != 7 {
			t.Fatalf("chats: %v, %d, want 6 people and the group", err, len(chats.Data))
		}
		for _, c := range chats.Data {
			ms := e.messages(a.ID, domain.MessageFilter{ChatID: c.ID, Direction: domain.Outbound})
			if len(ms) == 0 || c.LastMessage == nil || c.LastMessage.ID != ms[0].ID {
				t.Fatalf("chat %s: last message %v, newest %v", c.Address, c.LastMessage, ms)
			}
		}
	})
}
