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
	exampleModel = obj{"id": "gpt-4o-mini", "object": "model", "created": 1721172741, "owned_by": "openai"}
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
	}
}
