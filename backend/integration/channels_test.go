package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels/telegram/telegramtest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// What the real-channels issue calls done, from outside, with the Telegram driver against
// a wire-faithful fake Bot API: a user creates a telegram instance with only an API key,
// connects it (the webhook is registered with its callback URL and secret), sends, and
// holds a conversation: the reply comes in through the signed callback, quotes the sent
// message, reaches a signed webhook and a live subscription on another replica; a photo
// is downloaded into the blob store and served at a signed URL; a retried callback stores
// nothing twice and a callback without the secret is refused.
func TestTelegramConversationEndToEnd(t *testing.T) {
	tg := telegramtest.New(t, telegramtest.Config{})
	db := storetest.URL(t, store.Postgres)
	// Replicas share the blob store, as they would share a bucket.
	mediaDir := t.TempDir()
	env := []string{"SWITCHBOARD_TELEGRAM_API_URL=" + tg.URL(), "SWITCHBOARD_MEDIA_STORE=file://" + filepath.ToSlash(mediaDir)}
	a := startReplica(t, "A", db, env...)
	b := startReplica(t, "B", db, env...)
	o := signUp(t, a)

	var inst struct {
		instanceObject
		CallbackURL string         `json:"callback_url"`
		Config      map[string]any `json:"config"`
		Reason      *string        `json:"status_reason"`
	}
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/instances", map[string]any{"name": "Bot", "channel": "telegram",
		"config": map[string]any{"bot_token": tg.Token()}, "connect": true}, &inst)
	if inst.Config["bot_token"] != "********" || !strings.HasPrefix(inst.CallbackURL, a.base+"/channels/telegram/") {
		t.Fatalf("created: %+v", inst)
	}
	waitFor(t, 15*time.Second, "the bot to connect", func() bool {
		a.mustREST(t, o.key, http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &inst)
		return inst.Status == "connected"
	})
	if inst.Address == nil || *inst.Address != "@"+tg.Bot().Username {
		t.Fatalf("address %v", inst.Address)
	}
	// The connect job ran on either replica, each with its own base URL here (in production
	// they share one): the registered URL is the instance's callback path on one of them.
	samePath := func(url, callback string) bool {
		return strings.TrimPrefix(url, a.base) == strings.TrimPrefix(callback, a.base) ||
			strings.TrimPrefix(url, b.base) == strings.TrimPrefix(callback, a.base)
	}
	wh, ok := tg.Webhook()
	if !ok || !samePath(wh.URL, inst.CallbackURL) || len(wh.SecretToken) < 32 {
		t.Fatalf("webhook registered: %+v (callback %s)", wh, inst.CallbackURL)
	}

	rc := newHookReceiver(t)
	var hook webhookCreated
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": rc.URL + "/hook",
		"event_types": []string{"message.received"}, "instance_id": inst.ID}, &hook)
	rc.setSecret(hook.Secret)
	ws := subscribe(t, b, o.key, `subscription { events(types: ["message.received"], instanceId: "`+inst.ID+`") { id type data } }`)

	// Send: the bot writes to Ada, and the message is sent (Telegram reports no more).
	ada := telegramtest.User{ID: 424242, FirstName: "Ada", LastName: "Lovelace"}
	chat := telegramtest.PrivateChat(ada)
	var sent messageObject
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/instances/"+inst.ID+"/messages",
		map[string]any{"to": strconv.FormatInt(ada.ID, 10), "text": "Your order has shipped"}, &sent)
	waitFor(t, 15*time.Second, "the message to be sent", func() bool {
		a.mustREST(t, o.key, http.MethodGet, "/api/v1/instances/"+inst.ID+"/messages/"+sent.ID, nil, &sent)
		return sent.Status == "sent"
	})
	call, ok := tg.LastCall("sendMessage")
	if !ok || call.Params["chat_id"] != "424242" || call.Params["text"] != "Your order has shipped" {
		t.Fatalf("sendMessage: %+v", call)
	}
	var sentResult struct {
		ProviderMessageID string `json:"provider_message_id"`
	}
	a.mustREST(t, o.key, http.MethodGet, "/api/v1/instances/"+inst.ID+"/messages/"+sent.ID, nil, &sentResult)
	_, msgID, _ := strings.Cut(sentResult.ProviderMessageID, ":")
	sentTelegramID, _ := strconv.Atoi(msgID)

	// Receive: Ada answers, quoting it; Telegram retries the same update once.
	ctx := context.Background()
	reply := telegramtest.ReplyMessage(chat, ada, tg.NextMessageID(ada.ID), "Thanks! When will it arrive?", sentTelegramID)
	for range 2 {
		if code, err := tg.Deliver(ctx, reply); err != nil || code != http.StatusOK {
			t.Fatalf("deliver: %d %v", code, err)
		}
	}
	// A callback without the secret, or with another, is refused and changes nothing.
	forged := telegramtest.TextMessage(chat, ada, tg.NextMessageID(ada.ID), "forged")
	for _, secret := range []string{"", strings.Repeat("x", 43)} {
		if code, _ := tg.DeliverWithSecret(ctx, forged, secret); code != http.StatusUnauthorized {
			t.Fatalf("forged callback (secret %q): %d", secret, code)
		}
	}
	// A photo, downloaded into the blob store.
	photo := bytes.Repeat([]byte("\xff\xd8 jpeg bytes "), 300)
	tg.AddFile("photo-file-1", "photos/file_1.jpg", photo, "image/jpeg")
	if code, err := tg.Deliver(ctx, telegramtest.PhotoMessage(chat, ada, tg.NextMessageID(ada.ID), "photo-file-1", "the parcel")); err != nil || code != http.StatusOK {
		t.Fatalf("deliver photo: %d %v", code, err)
	}

	type inbound struct {
		ID      string  `json:"id"`
		From    string  `json:"from"`
		Text    *string `json:"text"`
		ReplyTo *string `json:"reply_to"`
		Media   *struct {
			URL             string `json:"url"`
			Caption         string `json:"caption"`
			MimeType        string `json:"mime_type"`
			Size            int64  `json:"size"`
			ProviderMediaID string `json:"provider_media_id"`
		} `json:"media"`
	}
	var got []inbound
	waitFor(t, 15*time.Second, "both inbound messages", func() bool {
		var l struct{ Data []inbound }
		a.mustREST(t, o.key, http.MethodGet, "/api/v1/instances/"+inst.ID+"/messages?direction=inbound", nil, &l)
		got = l.Data
		return len(got) >= 2
	})
	time.Sleep(300 * time.Millisecond) // room for a duplicate to show, were there one
	var l struct{ Data []inbound }
	a.mustREST(t, o.key, http.MethodGet, "/api/v1/instances/"+inst.ID+"/messages?direction=inbound", nil, &l)
	if len(l.Data) != 2 {
		t.Fatalf("inbound messages (a retried update or the forged one stored?): %+v", l.Data)
	}
	pic, text := l.Data[0], l.Data[1] // newest first
	if text.Text == nil || *text.Text != "Thanks! When will it arrive?" || text.From != "424242" ||
		text.ReplyTo == nil || *text.ReplyTo != sent.ID {
		t.Fatalf("reply: %+v", text)
	}
	if pic.Media == nil || pic.Media.Caption != "the parcel" || pic.Media.Size != int64(len(photo)) ||
		pic.Media.ProviderMediaID != "photo-file-1" || !strings.HasPrefix(pic.Media.URL, a.base+"/media/") {
		t.Fatalf("photo: %+v", pic.Media)
	}
	// The signed URL serves the bytes, from either replica; tampered, it is refused.
	for _, base := range []string{a.base, b.base} {
		resp, err := http.Get(base + strings.TrimPrefix(pic.Media.URL, a.base))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, photo) || resp.Header.Get("Content-Type") != "image/jpeg" {
			t.Fatalf("media from %s: %d %s (%d bytes)", base, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
	}
	if resp, err := http.Get(strings.Replace(pic.Media.URL, "signature=", "signature=A", 1)); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("tampered media URL: %v %v", resp, err)
	}

	// Live on replica B, in order, and to the signed webhook: each message once.
	var live []string
	for len(live) < 2 {
		var msg struct {
			Payload struct {
				Data struct {
					Events struct {
						Data json.RawMessage `json:"data"`
					} `json:"events"`
				} `json:"data"`
			} `json:"payload"`
		}
		_ = ws.SetReadDeadline(time.Now().Add(15 * time.Second))
		if err := ws.ReadJSON(&msg); err != nil {
			t.Fatalf("subscription on replica B after %v: %v", live, err)
		}
		var m inbound
		_ = json.Unmarshal(msg.Payload.Data.Events.Data, &m)
		live = append(live, m.ID)
	}
	if fmt.Sprint(live) != fmt.Sprint([]string{text.ID, pic.ID}) {
		t.Fatalf("live events %v, want %s then %s", live, text.ID, pic.ID)
	}
	waitFor(t, 15*time.Second, "two webhook deliveries", func() bool {
		_, byID, _ := rc.snapshot()
		return len(byID) == 2
	})
	if _, _, bad := rc.snapshot(); len(bad) > 0 {
		t.Fatalf("signatures rejected by the Standard Webhooks library: %v", bad)
	}

	// Rotating the callback URL re-registers the webhook; the old URL is gone.
	old := inst.CallbackURL
	a.mustREST(t, o.key, http.MethodPost, "/api/v1/instances/"+inst.ID+"/rotate-callback-token", nil, &inst)
	if inst.CallbackURL == old {
		t.Fatal("rotation kept the URL")
	}
	waitFor(t, 15*time.Second, "the new URL to be registered", func() bool {
		wh, _ := tg.Webhook()
		return samePath(wh.URL, inst.CallbackURL)
	})
	if resp, err := http.Post(old, "application/json", strings.NewReader(`{"update_id":1}`)); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("old callback URL: %v %v", resp, err)
	}

	// Deleting the instance deletes its stored files (a job, once the deletion commits): the
	// photo's folder is emptied and its signed URL, still within its lifetime, answers 404.
	folders, _ := filepath.Glob(filepath.Join(mediaDir, "media", "*", inst.ID))
	if len(folders) != 1 || len(filesUnder(t, folders[0])) != 1 {
		t.Fatalf("the instance's media folder before its deletion: %v", folders)
	}
	folder := folders[0]
	a.mustREST(t, o.key, http.MethodDelete, "/api/v1/instances/"+inst.ID, nil, nil)
	waitFor(t, 15*time.Second, "the instance's files to be deleted", func() bool { return len(filesUnder(t, folder)) == 0 })
	if resp, err := http.Get(pic.Media.URL); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("media URL after the instance's deletion: %v %v", resp, err)
	}
}

// filesUnder lists the regular files under dir (none when it does not exist), leaving out
// the file store's .attrs sidecars.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !d.IsDir() && !strings.HasSuffix(path, ".attrs") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
