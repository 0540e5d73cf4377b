package domain

import (
	"encoding/json"
	"time"
)

// Event is one entry of the event log. The same envelope is used by webhooks, GraphQL
// subscriptions and the events API.
type Event struct {
	ID          string          `json:"id" db:"id"`
	Type        string          `json:"type" db:"type"`
	Timestamp   time.Time       `json:"timestamp" db:"created_at"`
	WorkspaceID string          `json:"workspace_id" db:"workspace_id"`
	InstanceID  *string         `json:"-" db:"instance_id"` // filter for webhooks/subscriptions
	Data        json.RawMessage `json:"data" db:"data"`
}

// Event types. Every state change produces exactly one of these.
const (
	EventWorkspaceCreated = "workspace.created"
	EventAPIKeyCreated    = "api_key.created"
	EventAPIKeyRevoked    = "api_key.revoked"
	EventWebhookCreated   = "webhook.created"
	EventWebhookUpdated   = "webhook.updated"
	EventWebhookDeleted   = "webhook.deleted"
	EventWebhookRotated   = "webhook.secret_rotated"
	EventWebhookDisabled  = "webhook.disabled"
)

// EventTypeInfo documents an event type with a sample of its data.
type EventTypeInfo struct {
	Type        string
	Description string
	Sample      any // the data object, shaped exactly as the live one
}

// EventFilter selects events.
type EventFilter struct {
	Types      []string
	InstanceID string
	Since      *time.Time
	Until      *time.Time
}

// Matches reports whether e passes the filter's type and instance conditions.
func (f EventFilter) Matches(e Event) bool {
	if len(f.Types) > 0 {
		ok := false
		for _, t := range f.Types {
			if t == "*" || t == e.Type {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if f.InstanceID != "" && (e.InstanceID == nil || *e.InstanceID != f.InstanceID) {
		return false
	}
	return true
}

// EventWebhookTest is the synthetic event POST /webhooks/{id}/test sends by default. Test
// events go only to the endpoint under test and are not written to the event log.
const EventWebhookTest = "webhook.test"
