package telegram

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/telegram/telegramtest"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

const user = "555000111"

func TestSendEveryKind(t *testing.T) {
	e := connected(t)
	ctx := context.Background()
	first, err := e.d.Send(ctx, e.in, channels.Outbound{MessageID: "msg_1", ChatAddress: user, Type: domain.TypeText,
		Content: domain.Content{Text: "first"}})
	if err != nil {
		t.Fatal(err)
	}
	if first.ProviderMessageID != user+":1" {
		t.Errorf("provider id = %q, want %s:1 (chat:message)", first.ProviderMessageID, user)
	}
	cat := []byte("\xff\xd8\xff\xe0 a cat")
	img := e.files.Add("/cat.jpg", cat, "image/jpeg")
	clip := e.files.Add("/v.mp4", []byte("....ftypmp42 a clip"), "video/mp4")
	song := e.files.Add("/a.mp3", []byte("ID3 a song"), "audio/mpeg")
	report := e.files.Add("/files/r.pdf", []byte("%PDF-1.7 a report"), "application/pdf")
	cases := []struct {
		name   string
		out    channels.Outbound
		method string
		want   map[string]string
		// upload is the file sent as a multipart part named after the parameter, with
		// its part's file name.
		upload     []byte
		uploadName string
	}{
		{"text reply", channels.Outbound{Type: domain.TypeText, Content: domain.Content{Text: "hello"}, ReplyTo: first.ProviderMessageID},
			"sendMessage", map[string]string{"chat_id": user, "text": "hello"}, nil, ""},
		{"image by url", channels.Outbound{Type: domain.TypeImage, Content: domain.Content{Media: &domain.Media{URL: img, Caption: "a cat"}}},
			"sendPhoto", map[string]string{"caption": "a cat"}, cat, "cat.jpg"},
		{"image by file_id", channels.Outbound{Type: domain.TypeImage, Content: domain.Content{Media: &domain.Media{ProviderMediaID: "AgACAgQAAxkBAAIB"}}},
			"sendPhoto", map[string]string{"photo": "AgACAgQAAxkBAAIB"}, nil, ""},
		{"video", channels.Outbound{Type: domain.TypeVideo, Content: domain.Content{Media: &domain.Media{URL: clip, Caption: "clip"}}},
			"sendVideo", map[string]string{"caption": "clip"}, []byte("....ftypmp42 a clip"), "v.mp4"},
		{"audio", channels.Outbound{Type: domain.TypeAudio, Content: domain.Content{Media: &domain.Media{URL: song}}},
			"sendAudio", map[string]string{}, []byte("ID3 a song"), "a.mp3"},
		{"voice", channels.Outbound{Type: domain.TypeVoice, Content: domain.Content{Media: &domain.Media{ProviderMediaID: "AwACAgQAAxkB"}}},
			"sendVoice", map[string]string{"voice": "AwACAgQAAxkB"}, nil, ""},
		{"document named by the message", channels.Outbound{Type: domain.TypeDocument, Content: domain.Content{Media: &domain.Media{URL: report, Caption: "report", FileName: "Q3 report.pdf"}}},
			"sendDocument", map[string]string{"caption": "report"}, []byte("%PDF-1.7 a report"), "Q3 report.pdf"},
		{"sticker", channels.Outbound{Type: domain.TypeSticker, Content: domain.Content{Media: &domain.Media{ProviderMediaID: "CAACAgIAAxkB", Caption: "dropped"}}},
			"sendSticker", map[string]string{"sticker": "CAACAgIAAxkB"}, nil, ""},
		{"location", channels.Outbound{Type: domain.TypeLocation, Content: domain.Content{Location: &domain.Location{Latitude: 52.52, Longitude: 13.405}}},
			"sendLocation", map[string]string{"latitude": "52.52", "longitude": "13.405"}, nil, ""},
		{"contact", channels.Outbound{Type: domain.TypeContact, Content: domain.Content{Contact: &domain.ContactCard{Name: "Ada King Lovelace",
			Phones: []string{"+441234567890", "+440000000000"}}}},
			"sendContact", map[string]string{"phone_number": "+441234567890", "first_name": "Ada", "last_name": "King Lovelace"}, nil, ""},
		{"poll", channels.Outbound{Type: domain.TypePoll, Content: domain.Content{Poll: &domain.Poll{Question: "Lunch?",
			Options: []string{"Pizza", "Salad"}, MultipleAnswers: true}}},
			"sendPoll", map[string]string{"question": "Lunch?", "allows_multiple_answers": "true"}, nil, ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.out.MessageID, tc.out.ChatAddress = "msg_"+strconv.Itoa(i+2), user
			sent, err := e.d.Send(ctx, e.in, tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if want := user + ":" + strconv.Itoa(i+2); sent.ProviderMessageID != want {
				t.Errorf("provider id = %q, want %q", sent.ProviderMessageID, want)
			}
			c := e.lastCall(t, tc.method)
			tc.want["chat_id"] = user
			wantParams(t, c, tc.want)
			field := strings.ToLower(strings.TrimPrefix(tc.method, "send"))
			if tc.upload != nil {
				if got := c.Files[field]; !bytes.Equal(got, tc.upload) || c.FileNames[field] != tc.uploadName {
					t.Errorf("uploaded %s %q named %q, want %q named %q", field, got, c.FileNames[field], tc.upload, tc.uploadName)
				}
				if v, ok := c.Params[field]; ok {
					t.Errorf("%s also sent as the parameter %q", field, v)
				}
			} else if len(c.Files) != 0 {
				t.Errorf("uploaded %v, want no file", c.Files)
			}
			switch tc.name {
			case "text reply":
				var rp struct {
					MessageID int `json:"message_id"`
				}
				jsonParam(t, c, "reply_parameters", &rp)
				if rp.MessageID != 1 {
					t.Errorf("reply_parameters.message_id = %d, want 1", rp.MessageID)
				}
			case "sticker":
				if _, ok := c.Params["caption"]; ok {
					t.Error("a sticker was sent with a caption")
				}
			case "poll":
				var opts []struct {
					Text string `json:"text"`
				}
				jsonParam(t, c, "options", &opts)
				if len(opts) != 2 || opts[0].Text != "Pizza" || opts[1].Text != "Salad" {
					t.Errorf("options = %+v", opts)
				}
			default:
				if _, ok := c.Params["reply_parameters"]; ok {
					t.Error("reply_parameters sent without a reply")
				}
			}
		})
	}
}

