package rest

// The operations and schemas of the OpenAPI document. Keep this beside routes.go: a test
// fails when the two disagree.

func ref(schema string) obj { return obj{"$ref": "#/components/schemas/" + schema} }

func pathParam(name, description, example string) obj {
	return obj{"name": name, "in": "path", "required": true, "description": description,
		"schema": obj{"type": "string"}, "example": example}
}

func paramRef(name string) obj { return obj{"$ref": "#/components/parameters/" + name} }

// Examples shared by several operations.
var (
	exampleWorkspace = obj{"object": "workspace", "id": "ws_01jr8c2k7e5w3v9t6q4m2n8p0d", "name": "Ada's workspace",
		"created_at": "2025-04-08T09:12:44.318Z"}
	exampleKeyCreated = obj{"object": "api_key", "id": "key_01jr8c4a9d2f6h8k0m3p5r7t9v", "workspace_id": "ws_01jr8c2k7e5w3v9t6q4m2n8p0d",
		"name": "Production server", "prefix": "sb_live_3kTq", "last_four": "9fQz", "scopes": []string{"models:read", "events:read"},
		"allowed_origins": []string{}, "status": "active", "created_at": "2025-04-08T09:15:02.771Z",
		"last_used_at": nil, "expires_at": nil, "revoked_at": nil}
	exampleEvent = obj{"id": "evt_01jr8c4a9fz3x1w7v5t3r1p9n7", "type": "api_key.created", "timestamp": "2025-04-08T09:15:02.771Z",
		"workspace_id": "ws_01jr8c2k7e5w3v9t6q4m2n8p0d", "data": exampleKeyCreated}
	exampleModel   = obj{"id": "gpt-4o-mini", "object": "model", "created": 1721172741, "owned_by": "openai"}
	exampleWebhook = obj{"object": "webhook", "id": "wh_01jr8d0c3b5n7q9s1u3w5y7a9c", "url": "https://example.com/webhooks/switchboard",
		"description": "Order system", "event_types": []string{"message.received", "link.clicked"}, "instance_id": nil,
		"enabled": true, "disabled_reason": nil, "created_at": "2025-04-08T10:20:31.502Z", "updated_at": "2025-04-08T10:20:31.502Z"}
	exampleDelivery = obj{"object": "webhook_delivery", "id": "whd_01jr8d2m6p8r0t2v4x6z8b0d2f", "webhook_id": "wh_01jr8d0c3b5n7q9s1u3w5y7a9c",
		"event_id": "evt_01jr8d2m6n4k2h0f8d6b4z2x0v", "event_type": "link.clicked", "status": "pending",
		"attempts": []obj{{"attempted_at": "2025-04-08T10:21:02.118Z", "status_code": 503, "latency_ms": 212,
			"response_body": "Service Unavailable", "error": "the endpoint answered 503"}},
		"next_attempt_at": "2025-04-08T10:21:07.118Z", "created_at": "2025-04-08T10:21:02.090Z"}
	webhookID  = pathParam("id", "The webhook endpoint's id.", "wh_01jr8d0c3b5n7q9s1u3w5y7a9c")
	deliveryID = pathParam("delivery_id", "The delivery's id.", "whd_01jr8d2m6p8r0t2v4x6z8b0d2f")
)

