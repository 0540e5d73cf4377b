package rest

import (
	"encoding/json"
	"net/http"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service/automation"
)

// endpointPath is the {id} of an automation endpoint.
type endpointPath struct {
	ID string "json:\"-\" path:\"id\" doc:\"The endpoint's id (`pub_…`).\" example:\"pub_01jr8d0c3b5n7q9s1u3w5y7a9c\""
}

// endpointListQuery is the input of a list under an endpoint.
type endpointListQuery struct {
	endpointPath
	listQuery
}

// actionInput is an endpoint's action in a request.
type actionInput struct {
	Type       string            `json:"type" required:"true" enum:"send_message,create_link,forward" example:"send_message" doc:"What to do with each call's payload."`
	InstanceID string            "json:\"instance_id,omitempty\" maxLength:\"64\" example:\"inst_01jr8d0c3b5n7q9s1u3w5y7a9c\" doc:\"send_message: the instance that sends (`inst_…`).\""
	To         string            `json:"to,omitempty" maxLength:"4096" example:"{{payload.customer.phone}}" doc:"send_message: the recipient (a template)."`
	Text       string            `json:"text,omitempty" maxLength:"4096" example:"Thanks for your order {{payload.order_id}}!" doc:"send_message: the text, or the media's caption (a template)."`
	MediaURL   string            `json:"media_url,omitempty" maxLength:"4096" example:"{{payload.invoice_url}}" doc:"send_message: an image to send by URL (a template)."`
	URL        string            `json:"url,omitempty" maxLength:"4096" example:"{{payload.product_url}}" doc:"create_link: the target (a template)."`
	Slug       string            `json:"slug,omitempty" maxLength:"4096" example:"order-{{payload.order_id}}" doc:"create_link: the slug (a template; generated when empty)."`
	Title      string            `json:"title,omitempty" maxLength:"4096" example:"Order {{payload.order_id}}" doc:"create_link: the title (a template)."`
	Metadata   map[string]string `json:"metadata,omitempty" example:"{\"order\":\"{{payload.order_id}}\"}" doc:"create_link: metadata fields (templates)."`
	TargetURL  string            `json:"target_url,omitempty" maxLength:"2048" example:"https://example.com/orders" doc:"forward: where to POST the payload (checked against the SSRF rules)."`
}

func (in *actionInput) action() *domain.Action {
	if in == nil {
		return nil
	}
	return &domain.Action{Type: in.Type, InstanceID: in.InstanceID, To: in.To, Text: in.Text, MediaURL: in.MediaURL,
		URL: in.URL, Slug: in.Slug, Title: in.Title, Metadata: in.Metadata, TargetURL: in.TargetURL}
}

// createEndpointRequest is the body of POST /automation/endpoints.
type createEndpointRequest struct {
	Name         string       `json:"name" required:"true" maxLength:"200" example:"New orders" doc:"A name for people."`
	Verification *string      "json:\"verification,omitempty\" enum:\"none,standard_webhooks,header_token\" example:\"standard_webhooks\" doc:\"How calls prove they are yours: `none` (the URL's token is the secret), `standard_webhooks` (webhook-id, webhook-timestamp, webhook-signature headers signed with the endpoint's `whsec_…` secret), or `header_token` (an `X-Switchboard-Token` header). Default none.\""
	Schema       *jsonObject  `json:"schema,omitempty" type:"object" example:"{\"type\":\"object\",\"required\":[\"order_id\"]}" doc:"A JSON Schema every payload must match (else 422 naming where)."`
	Action       *actionInput `json:"action,omitempty" doc:"What to do with each payload."`
	Enabled      *bool        `json:"enabled,omitempty" example:"true" doc:"A disabled endpoint answers 404, like an unknown one."`
}

// updateEndpointRequest is the body of PATCH /automation/endpoints/{id}: fields left out are
// kept; null removes the schema or the action (the service's rules, given the fields sent
// as null).
type updateEndpointRequest struct {
	endpointPath
	Name         *string       `json:"name,omitempty" nullable:"false" maxLength:"200" example:"Orders (shop)" doc:"A name for people."`
	Verification *string       `json:"verification,omitempty" nullable:"false" enum:"none,standard_webhooks,header_token" example:"header_token" doc:"A new kind gets a new secret, returned once."`
	Schema       *objectOrNull `json:"schema,omitempty" example:"{\"type\":\"object\"}" doc:"The new schema; null removes it."`
	Action       *actionInput  `json:"action,omitempty" doc:"The new action; null (or {\"type\":\"\"}) removes it."`
	Enabled      *bool         `json:"enabled,omitempty" nullable:"false" example:"false" doc:"Enable or disable."`
}

// testEndpointRequest is the body of POST /automation/endpoints/{id}/test.
type testEndpointRequest struct {
	endpointPath
	Payload jsonObject `json:"payload" required:"true" type:"object" example:"{\"order_id\":\"A-1001\",\"customer\":{\"phone\":\"+15550100002\"}}" doc:"The JSON to publish."`
}

