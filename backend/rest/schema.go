package rest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// JSON Schemas (2020-12, the dialect of OpenAPI 3.1) derived from the Go types the handlers
// decode and encode, by the rules of encoding/json: exported fields under their json names,
// embedded structs promoted, "-" skipped. Objects are closed (additionalProperties: false):
// the strict decoder refuses unknown fields, and the tests notice a response that grew a
// field the document does not describe.
//
// Field annotations are struct tags beside the field (for types of other packages, the
// same tags in typeNotes, schema_objects.go):
//
//	doc:"..."            description, in Markdown (for inline code, write the whole tag as a
//	                     "quoted" string: a `raw` one cannot hold a backtick)
//	example:"..."        example value: JSON if it parses as JSON, else a string
//	required:"true"      required in a request body (in responses every field without
//	                     omitempty/omitzero is required: encoding/json always writes it)
//	const, default       a JSON value (or a string)
//	enum:"a,b,c"         allowed strings
//	format, pattern      string rules; minLength, maxLength, minItems, maxItems, minimum,
//	                     maximum: numbers
//	type:"object"        the JSON type of an interface or json.RawMessage field (a pointer
//	                     to one, in a response, may also be null); an object of any fields
//	nullable:"false"     a pointer field of a request that may be left out but not sent as
//	                     null (an update's field the object cannot be without: the service's
//	                     CannotRemove); other pointer fields of requests may be null
//
// Named struct types become components (#/components/schemas/<Name>) named after the Go
// type: first letter upper-cased, an "Object" suffix dropped (domain.WebhookObject is
// Webhook), list[T] named <T>List.

// schemaSet collects the component schemas of a document.
type schemaSet struct {
	defs  obj                     // name → schema
	names map[reflect.Type]string // type → component name
	taken map[string]reflect.Type
	// inbound types are read from request bodies (only required:"true" fields are
	// required), the others are written in responses. A type is one or the other.
	inbound map[reflect.Type]bool
}

func newSchemaSet() *schemaSet {
	return &schemaSet{defs: obj{}, names: map[reflect.Type]string{}, taken: map[string]reflect.Type{},
		inbound: map[reflect.Type]bool{}}
}

// Well-known types.
var (
	timeType      = reflect.TypeFor[time.Time]()
	timestampType = reflect.TypeFor[domain.Timestamp]()
	zonedTimeType = reflect.TypeFor[domain.ZonedTimestamp]()
	rawJSONType   = reflect.TypeFor[json.RawMessage]()
)

// schemaer is implemented by types whose JSON is not what reflection sees (custom
// UnmarshalJSON).
type schemaer interface{ jsonSchema() obj }

// request returns the schema of a request body type, registering the components it uses.
func (s *schemaSet) request(t reflect.Type) obj { return s.schema(t, true) }

// response returns the schema of a response type, registering the components it uses.
func (s *schemaSet) response(t reflect.Type) obj { return s.schema(t, false) }

