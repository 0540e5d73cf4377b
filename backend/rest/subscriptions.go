package rest

import (
	"net/http"
	"reflect"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
)

// Outbound subscriptions for workflow tools (the REST hooks pattern of Zapier, n8n and
// Make), and the sample event a tool shows while a user builds a workflow.

// subscriptionPath is the {id} of a subscription.
type subscriptionPath struct {
	ID string "json:\"-\" path:\"id\" doc:\"The subscription's id (`sub_…`).\" example:\"sub_01jr8d0c3b5n7q9s1u3w5y7a9c\""
}

// eventTypePath is the {type} of an event type.
type eventTypePath struct {
	Type string "json:\"-\" path:\"type\" doc:\"An event type (`GET /api/v1/event-types` lists them).\" example:\"api_key.created\""
}

// createSubscriptionRequest is the body of POST /automation/subscriptions.
type createSubscriptionRequest struct {
	TargetURL   string   `json:"target_url" required:"true" format:"uri" maxLength:"2048" doc:"Where to send events: an absolute http(s) URL of a public host (the workflow tool's hook URL)." example:"https://hooks.zapier.com/hooks/standard/1234567/abcdef0123456789/"`
	EventTypes  []string "json:\"event_types\" required:\"true\" minItems:\"1\" maxItems:\"100\" example:\"[\\\"message.received\\\"]\" doc:\"Event types to deliver (`GET /api/v1/event-types` lists them), or `*` for every type.\""
	Description string   `json:"description" maxLength:"500" doc:"What the subscription is for (for people reading the list)." example:"Zap: new message"`
}

// subscriptionWithSecret is a subscription with its signing secret: the one response that
// shows it.
type subscriptionWithSecret struct {
	domain.SubscriptionObject
	Secret string `json:"secret" pattern:"^whsec_" doc:"The signing secret (Standard Webhooks). Shown only in this response; verify deliveries with it if your tool can (n8n, Make)." example:"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"`
}

func (a *api) createSubscription(r *http.Request, in createSubscriptionRequest) (subscriptionWithSecret, error) {
	sub, secret, err := a.svc.Subscriptions.Create(r.Context(), actor(r), service.CreateSubscriptionInput{
		TargetURL: in.TargetURL, EventTypes: in.EventTypes, Description: in.Description})
	return subscriptionWithSecret{sub.Object(), secret}, err
}

func (a *api) listSubscriptions(r *http.Request, q listQuery) (list[domain.SubscriptionObject], error) {
	page, err := a.svc.Subscriptions.List(r.Context(), actor(r), q.params())
	return listOf(mapPage(page, domain.Subscription.Object)), err
}

func (a *api) getSubscription(r *http.Request, p subscriptionPath) (domain.SubscriptionObject, error) {
	sub, err := a.svc.Subscriptions.Get(r.Context(), actor(r), p.ID)
	return sub.Object(), err
}

func (a *api) deleteSubscription(r *http.Request, p subscriptionPath) (deleted, error) {
	err := a.svc.Subscriptions.Delete(r.Context(), actor(r), p.ID)
	return deleted{Object: "automation_subscription", ID: p.ID, Deleted: true}, err
}

// getEventSample answers with a list of one event, as Zapier's performList expects.
func (a *api) getEventSample(r *http.Request, p eventTypePath) ([]domain.Event, error) {
	e, err := a.svc.Events.Sample(r.Context(), actor(r), p.Type)
	if err != nil {
		return nil, err
	}
	return []domain.Event{e}, nil
}

func init() {
	for t, n := range subscriptionNotes {
		typeNotes[t] = n
	}
}

