package rest_test

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gorilla/mux"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

func TestOpenAPIDocument(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})

	// The document served is valid OpenAPI 3.1, examples included.
	if e.doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q", e.doc.OpenAPI)
	}
	if err := e.doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatalf("the OpenAPI document is invalid: %v", err)
	}
	if s := e.doc.Servers; len(s) != 1 || s[0].URL != baseURL {
		t.Errorf("servers %v, want the base URL", s)
	}

	// The router's route table and the document list exactly the same operations.
	var routed []string
	err := e.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		template, err := route.GetPathTemplate()
		if err != nil {
			return err
		}
		methods, err := route.GetMethods()
		if err != nil {
			return err
		}
		for _, m := range methods {
			if m == http.MethodHead {
				continue // served wherever GET is, and described by GET
			}
			routed = append(routed, m+" "+openAPIPath(template))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	operationIDs := map[string]bool{}
	for path, item := range e.doc.Paths.Map() {
		for method, op := range item.Operations() {
			documented = append(documented, method+" "+path)
			what := method + " " + path

			// What the console's API reference needs of every operation.
			if op.OperationID == "" || operationIDs[op.OperationID] {
				t.Errorf("%s: missing or duplicate operationId %q", what, op.OperationID)
			}
			operationIDs[op.OperationID] = true
			if op.Summary == "" || op.Description == "" || len(op.Tags) != 1 {
				t.Errorf("%s: needs a summary, a description and one tag", what)
			}
			for _, p := range op.Parameters {
				if p.Value.Schema == nil || (p.Value.In == "path" && !p.Value.Required) {
					t.Errorf("%s: parameter %s needs a schema (and path parameters are required)", what, p.Value.Name)
				}
			}
			var inPath []string
			for _, p := range op.Parameters {
				if p.Value.In == "path" {
					inPath = append(inPath, "{"+p.Value.Name+"}")
				}
			}
			if vars := pathVar.FindAllString(path, -1); strings.Join(vars, ",") != strings.Join(inPath, ",") {
				t.Errorf("%s: path parameters %v, want %v in the order of the path", what, inPath, vars)
			}
			if !slices.ContainsFunc(e.doc.Tags, func(tag *openapi3.Tag) bool { return tag.Name == op.Tags[0] }) {
				t.Errorf("%s: tag %q is not in the document's tags", what, op.Tags[0])
			}
			if rb := op.RequestBody; rb != nil {
				mt := rb.Value.Content.Get("application/json")
				if mt == nil || mt.Schema == nil || mt.Example == nil {
					t.Errorf("%s: request body needs a JSON schema and an example", what)
				}
			}
			public := op.Security != nil && len(*op.Security) == 0
			need := []int{}
			if !public {
				need = append(need, 401, 403, 429, 500)
			}
			if method == http.MethodPost || op.RequestBody != nil {
				need = append(need, 400, 413)
			}
			if op.RequestBody != nil {
				need = append(need, 415)
			}
			if method == http.MethodPost {
				need = append(need, 409)
			}
			if strings.Contains(path, "{") {
				need = append(need, 404)
			}
			for _, status := range need {
				r := op.Responses.Status(status)
				if r == nil || r.Ref != "#/components/responses/"+statusName(status) {
					t.Errorf("%s: response %d must refer to the shared error response", what, status)
				}
			}
			for code, r := range op.Responses.Map() {
				for ct, mt := range r.Value.Content {
					if mt.Example == nil && mt.Examples == nil {
						t.Errorf("%s: response %s (%s) has no example", what, code, ct)
					}
				}
			}
		}
	}
	sort.Strings(routed)
	sort.Strings(documented)
	if strings.Join(routed, "\n") != strings.Join(documented, "\n") {
		t.Errorf("route table and OpenAPI document differ:\nrouter:\n  %s\ndocument:\n  %s",
			strings.Join(routed, "\n  "), strings.Join(documented, "\n  "))
	}
	if s := e.doc.Components.SecuritySchemes["bearerAuth"]; s == nil || s.Value.Scheme != "bearer" {
		t.Error("no bearer security scheme")
	}

	// Served without a key, and the response validates like every other.
	res := e.do("GET", "/api/v1/openapi.json", "", nil).want(t, http.StatusOK)
	if res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("content type %q", res.Header.Get("Content-Type"))
	}
}

var pathVar = regexp.MustCompile(`\{[^}]+\}`)

func statusName(status int) string {
	return map[int]string{400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 409: "Conflict",
		413: "PayloadTooLarge", 415: "UnsupportedMediaType", 429: "RateLimited", 500: "InternalError"}[status]
}

