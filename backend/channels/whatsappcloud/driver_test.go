package whatsappcloud

import (
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/whatsappcloud/wacloudtest"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

func TestConnectReadsTheNumber(t *testing.T) {
	e := newEnv(t)
	conn, err := e.d.Connect(e.ctx, e.in, false)
	if err != nil {
		t.Fatal(err)
	}
	if conn.Status != domain.InstanceConnected || conn.Address != "+16315550100" {
		t.Fatalf("connection = %+v, want connected as +16315550100 (from %q)", conn, e.fake.DisplayPhoneNumber)
	}
	c := e.fake.LastCall()
	if c.Method != "GET" || c.Path != "/"+DefaultAPIVersion+"/"+e.fake.PhoneNumberID || !c.Authorized ||
		c.Query.Get("fields") != "display_phone_number,verified_name" {
		t.Fatalf("call = %+v", c)
	}
	if len(e.host.Events()) != 0 {
		t.Fatalf("connect emitted %v", e.host.Events())
	}
}

func TestConnectRefusedWithASafeReason(t *testing.T) {
	token := wacloudtest.DefaultAccessToken
	cases := []struct {
		name  string
		setup func(e *env)
		want  string
	}{
		{"bad token", func(e *env) { e.in.Secrets[ConfigAccessToken] = "EAAGsomeOtherToken987654321" },
			"WhatsApp refused the access token (190): Invalid OAuth access token"},
		{"expired token, echoed by the provider", func(e *env) {
			e.fake.FailNext(wacloudtest.Failure{Code: 190,
				Message: "Error validating access token: Session has expired for token " + token})
		}, "WhatsApp refused the access token (190): Error validating access token: Session has expired for token [redacted]"},
		{"unknown phone number id", func(e *env) { e.in.Config[ConfigPhoneNumberID] = "999999999" },
			"WhatsApp does not know phone number ID 999999999"},
		{"not a phone number id", func(e *env) { e.in.Config[ConfigPhoneNumberID] = "+1 631 555 0100" },
			"phone_number_id must be the numeric phone number ID"},
		{"provider down", func(e *env) {
			e.fake.FailNext(wacloudtest.Failure{Status: 503, Code: 2, Message: "Service temporarily unavailable"})
		}, "HTTP 503, code 2: Service temporarily unavailable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tc.setup(e)
			_, err := e.d.Connect(e.ctx, e.in, false)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			for _, secret := range []string{token, e.in.Secrets[ConfigAccessToken], testAppSecret, testVerifyToken} {
				if strings.Contains(err.Error(), secret) {
					t.Fatalf("reason %q holds a secret", err)
				}
			}
		})
	}
}

func TestValidateAddress(t *testing.T) {
	d := New(Options{})
	for addr, ok := range map[string]bool{"+16315551234": true, "+4915123456789": true, "+1234567": true,
		"16315551234": false, "+06315551234": false, "+1 631 555 1234": false, "+123456": false,
		"+1234567890123456": false, "": false} {
		if err := d.ValidateAddress(addr); (err == nil) != ok {
			t.Errorf("ValidateAddress(%q) = %v, want ok=%v", addr, err, ok)
		}
	}
}

func TestCapabilities(t *testing.T) {
	c := New(Options{}).Capabilities()
	for _, typ := range []string{domain.TypeText, domain.TypeVoice, domain.TypeTemplate, domain.TypeReaction} {
		if !c.Supports(typ) {
			t.Errorf("does not support %s", typ)
		}
	}
	if c.Supports(domain.TypePoll) || c.Edit || c.Delete || c.Groups || c.Check || c.Pairing || !c.Reply || !c.MarkRead || !c.Typing || !c.TypingMarksRead {
		t.Errorf("capabilities = %+v", c)
	}
	var _ channels.Driver = New(Options{})
}
