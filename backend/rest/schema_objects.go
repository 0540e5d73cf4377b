package rest

import (
	"reflect"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// typeNote annotates a type for the document where struct tags cannot: types of other
// packages (the domain's public objects, whose fields get the same tags here, by JSON
// name), a type-level description, a component name, and examples too rich for a tag.
type typeNote struct {
	name     string          // component name, if not derived from the Go name
	doc      string          // the schema's description
	fields   map[string]note // annotations of fields, by JSON name
	examples map[string]any  // example values of fields, by JSON name
	listDoc  string          // describes the data of a list of the type
}

// note annotates a field: its description (Markdown) and tags as a struct tag would
// give them.
type note struct {
	doc string
	tag reflect.StructTag
}

// noter is implemented by generic types (whose instantiations a map cannot list).
type noter interface{ notes() typeNote }

func notesOf(t reflect.Type) typeNote {
	if n, ok := typeNotes[t]; ok {
		return n
	}
	if t.Implements(reflect.TypeFor[noter]()) {
		return reflect.Zero(t).Interface().(noter).notes()
	}
	return typeNote{}
}

// lister is implemented by list[T].
type lister interface{ item() reflect.Type }

func (list[T]) item() reflect.Type { return reflect.TypeFor[T]() }

func (list[T]) notes() typeNote {
	return typeNote{fields: map[string]note{
		"object":      {"", `const:"list"`},
		"data":        {doc: "This page's objects, newest first."},
		"has_more":    {"Whether there are more objects after this page.", `example:"false"`},
		"next_cursor": {doc: "Pass as `after` to get the next page; null on the last page."},
	}}
}

// Examples shared by several types.
const (
	exampleWorkspaceID = "ws_01jr8c2k7e5w3v9t6q4m2n8p0d"
	exampleWebhookID   = "wh_01jr8d0c3b5n7q9s1u3w5y7a9c"
	exampleDeliveryID  = "whd_01jr8d2m6p8r0t2v4x6z8b0d2f"
	exampleEventID     = "evt_01jr8c4a9fz3x1w7v5t3r1p9n7"
)

// exampleKey is a key as the API shows it: the sample data of api_key events.
var exampleKey = domain.APIKeyObject{Object: "api_key", ID: "key_01jr8c4a9d2f6h8k0m3p5r7t9v", WorkspaceID: exampleWorkspaceID,
	Name: "Production server", Prefix: "sb_live_3kTq", LastFour: "9fQz", Scopes: []domain.Scope{"models:read", "events:read"},
	AllowedOrigins: []string{}, Status: "active", CreatedAt: mustTS("2025-04-08T09:15:02.771Z")}

func mustTS(s string) domain.Timestamp {
	var t domain.Timestamp
	if err := t.UnmarshalJSON([]byte(`"` + s + `"`)); err != nil {
		panic(err)
	}
	return t
}

// typeNotes annotates the domain's public objects, field by field (and gives examples
// too rich for a tag).
var typeNotes = map[reflect.Type]typeNote{
	reflect.TypeFor[eventType](): {examples: map[string]any{"sample": exampleKey}},
	reflect.TypeFor[domain.Model](): {fields: map[string]note{
		"id":       {"The model's id.", `example:"gpt-4o-mini"`},
		"object":   {"", `const:"model"`},
		"created":  {"When the model was created (Unix seconds).", `example:"1721172741"`},
		"owned_by": {"Who provides the model.", `example:"openai"`},
	}},
	reflect.TypeFor[domain.WorkspaceObject](): {fields: map[string]note{
		"object":     {"", `const:"workspace"`},
		"id":         {"The workspace's id (`ws_…`).", `example:"ws_01jr8c2k7e5w3v9t6q4m2n8p0d"`},
		"name":       {"The workspace's name.", `example:"Ada's workspace"`},
		"created_at": {"When the workspace was created.", `example:"2025-04-08T09:12:44.318Z"`},
	}},
	reflect.TypeFor[domain.APIKeyObject](): {
		fields: map[string]note{
			"object":          {"", `const:"api_key"`},
			"id":              {doc: "The key's id (`key_…`)."},
			"workspace_id":    {doc: "The key's workspace."},
			"name":            {doc: "The key's name."},
			"prefix":          {doc: "The start of the secret, for recognising the key."},
			"last_four":       {doc: "The last four characters of the secret."},
			"scopes":          {doc: "What the key may do; `*` is every scope."},
			"allowed_origins": {doc: "Browser origins the key may be used from (`*` for any); other sites are refused."},
			"status":          {"", `enum:"active,revoked,expired"`},
			"created_at":      {doc: "When the key was created."},
			"last_used_at":    {"When the key was last used (updated about once a minute).", `example:"2025-04-08T10:02:19.044Z"`},
			"expires_at":      {doc: "When the key stops working, if ever."},
			"revoked_at":      {doc: "When the key was revoked."},
		},
		examples: map[string]any{"id": exampleKey.ID, "workspace_id": exampleKey.WorkspaceID, "name": exampleKey.Name,
			"prefix": exampleKey.Prefix, "last_four": exampleKey.LastFour, "scopes": exampleKey.Scopes,
			"allowed_origins": exampleKey.AllowedOrigins, "created_at": exampleKey.CreatedAt},
	},
	reflect.TypeFor[domain.Event](): {
		listDoc: "Events, newest first.",
		fields: map[string]note{
			"id":           {"The event's id (`evt_…`); ids sort by time.", `example:"evt_01jr8c4a9fz3x1w7v5t3r1p9n7"`},
			"type":         {"The event type, such as `api_key.created`.", `example:"api_key.created"`},
			"timestamp":    {"When the change happened.", `example:"2025-04-08T09:15:02.771Z"`},
			"workspace_id": {"The workspace the event belongs to.", `example:"ws_01jr8c2k7e5w3v9t6q4m2n8p0d"`},
			"data":         {"The object the event is about, as of the change (see the event types).", `type:"object"`},
		},
		examples: map[string]any{"data": exampleKey},
	},
	reflect.TypeFor[domain.WebhookObject](): {
		listDoc: "Endpoints, newest first.",
		fields: map[string]note{
			"object":          {"", `const:"webhook"`},
			"id":              {"The endpoint's id (`wh_…`).", `example:"wh_01jr8d0c3b5n7q9s1u3w5y7a9c"`},
			"url":             {"Where events are sent.", `example:"https://example.com/webhooks/switchboard"`},
			"description":     {"What the endpoint is for.", `example:"Order system"`},
			"event_types":     {"The event types delivered; `[\"*\"]` is every type.", `example:"[\"api_key.created\",\"api_key.revoked\"]"`},
			"instance_id":     {doc: "Only events of this channel instance, if set."},
			"enabled":         {"Whether deliveries are sent.", `example:"true"`},
			"disabled_reason": {doc: "Why the endpoint was disabled (by a user, a 410 answer, or 5 days of failures)."},
			"created_at":      {"When the endpoint was created.", `example:"2025-04-08T10:20:31.502Z"`},
			"updated_at":      {"When the endpoint last changed.", `example:"2025-04-08T10:20:31.502Z"`},
		},
	},
	reflect.TypeFor[domain.DeliveryObject](): {
		listDoc: "Deliveries, newest first.",
		fields: map[string]note{
			"object":          {"", `const:"webhook_delivery"`},
			"id":              {"The delivery's id (`whd_…`).", `example:"whd_01jr8d2m6p8r0t2v4x6z8b0d2f"`},
			"webhook_id":      {"The endpoint.", `example:"wh_01jr8d0c3b5n7q9s1u3w5y7a9c"`},
			"event_id":        {"The event delivered; also the `webhook-id` header, the same on every attempt.", `example:"evt_01jr8d2m6n4k2h0f8d6b4z2x0v"`},
			"event_type":      {"The event's type.", `example:"api_key.created"`},
			"status":          {"", `enum:"pending,succeeded,failed"`},
			"attempts":        {doc: "Every attempt so far, oldest first."},
			"next_attempt_at": {"When the next attempt is due (null unless pending).", `example:"2025-04-08T10:21:07.118Z"`},
			"created_at":      {"When the delivery was queued.", `example:"2025-04-08T10:21:02.090Z"`},
		},
	},
	reflect.TypeFor[domain.DeliveryAttemptObject](): {
		fields: map[string]note{
			"attempted_at":  {"When the request was sent.", `example:"2025-04-08T10:21:02.118Z"`},
			"status_code":   {"The endpoint's HTTP status (null when no response arrived).", `example:"503"`},
			"latency_ms":    {"How long the attempt took.", `minimum:"0" example:"212"`},
			"response_body": {"The first 1 KB of the response body.", `example:"Service Unavailable"`},
			"error":         {"Why the attempt failed (null on success).", `example:"the endpoint answered 503"`},
		},
	},
}