// endpointWithSecret is an endpoint as create, a verification change and rotate-secret
// answer it: with its secret, shown this once.
type endpointWithSecret struct {
	domain.PublisherObject
	Secret *string "json:\"secret\" doc:\"The verification secret (`whsec_…` or `sbt_…`), shown only now; null without verification.\" example:\"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\""
}

// callAccepted is the answer of /hooks/{token} and of a test.
type callAccepted struct {
	ID     string `json:"id" doc:"The call's id: its automation.published event's." example:"evt_01jr8d0c3b5n7q9s1u3w5y7a9c"`
	Object string `json:"object" const:"automation_call"`
}

func (a *api) withSecret(c automation.Created) endpointWithSecret {
	out := endpointWithSecret{PublisherObject: a.opts.Automation.Object(c.Endpoint)}
	if c.Secret != "" {
		out.Secret = &c.Secret
	}
	return out
}

func endpointInput(name, verification *string, schema *jsonObject, act *actionInput, enabled *bool) automation.EndpointInput {
	in := automation.EndpointInput{Name: name, Verification: verification, Action: act.action(), Enabled: enabled}
	if schema != nil {
		in.Schema = json.RawMessage(*schema)
		if len(in.Schema) == 0 {
			in.Schema = json.RawMessage("null")
		}
	}
	return in
}

func (a *api) createEndpoint(r *http.Request, in createEndpointRequest) (endpointWithSecret, error) {
	c, err := a.opts.Automation.Create(r.Context(), actor(r), endpointInput(&in.Name, in.Verification, in.Schema, in.Action, in.Enabled))
	return a.withSecret(c), err
}

func (a *api) listEndpoints(r *http.Request, q listQuery) (list[domain.PublisherObject], error) {
	page, err := a.opts.Automation.List(r.Context(), actor(r), q.params())
	return listOf(mapPage(page, a.opts.Automation.Object)), err
}

func (a *api) getEndpoint(r *http.Request, p endpointPath) (domain.PublisherObject, error) {
	e, err := a.opts.Automation.Get(r.Context(), actor(r), p.ID)
	return a.opts.Automation.Object(e), err
}

func (a *api) updateEndpoint(r *http.Request, in updateEndpointRequest, body []byte) (endpointWithSecret, error) {
	upd := endpointInput(in.Name, in.Verification, (*jsonObject)(in.Schema), in.Action, in.Enabled)
	upd.Remove = nullFields(body) // the service applies PATCH's null rules
	c, err := a.opts.Automation.Update(r.Context(), actor(r), in.ID, upd)
	return a.withSecret(c), err
}

func (a *api) deleteEndpoint(r *http.Request, p endpointPath) (deleted, error) {
	_, err := a.opts.Automation.Delete(r.Context(), actor(r), p.ID)
	return deleted{Object: "automation_endpoint", ID: p.ID, Deleted: true}, err
}

func (a *api) rotateEndpointToken(r *http.Request, p endpointPath) (domain.PublisherObject, error) {
	e, err := a.opts.Automation.RotateToken(r.Context(), actor(r), p.ID)
	return a.opts.Automation.Object(e), err
}

func (a *api) rotateEndpointSecret(r *http.Request, p endpointPath) (endpointWithSecret, error) {
	c, err := a.opts.Automation.RotateSecret(r.Context(), actor(r), p.ID)
	return a.withSecret(c), err
}

func (a *api) testEndpoint(r *http.Request, in testEndpointRequest) (callAccepted, error) {
	c, err := a.opts.Automation.Test(r.Context(), actor(r), in.ID, json.RawMessage(in.Payload))
	return callAccepted{ID: c.ID, Object: "automation_call"}, err
}

func (a *api) listEndpointCalls(r *http.Request, q endpointListQuery) (list[domain.PublishedObject], error) {
	page, err := a.opts.Automation.Calls(r.Context(), actor(r), q.ID, q.params())
	return listOf(mapPage(page, domain.Published.Object)), err
}

func (a *api) listEndpointRuns(r *http.Request, q endpointListQuery) (list[domain.RunObject], error) {
	page, err := a.opts.Automation.Runs(r.Context(), actor(r), q.ID, q.params())
	return listOf(mapPage(page, domain.Run.Object)), err
}

