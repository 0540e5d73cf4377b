package rest_test

import (
	"net/http"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// loopbackSpellings are URLs whose host a browser, curl or the C resolver reads as a
// loopback (or otherwise internal) address, and hosts that end in a number without being
// an IPv4 address.
var loopbackSpellings = []string{
	"http://2130706433/",
	"http://127.1/",
	"http://0/",
	"http://0x7f000001/",
	"http://0x7f.0.0.1/",
	"http://0177.0.0.1/",
	"http://017700000001/",
	"http://127.0.0.1./",
	"http://[::ffff:127.0.0.1]/",
	"http://[::1]/",
	"http://[fe80::1%25eth0]/",
	"http://0xa9fea9fe/latest/meta-data/", // 169.254.169.254
	"http://1.2.3.4.5/",
}

// Registration refuses every spelling of an internal address, as it refuses 127.0.0.1,
// and stores nothing.
func TestWebhookRegistrationRefusesLoopbackSpellings(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeWebhooksRead, domain.ScopeWebhooksWrite)

		for _, u := range loopbackSpellings {
			body := map[string]any{"url": u, "event_types": []string{"*"}}
			got := e.do("POST", "/api/v1/webhooks", secret, body).wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != "url" {
				t.Errorf("POST %s: param %v (%v)", u, got["param"], got["message"])
			}
		}
		list := e.do("GET", "/api/v1/webhooks", secret, nil).want(t, http.StatusOK).json(t)
		if data := list["data"].([]any); len(data) != 0 {
			t.Fatalf("refused registrations were stored: %v", data)
		}

		// Changing a registered endpoint's URL is checked the same way, and changes nothing.
		created := e.do("POST", "/api/v1/webhooks", secret, newHook).want(t, http.StatusCreated).json(t)
		id := created["id"].(string)
		for _, u := range loopbackSpellings {
			got := e.do("PATCH", "/api/v1/webhooks/"+id, secret, map[string]any{"url": u}).
				wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != "url" {
				t.Errorf("PATCH %s: param %v (%v)", u, got["param"], got["message"])
			}
		}
		if got := e.do("GET", "/api/v1/webhooks/"+id, secret, nil).want(t, http.StatusOK).json(t); got["url"] != newHook["url"] {
			t.Fatalf("url changed to %v", got["url"])
		}
	})
}
