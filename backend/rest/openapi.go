package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The OpenAPI 3.1 document is built in Go from the operation list in openapi_spec.go, so the
// shared parts (the error envelope, the auth and rate-limit responses, the headers) are
// written once. It is kept apart from the route table on purpose: a test checks that the
// two list the same operations, and that real responses validate against the document.

func (a *api) getOpenAPI(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(a.openAPIDoc)))
	h.Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(a.openAPIDoc)
}

type obj = map[string]any

// operation describes one API operation for the document.
type operation struct {
	method, path string
	id           string
	tag          string
	summary      string
	description  string
	// scope is the scope a key needs ("" for any valid key); public operations take no key.
	scope  string
	public bool
	params []obj
	// body is the request body schema and example (nil: no body). bodyOptional marks
	// bodies that may be left out.
	body         obj
	bodyExample  any
	bodyOptional bool
	// ok is the success status, with its schema and example.
	okStatus  int
	okSchema  obj
	okExample any
	okText    string
	// errors lists the error statuses beyond the ones every authenticated call can return
	// (401, 403, 429, 500).
	errors []int
}

// errorResponses are the component responses every error status refers to.
var errorResponses = map[int]struct{ name, description, example string }{
	400: {"BadRequest", "The request is invalid: a parameter or body field is wrong (`param` names it).", "validation_failed"},
	401: {"Unauthorized", "No API key, or one that is malformed, unknown, revoked or expired. The body is the same in every case but for `code`.", "invalid_api_key"},
	403: {"Forbidden", "The key lacks the scope the operation needs (`insufficient_scope`, naming it), or may not be used from the request's Origin (`origin_not_allowed`).", "insufficient_scope"},
	404: {"NotFound", "No such object in the key's workspace (objects of other workspaces are never visible).", "not_found"},
	409: {"Conflict", "The request conflicts with the current state, or its Idempotency-Key was used with a different request (`idempotency_conflict`).", "idempotency_conflict"},
	413: {"PayloadTooLarge", "The request body is larger than the limit (1 MiB by default).", "payload_too_large"},
	415: {"UnsupportedMediaType", "The request body is not sent as `Content-Type: application/json`.", "unsupported_media_type"},
	422: {"Unprocessable", "The request is well formed but cannot be carried out (for example, the channel does not support it).", "unsupported_operation"},
	429: {"RateLimited", "The key's rate limit is exhausted; retry after `Retry-After` seconds.", "rate_limit_exceeded"},
	500: {"InternalError", "Something went wrong on our side. The request id helps us find it.", "internal_error"},
	503: {"Unavailable", "The service is temporarily unavailable; retry later.", "service_unavailable"},
}

var errorTypes = map[int]string{400: typeInvalidRequest, 401: typeAuthentication, 403: typePermission, 404: typeInvalidRequest,
	409: typeInvalidRequest, 413: typeInvalidRequest, 415: typeInvalidRequest, 422: typeInvalidRequest, 429: typeRateLimit, 500: typeAPI, 503: typeAPI}

var errorMessages = map[string]string{
	"validation_failed":      "limit must be an integer between 1 and 100",
	"invalid_api_key":        "The API key is invalid, revoked or expired. Create a key in the console at /user/api.",
	"insufficient_scope":     "this API key lacks the scope models:read",
	"not_found":              "event not found",
	"idempotency_conflict":   "this Idempotency-Key was used with a different request",
	"payload_too_large":      "the request body is larger than 1048576 bytes",
	"unsupported_media_type": "the request body must be JSON with Content-Type: application/json (got text/plain)",
	"unsupported_operation":  "this channel cannot do that",
	"rate_limit_exceeded":    "too many requests for this API key; retry after 1 s (limit: 40 requests at once, 20 per second)",
	"internal_error":         "internal error",
	"service_unavailable":    "the service is temporarily unavailable",
}

func errorParam(code string) any {
	switch code {
	case "validation_failed":
		return "limit"
	case "idempotency_conflict":
		return "Idempotency-Key"
	case "unsupported_media_type":
		return "Content-Type"
	}
	return nil
}

