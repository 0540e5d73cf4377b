package domain

import "time"

// Webhook is an endpoint that receives a workspace's events, signed per the Standard
// Webhooks specification. Its signing secrets are kept apart (store.StoredSecrets): a
// Webhook value can be handed to any transport.
type Webhook struct {
	ID          string
	WorkspaceID string
	// Kind is WebhookKindEndpoint or WebhookKindSubscription.
	Kind        string
	URL         string
	Description string
	// EventTypes are the event types delivered, or ["*"] for every type.
	EventTypes []string
	// InstanceID, when set, limits deliveries to events of that channel instance.
	InstanceID *string
	Enabled    bool
	// DisabledReason says why the endpoint was disabled ("" while enabled).
	DisabledReason string
	// FailingSince is when the endpoint started failing without a success since; an
	// endpoint failing for WebhookDisableAfter is disabled.
	FailingSince *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Kinds of webhook endpoint. Both receive the events they subscribe to the same way; each
// API sees only its own kind.
const (
	// WebhookKindEndpoint is an endpoint a user registered (POST /webhooks).
	WebhookKindEndpoint = "webhook"
	// WebhookKindSubscription is a workflow tool's REST hook (POST
	// /automation/subscriptions): a Subscription.
	WebhookKindSubscription = "subscription"
)

// Subscribed reports whether the endpoint wants event e (by type and instance filter).
func (w Webhook) Subscribed(e Event) bool {
	if len(w.EventTypes) == 0 {
		return false
	}
	return EventFilter{Types: w.EventTypes, InstanceID: deref(w.InstanceID)}.Matches(e)
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// Delivery is one event on its way to one endpoint, with every attempt made so far.
type Delivery struct {
	ID          string
	WebhookID   string
	WorkspaceID string
	EventID     string // also the webhook-id header, so retries share it
	EventType   string
	Status      string // DeliveryPending, DeliverySucceeded or DeliveryFailed
	Attempts    []DeliveryAttempt
	// NextAttemptAt is when the next attempt is due (nil unless pending).
	NextAttemptAt *time.Time
	CreatedAt     time.Time
}

// DeliveryAttempt is one HTTP request of a delivery.
type DeliveryAttempt struct {
	AttemptedAt time.Time
	StatusCode  int // 0 when no response arrived
	LatencyMS   int
	// ResponseBody is the first WebhookResponseBodyLimit bytes of the response body.
	ResponseBody string
	// Error says why the attempt failed ("" on success).
	Error string
}

// Webhook delivery rules, documented in docs/webhooks.md.
var (
	// WebhookRetrySchedule is the delay before each attempt of a delivery: the first is
	// immediate, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (with jitter); after the
	// last failed attempt the delivery is failed.
	WebhookRetrySchedule = []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
		2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
)

const (
	// WebhookDisableAfter is how long an endpoint may fail without one success before it
	// is disabled (with a webhook.disabled event).
	WebhookDisableAfter = 5 * 24 * time.Hour
	// WebhookSecretOverlap is how long the previous secret still signs after a rotation.
	WebhookSecretOverlap = 24 * time.Hour
	// WebhookResponseBodyLimit is how much of a response body an attempt keeps.
	WebhookResponseBodyLimit = 1024
	// MaxEventPayload is the largest event envelope webhooks carry; larger events are
	// refused where they are recorded.
	MaxEventPayload = 256 * 1024
)

// WebhookObject is the public representation of an endpoint. It never holds a secret.
type WebhookObject struct {
	Object         string    `json:"object"`
	ID             string    `json:"id"`
	URL            string    `json:"url"`
	Description    string    `json:"description"`
	EventTypes     []string  `json:"event_types"`
	InstanceID     *string   `json:"instance_id"`
	Enabled        bool      `json:"enabled"`
	DisabledReason *string   `json:"disabled_reason"`
	CreatedAt      Timestamp `json:"created_at"`
	UpdatedAt      Timestamp `json:"updated_at"`
}

// Object returns the public representation of w.
func (w Webhook) Object() WebhookObject {
	types := w.EventTypes
	if types == nil {
		types = []string{}
	}
	var reason *string
	if w.DisabledReason != "" {
		r := w.DisabledReason
		reason = &r
	}
	return WebhookObject{"webhook", w.ID, w.URL, w.Description, types, w.InstanceID, w.Enabled, reason,
		TS(w.CreatedAt), TS(w.UpdatedAt)}
}

// DeliveryObject is the public representation of a delivery.
type DeliveryObject struct {
	Object        string                  `json:"object"`
	ID            string                  `json:"id"`
	WebhookID     string                  `json:"webhook_id"`
	EventID       string                  `json:"event_id"`
	EventType     string                  `json:"event_type"`
	Status        string                  `json:"status"`
	Attempts      []DeliveryAttemptObject `json:"attempts"`
	NextAttemptAt *Timestamp              `json:"next_attempt_at"`
	CreatedAt     Timestamp               `json:"created_at"`
}

// DeliveryAttemptObject is the public representation of an attempt.
type DeliveryAttemptObject struct {
	AttemptedAt  Timestamp `json:"attempted_at"`
	StatusCode   *int      `json:"status_code"`
	LatencyMS    int       `json:"latency_ms"`
	ResponseBody *string   `json:"response_body"`
	Error        *string   `json:"error"`
}

// Object returns the public representation of d.
func (d Delivery) Object() DeliveryObject {
	attempts := make([]DeliveryAttemptObject, len(d.Attempts))
	for i, a := range d.Attempts {
		attempts[i] = a.Object()
	}
	return DeliveryObject{"webhook_delivery", d.ID, d.WebhookID, d.EventID, d.EventType, d.Status, attempts,
		TSPtr(d.NextAttemptAt), TS(d.CreatedAt)}
}

// Object returns the public representation of a.
func (a DeliveryAttempt) Object() DeliveryAttemptObject {
	o := DeliveryAttemptObject{AttemptedAt: TS(a.AttemptedAt), LatencyMS: a.LatencyMS}
	if a.StatusCode != 0 {
		code := a.StatusCode
		o.StatusCode = &code
	}
	if a.StatusCode != 0 || a.ResponseBody != "" {
		body := a.ResponseBody
		o.ResponseBody = &body
	}
	if a.Error != "" {
		msg := a.Error
		o.Error = &msg
	}
	return o
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Reasons for disabling an endpoint automatically.
const (
	WebhookDisabledGone    = "The endpoint answered 410 Gone."
	WebhookDisabledFailing = "The endpoint failed for 5 days without a successful delivery."
)

// JobWebhookDelivery is the job kind that sends one webhook delivery; the job's id is the
// delivery's.
const JobWebhookDelivery = "webhook.delivery"

// WebhookConcurrencyKey is the job concurrency key of an endpoint's deliveries: at most a
// few are in flight to one endpoint at once, across every replica.
func WebhookConcurrencyKey(webhookID string) string { return "webhook:" + webhookID }
