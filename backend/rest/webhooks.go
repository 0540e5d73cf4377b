package rest

import (
	"net/http"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
)

// createWebhookRequest is the body of POST /webhooks.
type createWebhookRequest struct {
	URL         string   `json:"url" required:"true" format:"uri" maxLength:"2048" doc:"Where to send events: an absolute http(s) URL of a public host." example:"https://example.com/webhooks/switchboard"`
	Description string   `json:"description" maxLength:"500" doc:"What the endpoint is for." example:"Order system"`
	EventTypes  []string "json:\"event_types\" required:\"true\" minItems:\"1\" maxItems:\"100\" example:\"[\\\"api_key.created\\\"]\" doc:\"Event types to deliver (`GET /api/v1/event-types` lists them), or `*` for every type.\""
	InstanceID  *string  "json:\"instance_id,omitempty\" doc:\"Only events of this channel instance (`inst_…`).\""
	Enabled     *bool    `json:"enabled,omitempty" default:"true" doc:"Whether deliveries are sent."`
}

// updateWebhookRequest is the body of PATCH /webhooks/{id}: fields left out are kept;
// instance_id null (or "") removes the instance filter, description null (or "") the
// description; url, event_types and enabled cannot be null (the service's rules, given the
// fields sent as null).
type updateWebhookRequest struct {
	webhookPath
	URL         *string   `json:"url,omitempty" nullable:"false" format:"uri" maxLength:"2048" doc:"Where to send events."`
	Description *string   `json:"description,omitempty" maxLength:"500" doc:"What the endpoint is for, or null to remove it."`
	EventTypes  *[]string "json:\"event_types,omitempty\" nullable:\"false\" minItems:\"1\" maxItems:\"100\" example:\"[\\\"*\\\"]\" doc:\"Event types to deliver (`GET /api/v1/event-types` lists them), or `*` for every type.\""
	InstanceID  *string   `json:"instance_id,omitempty" doc:"An instance id, or null to remove the filter."`
	Enabled     *bool     `json:"enabled,omitempty" nullable:"false" doc:"Whether deliveries are sent." example:"true"`
}

// testWebhookRequest is the optional body of POST /webhooks/{id}/test.
type testWebhookRequest struct {
	webhookPath
	EventType string `json:"event_type,omitempty" default:"webhook.test" doc:"The type of the sample event to send." example:"api_key.created"`
}

// recoverRequest is the body of POST /webhooks/{id}/recover.
type recoverRequest struct {
	webhookPath
	Since string  `json:"since" required:"true" format:"date-time" example:"2025-04-01T08:00:00Z" doc:"Failed deliveries created at or after this time (RFC 3339) are sent again."`
	Until *string `json:"until,omitempty" format:"date-time" example:"2025-04-01T12:00:00Z" doc:"…and before this one (default: now)."`
}

// webhookRecovery is the answer to POST /webhooks/{id}/recover.
type webhookRecovery struct {
	Object    string `json:"object" const:"webhook_recovery"`
	WebhookID string `json:"webhook_id" example:"wh_01jr8d0c3b5n7q9s1u3w5y7a9c" doc:"The endpoint."`
	Queued    int    `json:"queued" example:"42" doc:"How many failed deliveries were queued for one more attempt, now."`
	HasMore   bool   "json:\"has_more\" example:\"false\" doc:\"More failed deliveries of the range are left (at most 1,000 are queued a call): call again with the same `since`.\""
}

func (a *api) recoverDeliveries(r *http.Request, in recoverRequest) (webhookRecovery, error) {
	since, err := bodyTime("since", in.Since)
	if err != nil {
		return webhookRecovery{}, err
	}
	var until time.Time
	if in.Until != nil {
		if until, err = bodyTime("until", *in.Until); err != nil {
			return webhookRecovery{}, err
		}
	}
	rec, err := a.svc.Webhooks.Recover(r.Context(), actor(r), in.ID, since, until)
	return webhookRecovery{Object: "webhook_recovery", WebhookID: in.ID, Queued: rec.Queued, HasMore: rec.HasMore}, err
}

// bodyTime reads an RFC 3339 time of a body field or query parameter (queryTime), in UTC.
func bodyTime(param, raw string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		return time.Time{}, domain.Invalid(param, "%s must be an RFC 3339 time such as 2025-01-31T12:00:00Z", param)
	}
	return t.UTC(), nil
}

