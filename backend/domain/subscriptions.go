package domain

import "time"

// Subscription is a workflow tool's outbound subscription (the REST hooks pattern of Zapier,
// n8n and Make): the tool creates one when a user turns a workflow on and deletes it when
// they turn it off. It is stored and delivered to as a webhook endpoint of kind
// WebhookKindSubscription, signed the same way; a target that answers 410 Gone is
// unsubscribed (deleted).
type Subscription struct {
	ID          string
	WorkspaceID string
	TargetURL   string
	Description string
	// EventTypes are the event types delivered, or ["*"] for every type.
	EventTypes []string
	// Enabled is false once the target failed for WebhookDisableAfter (DisabledReason
	// says so); a disabled subscription receives nothing until it is deleted and created
	// again.
	Enabled        bool
	DisabledReason string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Subscription returns the endpoint w as a subscription (w.Kind is WebhookKindSubscription).
func (w Webhook) Subscription() Subscription {
	return Subscription{ID: w.ID, WorkspaceID: w.WorkspaceID, TargetURL: w.URL, Description: w.Description,
		EventTypes: w.EventTypes, Enabled: w.Enabled, DisabledReason: w.DisabledReason,
		CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

// Subscription event types.
const (
	EventSubscriptionCreated  = "automation.subscription_created"
	EventSubscriptionDeleted  = "automation.subscription_deleted"
	EventSubscriptionDisabled = "automation.subscription_disabled"
)

// Why a subscription was deleted (SubscriptionDeleted.Reason).
const (
	// SubscriptionUnsubscribed: deleted through the API (the tool unsubscribed).
	SubscriptionUnsubscribed = "unsubscribed"
	// SubscriptionTargetGone: the target answered 410 Gone to a delivery.
	SubscriptionTargetGone = "target_gone"
)

// SubscriptionObject is the public representation of a subscription. It never holds the
// signing secret.
type SubscriptionObject struct {
	Object         string    `json:"object"`
	ID             string    `json:"id"`
	TargetURL      string    `json:"target_url"`
	Description    string    `json:"description"`
	EventTypes     []string  `json:"event_types"`
	Enabled        bool      `json:"enabled"`
	DisabledReason *string   `json:"disabled_reason"`
	CreatedAt      Timestamp `json:"created_at"`
	UpdatedAt      Timestamp `json:"updated_at"`
}

// Object returns the public representation of s.
func (s Subscription) Object() SubscriptionObject {
	types := s.EventTypes
	if types == nil {
		types = []string{}
	}
	var reason *string
	if s.DisabledReason != "" {
		r := s.DisabledReason
		reason = &r
	}
	return SubscriptionObject{"automation_subscription", s.ID, s.TargetURL, s.Description, types, s.Enabled, reason,
		TS(s.CreatedAt), TS(s.UpdatedAt)}
}

// SubscriptionDeleted is the data of automation.subscription_deleted: the subscription as
// it was, and why it went.
type SubscriptionDeleted struct {
	SubscriptionObject
	// Reason is SubscriptionUnsubscribed or SubscriptionTargetGone.
	Reason string `json:"reason"`
}
