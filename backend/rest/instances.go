package rest

import (
	"net/http"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
)

// instancePath is the {id} of every /instances/{id}... route.
type instancePath struct {
	ID string "json:\"-\" path:\"id\" doc:\"The instance's id (`inst_…`).\" example:\"inst_01jr8d0c3b5n7q9s1u3w5y7a9c\""
}

// createInstanceRequest is the body of POST /instances.
type createInstanceRequest struct {
	Name              string         `json:"name" required:"true" maxLength:"100" doc:"A name for people." example:"Support line"`
	Channel           string         "json:\"channel,omitempty\" enum:\"sandbox,telegram,whatsapp_cloud\" default:\"sandbox\" example:\"sandbox\" doc:\"The channel: `sandbox` (built in: a simulated phone network), `telegram` (a Telegram bot) or `whatsapp_cloud` (a WhatsApp Business Cloud API number). `GET /channels` lists them with their settings.\""
	Config            map[string]any "json:\"config,omitempty\" example:\"{\\\"auto_pair\\\":true,\\\"delivered_after_ms\\\":200}\" doc:\"The channel's settings (`GET /channels` lists each channel's). Telegram: `bot_token` (write-only). WhatsApp Cloud: `phone_number_id`, `access_token`, `app_secret`, `verify_token` (the last three write-only). Sandbox: `auto_pair` (bool, default false), `delivered_after_ms` (0-60000, default 200), `read_after_ms` (0-600000, default 1000), `echo` (bool, default false), `token` (write-only string). Unknown settings are refused.\""
	MessagesPerSecond *int           `json:"messages_per_second,omitempty" minimum:"1" maximum:"1000" default:"20" doc:"How many sends may start per second on this instance (the rest wait in the queue)."`
	Connect           bool           `json:"connect,omitempty" default:"false" example:"true" doc:"Start connecting at once (as POST /instances/{id}/connect does)."`
}

// updateInstanceRequest is the body of PATCH /instances/{id}: fields left out are kept.
type updateInstanceRequest struct {
	instancePath
	Name              *string        `json:"name,omitempty" nullable:"false" maxLength:"100" doc:"A name for people." example:"Support line (EU)"`
	Config            map[string]any "json:\"config,omitempty\" example:\"{\\\"echo\\\":true}\" doc:\"Settings to change: the keys given replace their values, `null` resets one to its default, a write-only value sent back as `********` is kept.\""
	MessagesPerSecond *int           `json:"messages_per_second,omitempty" minimum:"1" maximum:"1000" doc:"How many sends may start per second." example:"5"`
}

// pairRequest is the optional body of POST /instances/{id}/sandbox/pair.
type pairRequest struct {
	instancePath
	PairingCode string "json:\"pairing_code,omitempty\" maxLength:\"20\" example:\"K7QM-3XWD\" doc:\"The code `GET /instances/{id}/qr` shows; when given it must match.\""
}

func (a *api) listInstances(r *http.Request, q listQuery) (list[domain.InstanceObject], error) {
	page, err := a.opts.Messaging.Instances.List(r.Context(), actor(r), q.params())
	return listOf(mapPage(page, domain.Instance.Object)), err
}

func (a *api) createInstance(r *http.Request, in createInstanceRequest) (domain.InstanceObject, error) {
	inst, err := a.opts.Messaging.Instances.Create(r.Context(), actor(r), messaging.CreateInstanceInput{Name: in.Name,
		Channel: in.Channel, Config: in.Config, MessagesPerSecond: in.MessagesPerSecond, Connect: in.Connect})
	return inst.Object(), err
}

func (a *api) getInstance(r *http.Request, p instancePath) (domain.InstanceObject, error) {
	inst, err := a.opts.Messaging.Instances.Get(r.Context(), actor(r), p.ID)
	return inst.Object(), err
}

func (a *api) updateInstance(r *http.Request, in updateInstanceRequest, body []byte) (domain.InstanceObject, error) {
	inst, err := a.opts.Messaging.Instances.Update(r.Context(), actor(r), in.ID, messaging.UpdateInstanceInput{
		Name: in.Name, Config: in.Config, MessagesPerSecond: in.MessagesPerSecond,
		Remove: nullFields(body)}) // the service applies PATCH's null rules
	return inst.Object(), err
}

func (a *api) deleteInstance(r *http.Request, p instancePath) (deleted, error) {
	_, err := a.opts.Messaging.Instances.Delete(r.Context(), actor(r), p.ID)
	return deleted{Object: "instance", ID: p.ID, Deleted: true}, err
}

func (a *api) connectInstance(r *http.Request, p instancePath) (domain.InstanceObject, error) {
	inst, err := a.opts.Messaging.Instances.Connect(r.Context(), actor(r), p.ID)
	return inst.Object(), err
}

func (a *api) disconnectInstance(r *http.Request, p instancePath) (domain.InstanceObject, error) {
	inst, err := a.opts.Messaging.Instances.Disconnect(r.Context(), actor(r), p.ID)
	return inst.Object(), err
}

func (a *api) restartInstance(r *http.Request, p instancePath) (domain.InstanceObject, error) {
	inst, err := a.opts.Messaging.Instances.Restart(r.Context(), actor(r), p.ID)
	return inst.Object(), err
}

func (a *api) getPairing(r *http.Request, p instancePath) (domain.PairingObject, error) {
	return a.opts.Messaging.Instances.Pairing(r.Context(), actor(r), p.ID)
}

func (a *api) pairInstance(r *http.Request, in pairRequest) (domain.InstanceObject, error) {
	inst, err := a.opts.Messaging.Instances.Pair(r.Context(), actor(r), in.ID, in.PairingCode)
	return inst.Object(), err
}

func (a *api) rotateCallbackToken(r *http.Request, p instancePath) (domain.InstanceObject, error) {
	inst, err := a.opts.Messaging.Instances.RotateCallbackToken(r.Context(), actor(r), p.ID)
	return inst.Object(), err
}

func (a *api) listChannels(*http.Request) (list[domain.ChannelObject], error) {
	return listOf(domain.Page[domain.ChannelObject]{Data: a.opts.Messaging.Channels()}), nil
}
