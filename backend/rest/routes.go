package rest

import (
	"net/http"
	"reflect"
)

// route is one operation of the API: how it is served and, from the same entry, how the
// OpenAPI document describes it (openapi.go builds the document from the route table; the
// schemas come from the Go types the handler decodes and returns, schema.go).
type route struct {
	method, path string
	operationID  string
	// handler is set by routes() from serve.
	handler http.HandlerFunc
	serve   endpoint
	// public routes take no key and no rate limit.
	public bool

	tag, summary, description string
	// scope is the scope a key needs ("" for any valid key), as the service checks it.
	scope string
	// status is the success status (default 200) and returns its description;
	// optionalBody lets the body be left out.
	status       int
	returns      string
	optionalBody bool
	// errors are statuses the operation can answer beyond the ones every operation of its
	// kind can (401, 403, 429, 500 with a key; 400, 413, 415 with a body; 400, 409, 413 for
	// POST; 400 with query parameters; 404 with path parameters).
	errors []int
	// bodyExample and example, when set, replace the examples made from the types' fields:
	// values of the request and response types.
	bodyExample, example any
}

// endpoint is a handler with the Go types of its input (nil: none; its path and query
// parameters, schema_params.go), its request body (nil: none) and its response.
type endpoint struct {
	input, body, response reflect.Type
	handler               func(a *api, rt route) http.HandlerFunc
}

// call serves a handler that takes no body: it returns the response object (written with
// the route's status) or an error (written as the error envelope).
func call[Out any](h func(*http.Request) (Out, error)) endpoint {
	return endpoint{response: reflect.TypeFor[Out](), handler: func(a *api, rt route) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			out, err := h(r)
			a.reply(w, r, rt.status, out, err)
		}
	}}
}

// callWith serves a handler whose input In holds the path and query parameters.
func callWith[In, Out any](h func(*http.Request, In) (Out, error)) endpoint {
	t := reflect.TypeFor[In]()
	return endpoint{input: t, response: reflect.TypeFor[Out](), handler: func(a *api, rt route) http.HandlerFunc {
		params := paramFields(t)
		return func(w http.ResponseWriter, r *http.Request) {
			var in In
			if err := readParams(r, &in, params); err != nil {
				a.error(w, r, err)
				return
			}
			out, err := h(r, in)
			a.reply(w, r, rt.status, out, err)
		}
	}}
}

// callWithBody serves a handler whose input In holds the parameters and the JSON body, which
// decodes strictly: unknown fields and wrong types are 400 naming the field, a body that is
// not JSON 415 (json.go).
func callWithBody[In, Out any](h func(*http.Request, In) (Out, error)) endpoint {
	t := reflect.TypeFor[In]()
	return endpoint{input: t, body: t, response: reflect.TypeFor[Out](), handler: func(a *api, rt route) http.HandlerFunc {
		read := decode
		if rt.optionalBody {
			read = decodeOptional
		}
		params := paramFields(t)
		return func(w http.ResponseWriter, r *http.Request) {
			var in In
			if err := read(r, &in); err != nil {
				a.error(w, r, err)
				return
			}
			if err := readParams(r, &in, params); err != nil {
				a.error(w, r, err)
				return
			}
			out, err := h(r, in)
			a.reply(w, r, rt.status, out, err)
		}
	}}
}

// raw serves a plain handler that writes Out itself.
func raw[Out any](h http.HandlerFunc) endpoint {
	return endpoint{response: reflect.TypeFor[Out](), handler: func(*api, route) http.HandlerFunc { return h }}
}

func (a *api) reply(w http.ResponseWriter, r *http.Request, status int, out any, err error) {
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, status, out)
}

// tags group the operations in the document and the console's API reference, in this order.
var tags = []struct{ name, description string }{
	{"Account", "The calling API key and its workspace."},
	{"Models", "The models the workspace can use, in OpenAI's shapes."},
	{"Events", "The workspace's event log: every change, as the same envelope webhooks deliver."},
	{"Webhooks", "Endpoints that receive the workspace's events, signed per the Standard Webhooks specification, and their deliveries."},
	{"Meta", "This description of the API."},
}