func TestSendToChannelUsername(t *testing.T) {
	e := connected(t)
	e.tg.AddChat(telegramtest.Chat{ID: -1009876543210, Type: "channel", Title: "News", Username: "news_channel"})
	sent, err := e.d.Send(context.Background(), e.in, channels.Outbound{ChatAddress: "@news_channel", Type: domain.TypeText,
		Content: domain.Content{Text: "breaking"}})
	if err != nil {
		t.Fatal(err)
	}
	if sent.ProviderMessageID != "-1009876543210:1" {
		t.Errorf("provider id = %q: it must name the chat by its numeric id", sent.ProviderMessageID)
	}
	wantParams(t, e.lastCall(t, "sendMessage"), map[string]string{"chat_id": "@news_channel"})
}

func TestReaction(t *testing.T) {
	e := connected(t)
	ctx := context.Background()
	target := "-1001234567890:77"
	react := func(emoji string) channels.Sent {
		t.Helper()
		sent, err := e.d.Send(ctx, e.in, channels.Outbound{ChatAddress: "-1001234567890", Type: domain.TypeReaction,
			Content: domain.Content{Reaction: &domain.Reaction{MessageID: "msg_local", Emoji: emoji}}, ReactionTarget: target})
		if err != nil {
			t.Fatal(err)
		}
		return sent
	}
	if sent := react("👍"); sent.ProviderMessageID != "" {
		t.Errorf("a reaction got provider id %q; Telegram reactions are not messages", sent.ProviderMessageID)
	}
	c := e.lastCall(t, "setMessageReaction")
	wantParams(t, c, map[string]string{"chat_id": "-1001234567890", "message_id": "77"})
	var rs []struct{ Type, Emoji string }
	jsonParam(t, c, "reaction", &rs)
	if len(rs) != 1 || rs[0].Type != "emoji" || rs[0].Emoji != "👍" {
		t.Errorf("reaction = %+v", rs)
	}

	react("")
	c = e.lastCall(t, "setMessageReaction")
	rs = nil
	jsonParam(t, c, "reaction", &rs)
	if len(rs) != 0 {
		t.Errorf("removing sent reaction %+v, want []", rs)
	}

	_, err := e.d.Send(ctx, e.in, channels.Outbound{ChatAddress: user, Type: domain.TypeReaction,
		Content: domain.Content{Reaction: &domain.Reaction{Emoji: "👍"}}})
	var se *channels.SendError
	if !errors.As(err, &se) || !se.Permanent {
		t.Errorf("reaction to a message without provider id: %v, want a permanent refusal", err)
	}
}

