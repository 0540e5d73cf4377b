package graph_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/graph"
)

const webhookFields = `id url description eventTypes instanceId enabled disabledReason createdAt updatedAt`

type webhook struct {
	ID, URL, Description, CreatedAt, UpdatedAt string
	EventTypes                                 []string
	InstanceID, DisabledReason                 *string
	Enabled                                    bool
}

type delivery struct {
	ID, WebhookID, EventID, EventType, Status, CreatedAt string
	NextAttemptAt                                        *string
	Attempts                                             []map[string]any
}

const deliveryFields = `id webhookId eventId eventType status nextAttemptAt createdAt
	attempts { attemptedAt statusCode latencyMs responseBody error }`

func (h *harness) createWebhook(t *testing.T, opts ...option) (webhook, string) {
	t.Helper()
	resp, r := h.post(t, `mutation($in: CreateWebhookInput!) { createWebhook(input: $in) { secret webhook { `+webhookFields+` } } }`,
		map[string]any{"in": map[string]any{"url": "https://hooks.example.com/switchboard", "description": "orders",
			"eventTypes": []string{"api_key.created"}}}, opts...)
	var data struct {
		CreateWebhook struct {
			Secret  string
			Webhook webhook
		}
	}
	r.decode(t, &data)
	if strings.Count(body(resp), data.CreateWebhook.Secret) != 1 {
		t.Fatal("the secret should appear exactly once in the creation response")
	}
	return data.CreateWebhook.Webhook, data.CreateWebhook.Secret
}