// deliveriesQuery is the input of GET /webhooks/{id}/deliveries.
type deliveriesQuery struct {
	webhookPath
	listQuery
}

// webhookWithSecret is an endpoint with its signing secret: the one response that shows it.
type webhookWithSecret struct {
	domain.WebhookObject
	Secret string `json:"secret" pattern:"^whsec_" doc:"The signing secret (Standard Webhooks). Shown only in this response." example:"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"`
}

// webhookRotated is an endpoint with its new secret, and until when the old one signs too.
type webhookRotated struct {
	domain.WebhookObject
	Secret                  string           `json:"secret" pattern:"^whsec_" doc:"The new signing secret (Standard Webhooks). Shown only in this response." example:"whsec_3cXzq1bWm0Qh5Y0sNw9iE2k6Tq8rVfJd"`
	PreviousSecretExpiresAt domain.Timestamp `json:"previous_secret_expires_at" doc:"Until then the previous secret signs every delivery too." example:"2025-04-09T10:25:00.000Z"`
}

// deleted is the answer to a DELETE.
type deleted struct {
	Object  string `json:"object" doc:"The kind of object deleted." example:"webhook"`
	ID      string `json:"id" doc:"The deleted object's id." example:"wh_01jr8d0c3b5n7q9s1u3w5y7a9c"`
	Deleted bool   `json:"deleted" const:"true"`
}

func (a *api) listWebhooks(r *http.Request, q listQuery) (list[domain.WebhookObject], error) {
	page, err := a.svc.Webhooks.List(r.Context(), actor(r), q.params())
	return listOf(mapPage(page, domain.Webhook.Object)), err
}

func (a *api) createWebhook(r *http.Request, in createWebhookRequest) (webhookWithSecret, error) {
	hook, secret, err := a.svc.Webhooks.Create(r.Context(), actor(r), service.CreateWebhookInput{
		URL: in.URL, Description: in.Description, EventTypes: in.EventTypes, InstanceID: in.InstanceID, Enabled: in.Enabled})
	return webhookWithSecret{hook.Object(), secret}, err
}

func (a *api) getWebhook(r *http.Request, p webhookPath) (domain.WebhookObject, error) {
	hook, err := a.svc.Webhooks.Get(r.Context(), actor(r), p.ID)
	return hook.Object(), err
}

func (a *api) updateWebhook(r *http.Request, in updateWebhookRequest, body []byte) (domain.WebhookObject, error) {
	upd := service.UpdateWebhookInput{URL: in.URL, Description: in.Description, EventTypes: in.EventTypes,
		InstanceID: in.InstanceID, Enabled: in.Enabled, Remove: nullFields(body)} // the service applies PATCH's null rules
	hook, err := a.svc.Webhooks.Update(r.Context(), actor(r), in.ID, upd)
	return hook.Object(), err
}

func (a *api) deleteWebhook(r *http.Request, p webhookPath) (deleted, error) {
	err := a.svc.Webhooks.Delete(r.Context(), actor(r), p.ID)
	return deleted{Object: "webhook", ID: p.ID, Deleted: true}, err
}

func (a *api) rotateWebhookSecret(r *http.Request, p webhookPath) (webhookRotated, error) {
	hook, secret, until, err := a.svc.Webhooks.RotateSecret(r.Context(), actor(r), p.ID)
	return webhookRotated{hook.Object(), secret, domain.TS(until)}, err
}

func (a *api) testWebhook(r *http.Request, in testWebhookRequest) (domain.DeliveryObject, error) {
	d, err := a.svc.Webhooks.Test(r.Context(), actor(r), in.ID, in.EventType)
	return d.Object(), err
}

func (a *api) listDeliveries(r *http.Request, q deliveriesQuery) (list[domain.DeliveryObject], error) {
	page, err := a.svc.Webhooks.Deliveries(r.Context(), actor(r), q.ID, q.params())
	return listOf(mapPage(page, domain.Delivery.Object)), err
}

func (a *api) getDelivery(r *http.Request, p deliveryPath) (domain.DeliveryObject, error) {
	d, err := a.svc.Webhooks.Delivery(r.Context(), actor(r), p.ID, p.DeliveryID)
	return d.Object(), err
}

func (a *api) retryDelivery(r *http.Request, p deliveryPath) (domain.DeliveryObject, error) {
	d, err := a.svc.Webhooks.Retry(r.Context(), actor(r), p.ID, p.DeliveryID)
	return d.Object(), err
}
