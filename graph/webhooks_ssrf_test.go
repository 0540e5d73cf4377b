package graph_test

import (
	"testing"

	"github.com/switchboard-dev/switchboard/graph"
)

// createWebhook refuses every spelling of an internal address as it refuses 127.0.0.1
// (INVALID on the url field, as REST answers 400 with param url), and stores nothing.
func TestCreateWebhookRefusesLoopbackSpellings(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		s := withSession(token)
		for _, u := range []string{
			"http://2130706433/", "http://127.1/", "http://0/", "http://0x7f000001/", "http://0x7f.0.0.1/",
			"http://0177.0.0.1/", "http://017700000001/", "http://[::ffff:127.0.0.1]/", "http://[::1]/",
			"http://1.2.3.4.5/",
		} {
			resp, r := h.post(t, `mutation($in: CreateWebhookInput!) { createWebhook(input: $in) { secret } }`,
				map[string]any{"in": map[string]any{"url": u, "eventTypes": []string{"*"}}}, s)
			if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "url" {
				t.Errorf("createWebhook %s: status %d, %+v", u, resp.StatusCode, r.Errors)
			}
		}
		_, r := h.post(t, `{ webhooks { id url } }`, nil, s)
		var list struct{ Webhooks []webhook }
		r.decode(t, &list)
		if len(list.Webhooks) != 0 {
			t.Fatalf("refused registrations were stored: %+v", list.Webhooks)
		}
	})
}
