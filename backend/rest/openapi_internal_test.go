package rest

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"
)

// TestSchemasListTheJSONFields checks the reflection against encoding/json itself: for the
// request and response type of every route, a value with every field set encodes exactly
// the properties its schema lists, and the schema requires only properties it lists.
func TestSchemasListTheJSONFields(t *testing.T) {
	schemas := newSchemaSet()
	for _, rt := range (&api{}).routes() {
		types := []reflect.Type{rt.serve.response}
		schemas.response(rt.serve.response)
		if rt.serve.body != nil {
			schemas.request(rt.serve.body)
			types = append(types, rt.serve.body)
		}
		for _, typ := range types {
			if typ.Implements(reflect.TypeFor[schemaer]()) {
				continue
			}
			if typ.Kind() == reflect.Slice {
				typ = typ.Elem() // a bare JSON array (an event sample): its items are checked
			}
			what := rt.operationID + ": " + typ.String()
			schema := schemas.defs[schemas.name(typ)].(obj)
			var props []string
			for name := range schema["properties"].(obj) {
				props = append(props, name)
			}
			sort.Strings(props)

			raw, err := json.Marshal(filled(typ, 0).Interface())
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			var encoded map[string]json.RawMessage
			if err := json.Unmarshal(raw, &encoded); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			var fields []string
			for name := range encoded {
				fields = append(fields, name)
			}
			sort.Strings(fields)
			if !slices.Equal(props, fields) {
				t.Errorf("%s: the schema lists %v, encoding/json writes %v", what, props, fields)
			}
			required, _ := schema["required"].([]string)
			for _, r := range required {
				if !slices.Contains(props, r) {
					t.Errorf("%s: requires %q, which it does not list", what, r)
				}
			}
		}
	}
}

// filled returns a value of t with every field set (so that omitempty leaves none out).
func filled(t reflect.Type, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	if u, ok := v.Addr().Interface().(json.Unmarshaler); ok {
		_ = u.UnmarshalJSON([]byte(`"x"`))
		return v
	}
	if depth > 5 {
		return v
	}
	switch t.Kind() {
	case reflect.Pointer:
		v.Set(filled(t.Elem(), depth+1).Addr())
	case reflect.Slice:
		v.Set(reflect.Append(v, filled(t.Elem(), depth+1)))
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Float64:
		v.SetFloat(1)
	case reflect.Interface:
		v.Set(reflect.ValueOf("x"))
	case reflect.Map:
		m := reflect.MakeMap(t)
		m.SetMapIndex(filled(t.Key(), depth+1), filled(t.Elem(), depth+1))
		v.Set(m)
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(filled(t.Field(i).Type, depth+1))
			}
		}
	}
	return v
}

// TestInputTypes checks the inputs of every route: parameters are never body fields, an
// input without a body has no body fields (they would be silently ignored), and every
// parameter has a type readParams reads.
func TestInputTypes(t *testing.T) {
	for _, rt := range (&api{}).routes() {
		in := rt.serve.input
		if in == nil {
			continue
		}
		for _, p := range paramFields(in) {
			if p.tag.Get("json") != "-" {
				t.Errorf("%s: parameter %s must be tagged json:\"-\"", rt.operationID, p.name)
			}
			if p.tag.Get("ref") == "" && (p.tag.Get("doc") == "" || p.tag.Get("example") == "") {
				t.Errorf("%s: parameter %s needs a doc and an example", rt.operationID, p.name)
			}
		}
		if f := jsonFields(in); rt.serve.body == nil && len(f) > 0 {
			t.Errorf("%s: %s has body fields but the route reads no body", rt.operationID, in)
		}
		q := url.Values{}
		for _, p := range paramFields(in) {
			if p.in == "query" {
				q.Set(p.name, map[reflect.Type]string{reflect.TypeFor[string](): "x", reflect.TypeFor[[]string](): "a,b",
					reflect.TypeFor[*time.Time](): "2025-01-01T00:00:00Z", reflect.TypeFor[*int](): "1", reflect.TypeFor[*bool](): "true"}[p.typ])
			}
		}
		req := httptest.NewRequest("GET", "/?"+q.Encode(), nil)
		if err := readParams(req, reflect.New(in).Interface(), paramFields(in)); err != nil {
			t.Errorf("%s: %v", rt.operationID, err)
		}
	}
}
