package automation

import (
	"encoding/json"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
)

const sampleHooks = "https://sb.example.com/hooks"

// eventTypes is the automation surface's table of event types, with samples made by the
// same Object methods as live data.
var eventTypes = []service.EventType{
	{Type: domain.EventAutomationPublished, Description: "A tool posted to an inbound publishing endpoint (/hooks/{token}): the call with its payload.",
		Sample: func(now time.Time) any { return sampleCall(now).Object() }},
	{Type: domain.EventAutomationActionSucceeded, Description: "An endpoint's action ran for a call: the run, with what it did (input) and produced (output).",
		Sample: func(now time.Time) any { return sampleRun(now, domain.RunSucceeded).Object() }},
	{Type: domain.EventAutomationActionFailed, Description: "An endpoint's action failed for good (after its retries, or at once when no retry can help): the run with its error.",
		Sample: func(now time.Time) any { return sampleRun(now, domain.RunFailed).Object() }},
	{Type: domain.EventAutomationEndpointCreated, Description: "An inbound publishing endpoint was created.",
		Sample: func(now time.Time) any { return sampleEndpoint(now).Object(sampleHooks) }},
	{Type: domain.EventAutomationEndpointUpdated, Description: "An inbound publishing endpoint changed (settings, action, token or secret rotated).",
		Sample: func(now time.Time) any { return sampleEndpoint(now).Object(sampleHooks) }},
	{Type: domain.EventAutomationEndpointDeleted, Description: "An inbound publishing endpoint was deleted with its calls and runs.",
		Sample: func(now time.Time) any { return sampleEndpoint(now).Object(sampleHooks) }},
}

var _ = service.RegisterEventTypes(eventTypes...)

func sampleEndpoint(now time.Time) domain.Publisher {
	return domain.Publisher{ID: "pub_01jr8d0c3b5n7q9s1u3w5y7a9c", Name: "New orders", Token: redactedToken,
		Verification: domain.VerifyStandardWebhooks, Enabled: true,
		Action: &domain.Action{Type: domain.ActionSendMessage, InstanceID: "inst_01jr8d0c3b5n7q9s1u3w5y7a9c",
			To: "{{payload.customer.phone}}", Text: "Thanks for your order {{payload.order_id}}!"},
		CreatedAt: now, UpdatedAt: now}
}

func sampleCall(now time.Time) domain.Published {
	return domain.Published{ID: service.SampleEventID, EndpointID: "pub_01jr8d0c3b5n7q9s1u3w5y7a9c",
		Payload: json.RawMessage(`{"order_id":"A-1001","customer":{"name":"Ada","phone":"+15550100002"}}`), ReceivedAt: now}
}

func sampleRun(now time.Time, status string) domain.Run {
	r := domain.Run{ID: "run_01jr8d0c3b5n7q9s1u3w5y7a9c", EndpointID: "pub_01jr8d0c3b5n7q9s1u3w5y7a9c",
		CallID: service.SampleEventID, ActionType: domain.ActionSendMessage, Status: status,
		Input:    json.RawMessage(`{"instance_id":"inst_01jr8d0c3b5n7q9s1u3w5y7a9c","media_url":"","text":"Thanks for your order A-1001!","to":"+15550100002"}`),
		Attempts: 1, DurationMS: 12, CreatedAt: now, UpdatedAt: now}
	if status == domain.RunSucceeded {
		r.Output = json.RawMessage(`{"message_id":"msg_01jr8d0c3b5n7q9s1u3w5y7a9c","status":"queued"}`)
	} else {
		r.Error = "to must be a phone number in E.164 form, such as +15551234567"
	}
	return r
}
