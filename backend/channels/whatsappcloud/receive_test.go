package whatsappcloud

import (
	"bytes"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/whatsappcloud/wacloudtest"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

func TestVerificationHandshake(t *testing.T) {
	e := newEnv(t)
	url, _ := e.callbackURL()
	status, body, err := wacloudtest.Verify(e.ctx, url, testVerifyToken, "1158201444")
	if err != nil || status != 200 || body != "1158201444" {
		t.Fatalf("good token: %d %q %v, want 200 and the challenge", status, body, err)
	}
	status, _, err = wacloudtest.Verify(e.ctx, url, "not-the-token", "1158201444")
	if err != nil || status != http.StatusUnauthorized {
		t.Fatalf("bad token: %d %v, want 401", status, err)
	}
	e.in.Secrets[ConfigVerifyToken] = ""
	status, _, _ = wacloudtest.Verify(e.ctx, url, "", "1158201444")
	if status != http.StatusUnauthorized {
		t.Fatalf("no token configured: %d, want 401", status)
	}
}

func TestUnsignedNotificationsAreRefused(t *testing.T) {
	e := newEnv(t)
	url, events := e.callbackURL()
	body := e.fake.Notify(e.fake.Messages("Ana", wacloudtest.TextMessage(customer, "hi")))

	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unsigned: %d, want 401", resp.StatusCode)
	}
	if status, err := wacloudtest.Deliver(e.ctx, url, "some-other-app-secret", body); err != nil || status != http.StatusUnauthorized {
		t.Fatalf("wrongly signed: %d %v, want 401", status, err)
	}
	if n := len(events()); n != 0 {
		t.Fatalf("%d events from unsigned calls", n)
	}
	if status, err := wacloudtest.Deliver(e.ctx, url, testAppSecret, body); err != nil || status != 200 || len(events()) != 1 {
		t.Fatalf("signed: %d %v, %d events", status, err, len(events()))
	}

	// A signed body that is not JSON is malformed, not forged.
	bad := []byte(`{"object":`)
	_, _, err = e.d.Receive(e.ctx, e.in, channels.Callback{Method: http.MethodPost,
		Header: http.Header{"X-Hub-Signature-256": {wacloudtest.Sign(testAppSecret, bad)}}, Body: bad})
	if err == nil || errors.Is(err, channels.ErrSignature) {
		t.Fatalf("malformed: err = %v, want a plain error", err)
	}
}

func TestInboundMessages(t *testing.T) {
	at := time.Date(2025, 6, 25, 13, 16, 24, 0, time.UTC)
	in := func(id, typ string, c domain.Content) channels.Inbound {
		return channels.Inbound{ProviderMessageID: id, ChatAddress: customerAddress, Sender: customerAddress,
			SenderName: "Ana Souza", Type: typ, Content: c, At: at}
	}
	cases := []struct {
		name string
		msg  wacloudtest.Message
		want func(id string) channels.Inbound
	}{
		{"text", wacloudtest.TextMessage(customer, "Hello there"),
			func(id string) channels.Inbound { return in(id, domain.TypeText, domain.Content{Text: "Hello there"}) }},
		{"reply", wacloudtest.TextMessage(customer, "Yes").InReplyTo("16315550100", "wamid.OURS"),
			func(id string) channels.Inbound {
				ib := in(id, domain.TypeText, domain.Content{Text: "Yes"})
				ib.ReplyTo = "wamid.OURS"
				return ib
			}},
		{"image", wacloudtest.MediaMessage(customer, "image", "1013859600285441", "image/jpeg", "Our shop"),
			func(id string) channels.Inbound {
				ib := in(id, domain.TypeImage, domain.Content{Media: &domain.Media{Caption: "Our shop", MimeType: "image/jpeg",
					ProviderMediaID: "1013859600285441"}})
				ib.MediaRef = "1013859600285441"
				return ib
			}},
		{"voice note", wacloudtest.VoiceMessage(customer, "2070337016667925"),
			func(id string) channels.Inbound {
				ib := in(id, domain.TypeVoice, domain.Content{Media: &domain.Media{MimeType: "audio/ogg; codecs=opus",
					ProviderMediaID: "2070337016667925"}})
				ib.MediaRef = "2070337016667925"
				return ib
			}},
		{"audio file", wacloudtest.MediaMessage(customer, "audio", "555", "audio/mpeg", ""),
			func(id string) channels.Inbound {
				ib := in(id, domain.TypeAudio, domain.Content{Media: &domain.Media{MimeType: "audio/mpeg", ProviderMediaID: "555"}})
				ib.MediaRef = "555"
				return ib
			}},
		{"document", wacloudtest.DocumentMessage(customer, "777", "application/pdf", "invoice.pdf", "March"),
			func(id string) channels.Inbound {
				ib := in(id, domain.TypeDocument, domain.Content{Media: &domain.Media{Caption: "March", FileName: "invoice.pdf",
					MimeType: "application/pdf", ProviderMediaID: "777"}})
				ib.MediaRef = "777"
				return ib
			}},
		{"sticker", wacloudtest.MediaMessage(customer, "sticker", "888", "image/webp", ""),
			func(id string) channels.Inbound {
				ib := in(id, domain.TypeSticker, domain.Content{Media: &domain.Media{MimeType: "image/webp", ProviderMediaID: "888"}})
				ib.MediaRef = "888"
				return ib
			}},
		{"reaction", wacloudtest.ReactionMessage(customer, "wamid.OURS", "❤️"),
			func(id string) channels.Inbound {
				return in(id, domain.TypeReaction, domain.Content{Reaction: &domain.Reaction{MessageID: "wamid.OURS", Emoji: "❤️"}})
			}},
		{"location", wacloudtest.LocationMessage(customer, 37.4847, -122.1477, "HQ", "1 Hacker Way"),
			func(id string) channels.Inbound {
				return in(id, domain.TypeLocation, domain.Content{Location: &domain.Location{Latitude: 37.4847,
					Longitude: -122.1477, Name: "HQ", Address: "1 Hacker Way"}})
			}},
		{"contact", wacloudtest.ContactsMessage(customer, "Bia Lima", "+55 11 98765-4321"),
			func(id string) channels.Inbound {
				return in(id, domain.TypeContact, domain.Content{Contact: &domain.ContactCard{Name: "Bia Lima",
					Phones: []string{"+55 11 98765-4321"},
					VCard:  "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Bia Lima\r\nTEL;TYPE=CELL:+55 11 98765-4321\r\nEND:VCARD\r\n"}})
			}},
		{"reply button", wacloudtest.ButtonReplyMessage(customer, "yes-1", "Yes, please"),
			func(id string) channels.Inbound { return in(id, domain.TypeText, domain.Content{Text: "Yes, please"}) }},
		{"list row", wacloudtest.ListReplyMessage(customer, "row-2", "Tomorrow 10:00"),
			func(id string) channels.Inbound {
				return in(id, domain.TypeText, domain.Content{Text: "Tomorrow 10:00"})
			}},
		{"template quick reply", wacloudtest.QuickReplyMessage(customer, "STOP_PROMOS", "Stop promotions"),
			func(id string) channels.Inbound {
				return in(id, domain.TypeText, domain.Content{Text: "Stop promotions"})
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			msg := tc.msg.At(at)
			events := e.receive(e.fake.Notify(e.fake.Messages("Ana Souza", msg)))
			if len(events) != 1 || events[0].Kind != channels.EventMessage || events[0].InstanceID != e.in.ID {
				t.Fatalf("events = %+v", events)
			}
			if want := tc.want(msg.ID); !reflect.DeepEqual(*events[0].Message, want) {
				t.Fatalf("inbound\n got %+v\nwant %+v", *events[0].Message, want)
			}
		})
	}
}

