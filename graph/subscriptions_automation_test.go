package graph_test

import (
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/graph"
)

const automationSubscriptionFields = `id targetUrl description eventTypes enabled disabledReason createdAt updatedAt`

type automationSubscription struct {
	ID, TargetURL, Description, CreatedAt, UpdatedAt string
	EventTypes                                       []string
	DisabledReason                                   *string
	Enabled                                          bool
}

// Subscribe, list, read and unsubscribe, with the REST rules: a key needs the automation
// scopes, bad input names the camelCase field and stores nothing, other workspaces' and
// webhook endpoints' ids are not found.
func TestAutomationSubscriptions(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		s := withSession(token)
		create := `mutation($in: CreateAutomationSubscriptionInput!) { createAutomationSubscription(input: $in) {
			secret subscription { ` + automationSubscriptionFields + ` } } }`
		input := map[string]any{"in": map[string]any{"targetUrl": "https://hooks.zapier.com/hooks/standard/1/abc/",
			"eventTypes": []string{"api_key.created"}, "description": "Zap"}}

		resp, r := h.post(t, create, input, s)
		var created struct {
			CreateAutomationSubscription struct {
				Secret       string
				Subscription automationSubscription
			}
		}
		r.decode(t, &created)
		sub, secret := created.CreateAutomationSubscription.Subscription, created.CreateAutomationSubscription.Secret
		if !strings.HasPrefix(sub.ID, "sub_") || !strings.HasPrefix(secret, "whsec_") || !sub.Enabled ||
			sub.TargetURL != "https://hooks.zapier.com/hooks/standard/1/abc/" || sub.Description != "Zap" ||
			strings.Join(sub.EventTypes, ",") != "api_key.created" || sub.DisabledReason != nil {
			t.Fatalf("created %+v, secret %q", sub, secret)
		}
		if strings.Count(body(resp), secret) != 1 {
			t.Fatal("the secret should appear exactly once in the creation response")
		}

		resp, r = h.post(t, `{ automationSubscriptions { `+automationSubscriptionFields+` } webhooks { id } }`, nil, s)
		var list struct {
			AutomationSubscriptions []automationSubscription
			Webhooks                []struct{ ID string }
		}
		r.decode(t, &list)
		if len(list.AutomationSubscriptions) != 1 || list.AutomationSubscriptions[0].ID != sub.ID ||
			len(list.Webhooks) != 0 || strings.Contains(body(resp), "whsec_") {
			t.Fatalf("lists = %s", body(resp))
		}
		_, r = h.post(t, `query($id: ID!) { automationSubscription(id: $id) { id targetUrl } webhook(id: $id) { id } }`,
			map[string]any{"id": sub.ID}, s)
		if r.code(t) != "NOT_FOUND" || !strings.Contains(string(r.Data), sub.TargetURL) {
			t.Fatalf("the subscription is found, and not as a webhook: %s %+v", r.Data, r.Errors)
		}

		// Bad input: INVALID naming the field, nothing stored.
		for field, in := range map[string]map[string]any{
			"targetUrl":  {"targetUrl": "http://127.0.0.1/", "eventTypes": []string{"*"}},
			"eventTypes": {"targetUrl": "https://hooks.example.com/", "eventTypes": []string{"no.such"}},
		} {
			_, r = h.post(t, create, map[string]any{"in": in}, s)
			if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != field {
				t.Errorf("%s: %+v", field, r.Errors)
			}
		}

		// Scopes: a key needs automation:read to list and automation:write to change.
		_, webhooksKey := h.createKey(t, token, "webhooks:read", "webhooks:write")
		_, r = h.post(t, `{ automationSubscriptions { id } }`, nil, withKey(webhooksKey))
		if r.code(t) != "FORBIDDEN" {
			t.Errorf("list without automation:read: %+v", r.Errors)
		}
		_, r = h.post(t, create, input, withKey(webhooksKey))
		if r.code(t) != "FORBIDDEN" {
			t.Errorf("create without automation:write: %+v", r.Errors)
		}
		_, readKey := h.createKey(t, token, "automation:read")
		_, r = h.post(t, `mutation($id: ID!) { deleteAutomationSubscription(id: $id) }`, map[string]any{"id": sub.ID}, withKey(readKey))
		if r.code(t) != "FORBIDDEN" {
			t.Errorf("delete without automation:write: %+v", r.Errors)
		}

		// Another workspace sees nothing and deletes nothing.
		otherToken, _ := h.owner(t)
		_, r = h.post(t, `mutation($id: ID!) { deleteAutomationSubscription(id: $id) }`, map[string]any{"id": sub.ID}, withSession(otherToken))
		if r.code(t) != "NOT_FOUND" {
			t.Errorf("another workspace's delete: %+v", r.Errors)
		}

		_, r = h.post(t, `mutation($id: ID!) { deleteAutomationSubscription(id: $id) }`, map[string]any{"id": sub.ID}, s)
		var del struct{ DeleteAutomationSubscription bool }
		r.decode(t, &del)
		if !del.DeleteAutomationSubscription {
			t.Fatal("not deleted")
		}
		_, r = h.post(t, `{ automationSubscriptions { id } }`, nil, s)
		var after struct{ AutomationSubscriptions []automationSubscription }
		r.decode(t, &after)
		if len(after.AutomationSubscriptions) != 0 {
			t.Fatalf("after delete: %+v", after)
		}
	})
}
