package rest_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/sandbox"
	"github.com/switchboard-dev/switchboard/backend/channels/telegram"
	"github.com/switchboard-dev/switchboard/backend/channels/telegram/telegramtest"
	"github.com/switchboard-dev/switchboard/backend/channels/whatsappcloud"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// newChannelsEnv is the messaging env with every channel: Telegram against a fake Bot API,
// WhatsApp Cloud against a Graph URL nobody answers.
func newChannelsEnv(t *testing.T, d store.Dialect) (*env, *telegramtest.Server) {
	t.Helper()
	tg := telegramtest.New(t, telegramtest.Config{})
	svc, st := servicetest.New(t, d, service.Config{LastUsedFlush: time.Hour})
	reg := channels.NewRegistry(sandbox.New(), telegram.New(telegram.Options{ServerURL: tg.URL()}),
		whatsappcloud.New(whatsappcloud.Options{GraphURL: "http://127.0.0.1:9"}))
	msg := messaging.New(svc, reg, messaging.Config{CallbackBase: "https://sb.example.com/channels"})
	engine := jobs.New(st, jobs.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	for _, k := range msg.Kinds(messaging.DefaultWorkers) {
		engine.Register(k)
	}
	if err := engine.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(engine.Close)
	return newEnvOn(t, svc, st, newTestClock(), rest.Options{Messaging: msg, Clock: domain.SystemClock{},
		RateLimit: 1e6, Burst: 1e6}), tg
}

// GET /channels describes every channel; instances of channels that call back get a
// callback URL (secrets write-only), rotatable by their workspace only; what a channel
// cannot do is 422 before anything is stored.
func TestChannelsAndCallbackURLs(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e, tg := newChannelsEnv(t, d)
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		_, readOnly := e.owner.NewKey(t, e.svc, domain.ScopeInstancesRead)

		// The catalog: any key reads it.
		list := e.items(t, readOnly, "/api/v1/channels")
		byName := map[string]map[string]any{}
		for _, c := range list {
			byName[c["name"].(string)] = c
		}
		// The document's enum for channel is the catalog's names.
		var enum []string
		for _, v := range e.doc.Components.Schemas["CreateInstanceRequest"].Value.Properties["channel"].Value.Enum {
			enum = append(enum, v.(string))
		}
		var names []string
		for n := range byName {
			names = append(names, n)
		}
		slices.Sort(enum)
		slices.Sort(names)
		if !slices.Equal(enum, names) {
			t.Errorf("the document's channels %v, the catalog's %v", enum, names)
		}
		tgc, wac, sbc := byName["telegram"], byName["whatsapp_cloud"], byName["sandbox"]
		if len(list) != 3 || tgc["calls_back"] != true || wac["calls_back"] != true || sbc["calls_back"] != false {
			t.Fatalf("channels: %v", list)
		}
		if caps := tgc["capabilities"].(map[string]any); len(caps["receipts"].([]any)) != 0 || caps["create_groups"] != false {
			t.Errorf("telegram declares no receipts and no group creation: %v", caps)
		}
		secrets := map[string]bool{}
		for _, f := range wac["config_fields"].([]any) {
			f := f.(map[string]any)
			secrets[f["name"].(string)] = f["secret"].(bool)
		}
		if !secrets["access_token"] || !secrets["app_secret"] || !secrets["verify_token"] || secrets["phone_number_id"] {
			t.Errorf("whatsapp_cloud secret fields: %v", secrets)
		}

		// Required config is named; nothing is created.
		got := e.do("POST", "/api/v1/instances", secret, map[string]any{"name": "Bot", "channel": "telegram"}).
			wantError(t, http.StatusBadRequest, "validation_failed")
		if got["param"] != "config.bot_token" {
			t.Errorf("param %v", got["param"])
		}
		if n := len(e.items(t, secret, "/api/v1/instances")); n != 0 {
			t.Fatalf("a refused create stored %d instances", n)
		}

		bot := e.do("POST", "/api/v1/instances", secret, map[string]any{"name": "Bot", "channel": "telegram",
			"config": map[string]any{"bot_token": tg.Token()}, "connect": true}).want(t, http.StatusCreated).json(t)
		url, _ := bot["callback_url"].(string)
		if !strings.HasPrefix(url, "https://sb.example.com/channels/telegram/") || len(url) < len("https://sb.example.com/channels/telegram/")+40 {
			t.Fatalf("callback_url %q", url)
		}
		if strings.Contains(string(e.do("GET", "/api/v1/instances/"+bot["id"].(string), secret, nil).want(t, http.StatusOK).body), tg.Token()) {
			t.Fatal("the bot token is shown")
		}
		bot = e.waitStatus(t, secret, bot["id"].(string), "connected")
		id := bot["id"].(string)

		// A bot cannot create groups, mark read or send templates: 422, nothing queued.
		e.do("POST", "/api/v1/instances/"+id+"/groups", secret, map[string]any{"subject": "G", "participants": []string{"123"}}).
			wantError(t, http.StatusUnprocessableEntity, "unsupported_by_channel")
		e.do("POST", "/api/v1/instances/"+id+"/messages", secret, map[string]any{"to": "123", "type": "template",
			"template": map[string]any{"name": "order_shipped", "language": "en"}}).
			wantError(t, http.StatusUnprocessableEntity, "unsupported_by_channel")
		if n := len(e.items(t, secret, "/api/v1/instances/"+id+"/messages")); n != 0 {
			t.Fatalf("refused sends stored %d messages", n)
		}

		// Rotation: a new URL; a read-only key may not; another workspace sees nothing; the
		// sandbox has no URL to rotate.
		e.do("POST", "/api/v1/instances/"+id+"/rotate-callback-token", readOnly, nil).wantError(t, http.StatusForbidden, "insufficient_scope")
		other := servicetest.NewOwner(t, e.svc)
		_, theirs := other.NewKey(t, e.svc, domain.ScopeAll)
		e.do("POST", "/api/v1/instances/"+id+"/rotate-callback-token", theirs, nil).wantError(t, http.StatusNotFound, "not_found")
		rotated := e.do("POST", "/api/v1/instances/"+id+"/rotate-callback-token", secret, nil).want(t, http.StatusOK).json(t)
		if rotated["callback_url"] == url || rotated["callback_url"] == nil {
			t.Fatalf("rotated: %v", rotated["callback_url"])
		}
		// Events (read with events:read, kept for weeks, sent to every webhook) carry the URL
		// with "{token}" in place of the token.
		seen := 0
		for _, ev := range e.items(t, secret, "/api/v1/events?type=instance.created,instance.updated,instance.status_changed&limit=100") {
			raw, _ := json.Marshal(ev)
			if !strings.Contains(string(raw), id) {
				continue
			}
			seen++
			for _, u := range []string{url, rotated["callback_url"].(string)} {
				if strings.Contains(string(raw), u[strings.LastIndexByte(u, '/')+1:]) {
					t.Fatalf("%s event holds the callback token: %s", ev["type"], raw)
				}
			}
			data, _ := ev["data"].(map[string]any)
			if inst, ok := data["instance"].(map[string]any); ok {
				data = inst // instance.status_changed
			}
			if data["callback_url"] != "https://sb.example.com/channels/telegram/{token}" {
				t.Fatalf("%s event's callback_url %v", ev["type"], data["callback_url"])
			}
		}
		if seen < 3 { // created, its status changes, the rotation's
			t.Fatalf("%d events of the bot", seen)
		}
		sb := e.do("POST", "/api/v1/instances", secret, map[string]any{"name": "S"}).want(t, http.StatusCreated).json(t)
		if sb["callback_url"] != nil {
			t.Errorf("sandbox callback_url %v", sb["callback_url"])
		}
		e.do("POST", "/api/v1/instances/"+sb["id"].(string)+"/rotate-callback-token", secret, nil).
			wantError(t, http.StatusUnprocessableEntity, "unsupported_by_channel")

		// WhatsApp Cloud that cannot reach its provider fails with a reason.
		wa := e.do("POST", "/api/v1/instances", secret, map[string]any{"name": "WA", "channel": "whatsapp_cloud", "connect": true,
			"config": map[string]any{"phone_number_id": "106540352242922", "access_token": "EAAG-secret-token",
				"app_secret": "app-secret-value", "verify_token": "verify-me"}}).want(t, http.StatusCreated).json(t)
		failed := e.waitStatus(t, secret, wa["id"].(string), "failed")
		reason, _ := failed["status_reason"].(string)
		if reason == "" || strings.Contains(reason, "EAAG-secret-token") {
			t.Fatalf("status_reason %q", reason)
		}
		cfg := failed["config"].(map[string]any)
		if cfg["access_token"] != "********" || cfg["app_secret"] != "********" || cfg["phone_number_id"] != "106540352242922" {
			t.Fatalf("config %v", cfg)
		}
	})
}