// automationRoutes are the automation endpoints' operations of the route table.
func (a *api) automationRoutes() []route {
	const tag = "Automation"
	return []route{
		{
			method: "POST", path: "/api/v1/automation/endpoints", operationID: "createAutomationEndpoint", serve: callWithBody(a.createEndpoint),
			tag: tag, scope: "automation:write", status: http.StatusCreated,
			summary: "Create an inbound publishing endpoint",
			returns: "The endpoint, with its public `url` and (with verification) its secret, shown only now.",
			description: "Tools (n8n, Zapier, Make, your backend) POST JSON or a form to the endpoint's `url` " +
				"(`/hooks/{token}`, no API key); each call is stored and becomes an `automation.published` event, and the " +
				"endpoint's `action`, if any, runs with the payload. Action fields are templates: `{{payload.customer.phone}}`.",
			bodyExample: createEndpointRequest{Name: "New orders", Verification: ptr("standard_webhooks"),
				Action: &actionInput{Type: "create_link", URL: "{{payload.tracking_url}}", Title: "Order {{payload.order_id}}"}},
		},
		{
			method: "GET", path: "/api/v1/automation/endpoints", operationID: "listAutomationEndpoints", serve: callWith(a.listEndpoints),
			tag: tag, scope: "automation:read",
			summary:     "List inbound publishing endpoints",
			returns:     "A page of endpoints.",
			description: "The workspace's endpoints, newest first, each with its public URL.",
		},
		{
			method: "GET", path: "/api/v1/automation/endpoints/{id}", operationID: "getAutomationEndpoint", serve: callWith(a.getEndpoint),
			tag: tag, scope: "automation:read",
			summary: "Get an inbound publishing endpoint",
			returns: "The endpoint.",
			description: "One endpoint, with its public URL (never its secret). A key that could not change the endpoint " +
				"(no `automation:write`, or not the scope its action needs) sees `{token}` in the URL in place of the token.",
		},
		{
			method: "PATCH", path: "/api/v1/automation/endpoints/{id}", operationID: "updateAutomationEndpoint", serve: callWithNulls(a.updateEndpoint),
			tag: tag, scope: "automation:write",
			summary: "Update an inbound publishing endpoint",
			returns: "The endpoint; `secret` is set when a new verification kind made a new one.",
			description: "Changes the fields sent; `null` removes the `schema` or the `action`. A new `verification` kind gets " +
				"a new secret, returned once. The URL stays (rotate it with `rotate-token`).",
			bodyExample: updateEndpointRequest{Enabled: ptr(false)},
		},
		{
			method: "DELETE", path: "/api/v1/automation/endpoints/{id}", operationID: "deleteAutomationEndpoint", serve: callWith(a.deleteEndpoint),
			tag: tag, scope: "automation:write",
			summary:     "Delete an inbound publishing endpoint",
			returns:     "The deleted endpoint's id.",
			description: "Deletes the endpoint with its calls and runs; its URL answers 404 from then on, on every replica.",
		},
		{
			method: "POST", path: "/api/v1/automation/endpoints/{id}/rotate-token", operationID: "rotateAutomationEndpointToken", serve: callWith(a.rotateEndpointToken),
			tag: tag, scope: "automation:write",
			summary:     "Rotate an endpoint's URL",
			returns:     "The endpoint with its new `url`.",
			description: "Gives the endpoint a new token: the old URL answers 404 at once, on every replica.",
		},
		{
			method: "POST", path: "/api/v1/automation/endpoints/{id}/rotate-secret", operationID: "rotateAutomationEndpointSecret", serve: callWith(a.rotateEndpointSecret),
			tag: tag, scope: "automation:write", errors: []int{409},
			summary:     "Rotate an endpoint's verification secret",
			returns:     "The endpoint with its new `secret`, shown only now.",
			description: "A new secret for `standard_webhooks` or `header_token` verification; the old one stops verifying at once. 409 `no_verification` without verification.",
		},
		{
			method: "POST", path: "/api/v1/automation/endpoints/{id}/test", operationID: "testAutomationEndpoint", serve: callWithBody(a.testEndpoint),
			tag: tag, scope: "automation:write", status: http.StatusAccepted, errors: []int{409, 422},
			summary: "Send a test payload",
			returns: "The call's id.",
			description: "Publishes `payload` to the endpoint as a call would (schema, event, action), without the " +
				"verification a tool's call needs. A disabled endpoint is 409 `endpoint_disabled`.",
		},
		{
			method: "GET", path: "/api/v1/automation/endpoints/{id}/calls", operationID: "listAutomationEndpointCalls", serve: callWith(a.listEndpointCalls),
			tag: tag, scope: "automation:read", errors: []int{410},
			summary:     "List an endpoint's calls",
			returns:     "A page of calls, newest first, with their payloads.",
			description: "The calls the endpoint accepted (each also an `automation.published` event).",
		},
		{
			method: "GET", path: "/api/v1/automation/endpoints/{id}/runs", operationID: "listAutomationEndpointRuns", serve: callWith(a.listEndpointRuns),
			tag: tag, scope: "automation:read", errors: []int{410},
			summary: "List an endpoint's action runs",
			returns: "A page of runs, newest first.",
			description: "Each run: the action as rendered for its call (`input`), what it produced (`output`: a message or " +
				"link id, the target's status), its `error`, attempts and duration.",
		},
	}
}
