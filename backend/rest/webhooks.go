package rest

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
)

// createWebhookRequest is the body of POST /webhooks.
type createWebhookRequest struct {
	URL         string   `json:"url"`
	Description string   `json:"description"`
	EventTypes  []string `json:"event_types"`
	InstanceID  *string  `json:"instance_id"`
	Enabled     *bool    `json:"enabled"`
}

// updateWebhookRequest is the body of PATCH /webhooks/{id}: fields left out are kept;
// instance_id null (or "") removes the instance filter.
type updateWebhookRequest struct {
	URL         *string       `json:"url"`
	Description *string       `json:"description"`
	EventTypes  *[]string     `json:"event_types"`
	InstanceID  presentString `json:"instance_id"`
	Enabled     *bool         `json:"enabled"`
}

// presentString tells a field sent as null from one left out.
type presentString struct {
	set   bool
	value string
}

func (p *presentString) UnmarshalJSON(b []byte) error {
	p.set = true
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	return json.Unmarshal(b, &p.value)
}

// testWebhookRequest is the optional body of POST /webhooks/{id}/test.
type testWebhookRequest struct {
	EventType string `json:"event_type"`
}

// webhookWithSecret is an endpoint with its signing secret: the one response that shows it.
type webhookWithSecret struct {
	domain.WebhookObject
	Secret string `json:"secret"`
}

// webhookRotated is an endpoint with its new secret, and until when the old one signs too.
type webhookRotated struct {
	domain.WebhookObject
	Secret                  string           `json:"secret"`
	PreviousSecretExpiresAt domain.Timestamp `json:"previous_secret_expires_at"`
}

// deleted is the answer to a DELETE.
type deleted struct {
	Object  string `json:"object"`
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

func (a *api) listWebhooks(w http.ResponseWriter, r *http.Request) {
	p, err := listParams(r)
	if err != nil {
		a.error(w, r, err)
		return
	}
	page, err := a.svc.Webhooks.List(r.Context(), actor(r), p)
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, listOf(mapPage(page, domain.Webhook.Object)))
}

func (a *api) createWebhook(w http.ResponseWriter, r *http.Request) {
	var in createWebhookRequest
	if err := decode(r, &in); err != nil {
		a.error(w, r, err)
		return
	}
	hook, secret, err := a.svc.Webhooks.Create(r.Context(), actor(r), service.CreateWebhookInput{
		URL: in.URL, Description: in.Description, EventTypes: in.EventTypes, InstanceID: in.InstanceID, Enabled: in.Enabled})
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, webhookWithSecret{hook.Object(), secret})
}

func (a *api) getWebhook(w http.ResponseWriter, r *http.Request) {
	hook, err := a.svc.Webhooks.Get(r.Context(), actor(r), mux.Vars(r)["id"])
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, hook.Object())
}

func (a *api) updateWebhook(w http.ResponseWriter, r *http.Request) {
	var in updateWebhookRequest
	if err := decode(r, &in); err != nil {
		a.error(w, r, err)
		return
	}
	upd := service.UpdateWebhookInput{URL: in.URL, Description: in.Description, EventTypes: in.EventTypes, Enabled: in.Enabled}
	if in.InstanceID.set {
		upd.InstanceID = &in.InstanceID.value // "" removes the filter
	}
	hook, err := a.svc.Webhooks.Update(r.Context(), actor(r), mux.Vars(r)["id"], upd)
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, hook.Object())
}

func (a *api) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	id := mux.Vars(r)["id"]
	if err := a.svc.Webhooks.Delete(r.Context(), actor(r), id); err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, deleted{Object: "webhook", ID: id, Deleted: true})
}

func (a *api) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	hook, secret, until, err := a.svc.Webhooks.RotateSecret(r.Context(), actor(r), mux.Vars(r)["id"])
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, webhookRotated{hook.Object(), secret, domain.TS(until)})
}

func (a *api) testWebhook(w http.ResponseWriter, r *http.Request) {
	var in testWebhookRequest
	if err := decodeOptional(r, &in); err != nil {
		a.error(w, r, err)
		return
	}
	d, err := a.svc.Webhooks.Test(r.Context(), actor(r), mux.Vars(r)["id"], in.EventType)
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, d.Object())
}

func (a *api) listDeliveries(w http.ResponseWriter, r *http.Request) {
	p, err := listParams(r)
	if err != nil {
		a.error(w, r, err)
		return
	}
	page, err := a.svc.Webhooks.Deliveries(r.Context(), actor(r), mux.Vars(r)["id"], p)
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, listOf(mapPage(page, domain.Delivery.Object)))
}

func (a *api) getDelivery(w http.ResponseWriter, r *http.Request) {
	vars := mux.Vars(r)
	d, err := a.svc.Webhooks.Delivery(r.Context(), actor(r), vars["id"], vars["delivery_id"])
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d.Object())
}

func (a *api) retryDelivery(w http.ResponseWriter, r *http.Request) {
	vars := mux.Vars(r)
	d, err := a.svc.Webhooks.Retry(r.Context(), actor(r), vars["id"], vars["delivery_id"])
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, d.Object())
}
