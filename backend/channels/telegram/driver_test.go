package telegram

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/telegram/telegramtest"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

func TestValidateAddress(t *testing.T) {
	d := New(Options{})
	for addr, ok := range map[string]bool{
		"123456789": true, "-1001234567890": true, "-42": true, "@my_channel": true,
		"": false, "0": false, "abc": false, "+15551234567": false, "@ab": false, "12 34": false,
		"-": false, "99999999999999999999999": false, "@1channel": false,
	} {
		if err := d.ValidateAddress(addr); (err == nil) != ok {
			t.Errorf("ValidateAddress(%q) = %v, want ok=%v", addr, err, ok)
		}
	}
}

func TestCapabilities(t *testing.T) {
	c := New(Options{}).Capabilities()
	if len(c.Receipts) != 0 || c.MarkRead || c.CreateGroups || c.Check || c.Pairing || c.Simulated {
		t.Errorf("capabilities claim more than Telegram offers bots: %+v", c)
	}
	if !c.Reply || !c.Edit || !c.Delete || !c.Typing || !c.Groups {
		t.Errorf("capabilities miss what the driver does: %+v", c)
	}
	for _, typ := range []string{domain.TypeText, domain.TypeImage, domain.TypeVideo, domain.TypeAudio, domain.TypeVoice,
		domain.TypeDocument, domain.TypeSticker, domain.TypeLocation, domain.TypeContact, domain.TypePoll, domain.TypeReaction} {
		if !c.Supports(typ) {
			t.Errorf("type %s not supported", typ)
		}
	}
	if c.Supports(domain.TypeTemplate) {
		t.Error("templates are WhatsApp's")
	}
	f := New(Options{}).ConfigFields()
	if len(f) != 1 || f[0].Name != "bot_token" || !f[0].Secret || !f[0].Required || !strings.Contains(f[0].Description, "@BotFather") {
		t.Errorf("config fields = %+v", f)
	}
}

func TestConnectSetsWebhook(t *testing.T) {
	e := newEnv(t, telegramtest.Config{})
	conn, err := e.d.Connect(context.Background(), e.in, false)
	if err != nil {
		t.Fatal(err)
	}
	if conn.Status != domain.InstanceConnected || conn.Address != "@"+telegramtest.DefaultUsername {
		t.Errorf("connection = %+v", conn)
	}
	wh, ok := e.tg.Webhook()
	if !ok || wh.URL != e.in.CallbackURL || wh.SecretToken != testSecret {
		t.Fatalf("webhook = %+v (set %v), want %s with the instance's secret", wh, ok, e.in.CallbackURL)
	}
	for _, kind := range []string{"message", "edited_message", "message_reaction", "my_chat_member", "chat_member"} {
		if !slices.Contains(wh.AllowedUpdates, kind) {
			t.Errorf("allowed_updates %v lacks %s", wh.AllowedUpdates, kind)
		}
	}
	if got := methods(e.tg.Calls()); !slices.Equal(got, []string{"getMe", "setWebhook"}) {
		t.Errorf("calls = %v", got)
	}

	if err := e.d.Disconnect(context.Background(), e.in); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.tg.Webhook(); ok {
		t.Error("disconnect left the webhook set")
	}
	e.lastCall(t, "deleteWebhook")
}

func TestConnectRefusedToken(t *testing.T) {
	e := newEnv(t, telegramtest.Config{})
	for name, tok := range map[string]string{
		"wrong token":     "987654321:AAE-someOtherBotsTokenXXXXXXXXXXXXXX",
		"malformed token": "hello world",
		"no token":        "",
	} {
		t.Run(name, func(t *testing.T) {
			in := e.in
			in.Secrets = map[string]string{ConfigToken: tok}
			_, err := e.d.Connect(context.Background(), in, false)
			if err == nil {
				t.Fatal("connected with a bad token")
			}
			if !strings.Contains(err.Error(), "@BotFather") {
				t.Errorf("reason %q does not say where to get a token", err)
			}
			if tok != "" && strings.Contains(err.Error(), tok) {
				t.Errorf("reason shows the token: %q", err)
			}
			if strings.Contains(tok, ":") {
				noToken(t, err, tok)
			}
		})
	}
	_, err := e.d.Connect(context.Background(), channels.Instance{ID: "x", CallbackURL: e.in.CallbackURL,
		CallbackSecret: testSecret, Secrets: map[string]string{ConfigToken: "987654321:AAE-someOtherBotsTokenXXXXXXXXXXXXXX"}}, false)
	if err == nil || !strings.Contains(err.Error(), "401 Unauthorized") {
		t.Errorf("wrong token: reason %v, want Telegram's 401", err)
	}
	if _, ok := e.tg.Webhook(); ok {
		t.Error("a webhook was set with a refused token")
	}
}

func TestConnectWebhookRefused(t *testing.T) {
	e := newEnv(t, telegramtest.Config{RequireHTTPS: true})
	_, err := e.d.Connect(context.Background(), e.in, false)
	if err == nil || !strings.Contains(err.Error(), "An HTTPS URL must be provided for webhook") {
		t.Fatalf("err = %v, want Telegram's refusal of a plain-HTTP webhook", err)
	}
	noToken(t, err, e.tg.Token())
}

func TestDisconnectWithRevokedTokenSucceeds(t *testing.T) {
	e := connected(t)
	e.tg.Revoke()
	if err := e.d.Disconnect(context.Background(), e.in); err != nil {
		t.Errorf("disconnect = %v: a revoked token has no webhook left to remove", err)
	}
}

func TestProviderIDs(t *testing.T) {
	if got := providerID(-1001234567890, 42); got != "-1001234567890:42" {
		t.Errorf("providerID = %s", got)
	}
	chat, msg, err := splitProviderID("-1001234567890:42")
	if err != nil || chat != -1001234567890 || msg != 42 {
		t.Errorf("split = %d %d %v", chat, msg, err)
	}
	for _, bad := range []string{"", "42", "a:1", "1:b", "1:0", "msg_01H"} {
		if _, _, err := splitProviderID(bad); err == nil {
			t.Errorf("split(%q) accepted", bad)
		}
	}
}

func jsonParam(t *testing.T, c telegramtest.Call, name string, v any) {
	t.Helper()
	if err := c.JSON(name, v); err != nil {
		t.Fatalf("%s %s: %v (%q)", c.Method, name, err, c.Params[name])
	}
}
