package telegram

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/telegram/telegramtest"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

var (
	ada   = telegramtest.User{ID: 5550001, FirstName: "Ada", LastName: "Lovelace", Username: "ada"}
	grace = telegramtest.User{ID: 5550002, Username: "grace"}
	team  = telegramtest.GroupChat(-1001234567890, "Team")
)

// deliver sends an update through the webhook and returns the events the driver made.
func (e *env) deliver(t *testing.T, u telegramtest.Update) []channels.Event {
	t.Helper()
	status, err := e.tg.Deliver(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	evs, errs := e.wh.take()
	if status != http.StatusOK || len(errs) > 0 {
		t.Fatalf("webhook answered %d, errors %v", status, errs)
	}
	for _, ev := range evs {
		if ev.InstanceID != e.in.ID {
			t.Errorf("event for instance %q, want %q", ev.InstanceID, e.in.ID)
		}
	}
	return evs
}

func oneMessage(t *testing.T, evs []channels.Event) channels.Inbound {
	t.Helper()
	if len(evs) != 1 || evs[0].Kind != channels.EventMessage || evs[0].Message == nil {
		t.Fatalf("events = %+v, want one message", evs)
	}
	return *evs[0].Message
}

func TestReceiveRefusesWrongSecret(t *testing.T) {
	e := connected(t)
	u := telegramtest.TextMessage(telegramtest.PrivateChat(ada), ada, 1, "hi")
	for name, secret := range map[string]string{"missing": "", "wrong": "not-the-secret"} {
		status, err := e.tg.DeliverWithSecret(context.Background(), u, secret)
		if err != nil {
			t.Fatal(err)
		}
		evs, errs := e.wh.take()
		if status != http.StatusUnauthorized || len(evs) != 0 || len(errs) != 1 || !errors.Is(errs[0], channels.ErrSignature) {
			t.Errorf("%s secret: status %d, events %v, errors %v; want 401 and ErrSignature", name, status, evs, errs)
		}
	}
	// An instance without a secret accepts nothing, not even a call without one.
	in := e.in
	in.CallbackSecret = ""
	_, _, err := e.d.Receive(context.Background(), in, channels.Callback{Header: http.Header{}, Body: []byte(`{"update_id":1}`)})
	if !errors.Is(err, channels.ErrSignature) {
		t.Errorf("no secret configured: %v, want ErrSignature", err)
	}
}

func TestReceiveMalformedAndUnknown(t *testing.T) {
	e := connected(t)
	h := http.Header{}
	h.Set(secretHeader, testSecret)
	_, _, err := e.d.Receive(context.Background(), e.in, channels.Callback{Header: h, Body: []byte(`{"update_id":`)})
	if err == nil || errors.Is(err, channels.ErrSignature) {
		t.Errorf("malformed update: %v, want a plain error", err)
	}
	resp, evs, err := e.d.Receive(context.Background(), e.in, channels.Callback{Header: h,
		Body: []byte(`{"update_id":9,"poll_answer":{"poll_id":"1","option_ids":[0],"user":{"id":1,"is_bot":false,"first_name":"A"}}}`)})
	if err != nil || len(evs) != 0 || resp.Status != 200 || string(resp.Body) != "{}" || resp.ContentType != "application/json" {
		t.Errorf("unknown update: %+v %v %v, want 200 {} and no events", resp, evs, err)
	}
}

func TestReceiveText(t *testing.T) {
	e := connected(t)
	u := telegramtest.TextMessage(telegramtest.PrivateChat(ada), ada, 12, "Hello bot")
	u["message"].(map[string]any)["date"] = 1700000000
	ib := oneMessage(t, e.deliver(t, u))
	want := channels.Inbound{ProviderMessageID: "5550001:12", ChatAddress: "5550001", Sender: "5550001",
		SenderName: "Ada Lovelace", Type: domain.TypeText, Content: domain.Content{Text: "Hello bot"},
		At: time.Unix(1700000000, 0).UTC()}
	if ib.ProviderMessageID != want.ProviderMessageID || ib.ChatAddress != want.ChatAddress || ib.Sender != want.Sender ||
		ib.SenderName != want.SenderName || ib.Type != want.Type || ib.Content.Text != want.Content.Text ||
		!ib.At.Equal(want.At) || ib.Group || ib.ReplyTo != "" || ib.MediaRef != "" {
		t.Errorf("inbound = %+v\nwant %+v", ib, want)
	}

	// In a group: the chat is the group, the sender the member (named by username when
	// nameless).
	ib = oneMessage(t, e.deliver(t, telegramtest.TextMessage(team, grace, 30, "hi all")))
	if !ib.Group || ib.ChatAddress != "-1001234567890" || ib.Sender != "5550002" || ib.SenderName != "grace" ||
		ib.ProviderMessageID != "-1001234567890:30" {
		t.Errorf("group inbound = %+v", ib)
	}
}

func TestReceiveReply(t *testing.T) {
	e := connected(t)
	ib := oneMessage(t, e.deliver(t, telegramtest.ReplyMessage(team, ada, 41, "agreed", 40)))
	if ib.ReplyTo != "-1001234567890:40" {
		t.Errorf("reply_to = %q, want the quoted message's chat:id", ib.ReplyTo)
	}
}

// A message in a forum topic names the topic (and is no reply to the topic's creation); a
// reply in a topic names both. Outside forums message_thread_id is a reply thread, no place
// to send to: left out.
func TestReceiveForumTopic(t *testing.T) {
	e := connected(t)
	ib := oneMessage(t, e.deliver(t, telegramtest.TopicMessage(team, ada, 50, 7, "in the topic")))
	if ib.ThreadID != "7" || ib.ReplyTo != "" || ib.ChatAddress != "-1001234567890" {
		t.Errorf("topic message = %+v, want thread 7, no reply", ib)
	}
	reply := telegramtest.TopicMessage(team, grace, 51, 7, "answer")
	reply["message"].(map[string]any)["reply_to_message"] = map[string]any{"message_id": 50, "chat": map[string]any{"id": team.ID, "type": "supergroup"},
		"date": time.Now().Unix(), "message_thread_id": 7, "is_topic_message": true}
	if ib := oneMessage(t, e.deliver(t, reply)); ib.ThreadID != "7" || ib.ReplyTo != "-1001234567890:50" {
		t.Errorf("reply in a topic = %+v", ib)
	}
	thread := telegramtest.ReplyMessage(team, ada, 52, "in a reply thread", 40)
	thread["message"].(map[string]any)["message_thread_id"] = 40
	if ib := oneMessage(t, e.deliver(t, thread)); ib.ThreadID != "" || ib.ReplyTo != "-1001234567890:40" {
		t.Errorf("reply thread outside a forum = %+v, want no thread", ib)
	}
}

func TestReceivePhoto(t *testing.T) {
	e := connected(t)
	ib := oneMessage(t, e.deliver(t, telegramtest.PhotoMessage(telegramtest.PrivateChat(ada), ada, 13, "AgACbig", "look")))
	m := ib.Content.Media
	if ib.Type != domain.TypeImage || ib.MediaRef != "AgACbig" || m == nil || m.ProviderMediaID != "AgACbig" ||
		m.Caption != "look" || m.MimeType != "image/jpeg" {
		t.Errorf("photo = %+v media %+v; want the largest size", ib, m)
	}

	ib = oneMessage(t, e.deliver(t, telegramtest.DocumentMessage(telegramtest.PrivateChat(ada), ada, 14, "BQACdoc",
		"report.pdf", "application/pdf", "")))
	m = ib.Content.Media
	if ib.Type != domain.TypeDocument || ib.MediaRef != "BQACdoc" || m.FileName != "report.pdf" || m.MimeType != "application/pdf" {
		t.Errorf("document = %+v media %+v", ib, m)
	}
}

func TestReceiveOtherKinds(t *testing.T) {
	e := connected(t)
	chat := telegramtest.PrivateChat(ada)
	with := func(field string, v any) telegramtest.Update {
		u := telegramtest.TextMessage(chat, ada, e.tg.NextMessageID(ada.ID), "")
		m := u["message"].(map[string]any)
		delete(m, "text")
		m[field] = v
		return u
	}
	ib := oneMessage(t, e.deliver(t, with("voice", map[string]any{"file_id": "AwAC", "file_unique_id": "u", "duration": 3, "mime_type": "audio/ogg"})))
	if ib.Type != domain.TypeVoice || ib.MediaRef != "AwAC" || ib.Content.Media.MimeType != "audio/ogg" {
		t.Errorf("voice = %+v", ib)
	}
	ib = oneMessage(t, e.deliver(t, with("sticker", map[string]any{"file_id": "CAAC", "file_unique_id": "u", "type": "regular",
		"width": 512, "height": 512, "is_animated": false, "is_video": false})))
	if ib.Type != domain.TypeSticker || ib.MediaRef != "CAAC" || ib.Content.Media.MimeType != "image/webp" {
		t.Errorf("sticker = %+v", ib)
	}
	ib = oneMessage(t, e.deliver(t, with("location", map[string]any{"latitude": 52.5, "longitude": 13.4})))
	if ib.Type != domain.TypeLocation || ib.Content.Location.Latitude != 52.5 || ib.Content.Location.Longitude != 13.4 {
		t.Errorf("location = %+v", ib)
	}
	ib = oneMessage(t, e.deliver(t, with("contact", map[string]any{"phone_number": "+4912345", "first_name": "Max", "last_name": "M"})))
	if ib.Type != domain.TypeContact || ib.Content.Contact.Name != "Max M" || !slices.Equal(ib.Content.Contact.Phones, []string{"+4912345"}) {
		t.Errorf("contact = %+v", ib)
	}
	ib = oneMessage(t, e.deliver(t, with("poll", map[string]any{"id": "1", "question": "Q?", "options": []map[string]any{
		{"text": "a", "voter_count": 0}, {"text": "b", "voter_count": 0}}, "total_voter_count": 0, "is_closed": false,
		"is_anonymous": true, "type": "regular", "allows_multiple_answers": true})))
	if ib.Type != domain.TypePoll || ib.Content.Poll.Question != "Q?" || !slices.Equal(ib.Content.Poll.Options, []string{"a", "b"}) ||
		!ib.Content.Poll.MultipleAnswers {
		t.Errorf("poll = %+v", ib)
	}
	if evs := e.deliver(t, with("dice", map[string]any{"emoji": "🎲", "value": 4})); len(evs) != 0 {
		t.Errorf("dice made events %+v", evs)
	}
}

func TestReceiveReaction(t *testing.T) {
	e := connected(t)
	ib := oneMessage(t, e.deliver(t, telegramtest.Reaction(team, ada, 40, "🔥")))
	r := ib.Content.Reaction
	if ib.Type != domain.TypeReaction || r == nil || r.MessageID != "-1001234567890:40" || r.Emoji != "🔥" ||
		ib.Sender != "5550001" || !ib.Group {
		t.Errorf("reaction = %+v (%+v)", ib, r)
	}
	cleared := oneMessage(t, e.deliver(t, telegramtest.Reaction(team, ada, 40, "")))
	if cleared.Content.Reaction.Emoji != "" || cleared.ProviderMessageID == ib.ProviderMessageID {
		t.Errorf("cleared reaction = %+v: want no emoji and its own provider id", cleared)
	}
}

func TestReceiveEdit(t *testing.T) {
	e := connected(t)
	evs := e.deliver(t, telegramtest.EditedMessage(telegramtest.PrivateChat(ada), ada, 12, "Hello, bot"))
	if len(evs) != 1 || evs[0].Kind != channels.EventEdit {
		t.Fatalf("events = %+v", evs)
	}
	if ed := evs[0].Edit; ed.ChatAddress != "5550001" || ed.ProviderMessageID != "5550001:12" || ed.Text != "Hello, bot" || ed.Deleted {
		t.Errorf("edit = %+v", ed)
	}
}

func oneGroup(t *testing.T, evs []channels.Event) channels.Group {
	t.Helper()
	if len(evs) != 1 || evs[0].Kind != channels.EventGroup || evs[0].Group == nil {
		t.Fatalf("events = %+v, want one group event", evs)
	}
	return *evs[0].Group
}

func TestReceiveMembership(t *testing.T) {
	e := connected(t)
	bot := e.tg.Bot()

	g := oneGroup(t, e.deliver(t, telegramtest.MembersJoined(team, ada, 50, grace, bot)))
	if g.Action != channels.GroupParticipants || !slices.Equal(g.Added, []string{"5550002"}) || len(g.Removed) != 0 ||
		g.Info.Address != "-1001234567890" || g.Info.Subject != "Team" {
		t.Errorf("joined = %+v (the bot itself is reported by my_chat_member)", g)
	}
	g = oneGroup(t, e.deliver(t, telegramtest.MemberLeft(team, grace, 51, grace)))
	if g.Action != channels.GroupParticipants || !slices.Equal(g.Removed, []string{"5550002"}) {
		t.Errorf("left = %+v", g)
	}
	if evs := e.deliver(t, telegramtest.MemberLeft(team, ada, 52, bot)); len(evs) != 0 {
		t.Errorf("the bot's own leaving as a service message made %+v", evs)
	}

	g = oneGroup(t, e.deliver(t, telegramtest.ChatMemberUpdated(team, ada, grace, telegramtest.StatusLeft, telegramtest.StatusMember)))
	if g.Action != channels.GroupParticipants || !slices.Equal(g.Added, []string{"5550002"}) {
		t.Errorf("chat_member join = %+v", g)
	}
	g = oneGroup(t, e.deliver(t, telegramtest.ChatMemberUpdated(team, ada, grace, telegramtest.StatusMember, telegramtest.StatusKicked)))
	if g.Action != channels.GroupParticipants || !slices.Equal(g.Removed, []string{"5550002"}) {
		t.Errorf("chat_member kick = %+v", g)
	}
	if evs := e.deliver(t, telegramtest.ChatMemberUpdated(team, ada, grace, telegramtest.StatusMember, telegramtest.StatusAdministrator)); len(evs) != 0 {
		t.Errorf("a promotion made %+v", evs)
	}

	g = oneGroup(t, e.deliver(t, telegramtest.MyChatMemberUpdated(team, ada, bot, telegramtest.StatusLeft, telegramtest.StatusMember)))
	if g.Action != channels.GroupParticipants || !slices.Equal(g.Added, []string{e.in.Address}) {
		t.Errorf("bot added = %+v, want the instance's address added", g)
	}
	g = oneGroup(t, e.deliver(t, telegramtest.MyChatMemberUpdated(team, ada, bot, telegramtest.StatusMember, telegramtest.StatusKicked)))
	if g.Action != channels.GroupRemoved || !slices.Equal(g.Removed, []string{e.in.Address}) || g.Info.Address != "-1001234567890" {
		t.Errorf("bot kicked = %+v, want the group removed", g)
	}
	// A user blocking the bot in private is no group change.
	if evs := e.deliver(t, telegramtest.MyChatMemberUpdated(telegramtest.PrivateChat(ada), ada, bot,
		telegramtest.StatusMember, telegramtest.StatusKicked)); len(evs) != 0 {
		t.Errorf("private block made %+v", evs)
	}
}

// TestReceiveFieldsNewerThanTheLibrary: the Bot API adds variants to its unions
// (MessageOrigin, ReactionType: "Currently, it can be one of ..."), which the library
// refuses to decode. Telegram retries a refused update and then drops it; the message must
// be stored instead, from the fields the driver reads.
func TestReceiveFieldsNewerThanTheLibrary(t *testing.T) {
	e := connected(t)
	u := telegramtest.TextMessage(telegramtest.PrivateChat(ada), ada, 40, "forwarded to you")
	u["message"].(map[string]any)["forward_origin"] = map[string]any{"type": "some_future_origin", "date": 1700000000}
	ib := oneMessage(t, e.deliver(t, u))
	if ib.Type != domain.TypeText || ib.Content.Text != "forwarded to you" || ib.ProviderMessageID != "5550001:40" {
		t.Errorf("inbound = %+v", ib)
	}

	r := telegramtest.Reaction(telegramtest.PrivateChat(ada), ada, 40, "👍")
	mr := r["message_reaction"].(map[string]any)
	mr["new_reaction"] = append([]map[string]any{{"type": "some_future_reaction"}}, mr["new_reaction"].([]map[string]any)...)
	ib = oneMessage(t, e.deliver(t, r))
	if ib.Type != domain.TypeReaction || ib.Content.Reaction == nil || ib.Content.Reaction.Emoji != "👍" {
		t.Errorf("reaction = %+v", ib)
	}
}