func TestWebhookLifecycle(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		s := withSession(token)

		hook, secret := h.createWebhook(t, s)
		if !strings.HasPrefix(secret, "whsec_") || !strings.HasPrefix(hook.ID, "wh_") || !hook.Enabled ||
			hook.Description != "orders" || strings.Join(hook.EventTypes, ",") != "api_key.created" ||
			hook.InstanceID != nil || hook.DisabledReason != nil {
			t.Fatalf("created %+v, secret %q", hook, secret)
		}

		// Listed and read back, never with a secret.
		resp, r := h.post(t, `{ webhooks { `+webhookFields+` } }`, nil, s)
		var list struct{ Webhooks []webhook }
		r.decode(t, &list)
		if len(list.Webhooks) != 1 || list.Webhooks[0].ID != hook.ID || strings.Contains(body(resp), "whsec_") {
			t.Fatalf("webhooks = %s", body(resp))
		}
		_, r = h.post(t, `query($id: ID!) { webhook(id: $id) { id url } }`, map[string]any{"id": hook.ID}, s)
		var one struct{ Webhook webhook }
		r.decode(t, &one)
		if one.Webhook.URL != hook.URL {
			t.Fatalf("webhook = %+v", one.Webhook)
		}

		// Only the given fields change.
		_, r = h.post(t, `mutation($id: ID!, $in: UpdateWebhookInput!) { updateWebhook(id: $id, input: $in) { `+webhookFields+` } }`,
			map[string]any{"id": hook.ID, "in": map[string]any{"description": "all events", "eventTypes": []string{"*"}}}, s)
		var upd struct{ UpdateWebhook webhook }
		r.decode(t, &upd)
		if upd.UpdateWebhook.Description != "all events" || strings.Join(upd.UpdateWebhook.EventTypes, ",") != "*" ||
			upd.UpdateWebhook.URL != hook.URL || !upd.UpdateWebhook.Enabled {
			t.Fatalf("updated %+v", upd.UpdateWebhook)
		}

		// Rotation: a new secret, the old one signing for 24 more hours.
		_, r = h.post(t, `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret previousSecretExpiresAt webhook { id } } }`,
			map[string]any{"id": hook.ID}, s)
		var rot struct {
			RotateWebhookSecret struct {
				Secret                  string
				PreviousSecretExpiresAt time.Time
			}
		}
		r.decode(t, &rot)
		if until := time.Until(rot.RotateWebhookSecret.PreviousSecretExpiresAt); rot.RotateWebhookSecret.Secret == secret ||
			!strings.HasPrefix(rot.RotateWebhookSecret.Secret, "whsec_") || until < 23*time.Hour || until > 25*time.Hour {
			t.Fatalf("rotation = %+v", rot.RotateWebhookSecret)
		}

		// A test delivery is queued and listed.
		_, r = h.post(t, `mutation($id: ID!) { testWebhook(id: $id) { `+deliveryFields+` } }`, map[string]any{"id": hook.ID}, s)
		var test struct{ TestWebhook delivery }
		r.decode(t, &test)
		d := test.TestWebhook
		if !strings.HasPrefix(d.ID, "whd_") || d.WebhookID != hook.ID || d.EventType != "webhook.test" || d.Status != "pending" {
			t.Fatalf("test delivery = %+v", d)
		}
		_, r = h.post(t, `mutation($id: ID!) { testWebhook(id: $id, eventType: "no.such.type") { id } }`, map[string]any{"id": hook.ID}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "eventType" {
			t.Fatalf("test with an unknown type: %+v", r.Errors)
		}
		_, r = h.post(t, `query($id: ID!) { webhookDeliveries(webhookId: $id, first: 10) { nodes { `+deliveryFields+` } hasMore nextCursor } }`,
			map[string]any{"id": hook.ID}, s)
		var dl struct {
			WebhookDeliveries struct {
				Nodes   []delivery
				HasMore bool
			}
		}
		r.decode(t, &dl)
		// Newest first: the test delivery, then those of the endpoint's own events since it
		// subscribed to "*" (webhook.updated, webhook.secret_rotated).
		if len(dl.WebhookDeliveries.Nodes) != 3 || dl.WebhookDeliveries.Nodes[0].ID != d.ID || dl.WebhookDeliveries.HasMore ||
			dl.WebhookDeliveries.Nodes[1].EventType != "webhook.secret_rotated" {
			t.Fatalf("deliveries = %+v", dl.WebhookDeliveries)
		}
		_, r = h.post(t, `mutation($w: ID!, $d: ID!) { retryWebhookDelivery(webhookId: $w, deliveryId: $d) { id status } }`,
			map[string]any{"w": hook.ID, "d": d.ID}, s)
		var retry struct{ RetryWebhookDelivery delivery }
		r.decode(t, &retry)
		if retry.RetryWebhookDelivery.ID != d.ID {
			t.Fatalf("retry = %+v", retry.RetryWebhookDelivery)
		}

		// Recover: disabling fails the pending deliveries; enabled again, one call sends each
		// failed one again; a since in the future names its field.
		for _, enabled := range []bool{false, true} {
			_, r = h.post(t, `mutation($id: ID!, $in: UpdateWebhookInput!) { updateWebhook(id: $id, input: $in) { id } }`,
				map[string]any{"id": hook.ID, "in": map[string]any{"enabled": enabled}}, s)
			r.decode(t, &struct{}{})
		}
		recoverOp := `mutation($id: ID!, $since: Time!) { recoverWebhookDeliveries(webhookId: $id, since: $since) { webhookId queued hasMore } }`
		_, r = h.post(t, recoverOp, map[string]any{"id": hook.ID, "since": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}, s)
		var rec struct {
			RecoverWebhookDeliveries struct {
				WebhookID string
				Queued    int
				HasMore   bool
			}
		}
		r.decode(t, &rec)
		if rec.RecoverWebhookDeliveries.WebhookID != hook.ID || rec.RecoverWebhookDeliveries.Queued != 3 || rec.RecoverWebhookDeliveries.HasMore {
			t.Fatalf("recover = %+v", rec.RecoverWebhookDeliveries)
		}
		_, r = h.post(t, recoverOp, map[string]any{"id": hook.ID, "since": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "since" {
			t.Fatalf("recover from the future: %+v", r.Errors)
		}

		// Deleted: gone.
		_, r = h.post(t, `mutation($id: ID!) { deleteWebhook(id: $id) }`, map[string]any{"id": hook.ID}, s)
		var del struct{ DeleteWebhook bool }
		r.decode(t, &del)
		if !del.DeleteWebhook {
			t.Fatal("deleteWebhook returned false")
		}
		_, r = h.post(t, `query($id: ID!) { webhook(id: $id) { id } }`, map[string]any{"id": hook.ID}, s)
		if r.code(t) != "NOT_FOUND" {
			t.Fatalf("deleted webhook: %+v", r.Errors)
		}
	})
}

func TestWebhookRules(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		tokenA, _ := h.owner(t)
		tokenB, _ := h.owner(t)
		hook, _ := h.createWebhook(t, withSession(tokenA))

		// Bad input names the field; nothing is stored.
		for _, in := range []map[string]any{
			{"url": "ftp://example.com", "eventTypes": []string{"*"}},
			{"url": "http://127.0.0.1:8080/hook", "eventTypes": []string{"*"}},
		} {
			_, r := h.post(t, `mutation($in: CreateWebhookInput!) { createWebhook(input: $in) { secret } }`, map[string]any{"in": in}, withSession(tokenA))
			if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "url" {
				t.Errorf("create %v: %+v", in, r.Errors)
			}
		}

		// null is refused for what an endpoint cannot be without, and removes the description.
		update := `mutation($id: ID!, $in: UpdateWebhookInput!) { updateWebhook(id: $id, input: $in) { ` + webhookFields + ` } }`
		for _, field := range []string{"url", "eventTypes", "enabled"} {
			_, r := h.post(t, update, map[string]any{"id": hook.ID, "in": map[string]any{field: nil, "description": "changed"}}, withSession(tokenA))
			if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != field {
				t.Errorf("%s null: %+v", field, r.Errors)
			}
		}
		_, r0 := h.post(t, update, map[string]any{"id": hook.ID, "in": map[string]any{"description": nil}}, withSession(tokenA))
		var cleared struct{ UpdateWebhook webhook }
		r0.decode(t, &cleared)
		if cleared.UpdateWebhook.Description != "" || cleared.UpdateWebhook.URL != hook.URL || !cleared.UpdateWebhook.Enabled {
			t.Errorf("description null: %+v", cleared.UpdateWebhook)
		}

		// The NUL character is refused in variables and in literals alike (PostgreSQL cannot
		// store it), and nothing is created.
		create := `mutation($in: CreateWebhookInput!) { createWebhook(input: $in) { secret } }`
		_, r1 := h.post(t, create, map[string]any{"in": map[string]any{"url": "https://example.com/h", "eventTypes": []string{"*"},
			"description": "a\x00b"}}, withSession(tokenA))
		_, r2 := h.post(t, `mutation { createWebhook(input: {url: "https://example.com/h", eventTypes: ["*"], description: "a\\u0000b"}) { secret } }`,
			nil, withSession(tokenA))
		for _, r := range []gqlResponse{r1, r2} {
			if r.code(t) != "INVALID" {
				t.Errorf("NUL in a description: %+v", r.Errors)
			}
		}

		// Another workspace's endpoint does not exist for B.
		for _, q := range []string{
			`query($id: ID!) { webhook(id: $id) { id } }`,
			`mutation($id: ID!) { deleteWebhook(id: $id) }`,
			`mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }`,
			`query($id: ID!) { webhookDeliveries(webhookId: $id) { hasMore } }`,
		} {
			if _, r := h.post(t, q, map[string]any{"id": hook.ID}, withSession(tokenB)); r.code(t) != "NOT_FOUND" {
				t.Errorf("%s from another workspace: %+v", q, r.Errors)
			}
		}
		_, r := h.post(t, `{ webhooks { id } }`, nil, withSession(tokenB))
		var list struct{ Webhooks []webhook }
		r.decode(t, &list)
		if len(list.Webhooks) != 0 {
			t.Fatalf("B sees %+v", list.Webhooks)
		}

		// Keys need the webhook scopes.
		_, readKey := h.createKey(t, tokenA, "webhooks:read")
		_, r = h.post(t, `{ webhooks { id } }`, nil, withKey(readKey))
		r.decode(t, &list)
		if len(list.Webhooks) != 1 {
			t.Fatalf("key with webhooks:read sees %+v", list.Webhooks)
		}
		_, r = h.post(t, `mutation($id: ID!) { deleteWebhook(id: $id) }`, map[string]any{"id": hook.ID}, withKey(readKey))
		if r.code(t) != "FORBIDDEN" || r.Errors[0].Extensions["reason"] != "insufficient_scope" {
			t.Fatalf("delete with webhooks:read only: %+v", r.Errors)
		}
		_, otherKey := h.createKey(t, tokenA, "events:read")
		if _, r := h.post(t, `{ webhooks { id } }`, nil, withKey(otherKey)); r.code(t) != "FORBIDDEN" {
			t.Fatalf("list without webhooks:read: %+v", r.Errors)
		}
	})
}
