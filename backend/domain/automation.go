package domain

import (
	"encoding/json"
	"time"
)

// PrefixRun marks an automation action run's id.
const PrefixRun = "run_"

// Publisher verification kinds: how /hooks/{token} checks who is calling.
const (
	VerifyNone             = "none"
	VerifyStandardWebhooks = "standard_webhooks" // webhook-id, webhook-timestamp, webhook-signature
	VerifyHeaderToken      = "header_token"      // X-Switchboard-Token: <secret>
)

// Action types an endpoint can run on each published payload.
const (
	ActionSendMessage = "send_message"
	ActionCreateLink  = "create_link"
	ActionForward     = "forward"
)

// Publisher is an inbound publishing endpoint: tools POST JSON to /hooks/{token}; each call
// becomes an automation.published event and, with an action, an action run.
type Publisher struct {
	ID          string
	WorkspaceID string
	Name        string
	// Token is the path secret of /hooks/{token} (stored sealed, looked up by its hash).
	Token        string
	Verification string
	// Schema, when set, is a JSON Schema every payload must match.
	Schema json.RawMessage
	// Action, when set, runs for every published payload.
	Action    *Action
	Enabled   bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Action is what an endpoint does with a payload. Its string fields are templates:
// "{{payload.customer.phone}}" is replaced by that field of the payload.
type Action struct {
	Type string `json:"type"`
	// send_message
	InstanceID string `json:"instance_id,omitempty"`
	To         string `json:"to,omitempty"`
	Text       string `json:"text,omitempty"`
	MediaURL   string `json:"media_url,omitempty"`
	// create_link
	URL      string            `json:"url,omitempty"`
	Slug     string            `json:"slug,omitempty"`
	Title    string            `json:"title,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	// forward
	TargetURL string `json:"target_url,omitempty"`
}

// PublisherObject is the public representation of an endpoint. The verification secret is
// shown once, when it is made (create or rotate_secret), never here.
type PublisherObject struct {
	Object       string           `json:"object"`
	ID           string           `json:"id"`
	Name         string           `json:"name"`
	URL          string           `json:"url"`
	Verification string           `json:"verification"`
	Schema       *json.RawMessage `json:"schema"`
	Action       *Action          `json:"action"`
	Enabled      bool             `json:"enabled"`
	CreatedAt    Timestamp        `json:"created_at"`
	UpdatedAt    Timestamp        `json:"updated_at"`
}

// Object returns the public representation of p; hooksBase is ".../hooks".
func (p Publisher) Object(hooksBase string) PublisherObject {
	var schema *json.RawMessage
	if len(p.Schema) > 0 {
		schema = &p.Schema
	}
	return PublisherObject{Object: "automation_endpoint", ID: p.ID, Name: p.Name, URL: hooksBase + "/" + p.Token,
		Verification: p.Verification, Schema: schema, Action: p.Action, Enabled: p.Enabled, CreatedAt: TS(p.CreatedAt),
		UpdatedAt: TS(p.UpdatedAt)}
}

// Published is one accepted call of an endpoint (its id is its event's).
type Published struct {
	ID          string
	WorkspaceID string
	EndpointID  string
	DedupeKey   string
	Payload     json.RawMessage
	ReceivedAt  time.Time
}

// PublishedObject is an accepted call as the API shows it and the automation.published
// event carries it.
type PublishedObject struct {
	Object     string          `json:"object"`
	ID         string          `json:"id"`
	EndpointID string          `json:"endpoint_id"`
	Payload    json.RawMessage `json:"payload"`
	ReceivedAt Timestamp       `json:"received_at"`
}

// Object returns the public representation of p.
func (p Published) Object() PublishedObject {
	return PublishedObject{Object: "automation_call", ID: p.ID, EndpointID: p.EndpointID, Payload: p.Payload,
		ReceivedAt: TS(p.ReceivedAt)}
}

// Run statuses.
const (
	RunQueued    = "queued"
	RunSucceeded = "succeeded"
	RunFailed    = "failed"
)

// Run is one execution of an endpoint's action for one published payload.
type Run struct {
	ID          string
	WorkspaceID string
	EndpointID  string
	CallID      string
	ActionType  string
	Status      string
	// Input is the action with its templates rendered (what was done); Output what it
	// produced (a message or link id, a response status).
	Input      json.RawMessage
	Output     json.RawMessage
	Error      string
	Attempts   int
	DurationMS int64
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// RunObject is the public representation of a run.
type RunObject struct {
	Object     string           `json:"object"`
	ID         string           `json:"id"`
	EndpointID string           `json:"endpoint_id"`
	CallID     string           `json:"call_id"`
	ActionType string           `json:"action_type"`
	Status     string           `json:"status"`
	Input      *json.RawMessage `json:"input"`
	Output     *json.RawMessage `json:"output"`
	Error      *string          `json:"error"`
	Attempts   int              `json:"attempts"`
	DurationMS int64            `json:"duration_ms"`
	CreatedAt  Timestamp        `json:"created_at"`
	UpdatedAt  Timestamp        `json:"updated_at"`
}

// Object returns the public representation of r.
func (r Run) Object() RunObject {
	var in, out *json.RawMessage
	if len(r.Input) > 0 {
		in = &r.Input
	}
	if len(r.Output) > 0 {
		out = &r.Output
	}
	return RunObject{Object: "automation_run", ID: r.ID, EndpointID: r.EndpointID, CallID: r.CallID, ActionType: r.ActionType,
		Status: r.Status, Input: in, Output: out, Error: optional(r.Error), Attempts: r.Attempts, DurationMS: r.DurationMS,
		CreatedAt: TS(r.CreatedAt), UpdatedAt: TS(r.UpdatedAt)}
}

// Automation event types and job kind.
const (
	EventAutomationPublished       = "automation.published"
	EventAutomationActionSucceeded = "automation.action_succeeded"
	EventAutomationActionFailed    = "automation.action_failed"
	EventAutomationEndpointCreated = "automation.endpoint_created"
	EventAutomationEndpointUpdated = "automation.endpoint_updated"
	EventAutomationEndpointDeleted = "automation.endpoint_deleted"

	JobAutomationAction = "automation.action"
)