// openAPI builds the document. baseURL, when set, is named as the server.
func openAPI(baseURL string) obj {
	paths := obj{}
	for _, op := range operations() {
		item, _ := paths[op.path].(obj)
		if item == nil {
			item = obj{}
			paths[op.path] = item
		}
		item[strings.ToLower(op.method)] = op.build()
	}
	responses := obj{}
	for status, r := range errorResponses {
		headers := obj{"X-Request-Id": obj{"$ref": "#/components/headers/X-Request-Id"}}
		switch status {
		case 401:
			headers["WWW-Authenticate"] = obj{"description": "`Bearer realm=\"switchboard\"`", "schema": obj{"type": "string"}}
		case 429:
			headers["Retry-After"] = obj{"$ref": "#/components/headers/Retry-After"}
		}
		if status != 401 {
			for _, h := range []string{"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} {
				headers[h] = obj{"$ref": "#/components/headers/" + h}
			}
		}
		responses[r.name] = obj{
			"description": r.description,
			"headers":     headers,
			"content": obj{"application/json": obj{
				"schema": obj{"$ref": "#/components/schemas/Error"},
				"example": obj{"error": obj{"message": errorMessages[r.example], "type": errorTypes[status],
					"param": errorParam(r.example), "code": r.example, "request_id": "req_01jr8c5y0v7m2k4q9x3n6p8t1w"}},
			}},
		}
	}
	doc := obj{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
		"info": obj{
			"title":   "Switchboard API",
			"version": "1.0.0",
			"summary": "Messaging channels, short links, automation and webhooks, driven by API keys.",
			"description": "Call every operation with `Authorization: Bearer <API key>` (create keys in the console at /user/api). " +
				"Bodies are JSON with snake_case fields; times are RFC 3339 UTC with milliseconds; ids are prefixed (`evt_`, `wh_`, ...). " +
				"Lists take `limit` (1-100, default 20) and `after` (the previous page's `next_cursor`). " +
				"Errors use the OpenAI envelope `{\"error\":{\"message\",\"type\",\"param\",\"code\",\"request_id\"}}`. " +
				"Every POST accepts an `Idempotency-Key` header: the same key with the same body within 24 hours replays the first response. " +
				"Each key is rate limited (token bucket); the `x-ratelimit-*` headers report its state. " +
				"The model endpoints follow OpenAI's API, so the OpenAI SDKs work with base URL `<this server>/api/v1`.",
		},
		"tags": []obj{
			{"name": "Account", "description": "The calling API key and its workspace."},
			{"name": "Models", "description": "The models the workspace can use, in OpenAI's shapes."},
			{"name": "Events", "description": "The workspace's event log: every change, as the same envelope webhooks deliver."},
			{"name": "Webhooks", "description": "Endpoints that receive the workspace's events, signed per the Standard Webhooks specification, and their deliveries."},
			{"name": "Meta", "description": "This description of the API."},
		},
		"security": []obj{{"bearerAuth": []string{}}},
		"paths":    paths,
		"components": obj{
			"securitySchemes": obj{"bearerAuth": obj{"type": "http", "scheme": "bearer", "bearerFormat": "sb_live_…",
				"description": "An API key created in the console: `Authorization: Bearer sb_live_…`."}},
			"schemas":   schemas(),
			"responses": responses,
			"headers":   headers(),
			"parameters": obj{
				"Limit": obj{"name": "limit", "in": "query", "required": false,
					"description": "How many objects to return, 1 to 100.",
					"schema":      obj{"type": "integer", "minimum": 1, "maximum": 100, "default": 20}, "example": 20},
				"After": obj{"name": "after", "in": "query", "required": false,
					"description": "A cursor: the `next_cursor` of the previous page. Leave it out for the first page.",
					"schema":      obj{"type": "string"}, "example": "evt_01jr8c5y0v7m2k4q9x3n6p8t1w"},
				"IdempotencyKey": obj{"name": "Idempotency-Key", "in": "header", "required": false,
					"description": "A unique key (up to 255 characters, e.g. a UUID) that makes retrying this request safe: " +
						"the same key with the same body within 24 hours returns the first response again, with `Idempotent-Replayed: true`.",
					"schema": obj{"type": "string", "minLength": 1, "maxLength": 255}, "example": "9b2e6c0a-8a4f-4c1e-9f0e-2a7d4b1c3e5f"},
			},
		},
	}
	if baseURL != "" {
		doc["servers"] = []obj{{"url": strings.TrimSuffix(baseURL, "/"), "description": "This Switchboard server"}}
	}
	return doc
}

