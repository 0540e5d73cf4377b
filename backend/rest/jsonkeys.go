package rest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
)

// checkKeys refuses a body whose object keys are not exactly the fields of dst, at any
// depth, naming the key by its whole path ("utm.foo", "links[3].colour"). encoding/json
// matches keys without regard to case and reports an unknown nested key by its last name
// alone; a typo ("URL", "Max_Clicks") must not pass silently, and the error must say where
// it is. A body that is not valid JSON is left to the decoder's own errors.
func checkKeys(body []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	if err := walkKeys(v, reflect.TypeOf(dst), ""); err != nil {
		return err
	}
	if err := noNUL(v, ""); err != nil {
		return err
	}
	return httpx.NoDuplicateKeys(body)
}

// noNUL refuses the NUL character (\u0000) in any string or key of a body, naming where it
// is: no database stores it in text (PostgreSQL refuses it, which surfaced as a 500), and
// no name, URL or message needs it.
func noNUL(v any, path string) error {
	switch val := v.(type) {
	case string:
		if strings.IndexByte(val, 0) >= 0 {
			return domain.Invalid(path, "%s must not contain the NUL character (\\u0000)", path)
		}
	case map[string]any:
		for _, k := range sortedKeys(val) {
			if strings.IndexByte(k, 0) >= 0 {
				return domain.Invalid(path, "a key of %s contains the NUL character (\\u0000)", cmp.Or(path, "the body"))
			}
			if err := noNUL(val[k], join(path, k)); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range val {
			if err := noNUL(e, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	return nil
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

func walkKeys(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshaler) || t.Kind() == reflect.Interface {
		return nil // its own decoding, or anything goes
	}
	switch val := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(val) {
			sub := join(path, k)
			var ft reflect.Type
			switch t.Kind() {
			case reflect.Struct:
				f, ok := fieldsOf(t)[k]
				if !ok {
					return unknownKey(sub, k, t)
				}
				ft = f
			case reflect.Map:
				ft = t.Elem()
			default:
				return nil // a type error: the decoder names it
			}
			if err := walkKeys(val[k], ft, sub); err != nil {
				return err
			}
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return nil
		}
		for i, e := range val {
			if err := walkKeys(e, t.Elem(), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	return nil
}

// sortedKeys lists an object's keys in order, so the first problem reported is always the same.
func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func unknownKey(path, key string, t reflect.Type) error {
	for name := range fieldsOf(t) {
		if strings.EqualFold(name, key) {
			return domain.Invalid(path, "unknown field %q (did you mean %q? names are case-sensitive)", key, name)
		}
	}
	return domain.Invalid(path, "unknown field %q", key)
}

var fieldCache sync.Map // reflect.Type → map[string]reflect.Type

// fieldsOf maps a struct's JSON names to their types (jsonFields, the one reading of
// struct fields the OpenAPI document also uses), cached per type.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	out := map[string]reflect.Type{}
	for _, f := range jsonFields(t) {
		out[f.name] = f.typ
	}
	fieldCache.Store(t, out)
	return out
}
