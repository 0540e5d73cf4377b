package rest

import (
	"encoding/json"
	"reflect"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// The automation surface's public objects, annotated for the document like those of
// schema_objects.go, with examples made by the domain's Object methods.

var (
	exampleEndpoint = domain.Publisher{ID: "pub_01jr8d0c3b5n7q9s1u3w5y7a9c", Name: "New orders",
		Token: "q3VbU1ZxN2w0Zk9hY2p4dFJ6bUtzVw", Verification: domain.VerifyStandardWebhooks, Enabled: true,
		Action: &domain.Action{Type: domain.ActionSendMessage, InstanceID: exampleInstanceID, To: "{{payload.customer.phone}}",
			Text: "Thanks for your order {{payload.order_id}}!"},
		CreatedAt: exampleTime, UpdatedAt: exampleTime}.Object("https://sb.example.com/hooks")
	exampleCall = domain.Published{ID: "evt_01jr8d0c3b5n7q9s1u3w5y7a9c", EndpointID: exampleEndpoint.ID,
		Payload: json.RawMessage(`{"order_id":"A-1001","customer":{"phone":"+15550100002"}}`), ReceivedAt: exampleTime}.Object()
	exampleRun = domain.Run{ID: "run_01jr8d0c3b5n7q9s1u3w5y7a9c", EndpointID: exampleEndpoint.ID, CallID: exampleCall.ID,
		ActionType: domain.ActionSendMessage, Status: domain.RunSucceeded,
		Input:    json.RawMessage(`{"instance_id":"inst_01jr8d0c3b5n7q9s1u3w5y7a9c","to":"+15550100002","text":"Thanks for your order A-1001!","media_url":""}`),
		Output:   json.RawMessage(`{"message_id":"msg_01jr8d0c3b5n7q9s1u3w5y7a9c","status":"queued"}`),
		Attempts: 1, DurationMS: 12, CreatedAt: exampleTime, UpdatedAt: exampleTime}.Object()
)

func init() {
	for t, n := range automationNotes {
		typeNotes[t] = n
	}
}

var automationNotes = map[reflect.Type]typeNote{
	reflect.TypeFor[domain.PublisherObject](): {
		listDoc: "Inbound publishing endpoints, newest first.",
		fields: map[string]note{
			"object":       {"", `const:"automation_endpoint"`},
			"id":           {doc: "The endpoint's id (`pub_…`)."},
			"name":         {doc: "A name for people."},
			"url":          {doc: "Where tools POST (`/hooks/{token}`): no API key; the token is a secret."},
			"verification": {"How calls are verified.", `enum:"none,standard_webhooks,header_token"`},
			"schema":       {"The JSON Schema payloads must match (null: none).", `type:"object" example:"{\"type\":\"object\",\"required\":[\"order_id\"]}"`},
			"action":       {doc: "What runs for each payload (null: nothing)."},
			"enabled":      {doc: "A disabled endpoint answers 404."},
			"created_at":   {doc: "When it was created."},
			"updated_at":   {doc: "When it last changed."},
		},
		examples: examplesOf(exampleEndpoint),
	},
	reflect.TypeFor[domain.Action](): {fields: map[string]note{
		"type":        {"What it does.", `enum:"send_message,create_link,forward" example:"send_message"`},
		"instance_id": {"send_message: the sending instance.", `example:"inst_01jr8d0c3b5n7q9s1u3w5y7a9c"`},
		"to":          {"send_message: the recipient (template).", `example:"{{payload.customer.phone}}"`},
		"text":        {"send_message: the text or caption (template).", `example:"Thanks for your order {{payload.order_id}}!"`},
		"media_url":   {"send_message: an image URL (template).", `example:"{{payload.invoice_url}}"`},
		"url":         {"create_link: the target (template).", `example:"{{payload.product_url}}"`},
		"slug":        {"create_link: the slug (template).", `example:"order-{{payload.order_id}}"`},
		"title":       {"create_link: the title (template).", `example:"Order {{payload.order_id}}"`},
		"metadata":    {"create_link: metadata (templates).", `example:"{\"order\":\"{{payload.order_id}}\"}"`},
		"target_url":  {"forward: where the payload is posted.", `example:"https://example.com/orders"`},
	}},
	reflect.TypeFor[domain.PublishedObject](): {
		listDoc: "Calls, newest first.",
		fields: map[string]note{
			"object":      {"", `const:"automation_call"`},
			"id":          {doc: "The call's id: its `automation.published` event's (`evt_…`)."},
			"endpoint_id": {doc: "Its endpoint."},
			"payload":     {"The JSON received (a form arrives as an object of its fields).", `example:"{\"order_id\":\"A-1001\"}"`},
			"received_at": {doc: "When it was accepted."},
		},
		examples: examplesOf(exampleCall),
	},
	reflect.TypeFor[domain.RunObject](): {
		listDoc: "Runs, newest first.",
		fields: map[string]note{
			"object":      {"", `const:"automation_run"`},
			"id":          {doc: "The run's id (`run_…`)."},
			"endpoint_id": {doc: "Its endpoint."},
			"call_id":     {doc: "The call it ran for."},
			"action_type": {"The action.", `enum:"send_message,create_link,forward"`},
			"status":      {"`queued` (waiting or retrying), `succeeded`, `failed`.", `enum:"queued,succeeded,failed"`},
			"input":       {"The action as rendered for the call (null until it ran).", `type:"object" example:"{\"to\":\"+15550100002\"}"`},
			"output":      {"What it produced (null: nothing yet, or failed).", `type:"object" example:"{\"message_id\":\"msg_01jr8d0c3b5n7q9s1u3w5y7a9c\"}"`},
			"error":       {doc: "Why the last attempt failed (null: it did not)."},
			"attempts":    {doc: "Attempts so far."},
			"duration_ms": {doc: "How long the last attempt took."},
			"created_at":  {doc: "When the call queued it."},
			"updated_at":  {doc: "When it last changed."},
		},
		examples: examplesOf(exampleRun),
	},
}
