package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The OpenAPI 3.1 document is built from the route table (routes.go): each route gives its
// summary, description, tag, scope and parameters, and its handler's Go types give the
// request and response schemas (schema.go). What operations share (the error envelope and
// responses, the auth and rate-limit headers, the list and Idempotency-Key parameters) is
// written once, here. The document is built and encoded once, at start-up; tests validate it
// as OpenAPI 3.1 and check every response (and every accepted request) against it.

func (a *api) getOpenAPI(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(a.openAPIDoc)))
	h.Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(a.openAPIDoc)
}

type obj = map[string]any

// openAPIDocument is the response of GET /openapi.json.
type openAPIDocument struct{}

func (openAPIDocument) jsonSchema() obj {
	return obj{"type": "object", "required": []string{"openapi", "info", "paths"},
		"properties": obj{"openapi": obj{"type": "string"}, "info": obj{"type": "object"}, "paths": obj{"type": "object"}},
		"examples":   []any{obj{"openapi": "3.1.0", "info": obj{"title": "Switchboard API", "version": "1.0.0"}, "paths": obj{}}}}
}

// errorResponses are the component responses every error status refers to.
var errorResponses = map[int]struct{ name, description, example string }{
	400: {"BadRequest", "The request is invalid: a parameter or body field is wrong (`param` names it), or it carries two `Authorization` headers (`multiple_authorization_headers`).", "validation_failed"},
	401: {"Unauthorized", "No API key (`missing_api_key`), or one that is malformed or unknown (`invalid_api_key`), revoked (`revoked_api_key`) or expired (`expired_api_key`); every key sent gets the same message, only `code` differs.", "invalid_api_key"},
	403: {"Forbidden", "The key lacks the scope the operation needs (`insufficient_scope`, naming it), or may not be used from the request's Origin (`origin_not_allowed`).", "insufficient_scope"},
	404: {"NotFound", "No such object in the key's workspace (objects of other workspaces are never visible).", "not_found"},
	410: {"CursorExpired", "The `after` cursor points into rows the retention settings have already deleted (`cursor_expired`): start again without `after`.", "cursor_expired"},
	409: {"Conflict", "The request conflicts with the current state, or its Idempotency-Key was used with a different request (`idempotency_conflict`).", "idempotency_conflict"},
	413: {"PayloadTooLarge", "The request body is larger than the limit (1 MiB by default).", "payload_too_large"},
	415: {"UnsupportedMediaType", "The request body is not sent as `Content-Type: application/json`.", "unsupported_media_type"},
	422: {"Unprocessable", "The request is well formed but cannot be carried out (for example, the channel does not support it).", "unsupported_by_channel"},
	429: {"RateLimited", "The key's rate limit is exhausted; retry after `Retry-After` seconds.", "rate_limit_exceeded"},
	500: {"InternalError", "Something went wrong on our side. The request id helps us find it.", "internal_error"},
	503: {"Unavailable", "The database is restarting or unreachable (`unavailable`), or a channel's provider did not answer (`channel_unavailable`): nothing was changed; retry after `Retry-After` seconds.", "unavailable"},
}

var errorTypes = map[int]string{400: typeInvalidRequest, 401: typeAuthentication, 403: typePermission, 404: typeInvalidRequest,
	409: typeInvalidRequest, 410: typeInvalidRequest, 413: typeInvalidRequest, 415: typeInvalidRequest, 422: typeInvalidRequest, 429: typeRateLimit, 500: typeAPI, 503: typeAPI}