func TestUnsupportedAndForeignNotificationsAreIgnored(t *testing.T) {
	e := newEnv(t)
	unsupported := wacloudtest.Message{From: customer, ID: "wamid.U", Timestamp: "1750857384", Type: "unsupported"}
	if evs := e.receive(e.fake.Notify(e.fake.Messages("Ana", unsupported))); len(evs) != 0 {
		t.Fatalf("unsupported type: %+v", evs)
	}
	other := e.fake.Messages("Ana", wacloudtest.TextMessage(customer, "for another number"))
	other.Metadata.PhoneNumberID = "999999999"
	mine := e.fake.Messages("Ana", wacloudtest.TextMessage(customer, "for us"))
	evs := e.receive(e.fake.Notify(other, mine))
	if len(evs) != 1 || evs[0].Message.Content.Text != "for us" {
		t.Fatalf("events = %+v, want only ours", evs)
	}
}

func TestStatusesBecomeReceipts(t *testing.T) {
	e := newEnv(t)
	at := time.Date(2025, 6, 25, 13, 16, 24, 0, time.UTC)
	body := e.fake.Notify(e.fake.Statuses(
		wacloudtest.StatusUpdate("wamid.A", "sent", customer).At(at),
		wacloudtest.StatusUpdate("wamid.A", "delivered", customer).At(at),
		wacloudtest.StatusUpdate("wamid.A", "read", customer).At(at),
		wacloudtest.StatusUpdate("wamid.V", "played", customer).At(at),
		wacloudtest.FailedStatus("wamid.B", customer, 131047, "Re-engagement message",
			"Message failed to send because more than 24 hours have passed since the customer last replied to this number.").At(at),
	))
	evs := e.receive(body)
	want := []channels.Receipt{
		{ProviderMessageID: "wamid.A", Status: domain.MessageSent, At: at},
		{ProviderMessageID: "wamid.A", Status: domain.MessageDelivered, At: at},
		{ProviderMessageID: "wamid.A", Status: domain.MessageRead, At: at},
		{ProviderMessageID: "wamid.V", Status: domain.MessageRead, At: at},
		{ProviderMessageID: "wamid.B", Status: domain.MessageFailed, ErrorCode: "outside_customer_service_window",
			ErrorMessage: "(131047) Re-engagement message: Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
			At:           at},
	}
	if len(evs) != len(want) {
		t.Fatalf("events = %+v", evs)
	}
	for i, ev := range evs {
		if ev.Kind != channels.EventReceipt || ev.InstanceID != e.in.ID || !reflect.DeepEqual(*ev.Receipt, want[i]) {
			t.Errorf("receipt %d = %+v, want %+v", i, *ev.Receipt, want[i])
		}
	}
}