func operations() []operation {
	return []operation{
		{
			method: "GET", path: "/api/v1/openapi.json", id: "getOpenAPI", tag: "Meta", public: true,
			summary:     "Get this OpenAPI document",
			description: "The OpenAPI 3.1 description of every `/api/v1` operation. It needs no API key and is not rate limited.",
			okStatus:    200, okText: "The OpenAPI document.",
			okSchema:  obj{"type": "object", "required": []string{"openapi", "info", "paths"}},
			okExample: obj{"openapi": "3.1.0", "info": obj{"title": "Switchboard API", "version": "1.0.0"}, "paths": obj{}},
		},
		{
			method: "GET", path: "/api/v1/me", id: "getMe", tag: "Account",
			summary: "Get the calling API key",
			description: "The API key the request was made with (never its secret) and its workspace. " +
				"Use it to test a connection: it answers for any valid key.",
			okStatus: 200, okText: "The calling key and its workspace.",
			okSchema:  ref("Me"),
			okExample: merge(exampleKeyCreated, obj{"last_used_at": "2025-04-08T10:02:19.044Z", "workspace": exampleWorkspace}),
		},
		{
			method: "GET", path: "/api/v1/models", id: "listModels", tag: "Models", scope: "models:read",
			summary: "List models",
			description: "The models the workspace can use, in exactly OpenAI's list shape, so OpenAI SDKs work with " +
				"base URL `<server>/api/v1`. The catalog is set by the operator.",
			okStatus: 200, okText: "The model catalog.",
			okSchema: ref("ModelList"),
			okExample: obj{"object": "list", "data": []obj{exampleModel,
				{"id": "claude-sonnet-4-5", "object": "model", "created": 1759104000, "owned_by": "anthropic"}}},
		},
		{
			method: "GET", path: "/api/v1/models/{id}", id: "getModel", tag: "Models", scope: "models:read",
			summary:     "Get a model",
			description: "One model of the catalog, in OpenAI's shape. Model ids may contain `/` and `:` (e.g. `meta/llama-3.1-8b:free`).",
			params:      []obj{pathParam("id", "The model's id.", "gpt-4o-mini")},
			okStatus:    200, okText: "The model.",
			okSchema: ref("Model"), okExample: exampleModel,
			errors: []int{404},
		},
		{
			method: "GET", path: "/api/v1/events", id: "listEvents", tag: "Events", scope: "events:read",
			summary: "List events",
			description: "The workspace's events, newest first, in the envelope webhooks deliver. " +
				"Filter by type and time; page with `limit` and `after`.",
			params: []obj{
				{"name": "type", "in": "query", "required": false, "style": "form", "explode": true,
					"description": "Only events of these types: repeat the parameter or separate types with commas " +
						"(`?type=api_key.created,api_key.revoked`). `GET /api/v1/event-types` lists them.",
					"schema": obj{"type": "array", "items": obj{"type": "string"}}, "example": []string{"api_key.created"}},
				{"name": "since", "in": "query", "required": false, "description": "Only events at or after this time (RFC 3339).",
					"schema": obj{"type": "string", "format": "date-time"}, "example": "2025-04-01T00:00:00Z"},
				{"name": "until", "in": "query", "required": false, "description": "Only events before this time (RFC 3339).",
					"schema": obj{"type": "string", "format": "date-time"}, "example": "2025-04-30T00:00:00Z"},
				paramRef("Limit"),
				paramRef("After"),
			},
			okStatus: 200, okText: "A page of events.",
			okSchema: ref("EventList"),
			okExample: obj{"object": "list", "data": []obj{exampleEvent}, "has_more": true,
				"next_cursor": "evt_01jr8c4a9fz3x1w7v5t3r1p9n7"},
			errors: []int{400},
		},
		{
			method: "GET", path: "/api/v1/events/{id}", id: "getEvent", tag: "Events", scope: "events:read",
			summary:     "Get an event",
			description: "One event of the workspace, in the envelope webhooks deliver.",
			params:      []obj{pathParam("id", "The event's id.", "evt_01jr8c4a9fz3x1w7v5t3r1p9n7")},
			okStatus:    200, okText: "The event.",
			okSchema: ref("Event"), okExample: exampleEvent,
			errors: []int{404},
		},
		{
			method: "GET", path: "/api/v1/event-types", id: "listEventTypes", tag: "Events",
			summary: "List event types",
			description: "Every event type with a description and a sample of its `data`, shaped exactly like the live one " +
				"(for building integrations and workflow-tool triggers).",
			okStatus: 200, okText: "Every event type.",
			okSchema: ref("EventTypeList"),
			okExample: obj{"object": "list", "data": []obj{{"type": "api_key.created", "description": "An API key was created.",
				"sample": exampleKeyCreated}}},
		},
		{
			method: "GET", path: "/api/v1/webhooks", id: "listWebhooks", tag: "Webhooks", scope: "webhooks:read",
			summary:     "List webhook endpoints",
			description: "The workspace's webhook endpoints, newest first. Signing secrets are never shown here.",
			params:      []obj{paramRef("Limit"), paramRef("After")},
			okStatus:    200, okText: "A page of endpoints.",
			okSchema:  ref("WebhookList"),
			okExample: obj{"object": "list", "data": []obj{exampleWebhook}, "has_more": false, "next_cursor": nil},
			errors:    []int{400},
		},
		{
			method: "POST", path: "/api/v1/webhooks", id: "createWebhook", tag: "Webhooks", scope: "webhooks:write",
			summary: "Create a webhook endpoint",
			description: "Registers an endpoint that receives the workspace's events of the chosen types (or `*` for all), " +
				"optionally only those of one channel instance. The response holds the signing secret (`whsec_…`) " +
				"this once: store it to verify deliveries. Targets must be public addresses unless the operator allow-lists them.",
			body: ref("CreateWebhookRequest"),
			bodyExample: obj{"url": "https://example.com/webhooks/switchboard", "description": "Order system",
				"event_types": []string{"message.received", "link.clicked"}},
			okStatus: 201, okText: "The endpoint, with its signing secret (shown once).",
			okSchema:  ref("WebhookWithSecret"),
			okExample: merge(exampleWebhook, obj{"secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}),
		},
		{
			method: "GET", path: "/api/v1/webhooks/{id}", id: "getWebhook", tag: "Webhooks", scope: "webhooks:read",
			summary:     "Get a webhook endpoint",
			description: "One endpoint of the workspace (without its secret).",
			params:      []obj{webhookID},
			okStatus:    200, okText: "The endpoint.",
			okSchema: ref("Webhook"), okExample: exampleWebhook,
			errors: []int{404},
		},
		{
			method: "PATCH", path: "/api/v1/webhooks/{id}", id: "updateWebhook", tag: "Webhooks", scope: "webhooks:write",
			summary: "Update a webhook endpoint",
			description: "Changes the fields sent and keeps the others. `instance_id: null` (or `\"\"`) removes the instance filter. " +
				"Disabling an endpoint fails its pending deliveries (retry them after enabling it again); " +
				"enabling it clears its `disabled_reason`.",
			params:      []obj{webhookID},
			body:        ref("UpdateWebhookRequest"),
			bodyExample: obj{"event_types": []string{"*"}, "enabled": true},
			okStatus:    200, okText: "The changed endpoint.",
			okSchema: ref("Webhook"), okExample: merge(exampleWebhook, obj{"event_types": []string{"*"}}),
			errors: []int{404},
		},
		{
			method: "DELETE", path: "/api/v1/webhooks/{id}", id: "deleteWebhook", tag: "Webhooks", scope: "webhooks:write",
			summary:     "Delete a webhook endpoint",
			description: "Removes the endpoint and its delivery log; pending deliveries are not sent.",
			params:      []obj{webhookID},
			okStatus:    200, okText: "The endpoint is deleted.",
			okSchema:  ref("Deleted"),
			okExample: obj{"object": "webhook", "id": "wh_01jr8d0c3b5n7q9s1u3w5y7a9c", "deleted": true},
			errors:    []int{404},
		},
		{
			method: "POST", path: "/api/v1/webhooks/{id}/rotate-secret", id: "rotateWebhookSecret", tag: "Webhooks", scope: "webhooks:write",
			summary: "Rotate a webhook endpoint's signing secret",
			description: "Gives the endpoint a new signing secret, shown this once. Until `previous_secret_expires_at` (24 hours) " +
				"every delivery is signed with both secrets, so receivers can switch without missing a message.",
			params:   []obj{webhookID},
			okStatus: 200, okText: "The endpoint with its new secret.",
			okSchema: ref("WebhookRotated"),
			okExample: merge(exampleWebhook, obj{"secret": "whsec_3cXzq1bWm0Qh5Y0sNw9iE2k6Tq8rVfJd",
				"previous_secret_expires_at": "2025-04-09T10:25:00.000Z"}),
			errors: []int{404},
		},
		{
			method: "POST", path: "/api/v1/webhooks/{id}/test", id: "testWebhook", tag: "Webhooks", scope: "webhooks:write",
			summary: "Send a test event",
			description: "Queues a test delivery to this endpoint only, whatever it subscribes to: by default a `webhook.test` " +
				"event whose data is the endpoint, or a sample event of the type given. Test events are not written to the event log.",
			params:       []obj{webhookID},
			body:         ref("TestWebhookRequest"),
			bodyExample:  obj{"event_type": "link.clicked"},
			bodyOptional: true,
			okStatus:     202, okText: "The test delivery, queued.",
			okSchema: ref("Delivery"),
			okExample: merge(exampleDelivery, obj{"attempts": []obj{}, "next_attempt_at": "2025-04-08T10:21:02.090Z",
				"event_type": "webhook.test"}),
			errors: []int{404},
		},
		{
			method: "GET", path: "/api/v1/webhooks/{id}/deliveries", id: "listWebhookDeliveries", tag: "Webhooks", scope: "webhooks:read",
			summary: "List an endpoint's deliveries",
			description: "Deliveries to the endpoint, newest first, each with every attempt: time, status code, latency, " +
				"the first 1 KB of the response body and the error.",
			params:   []obj{webhookID, paramRef("Limit"), paramRef("After")},
			okStatus: 200, okText: "A page of deliveries.",
			okSchema:  ref("DeliveryList"),
			okExample: obj{"object": "list", "data": []obj{exampleDelivery}, "has_more": false, "next_cursor": nil},
			errors:    []int{400, 404},
		},
		{
			method: "GET", path: "/api/v1/webhooks/{id}/deliveries/{delivery_id}", id: "getWebhookDelivery", tag: "Webhooks", scope: "webhooks:read",
			summary:     "Get a delivery",
			description: "One delivery to the endpoint, with every attempt.",
			params:      []obj{webhookID, deliveryID},
			okStatus:    200, okText: "The delivery.",
			okSchema: ref("Delivery"), okExample: exampleDelivery,
			errors: []int{404},
		},
		{
			method: "POST", path: "/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry", id: "retryWebhookDelivery", tag: "Webhooks", scope: "webhooks:write",
			summary: "Retry a delivery",
			description: "Queues one more attempt now. A failed or succeeded delivery gets one attempt; a pending one keeps its " +
				"remaining retries and is brought forward. A disabled endpoint must be enabled first (409 `webhook_disabled`).",
			params:   []obj{webhookID, deliveryID},
			okStatus: 202, okText: "The delivery, queued.",
			okSchema:  ref("Delivery"),
			okExample: exampleDelivery,
			errors:    []int{404},
		},
	}
}

func merge(a, b obj) obj {
	out := obj{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// Schema helpers. Objects are closed (additionalProperties: false) so the tests notice a
// response that grew a field the document does not describe.
func object(required []string, props obj) obj {
	return obj{"type": "object", "required": required, "properties": props, "additionalProperties": false}
}

func str(description string) obj { return obj{"type": "string", "description": description} }

func constant(v string) obj { return obj{"type": "string", "const": v} }

func timestamp(description string) obj {
	return obj{"type": "string", "format": "date-time", "description": description}
}

func nullableTimestamp(description string) obj {
	return obj{"type": []string{"string", "null"}, "format": "date-time", "description": description}
}

func listOfSchema(item string, description string) obj {
	return object([]string{"object", "data", "has_more", "next_cursor"}, obj{
		"object":      constant("list"),
		"data":        obj{"type": "array", "items": ref(item), "description": description},
		"has_more":    obj{"type": "boolean", "description": "Whether there are more objects after this page."},
		"next_cursor": obj{"type": []string{"string", "null"}, "description": "Pass as `after` to get the next page; null on the last page."},
	})
}

func schemas() obj {
	return obj{
		"Error": object([]string{"error"}, obj{
			"error": object([]string{"message", "type", "param", "code", "request_id"}, obj{
				"message": str("What went wrong, for people."),
				"type": obj{"type": "string", "description": "The class of error.",
					"enum": []string{typeInvalidRequest, typeAuthentication, typePermission, typeRateLimit, typeAPI}},
				"param":      obj{"type": []string{"string", "null"}, "description": "The parameter, field or header at fault, if any."},
				"code":       str("A stable machine code such as `invalid_api_key`, `insufficient_scope`, `validation_failed` (docs/api.md lists them all)."),
				"request_id": str("The request's id, also in the X-Request-Id header."),
			}),
		}),
		"Model": object([]string{"id", "object", "created", "owned_by"}, obj{
			"id":       str("The model's id."),
			"object":   constant("model"),
			"created":  obj{"type": "integer", "description": "When the model was created (Unix seconds)."},
			"owned_by": str("Who provides the model."),
		}),
		"ModelList": object([]string{"object", "data"}, obj{
			"object": constant("list"),
			"data":   obj{"type": "array", "items": ref("Model")},
		}),
		"Workspace": object([]string{"object", "id", "name", "created_at"}, obj{
			"object":     constant("workspace"),
			"id":         str("The workspace's id (`ws_…`)."),
			"name":       str("The workspace's name."),
			"created_at": timestamp("When the workspace was created."),
		}),
		"Me": object([]string{"object", "id", "workspace_id", "name", "prefix", "last_four", "scopes", "allowed_origins",
			"status", "created_at", "last_used_at", "expires_at", "revoked_at", "workspace"}, obj{
			"object":       constant("api_key"),
			"id":           str("The key's id (`key_…`)."),
			"workspace_id": str("The key's workspace."),
			"name":         str("The key's name."),
			"prefix":       str("The start of the secret, for recognising the key."),
			"last_four":    str("The last four characters of the secret."),
			"scopes": obj{"type": "array", "items": obj{"type": "string"},
				"description": "What the key may do; `*` is every scope."},
			"allowed_origins": obj{"type": "array", "items": obj{"type": "string"},
				"description": "Browser origins the key may be used from (`*` for any); other sites are refused."},
			"status":       obj{"type": "string", "enum": []string{"active", "revoked", "expired"}},
			"created_at":   timestamp("When the key was created."),
			"last_used_at": nullableTimestamp("When the key was last used (updated about once a minute)."),
			"expires_at":   nullableTimestamp("When the key stops working, if ever."),
			"revoked_at":   nullableTimestamp("When the key was revoked."),
			"workspace":    ref("Workspace"),
		}),
		"Event": object([]string{"id", "type", "timestamp", "workspace_id", "data"}, obj{
			"id":           str("The event's id (`evt_…`); ids sort by time."),
			"type":         str("The event type, such as `api_key.created`."),
			"timestamp":    timestamp("When the change happened."),
			"workspace_id": str("The workspace the event belongs to."),
			"data":         obj{"type": "object", "description": "The object the event is about, as of the change (see the event types)."},
		}),
		"EventList": listOfSchema("Event", "Events, newest first."),
		"EventType": object([]string{"type", "description", "sample"}, obj{
			"type":        str("The event type."),
			"description": str("What the event means."),
			"sample":      obj{"type": "object", "description": "A sample `data` object, shaped exactly like a live one."},
		}),
		"EventTypeList": object([]string{"object", "data"}, obj{
			"object": constant("list"),
			"data":   obj{"type": "array", "items": ref("EventType")},
		}),
		"Webhook":           object(webhookRequired, webhookProps()),
		"WebhookWithSecret": object(append([]string{"secret"}, webhookRequired...), merge(webhookProps(), obj{"secret": secretSchema})),
		"WebhookRotated": object(append([]string{"secret", "previous_secret_expires_at"}, webhookRequired...), merge(webhookProps(), obj{
			"secret":                     secretSchema,
			"previous_secret_expires_at": timestamp("Until then the previous secret signs every delivery too."),
		})),
		"WebhookList": listOfSchema("Webhook", "Endpoints, newest first."),
		"CreateWebhookRequest": obj{"type": "object", "required": []string{"url", "event_types"}, "additionalProperties": false,
			"properties": obj{
				"url":         obj{"type": "string", "format": "uri", "maxLength": 2048, "description": "Where to send events: an absolute http(s) URL of a public host."},
				"description": obj{"type": "string", "maxLength": 500, "description": "What the endpoint is for."},
				"event_types": eventTypesSchema,
				"instance_id": obj{"type": []string{"string", "null"}, "description": "Only events of this channel instance (`inst_…`)."},
				"enabled":     obj{"type": "boolean", "default": true, "description": "Whether deliveries are sent."},
			}},
		"UpdateWebhookRequest": obj{"type": "object", "additionalProperties": false, "minProperties": 0,
			"properties": obj{
				"url":         obj{"type": "string", "format": "uri", "maxLength": 2048},
				"description": obj{"type": "string", "maxLength": 500},
				"event_types": eventTypesSchema,
				"instance_id": obj{"type": []string{"string", "null"}, "description": "An instance id, or null to remove the filter."},
				"enabled":     obj{"type": "boolean"},
			}},
		"TestWebhookRequest": obj{"type": "object", "additionalProperties": false,
			"properties": obj{
				"event_type": obj{"type": "string", "default": "webhook.test", "description": "The type of the sample event to send."},
			}},
		"Deleted": object([]string{"object", "id", "deleted"}, obj{
			"object":  str("The kind of object deleted."),
			"id":      str("The deleted object's id."),
			"deleted": obj{"type": "boolean", "const": true},
		}),
		"Delivery": object([]string{"object", "id", "webhook_id", "event_id", "event_type", "status", "attempts", "next_attempt_at", "created_at"}, obj{
			"object":          constant("webhook_delivery"),
			"id":              str("The delivery's id (`whd_…`)."),
			"webhook_id":      str("The endpoint."),
			"event_id":        str("The event delivered; also the `webhook-id` header, the same on every attempt."),
			"event_type":      str("The event's type."),
			"status":          obj{"type": "string", "enum": []string{"pending", "succeeded", "failed"}},
			"attempts":        obj{"type": "array", "items": ref("DeliveryAttempt"), "description": "Every attempt so far, oldest first."},
			"next_attempt_at": nullableTimestamp("When the next attempt is due (null unless pending)."),
			"created_at":      timestamp("When the delivery was queued."),
		}),
		"DeliveryAttempt": object([]string{"attempted_at", "status_code", "latency_ms", "response_body", "error"}, obj{
			"attempted_at":  timestamp("When the request was sent."),
			"status_code":   obj{"type": []string{"integer", "null"}, "description": "The endpoint's HTTP status (null when no response arrived)."},
			"latency_ms":    obj{"type": "integer", "minimum": 0, "description": "How long the attempt took."},
			"response_body": obj{"type": []string{"string", "null"}, "description": "The first 1 KB of the response body."},
			"error":         obj{"type": []string{"string", "null"}, "description": "Why the attempt failed (null on success)."},
		}),
		"DeliveryList": listOfSchema("Delivery", "Deliveries, newest first."),
	}
}

var webhookRequired = []string{"object", "id", "url", "description", "event_types", "instance_id", "enabled",
	"disabled_reason", "created_at", "updated_at"}

var (
	secretSchema     = obj{"type": "string", "pattern": "^whsec_", "description": "The signing secret (Standard Webhooks). Shown only in this response."}
	eventTypesSchema = obj{"type": "array", "minItems": 1, "maxItems": 100, "items": obj{"type": "string"},
		"description": "Event types to deliver (`GET /api/v1/event-types` lists them), or `[\"*\"]` for every type."}
)

func webhookProps() obj {
	return obj{
		"object":          constant("webhook"),
		"id":              str("The endpoint's id (`wh_…`)."),
		"url":             str("Where events are sent."),
		"description":     str("What the endpoint is for."),
		"event_types":     obj{"type": "array", "items": obj{"type": "string"}, "description": "The event types delivered; `[\"*\"]` is every type."},
		"instance_id":     obj{"type": []string{"string", "null"}, "description": "Only events of this channel instance, if set."},
		"enabled":         obj{"type": "boolean", "description": "Whether deliveries are sent."},
		"disabled_reason": obj{"type": []string{"string", "null"}, "description": "Why the endpoint was disabled (by a user, a 410 answer, or 5 days of failures)."},
		"created_at":      timestamp("When the endpoint was created."),
		"updated_at":      timestamp("When the endpoint last changed."),
	}
}