var subscriptionNotes = map[reflect.Type]typeNote{
	reflect.TypeFor[domain.SubscriptionObject](): {
		name:    "AutomationSubscription",
		listDoc: "Subscriptions, newest first.",
		fields: map[string]note{
			"object":          {"", `const:"automation_subscription"`},
			"id":              {"The subscription's id (`sub_…`).", `example:"sub_01jr8d0c3b5n7q9s1u3w5y7a9c"`},
			"target_url":      {"Where events are sent.", `example:"https://hooks.zapier.com/hooks/standard/1234567/abcdef0123456789/"`},
			"description":     {"What the subscription is for.", `example:"Zap: new message"`},
			"event_types":     {"The event types delivered; `[\"*\"]` is every type.", `example:"[\"message.received\"]"`},
			"enabled":         {"Whether deliveries are sent (false once the target failed for 5 days).", `example:"true"`},
			"disabled_reason": {doc: "Why the subscription was disabled."},
			"created_at":      {"When the subscription was created.", `example:"2025-04-08T10:20:31.502Z"`},
			"updated_at":      {"When the subscription last changed.", `example:"2025-04-08T10:20:31.502Z"`},
		},
	},
}

// subscriptionRoutes are the outbound-subscription operations of the route table.
func (a *api) subscriptionRoutes() []route {
	return []route{
		{
			method: "POST", path: "/api/v1/automation/subscriptions", operationID: "createAutomationSubscription", serve: callWithBody(a.createSubscription),
			tag: "Automation", scope: "automation:write", status: http.StatusCreated,
			summary: "Subscribe to events (REST hook)",
			returns: "The subscription, with its `id` (unsubscribe with it) and signing secret (shown once).",
			description: "What a workflow tool (Zapier's REST hooks, n8n, Make) calls when a user turns a workflow on: the " +
				"workspace's events of the chosen types (or `*`) are then POSTed to `target_url`, in the envelope " +
				"`GET /api/v1/event-types/{type}/sample` shows, signed per Standard Webhooks with the returned `whsec_…` " +
				"secret, retried like webhook deliveries. A target that answers `410 Gone` is unsubscribed (deleted). " +
				"Targets must be public addresses unless the operator allow-lists them. A workspace has at most 100 " +
				"subscriptions (400 `subscription_limit_reached`), apart from its webhook endpoints.",
			bodyExample: createSubscriptionRequest{TargetURL: "https://hooks.zapier.com/hooks/standard/1234567/abcdef0123456789/",
				EventTypes: []string{"message.received"}, Description: "Zap: new message"},
		},
		{
			method: "GET", path: "/api/v1/automation/subscriptions", operationID: "listAutomationSubscriptions", serve: callWith(a.listSubscriptions),
			tag: "Automation", scope: "automation:read",
			summary:     "List subscriptions",
			returns:     "A page of subscriptions.",
			description: "The workspace's subscriptions, newest first (webhook endpoints are listed at `/webhooks`). Signing secrets are never shown here.",
		},
		{
			method: "GET", path: "/api/v1/automation/subscriptions/{id}", operationID: "getAutomationSubscription", serve: callWith(a.getSubscription),
			tag: "Automation", scope: "automation:read",
			summary:     "Get a subscription",
			returns:     "The subscription.",
			description: "One subscription of the workspace (without its secret).",
		},
		{
			method: "DELETE", path: "/api/v1/automation/subscriptions/{id}", operationID: "deleteAutomationSubscription", serve: callWith(a.deleteSubscription),
			tag: "Automation", scope: "automation:write",
			summary:     "Unsubscribe",
			returns:     "The subscription is deleted.",
			description: "What a workflow tool calls when a user turns a workflow off: the subscription goes with its delivery log, and what was queued for it is not sent.",
		},
		{
			method: "GET", path: "/api/v1/event-types/{type}/sample", operationID: "getEventTypeSample", serve: callWith(a.getEventSample),
			tag:     "Events",
			summary: "Get a sample event",
			returns: "A list of one sample event.",
			description: "An event of this type exactly as webhooks and subscriptions deliver it (the envelope, with the type's " +
				"sample `data`), in the caller's workspace, inside a JSON array: what workflow tools show while a user maps " +
				"fields (Zapier's `performList`). Any valid key may read it. An unknown type is 404.",
		},
	}
}