var errorMessages = map[string]string{
	"validation_failed":      "limit must be an integer between 1 and 100",
	"invalid_api_key":        "The API key is invalid, revoked or expired. Create a key in the console at /user/api.",
	"insufficient_scope":     "this API key lacks the scope models:read",
	"not_found":              "event not found",
	"idempotency_conflict":   "this Idempotency-Key was used with a different request",
	"payload_too_large":      "the request body is larger than 1048576 bytes",
	"unsupported_media_type": "the request body must be JSON with Content-Type: application/json (got text/plain)",
	"unsupported_by_channel": "this channel cannot do that",
	"rate_limit_exceeded":    "too many requests for this API key; retry after 1 s (limit: 40 requests at once, 20 per second)",
	"internal_error":         "internal error",
	"unavailable":            "the database is unavailable; retry shortly",
	"cursor_expired":         "this cursor points into events older than the retention (30 days); list again without after",
}

func errorParam(code string) any {
	switch code {
	case "validation_failed":
		return "limit"
	case "idempotency_conflict":
		return "Idempotency-Key"
	case "cursor_expired":
		return "after"
	case "unsupported_media_type":
		return "Content-Type"
	}
	return nil
}

// muxVar matches a gorilla/mux path variable with a pattern ({id:.+}).
var muxVar = regexp.MustCompile(`\{([^:}]+):[^}]*\}`)