// schema returns the schema of t (read from requests when in): a $ref for named structs,
// inline otherwise.
func (s *schemaSet) schema(t reflect.Type, in bool) obj {
	if t.Implements(reflect.TypeFor[schemaer]()) {
		return reflect.Zero(t).Interface().(schemaer).jsonSchema()
	}
	switch t {
	case timeType, timestampType, zonedTimeType:
		return obj{"type": "string", "format": "date-time"}
	case rawJSONType:
		return obj{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return nullable(s.schema(t.Elem(), in))
	case reflect.String:
		return obj{"type": "string"}
	case reflect.Bool:
		return obj{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return obj{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return obj{"type": "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return obj{"type": "string", "contentEncoding": "base64"}
		}
		return obj{"type": "array", "items": s.schema(t.Elem(), in)}
	case reflect.Map:
		return obj{"type": "object", "additionalProperties": s.schema(t.Elem(), in)}
	case reflect.Interface:
		return obj{}
	case reflect.Struct:
		if t.Name() == "" {
			return s.object(t, in)
		}
		name := s.name(t)
		if _, done := s.defs[name]; !done {
			s.inbound[t] = in
			s.defs[name] = obj{} // placeholder: recursive types end here
			s.defs[name] = s.object(t, in)
		} else if s.inbound[t] != in {
			panic("rest: " + t.String() + " is both a request and a response type; declare one of each")
		}
		return obj{"$ref": "#/components/schemas/" + name}
	}
	panic("rest: no JSON Schema for " + t.String())
}

// name is the component name of a named struct type; two types may not share one.
func (s *schemaSet) name(t reflect.Type) string {
	if n, ok := s.names[t]; ok {
		return n
	}
	n := notesOf(t).name
	if n == "" {
		n = t.Name()
		if l, ok := reflect.Zero(t).Interface().(lister); ok { // list[pkg.T] is TList
			n = s.name(l.item()) + "List"
		} else if strings.Contains(n, "[") {
			panic("rest: name the schema of the generic type " + n + " with a typeNote")
		}
		n = upperFirst(strings.TrimSuffix(n, "Object"))
	}
	if other, ok := s.taken[n]; ok && other != t {
		panic(fmt.Sprintf("rest: %s and %s would both be the schema %s", other, t, n))
	}
	s.names[t], s.taken[n] = n, t
	return n
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// object is the schema of a struct type's fields.
func (s *schemaSet) object(t reflect.Type, in bool) obj {
	props, required := obj{}, []string{}
	for _, f := range jsonFields(t) {
		typ := f.typ
		if in && typ.Kind() == reflect.Pointer && f.tag.Get("nullable") == "false" {
			typ = typ.Elem()
		}
		p := s.schema(typ, in)
		if tt := f.tag.Get("type"); tt != "" {
			delete(p, "contentEncoding") // raw JSON held as bytes: the JSON type is the tag's
			p["type"] = tt
			if f.typ.Kind() == reflect.Pointer && !in { // a *json.RawMessage written as null when nil
				p["type"] = []string{tt, "null"}
			}
			if tt == "object" {
				p["additionalProperties"] = true // free JSON: any fields (code generators read a bare object as none)
			}
		}
		annotate(p, f.tag)
		if f.doc != "" {
			p["description"] = f.doc
		}
		if f.hasExample {
			p["examples"] = []any{f.example}
		}
		props[f.name] = p
		if f.tag.Get("required") == "true" || (!in && !f.omitEmpty) {
			required = append(required, f.name)
		}
	}
	if l, ok := reflect.Zero(t).Interface().(lister); ok {
		if d := notesOf(l.item()).listDoc; d != "" {
			props["data"].(obj)["description"] = d
		}
	}
	o := obj{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	if d := notesOf(t).doc; d != "" {
		o["description"] = d
	}
	return o
}

// nullable lets a schema also be null.
func nullable(s obj) obj {
	switch typ := s["type"].(type) {
	case string:
		s["type"] = []string{typ, "null"}
		return s
	case nil:
		if len(s) == 0 {
			return s // anything, null included
		}
	}
	return obj{"anyOf": []obj{s, {"type": "null"}}}
}

// annotate adds a field's tag annotations to its schema.
func annotate(p obj, tag reflect.StructTag) {
	if d := tag.Get("doc"); d != "" {
		p["description"] = d
	}
	for _, k := range []string{"format", "pattern"} {
		if v := tag.Get(k); v != "" {
			p[k] = v
		}
	}
	for _, k := range []string{"minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum"} {
		if v := tag.Get(k); v != "" {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				panic(fmt.Sprintf("rest: tag %s:%q is not a number", k, v))
			}
			p[k] = n
		}
	}
	if v := tag.Get("enum"); v != "" {
		values := strings.Split(v, ",")
		if t, _ := p["type"].(string); t == "integer" || slices.Contains(asStrings(p["type"]), "integer") {
			ints := make([]int, len(values))
			for i, v := range values {
				n, err := strconv.Atoi(v)
				if err != nil {
					panic(fmt.Sprintf("rest: enum value %q of an integer is not one", v))
				}
				ints[i] = n
			}
			p["enum"] = ints
		} else {
			p["enum"] = values
		}
	}
	for _, k := range []string{"const", "default"} {
		if v, ok := tag.Lookup(k); ok {
			p[k] = tagValue(p, v)
		}
	}
	if v, ok := tag.Lookup("example"); ok {
		p["examples"] = []any{tagValue(p, v)}
	}
}

// jsonValue is v as encoding/json writes it, read back as plain JSON values.
func jsonValue(v any) any {
	if v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		panic("rest: example: " + err.Error())
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

// tagValue reads a tag's value for a field of schema p: as is for a string field, else as
// JSON (or, failing that, as a string).
func tagValue(p obj, v string) any {
	if types, _ := p["type"].([]string); p["type"] == "string" || slices.Equal(types, []string{"string", "null"}) {
		return v
	}
	var out any
	if err := json.Unmarshal([]byte(v), &out); err == nil {
		return out
	}
	return v
}

// field is a struct field as encoding/json sees it, with its annotations.
type field struct {
	name       string
	typ        reflect.Type
	tag        reflect.StructTag
	omitEmpty  bool
	doc        string // from typeNote.fields
	example    any    // from typeNote.examples
	hasExample bool
}

// jsonFields lists the JSON fields of a struct type, embedded structs' fields promoted (the
// outer field wins a clash, as with encoding/json).
func jsonFields(t reflect.Type) []field {
	var out []field
	seen := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		var embedded []reflect.Type
		for i := range t.NumField() {
			f := t.Field(i)
			jsonTag := f.Tag.Get("json")
			if jsonTag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(jsonTag, ",")
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					embedded = append(embedded, ft)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			notes := notesOf(t)
			tag := f.Tag
			n := notes.fields[name]
			if n.tag != "" {
				tag = reflect.StructTag(string(tag) + " " + string(n.tag))
			}
			ex, hasEx := notes.examples[name]
			out = append(out, field{name: name, typ: f.Type, tag: tag, doc: n.doc, example: jsonValue(ex), hasExample: hasEx,
				omitEmpty: strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")})
		}
		for _, e := range embedded {
			walk(e)
		}
	}
	walk(t)
	return out
}

// exampleOf makes an example value of a schema from its fields' examples (or consts,
// defaults, enums; null for what may be null). It fails for a field with none of these, so
// every example in the document is made of chosen values.
func (s *schemaSet) exampleOf(schema obj, where string, depth int) (any, error) {
	if depth > 10 {
		return nil, fmt.Errorf("%s: too deep", where)
	}
	if ref, ok := schema["$ref"].(string); ok {
		return s.exampleOf(s.defs[strings.TrimPrefix(ref, "#/components/schemas/")].(obj), where, depth+1)
	}
	if ex, ok := schema["examples"].([]any); ok && len(ex) > 0 {
		return ex[0], nil
	}
	for _, k := range []string{"const", "default"} {
		if v, ok := schema[k]; ok {
			return v, nil
		}
	}
	if enum, ok := schema["enum"].([]string); ok && len(enum) > 0 {
		return enum[0], nil
	}
	typ := schema["type"]
	if types, ok := typ.([]string); ok {
		if types[len(types)-1] == "null" {
			return nil, nil
		}
		typ = types[0]
	}
	if any, ok := schema["anyOf"].([]obj); ok {
		return s.exampleOf(any[0], where, depth+1)
	}
	switch typ {
	case "object":
		props, _ := schema["properties"].(obj)
		if len(props) == 0 {
			return nil, fmt.Errorf("%s: no example (give the field an example)", where)
		}
		out := make(map[string]any, len(props))
		for name, p := range props {
			v, err := s.exampleOf(p.(obj), where+"."+name, depth+1)
			if err != nil {
				return nil, err
			}
			out[name] = v
		}
		return out, nil
	case "array":
		item, err := s.exampleOf(schema["items"].(obj), where+"[]", depth+1)
		if err != nil {
			return nil, err
		}
		return []any{item}, nil
	}
	return nil, fmt.Errorf("%s: no example (give the field an example tag)", where)
}

// asStrings is a schema's type list ([]string), or nil.
func asStrings(v any) []string { l, _ := v.([]string); return l }
