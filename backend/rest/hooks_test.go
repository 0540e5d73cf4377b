package rest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/webhook"
)

// A Standard Webhooks call that does not verify says why, so that whoever wires a tool up
// can fix it: headers missing, a timestamp too far from now (the clock, or a retry that was
// not signed anew), or no signature matching. The code stays invalid_signature; no message
// names the secret.
func TestHooksSignatureRefusalsSayWhy(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, key := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	ep := e.do("POST", "/api/v1/automation/endpoints", key, map[string]any{"name": "Signed", "verification": "standard_webhooks"}).
		want(t, 201).json(t)
	secret := ep["secret"].(string)
	body := []byte(`{"event":"order.paid"}`)
	signed := func(k string, at time.Time) []string {
		sig, err := webhook.Sign([]string{k}, "msg_abc", at, body)
		if err != nil {
			t.Fatal(err)
		}
		return []string{"webhook-id", "msg_abc", "webhook-timestamp", itoa(at.Unix()), "webhook-signature", sig}
	}
	for what, c := range map[string]struct {
		headers []string
		says    string
	}{
		"unsigned":      {nil, "missing webhook-id, webhook-timestamp or webhook-signature"},
		"an hour early": {signed(secret, e.clock.Now().Add(-time.Hour)), "webhook-timestamp is 1h0m0s from now; at most 5m0s"},
		"another key":   {signed("whsec_"+strings.Repeat("A", 32), e.clock.Now()), "no v1 signature"},
	} {
		status, out, _ := e.publish(t, ep["url"].(string), "application/json", body, c.headers...)
		msg, _ := out["error"].(map[string]any)["message"].(string)
		if status != 401 || errCode(out) != "invalid_signature" || !strings.Contains(msg, c.says) {
			t.Errorf("%s: %d %v, want 401 invalid_signature saying %q", what, status, out, c.says)
		}
		if strings.Contains(msg, strings.TrimPrefix(secret, "whsec_")) {
			t.Errorf("%s: the message names the secret: %s", what, msg)
		}
	}
}