// openAPI builds the document of routes. baseURL, when set, is named as the server.
func openAPI(routes []route, baseURL string) obj {
	paths := obj{}
	schemas := newSchemaSet()
	for _, rt := range routes {
		path := muxVar.ReplaceAllString(rt.path, "{$1}")
		item, _ := paths[path].(obj)
		if item == nil {
			item = obj{}
			paths[path] = item
		}
		item[strings.ToLower(rt.method)] = rt.operation(schemas)
	}
	schemas.defs["Error"] = errorSchema
	responses := obj{}
	for status, r := range errorResponses {
		headers := obj{"X-Request-Id": obj{"$ref": "#/components/headers/X-Request-Id"}}
		switch status {
		case 401:
			headers["WWW-Authenticate"] = obj{"description": "`Bearer realm=\"switchboard\"`", "schema": obj{"type": "string"}}
		case 429, 503:
			headers["Retry-After"] = obj{"$ref": "#/components/headers/Retry-After"}
		}
		if status != 401 {
			for _, h := range []string{"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} {
				headers[h] = obj{"$ref": "#/components/headers/" + h}
			}
			// An answer kept for an Idempotency-Key is replayed as it was, errors included.
			headers["Idempotent-Replayed"] = obj{"$ref": "#/components/headers/Idempotent-Replayed"}
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
		"tags":     tagList(),
		"security": []obj{{"bearerAuth": []string{}}},
		"paths":    paths,
		"components": obj{
			"securitySchemes": obj{"bearerAuth": obj{"type": "http", "scheme": "bearer", "bearerFormat": "sb_live_…",
				"description": "An API key created in the console: `Authorization: Bearer sb_live_…`."}},
			"schemas":   schemas.defs,
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

func tagList() []obj {
	out := make([]obj, len(tags))
	for i, t := range tags {
		out[i] = obj{"name": t.name, "description": t.description}
	}
	return out
}

// operation is the document's description of a route.
func (rt route) operation(schemas *schemaSet) obj {
	description := rt.description
	switch {
	case rt.public:
	case rt.scope == "":
		description += "\n\nNeeds any valid API key."
	default:
		description += "\n\nNeeds scope `" + rt.scope + "`."
	}
	o := obj{
		"operationId": rt.operationID,
		"summary":     rt.summary,
		"description": description,
		"tags":        []string{rt.tag},
	}
	var params []obj
	statuses := []int{}
	if rt.serve.input != nil {
		params = schemas.params(rt.serve.input)
		for _, p := range paramFields(rt.serve.input) {
			statuses = append(statuses, map[string]int{"path": 404, "query": 400}[p.in])
		}
	}
	if rt.method == http.MethodPost {
		params = append(params, obj{"$ref": "#/components/parameters/IdempotencyKey"})
	}
	if len(params) > 0 {
		o["parameters"] = params
	}
	if rt.public {
		o["security"] = []obj{}
	} else if rt.scope != "" {
		o["x-required-scope"] = rt.scope
	}
	if body := rt.serve.body; body != nil {
		schema := schemas.request(body)
		example := jsonValue(rt.bodyExample)
		if rt.bodyExample == nil {
			example = mustExample(schemas, schema, rt.operationID)
		}
		o["requestBody"] = obj{
			"required": !rt.optionalBody,
			"content":  obj{"application/json": obj{"schema": schema, "example": example}},
		}
	}
	okHeaders := obj{"X-Request-Id": obj{"$ref": "#/components/headers/X-Request-Id"}}
	if !rt.public {
		for _, h := range []string{"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} {
			okHeaders[h] = obj{"$ref": "#/components/headers/" + h}
		}
	}
	if rt.method == http.MethodPost {
		okHeaders["Idempotent-Replayed"] = obj{"$ref": "#/components/headers/Idempotent-Replayed"}
	}
	var content obj
	if m, ok := reflect.Zero(rt.serve.response).Interface().(mediaTyper); ok {
		// A file (a QR code image): its own media type, bytes as the body.
		content = obj{m.mediaType(): obj{"schema": obj{"type": "string", "contentMediaType": m.mediaType()},
			"example": "(the " + m.mediaType() + " image's bytes)"}}
	} else {
		schema := schemas.response(rt.serve.response)
		example := jsonValue(rt.example)
		if rt.example == nil {
			example = mustExample(schemas, schema, rt.operationID)
		}
		content = obj{"application/json": obj{"schema": schema, "example": example}}
	}
	responses := obj{strconv.Itoa(rt.status): obj{"description": rt.okText(), "headers": okHeaders, "content": content}}
	if rt.createdToo {
		responses["201"] = obj{"description": "Created: " + rt.okText(), "headers": okHeaders, "content": content}
	}
	if !rt.public {
		// 400 too: two Authorization headers, or a query parameter the operation lacks.
		statuses = append(statuses, 400, 401, 403, 429, 500, 503)
	}
	if rt.serve.body != nil || rt.method == http.MethodPost {
		statuses = append(statuses, 400, 413)
	}
	if rt.serve.body != nil {
		statuses = append(statuses, 415)
	}
	if rt.method == http.MethodPost {
		statuses = append(statuses, 409) // Idempotency-Key reused with another body
	}
	statuses = append(statuses, rt.errors...)
	sort.Ints(statuses)
	for _, s := range slices.Compact(statuses) {
		responses[strconv.Itoa(s)] = obj{"$ref": "#/components/responses/" + errorResponses[s].name}
	}
	o["responses"] = responses
	return o
}

// okText describes the success response.
func (rt route) okText() string {
	if rt.returns != "" {
		return rt.returns
	}
	return http.StatusText(rt.status) + "."
}

func mustExample(schemas *schemaSet, schema obj, operationID string) any {
	ex, err := schemas.exampleOf(schema, operationID, 0)
	if err != nil {
		panic("rest: OpenAPI example: " + err.Error())
	}
	return ex
}

// errorSchema is the OpenAI error envelope every error response has (errors.go).
var errorSchema = obj{"type": "object", "required": []string{"error"}, "additionalProperties": false, "properties": obj{
	"error": obj{"type": "object", "required": []string{"message", "type", "param", "code", "request_id"}, "additionalProperties": false,
		"properties": obj{
			"message": obj{"type": "string", "description": "What went wrong, for people."},
			"type": obj{"type": "string", "description": "The class of error.",
				"enum": []string{typeInvalidRequest, typeAuthentication, typePermission, typeRateLimit, typeAPI}},
			"param": obj{"type": []string{"string", "null"}, "description": "The parameter, field or header at fault, if any."},
			"code": obj{"type": "string",
				"description": "A stable machine code such as `invalid_api_key`, `insufficient_scope`, `validation_failed` (docs/api.md lists them all)."},
			"request_id": obj{"type": "string", "description": "The request's id, also in the X-Request-Id header."},
		}},
}}

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