// routes is the route table: every /api/v1 operation and its documentation, in one place.
// Path variables use gorilla/mux syntax; {id:.+} lets model ids contain '/'. Descriptions
// are Markdown.
func (a *api) routes() []route {
	routes := []route{
		{
			method: "GET", path: "/api/v1/openapi.json", operationID: "getOpenAPI", serve: raw[openAPIDocument](a.getOpenAPI),
			public: true, tag: "Meta",
			summary:     "Get this OpenAPI document",
			returns:     "The OpenAPI document.",
			description: "The OpenAPI 3.1 description of every `/api/v1` operation. It needs no API key and is not rate limited.",
		},

		{
			method: "GET", path: "/api/v1/me", operationID: "getMe", serve: call(a.getMe),
			tag:     "Account",
			summary: "Get the calling API key",
			returns: "The calling key and its workspace.",
			description: "The API key the request was made with (never its secret) and its workspace. " +
				"Use it to test a connection: it answers for any valid key.",
		},

		{
			method: "GET", path: "/api/v1/models", operationID: "listModels", serve: raw[modelList](a.listModels),
			tag: "Models", scope: "models:read",
			summary: "List models",
			returns: "The model catalog.",
			description: "The models the workspace can use, in exactly OpenAI's list shape, so OpenAI SDKs work with " +
				"base URL `<server>/api/v1`. The catalog is set by the operator.",
		},
		{
			method: "GET", path: "/api/v1/models/{id:.+}", operationID: "getModel", serve: callWith(a.getModel),
			tag: "Models", scope: "models:read",
			summary:     "Get a model",
			returns:     "The model.",
			description: "One model of the catalog, in OpenAI's shape. Model ids may contain `/` and `:` (e.g. `meta/llama-3.1-8b:free`).",
		},

		{
			method: "GET", path: "/api/v1/events", operationID: "listEvents", serve: callWith(a.listEvents),
			tag: "Events", scope: "events:read",
			summary: "List events",
			returns: "A page of events.",
			description: "The workspace's events, newest first, in the envelope webhooks deliver. " +
				"Filter by type and time; page with `limit` and `after`.",
		},
		{
			method: "GET", path: "/api/v1/events/{id}", operationID: "getEvent", serve: callWith(a.getEvent),
			tag: "Events", scope: "events:read",
			summary:     "Get an event",
			returns:     "The event.",
			description: "One event of the workspace, in the envelope webhooks deliver.",
		},
		{
			method: "GET", path: "/api/v1/event-types", operationID: "listEventTypes", serve: call(a.listEventTypes),
			tag:     "Events",
			summary: "List event types",
			returns: "Every event type.",
			description: "Every event type with a description and a sample of its `data`, shaped exactly like the live one " +
				"(for building integrations and workflow-tool triggers).",
		},

		{
			method: "GET", path: "/api/v1/webhooks", operationID: "listWebhooks", serve: callWith(a.listWebhooks),
			tag: "Webhooks", scope: "webhooks:read",
			summary:     "List webhook endpoints",
			returns:     "A page of endpoints.",
			description: "The workspace's webhook endpoints, newest first. Signing secrets are never shown here.",
		},
		{
			method: "POST", path: "/api/v1/webhooks", operationID: "createWebhook", serve: callWithBody(a.createWebhook),
			tag: "Webhooks", scope: "webhooks:write", status: http.StatusCreated,
			summary: "Create a webhook endpoint",
			returns: "The endpoint, with its signing secret (shown once).",
			description: "Registers an endpoint that receives the workspace's events of the chosen types (or `*` for all), " +
				"optionally only those of one channel instance. The response holds the signing secret (`whsec_…`) " +
				"this once: store it to verify deliveries. Targets must be public addresses unless the operator allow-lists them.",
			bodyExample: createWebhookRequest{URL: "https://example.com/webhooks/switchboard", Description: "Order system",
				EventTypes: []string{"api_key.created", "api_key.revoked"}},
		},
		{
			method: "GET", path: "/api/v1/webhooks/{id}", operationID: "getWebhook", serve: callWith(a.getWebhook),
			tag: "Webhooks", scope: "webhooks:read",
			summary:     "Get a webhook endpoint",
			returns:     "The endpoint.",
			description: "One endpoint of the workspace (without its secret).",
		},
		{
			method: "PATCH", path: "/api/v1/webhooks/{id}", operationID: "updateWebhook", serve: callWithBody(a.updateWebhook),
			tag: "Webhooks", scope: "webhooks:write",
			summary: "Update a webhook endpoint",
			returns: "The changed endpoint.",
			description: "Changes the fields sent and keeps the others. `instance_id: null` (or `\"\"`) removes the instance filter. " +
				"Disabling an endpoint fails its pending deliveries (retry them after enabling it again); " +
				"enabling it clears its `disabled_reason`.",
			bodyExample: updateWebhookRequest{EventTypes: &[]string{"*"}, Enabled: ptr(true)},
		},
		{
			method: "DELETE", path: "/api/v1/webhooks/{id}", operationID: "deleteWebhook", serve: callWith(a.deleteWebhook),
			tag: "Webhooks", scope: "webhooks:write",
			summary:     "Delete a webhook endpoint",
			returns:     "The endpoint is deleted.",
			description: "Removes the endpoint and its delivery log; pending deliveries are not sent.",
		},
		{
			method: "POST", path: "/api/v1/webhooks/{id}/rotate-secret", operationID: "rotateWebhookSecret", serve: callWith(a.rotateWebhookSecret),
			tag: "Webhooks", scope: "webhooks:write",
			summary: "Rotate a webhook endpoint's signing secret",
			returns: "The endpoint with its new secret.",
			description: "Gives the endpoint a new signing secret, shown this once. Until `previous_secret_expires_at` (24 hours) " +
				"every delivery is signed with both secrets, so receivers can switch without missing a message.",
		},
		{
			method: "POST", path: "/api/v1/webhooks/{id}/test", operationID: "testWebhook", serve: callWithBody(a.testWebhook),
			tag: "Webhooks", scope: "webhooks:write", status: http.StatusAccepted, optionalBody: true,
			summary: "Send a test event",
			returns: "The test delivery, queued.",
			description: "Queues a test delivery to this endpoint only, whatever it subscribes to: by default a `webhook.test` " +
				"event whose data is the endpoint, or a sample event of the type given. Test events are not written to the event log.",
		},
		{
			method: "GET", path: "/api/v1/webhooks/{id}/deliveries", operationID: "listWebhookDeliveries", serve: callWith(a.listDeliveries),
			tag: "Webhooks", scope: "webhooks:read",
			summary: "List an endpoint's deliveries",
			returns: "A page of deliveries.",
			description: "Deliveries to the endpoint, newest first, each with every attempt: time, status code, latency, " +
				"the first 1 KB of the response body and the error.",
		},
		{
			method: "GET", path: "/api/v1/webhooks/{id}/deliveries/{delivery_id}", operationID: "getWebhookDelivery", serve: callWith(a.getDelivery),
			tag: "Webhooks", scope: "webhooks:read",
			summary:     "Get a delivery",
			returns:     "The delivery.",
			description: "One delivery to the endpoint, with every attempt.",
		},
		{
			method: "POST", path: "/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry", operationID: "retryWebhookDelivery", serve: callWith(a.retryDelivery),
			tag: "Webhooks", scope: "webhooks:write", status: http.StatusAccepted,
			summary: "Retry a delivery",
			returns: "The delivery, queued.",
			description: "Queues one more attempt now. A failed or succeeded delivery gets one attempt; a pending one keeps its " +
				"remaining retries and is brought forward. A disabled endpoint must be enabled first (409 `webhook_disabled`).",
		},
	}
	for i := range routes {
		if routes[i].status == 0 {
			routes[i].status = http.StatusOK
		}
		routes[i].handler = routes[i].serve.handler(a, routes[i])
	}
	return routes
}

func ptr[T any](v T) *T { return &v }
