package whatsappcloud

import (
	"bytes"
	"encoding/json"
	"errors"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/whatsappcloud/wacloudtest"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

const head = `"messaging_product":"whatsapp","recipient_type":"individual","to":"16315551234"`

// typeOf is what the test media host answers as the Content-Type of its files.
var typeOf = map[string]string{".jpg": "image/jpeg", ".mp4": "video/mp4", ".mp3": "audio/mpeg",
	".ogg": "audio/ogg; codecs=opus", ".pdf": "application/pdf"}

// firstUpload is the media id the fake gives the first file uploaded to it.
const firstUpload = "1013859600000001"

func TestSendProducesTheDocumentedRequest(t *testing.T) {
	cases := []struct {
		name string
		out  channels.Outbound
		want string
	}{
		{"text", channels.Outbound{Type: domain.TypeText, Content: domain.Content{Text: "Hello"}},
			`{` + head + `,"type":"text","text":{"body":"Hello","preview_url":false}}`},
		{"text with a link previews it", channels.Outbound{Type: domain.TypeText, Content: domain.Content{Text: "See https://example.com"}},
			`{` + head + `,"type":"text","text":{"body":"See https://example.com","preview_url":true}}`},
		{"reply", channels.Outbound{Type: domain.TypeText, Content: domain.Content{Text: "Yes"}, ReplyTo: "wamid.QUOTED"},
			`{` + head + `,"type":"text","context":{"message_id":"wamid.QUOTED"},"text":{"body":"Yes","preview_url":false}}`},
		{"image by url is uploaded", channels.Outbound{Type: domain.TypeImage,
			Content: domain.Content{Media: &domain.Media{URL: "/a.jpg", Caption: "Look"}}},
			`{` + head + `,"type":"image","image":{"id":"` + firstUpload + `","caption":"Look"}}`},
		{"image by media id", channels.Outbound{Type: domain.TypeImage,
			Content: domain.Content{Media: &domain.Media{ProviderMediaID: "1013859600285441"}}},
			`{` + head + `,"type":"image","image":{"id":"1013859600285441"}}`},
		{"video", channels.Outbound{Type: domain.TypeVideo,
			Content: domain.Content{Media: &domain.Media{URL: "/v.mp4", Caption: "Clip"}}},
			`{` + head + `,"type":"video","video":{"id":"` + firstUpload + `","caption":"Clip"}}`},
		{"audio", channels.Outbound{Type: domain.TypeAudio,
			Content: domain.Content{Media: &domain.Media{URL: "/s.mp3"}}},
			`{` + head + `,"type":"audio","audio":{"id":"` + firstUpload + `"}}`},
		// Meta's audio messages reference: "voice": true makes an OGG/Opus file a voice
		// message (auto-download, transcription, "played" receipts); without it, a basic
		// audio message.
		{"voice is audio marked voice", channels.Outbound{Type: domain.TypeVoice,
			Content: domain.Content{Media: &domain.Media{URL: "/n.ogg"}}},
			`{` + head + `,"type":"audio","audio":{"id":"` + firstUpload + `","voice":true}}`},
		{"voice by media id", channels.Outbound{Type: domain.TypeVoice,
			Content: domain.Content{Media: &domain.Media{ProviderMediaID: "1013859600285441"}}},
			`{` + head + `,"type":"audio","audio":{"id":"1013859600285441","voice":true}}`},
		{"document", channels.Outbound{Type: domain.TypeDocument,
			Content: domain.Content{Media: &domain.Media{URL: "/files/i.pdf", Caption: "Invoice", FileName: "invoice.pdf"}}},
			`{` + head + `,"type":"document","document":{"id":"` + firstUpload + `","caption":"Invoice","filename":"invoice.pdf"}}`},
		{"document named by its url", channels.Outbound{Type: domain.TypeDocument,
			Content: domain.Content{Media: &domain.Media{URL: "/files/Q3%20report.pdf"}}},
			`{` + head + `,"type":"document","document":{"id":"` + firstUpload + `","filename":"Q3 report.pdf"}}`},
		{"sticker", channels.Outbound{Type: domain.TypeSticker,
			Content: domain.Content{Media: &domain.Media{ProviderMediaID: "798882015472548"}}},
			`{` + head + `,"type":"sticker","sticker":{"id":"798882015472548"}}`},
		{"location", channels.Outbound{Type: domain.TypeLocation,
			Content: domain.Content{Location: &domain.Location{Latitude: 37.4847, Longitude: -122.1477, Name: "HQ", Address: "1 Hacker Way"}}},
			`{` + head + `,"type":"location","location":{"latitude":37.4847,"longitude":-122.1477,"name":"HQ","address":"1 Hacker Way"}}`},
		{"contact", channels.Outbound{Type: domain.TypeContact,
			Content: domain.Content{Contact: &domain.ContactCard{Name: "Ana Maria Silva", Phones: []string{"+5511987654321"}}}},
			`{` + head + `,"type":"contacts","contacts":[{"name":{"formatted_name":"Ana Maria Silva","first_name":"Ana","last_name":"Maria Silva"},"phones":[{"phone":"+5511987654321"}]}]}`},
		{"reaction", channels.Outbound{Type: domain.TypeReaction, ReactionTarget: "wamid.TARGET",
			Content: domain.Content{Reaction: &domain.Reaction{MessageID: "msg_local", Emoji: "👍"}}},
			`{` + head + `,"type":"reaction","reaction":{"message_id":"wamid.TARGET","emoji":"👍"}}`},
		{"reaction removed", channels.Outbound{Type: domain.TypeReaction, ReactionTarget: "wamid.TARGET",
			Content: domain.Content{Reaction: &domain.Reaction{MessageID: "msg_local"}}},
			`{` + head + `,"type":"reaction","reaction":{"message_id":"wamid.TARGET","emoji":""}}`},
		{"template with components", channels.Outbound{Type: domain.TypeTemplate, Content: domain.Content{Template: &domain.Template{
			Name: "order_update", Language: "en_US",
			Components: json.RawMessage(`[{"type":"body","parameters":[{"type":"text","text":"#1234"}]}]`)}}},
			`{` + head + `,"type":"template","template":{"name":"order_update","language":{"code":"en_US"},"components":[{"type":"body","parameters":[{"type":"text","text":"#1234"}]}]}}`},
		{"template without components", channels.Outbound{Type: domain.TypeTemplate,
			Content: domain.Content{Template: &domain.Template{Name: "hello_world", Language: "en_US"}}},
			`{` + head + `,"type":"template","template":{"name":"hello_world","language":{"code":"en_US"}}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tc.out.MessageID, tc.out.ChatAddress = "msg_1", customerAddress
			var content []byte
			if md := tc.out.Content.Media; md != nil && md.URL != "" {
				content = []byte("the file at " + md.URL)
				u := e.files.Add(strings.ReplaceAll(md.URL, "%20", " "), content, typeOf[path.Ext(md.URL)])
				md.URL = strings.Replace(u, " ", "%20", 1)
			}
			sent, err := e.d.Send(e.ctx, e.in, tc.out)
			if err != nil {
				t.Fatal(err)
			}
			c := e.fake.LastCall()
			if c.Method != "POST" || c.Path != "/"+DefaultAPIVersion+"/"+e.fake.PhoneNumberID+"/messages" || !c.Authorized || c.Status != 200 {
				t.Fatalf("call = %+v", c)
			}
			jsonEqual(t, c.Body, tc.want)
			if content != nil {
				got, _, ok := e.fake.Media(firstUpload)
				if !ok || !bytes.Equal(got, content) {
					t.Errorf("uploaded %q, want %q", got, content)
				}
			} else if n := len(e.fake.Calls()); n != 1 || e.files.Requests() != 0 {
				t.Errorf("%d Graph calls and %d fetches for a message without a url, want 1 and 0", n, e.files.Requests())
			}
			if !strings.HasPrefix(sent.ProviderMessageID, "wamid.") {
				t.Fatalf("provider id = %q", sent.ProviderMessageID)
			}
		})
	}
}

func TestSendRefusesWhatWhatsAppCannotCarry(t *testing.T) {
	cases := map[string]channels.Outbound{
		"poll": {Type: domain.TypePoll, Content: domain.Content{Poll: &domain.Poll{Question: "?", Options: []string{"a", "b"}}}},
		"reaction to a message WhatsApp never saw": {Type: domain.TypeReaction,
			Content: domain.Content{Reaction: &domain.Reaction{MessageID: "msg_x", Emoji: "👍"}}},
		"group": {Type: domain.TypeText, Group: true, Content: domain.Content{Text: "hi"}},
	}
	for name, out := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			out.ChatAddress = customerAddress
			_, err := e.d.Send(e.ctx, e.in, out)
			var se *channels.SendError
			if !errors.As(err, &se) || !se.Permanent {
				t.Fatalf("err = %v, want a permanent SendError", err)
			}
			if n := len(e.fake.Calls()); n != 0 {
				t.Fatalf("%d calls made", n)
			}
		})
	}
}

func TestSendErrors(t *testing.T) {
	text := channels.Outbound{MessageID: "msg_1", ChatAddress: customerAddress, Type: domain.TypeText,
		Content: domain.Content{Text: "hi"}}
	t.Run("429 is a rate limit with the provider's wait", func(t *testing.T) {
		e := newEnv(t)
		e.fake.FailNext(wacloudtest.Failure{Status: 429, Code: 130429, Message: "(#130429) Rate limit hit", RetryAfter: "7"})
		_, err := e.d.Send(e.ctx, e.in, text)
		var rl *channels.RateLimitedError
		if !errors.As(err, &rl) || rl.RetryAfter != 7*time.Second {
			t.Fatalf("err = %#v, want RateLimitedError after 7s", err)
		}
	})
	for _, code := range []int{4, 80007, 130429, 131048, 131056} {
		t.Run("throughput code "+strconv.Itoa(code), func(t *testing.T) {
			e := newEnv(t)
			e.fake.FailNext(wacloudtest.Failure{Status: 400, Code: code, Message: "limit"})
			_, err := e.d.Send(e.ctx, e.in, text)
			var rl *channels.RateLimitedError
			if !errors.As(err, &rl) || rl.RetryAfter != 0 {
				t.Fatalf("code %d: err = %#v, want RateLimitedError with no wait", code, err)
			}
		})
	}
	t.Run("500 is retried", func(t *testing.T) {
		e := newEnv(t)
		e.fake.FailNext(wacloudtest.Failure{Status: 500, Code: 131000, Message: "Something went wrong"})
		_, err := e.d.Send(e.ctx, e.in, text)
		var se *channels.SendError
		var rl *channels.RateLimitedError
		if err == nil || errors.As(err, &se) || errors.As(err, &rl) {
			t.Fatalf("err = %#v, want a plain (retried) error", err)
		}
	})
	t.Run("network failure is retried", func(t *testing.T) {
		e := newEnv(t)
		e.fake.Close()
		_, err := e.d.Send(e.ctx, e.in, text)
		var se *channels.SendError
		if err == nil || errors.As(err, &se) {
			t.Fatalf("err = %#v, want a plain (retried) error", err)
		}
	})
	permanent := []struct {
		name    string
		failure wacloudtest.Failure
		code    string
		message string
	}{
		{"outside the 24-hour window", wacloudtest.Failure{Status: 400, Code: 131047, Message: "(#131047) Re-engagement message",
			Details: "Message failed to send because more than 24 hours have passed since the customer last replied to this number."},
			"outside_customer_service_window", "template"},
		{"unreachable", wacloudtest.Failure{Status: 400, Code: 131026, Message: "(#131026) Message Undeliverable"},
			"recipient_unreachable", "Message Undeliverable"},
		{"invalid parameter", wacloudtest.Failure{Status: 400, Code: 100, Message: "(#100) Invalid parameter", Details: "text['body'] is too long"},
			"provider_error_100", "(#100) Invalid parameter (text['body'] is too long)"},
	}
	for _, tc := range permanent {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.fake.FailNext(tc.failure)
			_, err := e.d.Send(e.ctx, e.in, text)
			var se *channels.SendError
			if !errors.As(err, &se) || !se.Permanent || se.Code != tc.code || !strings.Contains(se.Message, tc.message) {
				t.Fatalf("err = %#v, want permanent %s mentioning %q", err, tc.code, tc.message)
			}
			if len(e.host.Events()) != 0 {
				t.Fatalf("emitted %v", e.host.Events())
			}
		})
	}
}

func TestRevokedTokenFailsTheInstance(t *testing.T) {
	e := newEnv(t)
	e.in.Secrets[ConfigAccessToken] = "EAAGrevokedToken1234567890"
	_, err := e.d.Send(e.ctx, e.in, channels.Outbound{MessageID: "msg_1", ChatAddress: customerAddress,
		Type: domain.TypeText, Content: domain.Content{Text: "hi"}})
	var se *channels.SendError
	if !errors.As(err, &se) || !se.Permanent || se.Code != "unauthorized" {
		t.Fatalf("err = %#v, want permanent unauthorized", err)
	}
	evs := e.host.Events()
	if len(evs) != 1 || evs[0].Kind != channels.EventStatus || evs[0].InstanceID != e.in.ID ||
		evs[0].Status.Status != domain.InstanceFailed {
		t.Fatalf("events = %+v, want one status failed", evs)
	}
	reason := evs[0].Status.Reason
	if !strings.HasPrefix(reason, "WhatsApp refused the access token (190)") || strings.Contains(reason, "EAAGrevoked") {
		t.Fatalf("reason = %q", reason)
	}
}

// A token without a permission the send needs (Graph codes 10 and 200–299) fails every
// send alike: the message fails, and so does the instance, saying what to grant.
func TestTokenWithoutPermissionFailsTheInstance(t *testing.T) {
	for _, code := range []int{10, 200} {
		e := newEnv(t)
		e.fake.FailNext(wacloudtest.Failure{Code: code, Message: "(#" + strconv.Itoa(code) + ") Application does not have permission for this action"})
		_, err := e.d.Send(e.ctx, e.in, channels.Outbound{MessageID: "msg_1", ChatAddress: customerAddress,
			Type: domain.TypeText, Content: domain.Content{Text: "hi"}})
		var se *channels.SendError
		if !errors.As(err, &se) || !se.Permanent || se.Code != "permission_denied" {
			t.Fatalf("code %d: err = %#v, want permanent permission_denied", code, err)
		}
		evs := e.host.Events()
		if len(evs) != 1 || evs[0].Kind != channels.EventStatus || evs[0].Status.Status != domain.InstanceFailed ||
			!strings.Contains(evs[0].Status.Reason, "whatsapp_business_messaging") {
			t.Fatalf("code %d: events = %+v, want the instance failed, naming the permission", code, evs)
		}
	}
}

func TestMarkReadMarksTheNewest(t *testing.T) {
	e := newEnv(t)
	read := []channels.Received{{ProviderMessageID: "wamid.OLD", Sender: customerAddress},
		{ProviderMessageID: "wamid.MID", Sender: customerAddress}, {ProviderMessageID: "wamid.NEW", Sender: customerAddress}}
	if err := e.d.MarkRead(e.ctx, e.in, customerAddress, read); err != nil {
		t.Fatal(err)
	}
	calls := e.fake.MessageCalls()
	if len(calls) != 1 || calls[0].Status != 200 {
		t.Fatalf("calls = %+v, want one", calls)
	}
	jsonEqual(t, calls[0].Body, `{"messaging_product":"whatsapp","status":"read","message_id":"wamid.NEW"}`)

	if err := e.d.MarkRead(e.ctx, e.in, customerAddress, nil); err != nil || len(e.fake.Calls()) != 1 {
		t.Fatalf("nothing to mark: err %v, %d calls", err, len(e.fake.Calls()))
	}
}

// WhatsApp's typing indicator rides on a read receipt for the received message being
// answered; recording shows the same "typing…"; paused has no call (it clears by itself).
func TestTypingAnswersTheLastReceived(t *testing.T) {
	e := newEnv(t)
	last := channels.Received{ProviderMessageID: "wamid.LAST", Sender: customerAddress}
	for _, state := range []string{"composing", "recording"} {
		if err := e.d.Typing(e.ctx, e.in, channels.Indicator{ChatAddress: customerAddress, State: state, Last: last}); err != nil {
			t.Fatal(err)
		}
		calls := e.fake.MessageCalls()
		jsonEqual(t, calls[len(calls)-1].Body,
			`{"messaging_product":"whatsapp","status":"read","message_id":"wamid.LAST","typing_indicator":{"type":"text"}}`)
	}
	before := len(e.fake.Calls())
	if err := e.d.Typing(e.ctx, e.in, channels.Indicator{ChatAddress: customerAddress, State: "paused", Last: last}); err != nil || len(e.fake.Calls()) != before {
		t.Fatalf("paused: err %v, %d calls, want none", err, len(e.fake.Calls())-before)
	}
	var se *channels.SendError
	if err := e.d.Typing(e.ctx, e.in, channels.Indicator{ChatAddress: customerAddress, State: "composing"}); !errors.As(err, &se) || se.Code != "no_received_message" {
		t.Fatalf("nothing received: %v", err)
	}
}
