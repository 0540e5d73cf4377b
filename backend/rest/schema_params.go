package rest

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Path and query parameters are fields of the handler's input type, tagged path:"name" or
// query:"name" (and json:"-", so a body never sets them), with the same doc and example tags
// as body fields. The document lists them from the type, and readParams fills them from the
// request, so the two cannot disagree. Query fields may be string, []string (repeated and/or
// comma-separated), *int, *bool (true or false) or *time.Time (RFC 3339); enum:"a,b" lists
// a string's values; a field tagged ref:"Name" is described by #/components/parameters/Name.

// Path parameters used by several routes.
type (
	webhookPath struct {
		ID string `json:"-" path:"id" doc:"The webhook endpoint's id." example:"wh_01jr8d0c3b5n7q9s1u3w5y7a9c"`
	}
	deliveryPath struct {
		webhookPath
		DeliveryID string `json:"-" path:"delivery_id" doc:"The delivery's id." example:"whd_01jr8d2m6p8r0t2v4x6z8b0d2f"`
	}
)

// listQuery holds the parameters of every list: ?limit= (absent: the service's default; the
// range is the service's rule) and ?after=.
type listQuery struct {
	Limit *int   `json:"-" query:"limit" ref:"Limit"`
	After string `json:"-" query:"after" ref:"After"`
}

func (q listQuery) params() domain.ListParams {
	return domain.ListParams{Limit: q.Limit, After: q.After}
}

// paramField is a path or query parameter of an input type.
type paramField struct {
	name, in string
	index    []int
	typ      reflect.Type
	tag      reflect.StructTag
}

// paramFields lists the parameters of an input type, embedded structs' first.
func paramFields(t reflect.Type) []paramField {
	var out []paramField
	for _, f := range reflect.VisibleFields(t) {
		for _, in := range []string{"path", "query"} {
			if name := f.Tag.Get(in); name != "" {
				out = append(out, paramField{name: name, in: in, index: f.Index, typ: f.Type, tag: f.Tag})
			}
		}
	}
	return out
}

// readParams fills the parameter fields of *dst (fields: paramFields of its type) from the
// request.
func readParams(r *http.Request, dst any, fields []paramField) error {
	if err := knownQuery(r, fields); err != nil {
		return err
	}
	v := reflect.ValueOf(dst).Elem()
	for _, p := range fields {
		f := v.FieldByIndex(p.index)
		if p.in == "path" {
			f.SetString(mux.Vars(r)[p.name])
			continue
		}
		switch p.typ {
		case reflect.TypeFor[string]():
			f.SetString(r.URL.Query().Get(p.name))
		case reflect.TypeFor[[]string]():
			f.Set(reflect.ValueOf(queryList(r, p.name)))
		case reflect.TypeFor[*time.Time]():
			t, err := queryTime(r, p.name)
			if err != nil {
				return err
			}
			f.Set(reflect.ValueOf(t))
		case reflect.TypeFor[*int]():
			n, err := queryInt(r, p.name)
			if err != nil {
				return err
			}
			f.Set(reflect.ValueOf(n))
		case reflect.TypeFor[*bool]():
			b, err := queryBool(r, p.name)
			if err != nil {
				return err
			}
			f.Set(reflect.ValueOf(b))
		default:
			panic("rest: query parameter " + p.name + " of unsupported type " + p.typ.String())
		}
	}
	return nil
}

// queryInt reads an integer parameter (absent: nil). ?limit= names its range, which is the
// service's rule.
func queryInt(r *http.Request, name string) (*int, error) {
	if name == "limit" {
		return queryLimit(r)
	}
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return nil, domain.Invalid(name, "%s must be an integer", name)
	}
	return &n, nil
}

// queryBool reads a boolean parameter (absent: nil).
func queryBool(r *http.Request, name string) (*bool, error) {
	switch r.URL.Query().Get(name) {
	case "":
		return nil, nil
	case "true":
		return ptr(true), nil
	case "false":
		return ptr(false), nil
	}
	return nil, domain.Invalid(name, "%s must be true or false", name)
}

// params are the document's parameter objects of an input type.
func (s *schemaSet) params(t reflect.Type) []obj {
	var out []obj
	for _, in := range []string{"path", "query"} { // path parameters first
		for _, p := range paramFields(t) {
			if p.in != in {
				continue
			}
			if ref := p.tag.Get("ref"); ref != "" {
				out = append(out, obj{"$ref": "#/components/parameters/" + ref})
				continue
			}
			typ := p.typ
			if typ.Kind() == reflect.Pointer {
				typ = typ.Elem() // optional, not null
			}
			schema := s.schema(typ, true)
			if enum := p.tag.Get("enum"); enum != "" {
				schema["enum"] = strings.Split(enum, ",")
			}
			for _, k := range []string{"maxLength", "minimum", "maximum", "minItems", "maxItems"} {
				if v := p.tag.Get(k); v != "" {
					n, err := strconv.ParseFloat(v, 64)
					if err != nil {
						panic(fmt.Sprintf("rest: tag %s:%q is not a number", k, v))
					}
					schema[k] = n
				}
			}
			o := obj{"name": p.name, "in": p.in, "required": p.in == "path" || p.tag.Get("required") == "true",
				"description": p.tag.Get("doc"), "schema": schema}
			if typ.Kind() == reflect.Slice {
				o["style"], o["explode"] = "form", true
			}
			if ex, ok := p.tag.Lookup("example"); ok {
				o["example"] = tagValue(schema, ex)
			}
			out = append(out, o)
		}
	}
	return out
}

// knownQuery refuses a query parameter the operation does not have, as unknown body fields
// are refused: GET /events?types=… (for type) must not pass as "no filter"; and a value
// holding the NUL character.
func knownQuery(r *http.Request, fields []paramField) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	var known []string
	lists := map[string]bool{}
	for _, p := range fields {
		if p.in == "query" {
			known = append(known, p.name)
			lists[p.name] = p.typ == reflect.TypeFor[[]string]()
		}
	}
	names := make([]string, 0, len(r.URL.Query()))
	for name, values := range r.URL.Query() {
		if !slices.Contains(known, name) {
			names = append(names, name)
			continue
		}
		if len(values) > 1 && !lists[name] {
			// Which one would count is a guess either way: the first, as Go reads it, or
			// the last, as many frameworks do.
			return domain.Invalid(name, "%s is given %d times: it takes one value", name, len(values))
		}
		for _, v := range values {
			if strings.IndexByte(v, 0) >= 0 { // as in bodies (noNUL)
				return domain.Invalid(name, "%s must not contain the NUL character (\\u0000)", name)
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	if len(known) == 0 {
		return domain.Invalid(names[0], "unknown query parameter %q: this operation takes none", names[0])
	}
	return domain.Invalid(names[0], "unknown query parameter %q: this operation takes %s", names[0], strings.Join(known, ", "))
}
