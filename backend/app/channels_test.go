package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/channels/whatsappcloud/wacloudtest"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

const (
	waAppSecret   = "0123456789abcdef0123456789abcdef"
	waVerifyToken = "my-verify-token"
	waCustomer    = "+15551230001"
)

// whatsApp starts the app against a fake Graph API and connects a whatsapp_cloud instance.
func whatsApp(t *testing.T, d string, mediaMax int64) (*app.App, string, *wacloudtest.Server, servicetest.Owner, domain.Instance) {
	t.Helper()
	fake := wacloudtest.New(wacloudtest.Config{})
	t.Cleanup(fake.Close)
	cfg, err := app.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.WhatsAppGraphURL, cfg.WebhookAllowList, cfg.MediaMaxBytes = fake.URL, []string{"127.0.0.1"}, mediaMax
	a, srv := newAppWith(t, storetest.URL(t, store.Dialect(d)), cfg)
	owner := servicetest.NewOwner(t, a.Service)
	ctx := context.Background()
	inst, err := a.Messaging.Instances.Create(ctx, owner.Actor, messaging.CreateInstanceInput{Name: "Shop", Channel: "whatsapp_cloud",
		Config: map[string]any{"phone_number_id": wacloudtest.DefaultPhoneNumberID, "access_token": wacloudtest.DefaultAccessToken,
			"app_secret": waAppSecret, "verify_token": waVerifyToken}, Connect: true})
	if err != nil {
		t.Fatal(err)
	}
	inst = waitInstance(t, a, owner, inst.ID, domain.InstanceConnected)
	if inst.Address != "+16315550100" {
		t.Fatalf("address %q", inst.Address)
	}
	// The URL the provider calls, on the test server's origin.
	_, path, _ := strings.Cut(strings.TrimPrefix(inst.CallbackURL, "http://"), "/")
	return a, srv.URL + "/" + path, fake, owner, inst
}