func (op operation) build() obj {
	description := op.description
	switch {
	case op.public:
	case op.scope == "":
		description += "\n\nNeeds any valid API key."
	default:
		description += "\n\nNeeds scope `" + op.scope + "`."
	}
	o := obj{
		"operationId": op.id,
		"summary":     op.summary,
		"description": description,
		"tags":        []string{op.tag},
	}
	params := append([]obj{}, op.params...)
	if op.method == http.MethodPost {
		params = append(params, obj{"$ref": "#/components/parameters/IdempotencyKey"})
	}
	if len(params) > 0 {
		o["parameters"] = params
	}
	if op.public {
		o["security"] = []obj{}
	} else if op.scope != "" {
		o["x-required-scope"] = op.scope
	}
	if op.body != nil {
		o["requestBody"] = obj{
			"required": !op.bodyOptional,
			"content":  obj{"application/json": obj{"schema": op.body, "example": op.bodyExample}},
		}
	}
	okHeaders := obj{"X-Request-Id": obj{"$ref": "#/components/headers/X-Request-Id"}}
	if !op.public {
		for _, h := range []string{"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} {
			okHeaders[h] = obj{"$ref": "#/components/headers/" + h}
		}
	}
	if op.method == http.MethodPost {
		okHeaders["Idempotent-Replayed"] = obj{"$ref": "#/components/headers/Idempotent-Replayed"}
	}
	ok := obj{"description": op.okText, "headers": okHeaders}
	if op.okSchema != nil {
		ok["content"] = obj{"application/json": obj{"schema": op.okSchema, "example": op.okExample}}
	}
	responses := obj{strconv.Itoa(op.okStatus): ok}
	statuses := []int{}
	if !op.public {
		statuses = append(statuses, 401, 403, 429, 500)
	}
	if op.body != nil || op.method == http.MethodPost {
		statuses = append(statuses, 400, 413)
	}
	if op.body != nil {
		statuses = append(statuses, 415)
	}
	if op.method == http.MethodPost {
		statuses = append(statuses, 409) // Idempotency-Key reused with another body
	}
	for _, s := range op.errors {
		if !slices.Contains(statuses, s) {
			statuses = append(statuses, s)
		}
	}
	sort.Ints(statuses)
	for _, s := range statuses {
		responses[strconv.Itoa(s)] = obj{"$ref": "#/components/responses/" + errorResponses[s].name}
	}
	o["responses"] = responses
	return o
}

func headers() obj {
	intHeader := func(description string) obj {
		return obj{"description": description, "schema": obj{"type": "integer", "minimum": 0}}
	}
	return obj{
		"X-Request-Id": obj{"description": "The request's id (yours, if you sent a sane X-Request-Id; else `req_…`). Quote it when asking for help.",
			"required": true, "schema": obj{"type": "string"}},
		"x-ratelimit-limit":     intHeader("How many requests the key may make at once (the size of its token bucket)."),
		"x-ratelimit-remaining": intHeader("How many requests the key may still make at once."),
		"x-ratelimit-reset":     intHeader("Seconds until the key's bucket is full again."),
		"Retry-After":           obj{"description": "Seconds to wait before retrying.", "required": true, "schema": obj{"type": "integer", "minimum": 1}},
		"Idempotent-Replayed": obj{"description": "`true` when this response is the replay of an earlier request with the same Idempotency-Key.",
			"schema": obj{"type": "string", "enum": []string{"true"}}},
	}
}

// mustMarshalOpenAPI encodes the document once, at start-up.
func mustMarshalOpenAPI(doc obj) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		panic("rest: encode OpenAPI document: " + err.Error())
	}
	return buf.Bytes()
}
