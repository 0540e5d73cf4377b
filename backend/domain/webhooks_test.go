package domain

import (
	"encoding/json"
	"testing"
	"time"
)

func TestWebhookJSONShapes(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	w := Webhook{ID: "wh_1", WorkspaceID: "ws_1", URL: "https://example.com/h", EventTypes: []string{"*"}, Enabled: true, CreatedAt: at, UpdatedAt: at}
	got, _ := json.Marshal(w.Object())
	want := `{"object":"webhook","id":"wh_1","url":"https://example.com/h","description":"","event_types":["*"],"instance_id":null,` +
		`"enabled":true,"disabled_reason":null,"created_at":"2026-01-02T03:04:05.006Z","updated_at":"2026-01-02T03:04:05.006Z"}`
	if string(got) != want {
		t.Errorf("webhook\n got %s\nwant %s", got, want)
	}

	d := Delivery{ID: "whd_1", WebhookID: "wh_1", EventID: "evt_1", EventType: "link.clicked", Status: DeliveryPending,
		NextAttemptAt: &at, CreatedAt: at, Attempts: []DeliveryAttempt{
			{AttemptedAt: at, LatencyMS: 15000, Error: "timeout"},
			{AttemptedAt: at, StatusCode: 500, LatencyMS: 12, ResponseBody: "oops", Error: "unexpected status 500"},
			{AttemptedAt: at, StatusCode: 204, LatencyMS: 3},
		}}
	got, _ = json.Marshal(d.Object())
	want = `{"object":"webhook_delivery","id":"whd_1","webhook_id":"wh_1","event_id":"evt_1","event_type":"link.clicked","status":"pending","attempts":[` +
		`{"attempted_at":"2026-01-02T03:04:05.006Z","status_code":null,"latency_ms":15000,"response_body":null,"error":"timeout"},` +
		`{"attempted_at":"2026-01-02T03:04:05.006Z","status_code":500,"latency_ms":12,"response_body":"oops","error":"unexpected status 500"},` +
		`{"attempted_at":"2026-01-02T03:04:05.006Z","status_code":204,"latency_ms":3,"response_body":"","error":null}],` +
		`"next_attempt_at":"2026-01-02T03:04:05.006Z","created_at":"2026-01-02T03:04:05.006Z"}`
	if string(got) != want {
		t.Errorf("delivery\n got %s\nwant %s", got, want)
	}
}

func TestWebhookSubscribed(t *testing.T) {
	inst := "inst_1"
	e := Event{Type: "link.clicked", InstanceID: &inst}
	cases := []struct {
		w    Webhook
		want bool
	}{
		{Webhook{EventTypes: []string{"*"}}, true},
		{Webhook{EventTypes: []string{"link.clicked"}}, true},
		{Webhook{EventTypes: []string{"link.created"}}, false},
		{Webhook{EventTypes: nil}, false},
		{Webhook{EventTypes: []string{"*"}, InstanceID: &inst}, true},
		{Webhook{EventTypes: []string{"*"}, InstanceID: new("inst_2")}, false},
	}
	for i, c := range cases {
		if got := c.w.Subscribed(e); got != c.want {
			t.Errorf("case %d: Subscribed = %v", i, got)
		}
	}
	if (Webhook{EventTypes: []string{"*"}, InstanceID: &inst}).Subscribed(Event{Type: "x"}) {
		t.Error("an instance filter matched an event without an instance")
	}
}
