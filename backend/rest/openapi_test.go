package rest_test

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gorilla/mux"

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

func statusName(status int) string {
	return map[int]string{400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 409: "Conflict",
		413: "PayloadTooLarge", 415: "UnsupportedMediaType", 429: "RateLimited", 500: "InternalError"}[status]
}
