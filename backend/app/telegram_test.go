package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/channels/telegram/telegramtest"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// A Telegram forum through the whole app: a message written in a topic is stored with the
// topic as thread_id; a reply to it goes back into that topic without naming it, and a send
// may name a topic itself. Channels without threads refuse thread_id with 422, a thread_id
// that is no topic number is 400, and nothing is stored for either.
func TestTelegramForumTopicsThroughTheApp(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			tg := telegramtest.New(t, telegramtest.Config{})
			// The app must know its public origin (the webhook Telegram calls) before it starts.
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := app.FromEnv(func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			cfg.DatabaseURL, cfg.MediaStore = storetest.URL(t, store.Dialect(d)), "file://"+t.TempDir()
			cfg.BaseURL, cfg.TelegramAPIURL = "http://"+l.Addr().String(), tg.URL()
			a, err := app.New(context.Background(), cfg, discard())
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewUnstartedServer(a.Handler)
			srv.Listener.Close()
			srv.Listener = l
			srv.Start()
			t.Cleanup(func() { srv.Close(); a.Close() })

			owner := servicetest.NewOwner(t, a.Service)
			_, key := owner.NewKey(t, a.Service, domain.ScopeAll)
			call := func(method, path string, body any, want int) map[string]any {
				t.Helper()
				raw, _ := json.Marshal(body)
				req, _ := http.NewRequest(method, srv.URL+path, bytes.NewReader(raw))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				var out map[string]any
				_ = json.NewDecoder(res.Body).Decode(&out)
				if res.StatusCode != want {
					t.Fatalf("%s %s: %d, want %d: %v", method, path, res.StatusCode, want, out)
				}
				return out
			}

			ctx := context.Background()
			inst, err := a.Messaging.Instances.Create(ctx, owner.Actor, messaging.CreateInstanceInput{Name: "Bot", Channel: "telegram",
				Config: map[string]any{"bot_token": tg.Token()}, Connect: true})
			if err != nil {
				t.Fatal(err)
			}
			waitInstance(t, a, owner, inst.ID, domain.InstanceConnected)
			msgs := "/api/v1/instances/" + inst.ID + "/messages"

			forum := telegramtest.GroupChat(-1001234567890, "Support forum")
			ada := telegramtest.User{ID: 5550001, FirstName: "Ada"}
			if code, err := tg.Deliver(ctx, telegramtest.TopicMessage(forum, ada, 50, 7, "my order is late")); err != nil || code != http.StatusOK {
				t.Fatalf("deliver: %d %v", code, err)
			}
			var inbound domain.Message
			waitMessage(t, a, owner, inst.ID, func(ms []domain.Message) bool {
				if len(ms) == 1 {
					inbound = ms[0]
				}
				return len(ms) == 1
			})
			got := call("GET", msgs+"/"+inbound.ID, nil, http.StatusOK)
			if got["thread_id"] != "7" || got["reply_to"] != nil {
				t.Fatalf("the topic message: thread_id %v, reply_to %v", got["thread_id"], got["reply_to"])
			}

			// A reply stays in the topic of the message it answers.
			reply := call("POST", msgs, map[string]any{"to": "-1001234567890", "text": "On its way", "reply_to": inbound.ID}, http.StatusAccepted)
			if reply["thread_id"] != "7" {
				t.Errorf("reply thread_id %v, want 7", reply["thread_id"])
			}
			waitMessage(t, a, owner, inst.ID, func(ms []domain.Message) bool {
				for _, m := range ms {
					if m.ID == reply["id"] {
						return m.Status == domain.MessageSent
					}
				}
				return false
			})
			if c, _ := tg.LastCall("sendMessage"); c.Params["message_thread_id"] != "7" || c.Params["text"] != "On its way" {
				t.Fatalf("sendMessage %v, want message_thread_id 7", c.Params)
			}
			// A send may name another topic; one without a thread goes to the chat (General).
			call("POST", msgs, map[string]any{"to": "-1001234567890", "text": "Announcement", "thread_id": "9"}, http.StatusAccepted)
			waitMessage(t, a, owner, inst.ID, func(ms []domain.Message) bool {
				c, _ := tg.LastCall("sendMessage")
				return c.Params["text"] == "Announcement" && c.Params["message_thread_id"] == "9"
			})

			// "typing…" in the topic the bot is answering.
			call("POST", "/api/v1/instances/"+inst.ID+"/typing", map[string]any{"to": "-1001234567890", "thread_id": "7"}, http.StatusAccepted)
			if c, _ := tg.LastCall("sendChatAction"); c.Params["message_thread_id"] != "7" || c.Params["action"] != "typing" {
				t.Errorf("sendChatAction %v, want message_thread_id 7", c.Params)
			}

			// A thread's messages, listed by thread_id: the question and its answer in topic 7.
			for thread, want := range map[string]int{"7": 2, "9": 1, "8": 0} {
				if got := call("GET", msgs+"?thread_id="+thread, nil, http.StatusOK)["data"].([]any); len(got) != want {
					t.Errorf("thread_id=%s: %d messages, want %d", thread, len(got), want)
				}
			}
			if e := call("GET", msgs+"?thread_id=seven", nil, http.StatusBadRequest)["error"].(map[string]any); e["param"] != "thread_id" {
				t.Errorf("thread_id=seven: %v", e)
			}

			// Refusals store nothing.
			for _, bad := range []string{"general", "0", "-3", "123456789012345678901"} {
				e := call("POST", msgs, map[string]any{"to": "-1001234567890", "text": "x", "thread_id": bad}, http.StatusBadRequest)["error"].(map[string]any)
				if e["param"] != "thread_id" {
					t.Errorf("thread_id %q: %v", bad, e)
				}
			}
			sb, err := a.Messaging.Instances.Create(ctx, owner.Actor, messaging.CreateInstanceInput{Name: "Sandbox",
				Config: map[string]any{"auto_pair": true}, Connect: true})
			if err != nil {
				t.Fatal(err)
			}
			waitInstance(t, a, owner, sb.ID, domain.InstanceConnected)
			e := call("POST", "/api/v1/instances/"+sb.ID+"/messages", map[string]any{"to": "+15557654321", "text": "x", "thread_id": "7"},
				http.StatusUnprocessableEntity)["error"].(map[string]any)
			if e["code"] != "unsupported_by_channel" {
				t.Errorf("sandbox thread_id: %v", e)
			}
			e = call("POST", "/api/v1/instances/"+sb.ID+"/typing", map[string]any{"to": "+15557654321", "thread_id": "7"},
				http.StatusUnprocessableEntity)["error"].(map[string]any)
			if e["code"] != "unsupported_by_channel" {
				t.Errorf("sandbox typing with thread_id: %v", e)
			}
			if ms := waitMessage(t, a, owner, inst.ID, func([]domain.Message) bool { return true }); len(ms) != 3 {
				t.Errorf("%d messages on the bot, want 3 (nothing stored for the refusals)", len(ms))
			}
			for _, ch := range call("GET", "/api/v1/channels", nil, http.StatusOK)["data"].([]any) {
				ch := ch.(map[string]any)
				if threads := ch["capabilities"].(map[string]any)["threads"]; threads != (ch["name"] == "telegram") {
					t.Errorf("%s: threads %v", ch["name"], threads)
				}
			}
		})
	}
}