func TestEditDeleteTyping(t *testing.T) {
	e := connected(t)
	ctx := context.Background()
	sent, err := e.d.Send(ctx, e.in, channels.Outbound{ChatAddress: user, Type: domain.TypeText, Content: domain.Content{Text: "draft"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.d.Edit(ctx, e.in, channels.SentMessage{ChatAddress: user, ProviderMessageID: sent.ProviderMessageID}, "final"); err != nil {
		t.Fatal(err)
	}
	wantParams(t, e.lastCall(t, "editMessageText"), map[string]string{"chat_id": user, "message_id": "1", "text": "final"})
	if err := e.d.Edit(ctx, e.in, channels.SentMessage{ChatAddress: user, ProviderMessageID: sent.ProviderMessageID}, "final"); err != nil {
		t.Errorf("editing to the same text = %v, want done", err)
	}
	if err := e.d.Delete(ctx, e.in, channels.SentMessage{ChatAddress: user, ProviderMessageID: sent.ProviderMessageID}); err != nil {
		t.Fatal(err)
	}
	wantParams(t, e.lastCall(t, "deleteMessage"), map[string]string{"chat_id": user, "message_id": "1"})
	err = e.d.Delete(ctx, e.in, channels.SentMessage{ChatAddress: user, ProviderMessageID: sent.ProviderMessageID})
	var se *channels.SendError
	if !errors.As(err, &se) || se.Code != "invalid_request" || !strings.Contains(se.Message, "message to delete not found") {
		t.Errorf("deleting twice = %v", err)
	}

	for state, action := range map[string]string{"composing": "typing", "recording": "record_voice"} {
		if err := e.d.Typing(ctx, e.in, channels.Indicator{ChatAddress: user, State: state}); err != nil {
			t.Fatal(err)
		}
		wantParams(t, e.lastCall(t, "sendChatAction"), map[string]string{"chat_id": user, "action": action})
	}
	before := len(e.tg.CallsTo("sendChatAction"))
	if err := e.d.Typing(ctx, e.in, channels.Indicator{ChatAddress: user, State: "paused"}); err != nil {
		t.Fatal(err)
	}
	if len(e.tg.CallsTo("sendChatAction")) != before {
		t.Error("paused called Telegram: it has no way to stop the indicator")
	}
}

func TestGroups(t *testing.T) {
	e := connected(t)
	ctx := context.Background()
	g := channels.GroupInfo{Address: "-1001234567890", Subject: "Team", Description: "Our team"}
	if err := e.d.UpdateGroup(ctx, e.in, g); err != nil {
		t.Fatal(err)
	}
	wantParams(t, e.lastCall(t, "setChatTitle"), map[string]string{"chat_id": g.Address, "title": "Team"})
	wantParams(t, e.lastCall(t, "setChatDescription"), map[string]string{"chat_id": g.Address, "description": "Our team"})
	g.Description = "Our new team"
	if err := e.d.UpdateGroup(ctx, e.in, g); err != nil {
		t.Errorf("changing only the description = %v (the unchanged title is no error)", err)
	}

	if err := e.d.ChangeParticipants(ctx, e.in, g, nil, []string{"4242"}); err != nil {
		t.Fatal(err)
	}
	wantParams(t, e.lastCall(t, "banChatMember"), map[string]string{"chat_id": g.Address, "user_id": "4242"})
	wantParams(t, e.lastCall(t, "unbanChatMember"), map[string]string{"chat_id": g.Address, "user_id": "4242", "only_if_banned": "true"})
	if e.tg.Banned(-1001234567890, 4242) {
		t.Error("the removed member stays banned: they could never rejoin")
	}

	calls := len(e.tg.Calls())
	if err := e.d.ChangeParticipants(ctx, e.in, g, []string{"4343"}, []string{"4242"}); !errors.Is(err, channels.ErrUnsupported) {
		t.Errorf("adding = %v, want ErrUnsupported", err)
	}
	if len(e.tg.Calls()) != calls {
		t.Error("a refused change still called Telegram")
	}

	if err := e.d.LeaveGroup(ctx, e.in, g); err != nil {
		t.Fatal(err)
	}
	wantParams(t, e.lastCall(t, "leaveChat"), map[string]string{"chat_id": g.Address})

	if _, err := e.d.CreateGroup(ctx, e.in, g); !errors.Is(err, channels.ErrUnsupported) {
		t.Errorf("CreateGroup = %v, want ErrUnsupported", err)
	}
	if err := e.d.MarkRead(ctx, e.in, user, nil); !errors.Is(err, channels.ErrUnsupported) {
		t.Errorf("MarkRead = %v, want ErrUnsupported", err)
	}
	if _, err := e.d.Check(ctx, e.in, []string{user}); !errors.Is(err, channels.ErrUnsupported) {
		t.Errorf("Check = %v, want ErrUnsupported", err)
	}
}

func TestSendErrors(t *testing.T) {
	text := channels.Outbound{ChatAddress: user, Type: domain.TypeText, Content: domain.Content{Text: "hi"}}
	permanent := func(code, msg string) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			var se *channels.SendError
			if !errors.As(err, &se) || !se.Permanent || se.Code != code || se.Message != msg {
				t.Errorf("err = %#v, want permanent %s %q", err, code, msg)
			}
		}
	}
	cases := []struct {
		name        string
		status      int
		desc        string
		retryAfter  int
		check       func(*testing.T, error)
		statusEvent bool
	}{
		{"rate limited", http.StatusTooManyRequests, "Too Many Requests: retry after 7", 7, func(t *testing.T, err error) {
			var rl *channels.RateLimitedError
			if !errors.As(err, &rl) || rl.RetryAfter != 7*time.Second {
				t.Errorf("err = %#v, want RateLimitedError after 7s", err)
			}
		}, false},
		{"server error", http.StatusInternalServerError, "Internal Server Error", 0, func(t *testing.T, err error) {
			var se *channels.SendError
			var rl *channels.RateLimitedError
			if err == nil || errors.As(err, &se) || errors.As(err, &rl) {
				t.Errorf("err = %#v, want a plain (retried) error", err)
			}
		}, false},
		{"blocked", http.StatusForbidden, "Forbidden: bot was blocked by the user", 0,
			permanent("recipient_unreachable", "Forbidden: bot was blocked by the user"), false},
		{"chat not found", http.StatusBadRequest, "Bad Request: chat not found", 0,
			permanent("recipient_unreachable", "Bad Request: chat not found"), false},
		{"no rights", http.StatusBadRequest, "Bad Request: not enough rights to send text messages to the chat", 0,
			permanent("forbidden", "Bad Request: not enough rights to send text messages to the chat"), false},
		{"other forbidden", http.StatusForbidden, "Forbidden: bot can't send messages to bots", 0,
			permanent("forbidden", "Forbidden: bot can't send messages to bots"), false},
		{"bad request", http.StatusBadRequest, "Bad Request: message is too long", 0,
			permanent("invalid_request", "Bad Request: message is too long"), false},
		{"revoked", http.StatusUnauthorized, "Unauthorized", 0, func(t *testing.T, err error) {
			var se *channels.SendError
			if !errors.As(err, &se) || !se.Permanent || se.Code != "unauthorized" {
				t.Errorf("err = %#v, want permanent unauthorized", err)
			}
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := connected(t)
			e.tg.FailNext("sendMessage", tc.status, tc.desc, tc.retryAfter)
			_, err := e.d.Send(context.Background(), e.in, text)
			tc.check(t, err)
			noToken(t, err, e.tg.Token())
			evs := e.host.Events()
			if !tc.statusEvent {
				if len(evs) != 0 {
					t.Errorf("emitted %+v", evs)
				}
				return
			}
			if len(evs) != 1 || evs[0].Kind != channels.EventStatus || evs[0].InstanceID != e.in.ID ||
				evs[0].Status.Status != domain.InstanceFailed || !strings.Contains(evs[0].Status.Reason, "@BotFather") {
				t.Fatalf("emitted %+v, want the instance failed", evs)
			}
			noToken(t, errors.New(evs[0].Status.Reason), e.tg.Token())
		})
	}
}

func TestRevokedTokenFailsEveryOperation(t *testing.T) {
	e := connected(t)
	e.tg.Revoke()
	ctx := context.Background()
	ops := map[string]func() error{
		"typing": func() error { return e.d.Typing(ctx, e.in, channels.Indicator{ChatAddress: user, State: "composing"}) },
		"edit": func() error {
			return e.d.Edit(ctx, e.in, channels.SentMessage{ChatAddress: user, ProviderMessageID: user + ":1"}, "x")
		},
		"leave": func() error { return e.d.LeaveGroup(ctx, e.in, channels.GroupInfo{Address: "-100123"}) },
	}
	for name, op := range ops {
		var se *channels.SendError
		if err := op(); !errors.As(err, &se) || se.Code != "unauthorized" {
			t.Errorf("%s = %v, want unauthorized", name, err)
		}
	}
	if n := len(e.host.Events()); n != len(ops) {
		t.Errorf("%d status events, want one per refused call", n)
	}
}

func TestNetworkErrorsHideTheToken(t *testing.T) {
	e := connected(t)
	e.tg.Close()
	_, err := e.d.Send(context.Background(), e.in, channels.Outbound{ChatAddress: user, Type: domain.TypeText,
		Content: domain.Content{Text: "hi"}})
	var se *channels.SendError
	if err == nil || errors.As(err, &se) {
		t.Fatalf("err = %v, want a plain (retried) error", err)
	}
	noToken(t, err, e.tg.Token())
	_, err = e.d.FetchMedia(context.Background(), e.in, "file", 1<<20)
	noToken(t, err, e.tg.Token())
}

func TestOutboundValidation(t *testing.T) {
	e := connected(t)
	for name, out := range map[string]channels.Outbound{
		"media without file":    {Type: domain.TypeImage, Content: domain.Content{Media: &domain.Media{Caption: "x"}}},
		"contact without phone": {Type: domain.TypeContact, Content: domain.Content{Contact: &domain.ContactCard{Name: "A"}}},
		"bad reply target":      {Type: domain.TypeText, Content: domain.Content{Text: "x"}, ReplyTo: "msg_123"},
	} {
		out.ChatAddress = user
		_, err := e.d.Send(context.Background(), e.in, out)
		var se *channels.SendError
		if !errors.As(err, &se) || !se.Permanent || se.Code != "invalid_request" {
			t.Errorf("%s: err = %v, want a permanent invalid_request", name, err)
		}
	}
	if got := methods(e.tg.Calls()); !slices.Equal(got, []string{"getMe", "setWebhook"}) {
		t.Errorf("invalid sends reached Telegram: %v", got)
	}
}

// TestReactionInTelegramsForm: the Bot API takes only the emoji of its list
// (ReactionTypeEmoji), written without variation selectors ("❤", not "❤️" as keyboards
// and WhatsApp write it); anything else is refused with REACTION_INVALID.
func TestReactionInTelegramsForm(t *testing.T) {
	e := connected(t)
	for in, want := range map[string]string{"❤\uFE0F": "❤", "❤\uFE0F\u200D🔥": "❤\u200D🔥", "🤷\u200D♂\uFE0F": "🤷\u200D♂",
		"✍\uFE0F": "✍", "👍": "👍"} {
		_, err := e.d.Send(context.Background(), e.in, channels.Outbound{ChatAddress: user, Type: domain.TypeReaction,
			Content: domain.Content{Reaction: &domain.Reaction{MessageID: "msg_local", Emoji: in}}, ReactionTarget: user + ":5"})
		if err != nil {
			t.Errorf("reaction %+q: %v", in, err)
			continue
		}
		var rs []struct{ Type, Emoji string }
		jsonParam(t, e.lastCall(t, "setMessageReaction"), "reaction", &rs)
		if len(rs) != 1 || rs[0].Emoji != want {
			t.Errorf("reaction %+q sent as %+v, want %+q", in, rs, want)
		}
	}
	_, err := e.d.Send(context.Background(), e.in, channels.Outbound{ChatAddress: user, Type: domain.TypeReaction,
		Content: domain.Content{Reaction: &domain.Reaction{MessageID: "msg_local", Emoji: "🦖"}}, ReactionTarget: user + ":5"})
	var se *channels.SendError
	if !errors.As(err, &se) || se.Code != "invalid_request" || !se.Permanent {
		t.Errorf("an emoji Telegram does not offer: %v, want a permanent invalid_request", err)
	}
}

// TestGroupChangeNotModified: Telegram answers a change to what a group already has with
// "Bad Request: CHAT_NOT_MODIFIED" (TDLib passes the raw error to bots): done, not refused.
func TestGroupChangeNotModified(t *testing.T) {
	e := connected(t)
	e.tg.FailNext("setChatTitle", http.StatusBadRequest, "Bad Request: CHAT_NOT_MODIFIED", 0)
	e.tg.FailNext("setChatDescription", http.StatusBadRequest, "Bad Request: CHAT_NOT_MODIFIED", 0)
	err := e.d.UpdateGroup(context.Background(), e.in, channels.GroupInfo{Address: "-1001234567890", Subject: "Team",
		Description: "same as before"})
	if err != nil {
		t.Errorf("unchanged group: %v, want success", err)
	}
}

// A send into a forum topic names it as message_thread_id, for every kind of message.
func TestSendIntoForumTopic(t *testing.T) {
	e := connected(t)
	ctx := context.Background()
	const group = "-1001234567890"
	if _, err := e.d.Send(ctx, e.in, channels.Outbound{ChatAddress: group, Group: true, Type: domain.TypeText,
		Content: domain.Content{Text: "in the topic"}, ThreadID: "7"}); err != nil {
		t.Fatal(err)
	}
	wantParams(t, e.lastCall(t, "sendMessage"), map[string]string{"chat_id": group, "message_thread_id": "7", "text": "in the topic"})
	if _, err := e.d.Send(ctx, e.in, channels.Outbound{ChatAddress: group, Group: true, Type: domain.TypeImage,
		Content: domain.Content{Media: &domain.Media{ProviderMediaID: "AgACAgQAAxkBAAIB"}}, ThreadID: "7"}); err != nil {
		t.Fatal(err)
	}
	wantParams(t, e.lastCall(t, "sendPhoto"), map[string]string{"message_thread_id": "7", "photo": "AgACAgQAAxkBAAIB"})
	// Without a thread, none is named (the chat itself, or a forum's General topic).
	if _, err := e.d.Send(ctx, e.in, channels.Outbound{ChatAddress: group, Group: true, Type: domain.TypeText,
		Content: domain.Content{Text: "general"}}); err != nil {
		t.Fatal(err)
	}
	if v, ok := e.lastCall(t, "sendMessage").Params["message_thread_id"]; ok {
		t.Errorf("message_thread_id %q sent without a thread", v)
	}
	var se *channels.SendError
	if _, err := e.d.Send(ctx, e.in, channels.Outbound{ChatAddress: group, Type: domain.TypeText,
		Content: domain.Content{Text: "x"}, ThreadID: "general"}); !errors.As(err, &se) || se.Code != "invalid_request" {
		t.Errorf("a thread that is no number: %v", err)
	}
	// The typing indicator shows in the topic too.
	if err := e.d.Typing(ctx, e.in, channels.Indicator{ChatAddress: group, State: "composing", ThreadID: "7"}); err != nil {
		t.Fatal(err)
	}
	wantParams(t, e.lastCall(t, "sendChatAction"), map[string]string{"chat_id": group, "message_thread_id": "7", "action": "typing"})
}