// TestOpenAPIRequestBodiesMatchDecoder checks, for every operation with a body, that the
// document's schema and the strict decoder agree: a field the schema does not list is
// refused naming it, every field the schema lists is read with the type the schema gives
// (a value of another type is refused naming the field), and the example is accepted.
func TestOpenAPIRequestBodiesMatchDecoder(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	hook := e.do("POST", "/api/v1/webhooks", secret, newHook).want(t, http.StatusCreated).json(t)
	ids := map[string]string{"id": hook["id"].(string), "delivery_id": "whd_01jr8d2m6p8r0t2v4x6z8b0d2f"}

	bodies := 0
	for path, item := range e.doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil {
				continue
			}
			bodies++
			what := method + " " + path
			url := path
			for name, id := range ids {
				url = strings.ReplaceAll(url, "{"+name+"}", id)
			}
			mt := op.RequestBody.Value.Content.Get("application/json")
			schema := mt.Schema.Value
			if schema.AdditionalProperties.Has == nil || *schema.AdditionalProperties.Has {
				t.Errorf("%s: the body schema must refuse unknown fields, as the decoder does", what)
			}

			// The example is valid for the decoder (whatever the service then says).
			if res := e.do(method, url, secret, mt.Example); res.StatusCode == 400 || res.StatusCode == 415 {
				t.Errorf("%s: the example body is refused: %s", what, res.body)
			}

			// A field the schema does not list: refused by both, naming the field.
			unknown := map[string]any{"no_such_field": 1}
			if schema.VisitJSON(unknown, openapi3.EnableJSONSchema2020()) == nil {
				t.Errorf("%s: the schema accepts an unknown field", what)
			}
			got := e.do(method, url, secret, unknown).wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != "no_such_field" {
				t.Errorf("%s: unknown field: param %v", what, got["param"])
			}

			// Every listed field: a value of a type the schema refuses is refused by the
			// decoder too, naming the field (not as unknown).
			for name, prop := range schema.Properties {
				wrong := wrongValue(prop.Value)
				if prop.Value.VisitJSON(wrong, openapi3.EnableJSONSchema2020()) == nil {
					t.Fatalf("%s: %s: no wrong value for this schema", what, name)
				}
				got := e.do(method, url, secret, map[string]any{name: wrong}).wantError(t, http.StatusBadRequest, "validation_failed")
				if got["param"] != name || strings.Contains(got["message"].(string), "unknown") {
					t.Errorf("%s: %s: %v: got param %v: %v", what, name, wrong, got["param"], got["message"])
				}
			}
		}
	}
	if bodies == 0 {
		t.Fatal("no operation with a body")
	}
}

// wrongValue is a JSON value whose type the schema does not allow.
func wrongValue(s *openapi3.Schema) any {
	switch {
	case !s.Type.Includes("string"):
		return "not a " + strings.Join(s.Type.Slice(), " or ")
	case !s.Type.Includes("boolean"):
		return true
	}
	return 12
}

// The document says what a client generator needs: null only where the server takes it (an
// update of a webhook, field by field, against the server), free JSON as open objects, the
// redirect codes a link takes, Retry-After on a 503, the bulk delete's ids.
func TestOpenAPITellsGeneratorsTheTruth(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	hook := e.do("POST", "/api/v1/webhooks", secret, newHook).want(t, http.StatusCreated).json(t)
	update := e.doc.Paths.Find("/api/v1/webhooks/{id}").Patch.RequestBody.Value.Content.Get("application/json").Schema.Value
	for name, prop := range update.Properties {
		res := e.do("PATCH", "/api/v1/webhooks/"+hook["id"].(string), secret, map[string]any{name: nil})
		if allowed := prop.Value.VisitJSON(nil, openapi3.EnableJSONSchema2020()) == nil; allowed != (res.StatusCode == http.StatusOK) {
			t.Errorf("PATCH /webhooks/{id} %s: null allowed by the document %v, the server answers %d %s", name, allowed, res.StatusCode, res.body)
		}
	}
	schema := func(name string) *openapi3.Schema {
		s := e.doc.Components.Schemas[name]
		if s == nil {
			t.Fatalf("no schema %s", name)
		}
		return s.Value
	}
	for _, c := range []struct{ schema, field string }{
		{"UpdateLinkRequest", "url"}, {"UpdateLinkRequest", "slug"}, {"UpdateEndpointRequest", "name"},
		{"UpdateInstanceRequest", "name"}, {"UpdateGroupRequest", "subject"}, {"UpdateChatRequest", "archived"},
	} {
		if schema(c.schema).Properties[c.field].Value.VisitJSON(nil, openapi3.EnableJSONSchema2020()) == nil {
			t.Errorf("%s.%s: the server refuses null, the document allows it", c.schema, c.field)
		}
	}
	for _, c := range []struct{ schema, field string }{
		{"CreateLinkRequest", "metadata"}, {"Link", "metadata"}, {"Event", "data"}, {"Run", "output"},
		{"TestEndpointRequest", "payload"}, {"CreateEndpointRequest", "schema"},
	} {
		p := schema(c.schema).Properties[c.field].Value
		if p.AdditionalProperties.Has == nil || !*p.AdditionalProperties.Has || p.Extensions["contentEncoding"] != nil {
			t.Errorf("%s.%s: free JSON must be an open object (additionalProperties %v)", c.schema, c.field, p.AdditionalProperties.Has)
		}
		if err := p.VisitJSON(map[string]any{"campaign": "q4", "n": 1.0}, openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("%s.%s refuses an object of any fields: %v", c.schema, c.field, err)
		}
	}
	rs := schema("CreateLinkRequest").Properties["redirect_status"].Value
	if rs.VisitJSON(303.0) == nil || rs.VisitJSON(307.0) != nil {
		t.Errorf("redirect_status: enum %v", rs.Enum)
	}
	if h := e.doc.Components.Responses["Unavailable"].Value.Headers["Retry-After"]; h == nil {
		t.Error("the 503 response does not declare Retry-After")
	}
	for _, p := range e.doc.Paths.Find("/api/v1/links/bulk").Delete.Parameters {
		if p.Value.Name == "ids" && (!p.Value.Required || p.Value.Schema.Value.MaxItems == nil || *p.Value.Schema.Value.MaxItems != 100) {
			t.Errorf("ids of DELETE /links/bulk: required %v, schema %+v", p.Value.Required, p.Value.Schema.Value)
		}
	}
}