func waitInstance(t *testing.T, a *app.App, owner servicetest.Owner, id, status string) domain.Instance {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		in, err := a.Messaging.Instances.Get(context.Background(), owner.Actor, id)
		if err != nil {
			t.Fatal(err)
		}
		if in.Status == status {
			return in
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance is %s (%s), want %s", in.Status, in.StatusReason, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitMessage(t *testing.T, a *app.App, owner servicetest.Owner, instID string, ok func([]domain.Message) bool) []domain.Message {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		page, err := a.Messaging.Messages.List(context.Background(), owner.Actor, instID, domain.MessageFilter{}, domain.ListParams{Limit: ptr(100)})
		if err != nil {
			t.Fatal(err)
		}
		if ok(page.Data) {
			return page.Data
		}
		if time.Now().After(deadline) {
			t.Fatalf("messages never matched: %+v", page.Data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A WhatsApp Cloud number through the whole app: Meta's verification handshake, signed
// notifications (unsigned or wrongly signed ones are 401 and store nothing), receipts in
// and out of order onto the one monotonic status, a failed receipt with the provider's
// code, inbound media downloaded into the blob store (and a file over the limit kept as a
// message without it), the provider's 429 retried, and a revoked token failing the
// instance with a reason and an event.
func TestWhatsAppCloudThroughTheApp(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			a, callback, fake, owner, inst := whatsApp(t, string(d), 1<<10)
			ctx := context.Background()

			// The handshake: the right verify token echoes the challenge; a wrong one is 401.
			if code, body, err := wacloudtest.Verify(ctx, callback, waVerifyToken, "1158201444"); err != nil || code != 200 || body != "1158201444" {
				t.Fatalf("verification: %d %q %v", code, body, err)
			}
			if code, _, _ := wacloudtest.Verify(ctx, callback, "guess", "1"); code != http.StatusUnauthorized {
				t.Fatalf("wrong verify token: %d", code)
			}
			if code, _, _ := wacloudtest.Verify(ctx, strings.Replace(callback, "/whatsapp_cloud/", "/whatsapp_cloud/x", 1), waVerifyToken, "1"); code != http.StatusNotFound {
				t.Fatalf("unknown callback token: %d", code)
			}

			// Send, then receipts out of order: read before delivered; delivered changes nothing.
			sent, err := a.Messaging.Messages.Send(ctx, owner.Actor, inst.ID, messaging.SendInput{To: waCustomer,
				ContentInput: messaging.ContentInput{Text: "Your order has shipped"}})
			if err != nil {
				t.Fatal(err)
			}
			var wamid string
			waitMessage(t, a, owner, inst.ID, func(ms []domain.Message) bool {
				for _, m := range ms {
					if m.ID == sent.ID && m.Status == domain.MessageSent {
						wamid = m.ProviderMessageID
						return true
					}
				}
				return false
			})
			if c := fake.LastCall(); c.Body["to"] != "15551230001" || c.Body["type"] != "text" {
				t.Fatalf("send request: %+v", c)
			}
			deliver := func(body []byte, secret string) int {
				t.Helper()
				code, err := wacloudtest.Deliver(ctx, callback, secret, body)
				if err != nil {
					t.Fatal(err)
				}
				return code
			}
			read := fake.Notify(fake.Statuses(wacloudtest.StatusUpdate(wamid, "read", "15551230001")))
			if code := deliver(read, "not the app secret"); code != http.StatusUnauthorized {
				t.Fatalf("wrongly signed: %d", code)
			}
			if code := deliver(read, waAppSecret); code != http.StatusOK {
				t.Fatalf("read receipt: %d", code)
			}
			deliver(fake.Notify(fake.Statuses(wacloudtest.StatusUpdate(wamid, "delivered", "15551230001"))), waAppSecret)
			waitMessage(t, a, owner, inst.ID, func(ms []domain.Message) bool {
				return len(ms) == 1 && ms[0].Status == domain.MessageRead
			})

			// WhatsApp shows "typing…" only in answer to a received message: none yet.
			if _, err := a.Messaging.Messages.Typing(ctx, owner.Actor, inst.ID, messaging.TypingInput{To: waCustomer}); !domain.IsCode(err, domain.CodeConflict) ||
				err.(*domain.Error).Reason != "no_received_message" {
				t.Fatalf("typing before anything was received: %v", err)
			}

			// Inbound: a text (twice: Meta retries), and two images, one over the 1 KiB limit.
			small, large := bytes.Repeat([]byte{0x89}, 700), bytes.Repeat([]byte{0x89}, 2000)
			fake.AddMedia("media-small", small, "image/png")
			fake.AddMedia("media-large", large, "image/png")
			hello := fake.Notify(fake.Messages("Grace", wacloudtest.TextMessage("15551230001", "hello")))
			deliver(hello, waAppSecret)
			deliver(hello, waAppSecret)
			deliver(fake.Notify(fake.Messages("Grace",
				wacloudtest.MediaMessage("15551230001", "image", "media-small", "image/png", "small"),
				wacloudtest.MediaMessage("15551230001", "image", "media-large", "image/png", "large"))), waAppSecret)
			waitMessage(t, a, owner, inst.ID, func(ms []domain.Message) bool { return len(ms) >= 4 })
			time.Sleep(200 * time.Millisecond) // room for a duplicate to show, were there one
			ms := waitMessage(t, a, owner, inst.ID, func(ms []domain.Message) bool { return true })
			if len(ms) != 4 {
				t.Fatalf("a retried notification was stored twice: %d messages", len(ms))
			}
			byCaption := map[string]*domain.Media{}
			for _, m := range ms {
				if m.Content.Media != nil {
					byCaption[m.Content.Media.Caption] = m.Content.Media
				}
			}
			sm, lg := byCaption["small"], byCaption["large"]
			if sm == nil || sm.Size != 700 || sm.URL == "" || sm.ProviderMediaID != "media-small" {
				t.Fatalf("small image: %+v", sm)
			}
			if lg == nil || lg.URL != "" || lg.NotStored != "too_large" || lg.ProviderMediaID != "media-large" {
				t.Fatalf("large image: %+v", lg)
			}
			res, err := http.Get(strings.Replace(sm.URL, a.Config.BaseURL, strings.TrimSuffix(callback[:strings.Index(callback, "/channels/")], "/"), 1))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || !bytes.Equal(got, small) {
				t.Fatalf("media URL: %d, %d bytes", res.StatusCode, len(got))
			}

			// Typing answers the newest received message, which WhatsApp marks read with the
			// ones before it: the chat is read here too.
			var newest domain.Message
			for _, m := range ms {
				if m.Direction == domain.Inbound && m.ID > newest.ID {
					newest = m
				}
			}
			if _, err := a.Messaging.Messages.Typing(ctx, owner.Actor, inst.ID, messaging.TypingInput{To: waCustomer}); err != nil {
				t.Fatal(err)
			}
			if c := fake.LastCall(); c.Body["status"] != "read" || c.Body["message_id"] != newest.ProviderMessageID ||
				c.Body["typing_indicator"] == nil {
				t.Fatalf("typing request %+v, want a read receipt with typing_indicator for %s", c.Body, newest.ProviderMessageID)
			}
			chats, err := a.Messaging.Chats.List(ctx, owner.Actor, inst.ID, domain.ChatFilter{}, domain.ListParams{})
			if err != nil || len(chats.Data) != 1 || chats.Data[0].UnreadCount != 0 {
				t.Fatalf("chats after typing: %+v %v, want the chat read", chats.Data, err)
			}
			for _, m := range waitMessage(t, a, owner, inst.ID, func([]domain.Message) bool { return true }) {
				if m.Direction == domain.Inbound && m.Status != domain.MessageRead {
					t.Errorf("received message %s is %s after typing, want read", m.ID, m.Status)
				}
			}

			// A failed receipt carries the provider's code.
			sent2, _ := a.Messaging.Messages.Send(ctx, owner.Actor, inst.ID, messaging.SendInput{To: waCustomer,
				ContentInput: messaging.ContentInput{Text: "second"}})
			var wamid2 string
			waitMessage(t, a, owner, inst.ID, func(ms []domain.Message) bool {
				for _, m := range ms {
					if m.ID == sent2.ID && m.ProviderMessageID != "" {
						wamid2 = m.ProviderMessageID
						return true
					}
				}
				return false
			})
			deliver(fake.Notify(fake.Statuses(wacloudtest.FailedStatus(wamid2, "15551230001", 131026, "Message undeliverable", ""))), waAppSecret)
			waitMessage(t, a, owner, inst.ID, func(ms []domain.Message) bool {
				for _, m := range ms {
					if m.ID == sent2.ID {
						return m.Status == domain.MessageFailed && m.Error != nil && m.Error.Code == "recipient_unreachable" &&
							strings.Contains(m.Error.Message, "131026")
					}
				}
				return false
			})

			// The provider's 429: the send waits and goes out on a later try.
			fake.FailNext(wacloudtest.Failure{Status: 429, Code: 130429, Message: "Rate limit hit", RetryAfter: "1"})
			sent3, _ := a.Messaging.Messages.Send(ctx, owner.Actor, inst.ID, messaging.SendInput{To: waCustomer,
				ContentInput: messaging.ContentInput{Text: "third"}})
			waitMessage(t, a, owner, inst.ID, func(ms []domain.Message) bool {
				for _, m := range ms {
					if m.ID == sent3.ID {
						return m.Status == domain.MessageSent
					}
				}
				return false
			})

			// A revoked token: the send fails with the provider's code, the instance fails
			// with a reason, and instance.status_changed says so.
			fake.FailNext(wacloudtest.Failure{Status: 401, Code: 190, Type: "OAuthException", Message: "Error validating access token: Session has expired"})
			sent4, _ := a.Messaging.Messages.Send(ctx, owner.Actor, inst.ID, messaging.SendInput{To: waCustomer,
				ContentInput: messaging.ContentInput{Text: "fourth"}})
			failed := waitInstance(t, a, owner, inst.ID, domain.InstanceFailed)
			if failed.StatusReason == "" || strings.Contains(failed.StatusReason, wacloudtest.DefaultAccessToken) {
				t.Fatalf("status reason %q", failed.StatusReason)
			}
			waitMessage(t, a, owner, inst.ID, func(ms []domain.Message) bool {
				for _, m := range ms {
					if m.ID == sent4.ID {
						return m.Status == domain.MessageFailed && m.Error != nil && m.Error.Code == "unauthorized"
					}
				}
				return false
			})
			evs, err := a.Service.Events.List(ctx, owner.Actor, domain.EventFilter{Types: []string{"instance.status_changed"}}, domain.ListParams{Limit: ptr(20)})
			if err != nil {
				t.Fatal(err)
			}
			var toFailed bool
			for _, e := range evs.Data {
				var ch struct{ To string }
				_ = json.Unmarshal(e.Data, &ch)
				toFailed = toFailed || ch.To == domain.InstanceFailed
			}
			if !toFailed {
				t.Fatal("no instance.status_changed to failed")
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// Provider callbacks share the API edge: a body over 3 MiB (Meta's bound for a notification)
// is 413 and stores nothing, and one callback URL gets at most its burst before 429 with
// Retry-After (other URLs are unaffected).
func TestCallbacksBodyLimitAndRateLimit(t *testing.T) {
	_, srv := newApp(t, storetest.URL(t, store.SQLite))
	url := srv.URL + "/channels/telegram/" + strings.Repeat("t", 43)
	for size, want := range map[int]int{3 << 20: http.StatusNotFound, 3<<20 + 1: http.StatusRequestEntityTooLarge} {
		res, err := http.Post(url, "application/json", bytes.NewReader(bytes.Repeat([]byte("x"), size)))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Fatalf("a callback of %d bytes: %d, want %d (404: read whole, then the unknown token)", size, res.StatusCode, want)
		}
	}
	// The bucket refills at 50/s while the loop runs (slowly under -race): go on until refused.
	limited := 0
	for i := 0; i < 20_000 && limited == 0; i++ {
		res, err := http.Post(url, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		switch res.StatusCode {
		case http.StatusNotFound: // an unknown token, within the burst
		case http.StatusTooManyRequests:
			if res.Header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
			limited = i
		default:
			t.Fatalf("callback %d: %d", i, res.StatusCode)
		}
	}
	if limited < 400 {
		t.Fatalf("limited after %d callbacks (want the burst of 500 first)", limited)
	}
	res, err := http.Post(srv.URL+"/channels/telegram/"+strings.Repeat("u", 43), "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("another callback URL: %d (limited too?)", res.StatusCode)
	}
}
