package httpx

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// MaxJSONDepth bounds how deeply objects and arrays nest in a body: no input of the API
// needs more than a handful of levels, and a deep one costs memory for every level open.
const MaxJSONDepth = 64

// NoDuplicateKeys refuses a JSON body with an object that names a key twice, at any depth,
// naming it by its path ("links[1].slug"): encoding/json keeps the last one, so
// {"url":"a","url":"b"} would create a link to b without a word about a. REST bodies and
// GraphQL requests (their variables) both pass through it. It also refuses objects and
// arrays nested deeper than MaxJSONDepth. JSON that does not parse is left to the decoder's
// own errors.
//
// Its memory is the keys of the objects open at a time and one path step per level: a
// path is built only to name an error.
func NoDuplicateKeys(body []byte) error {
	return walkJSON(body, true, nil)
}

// PathAt is the path ("attributes.plan", "labels[1]") of the value of body that ends at
// offset (an objects's or array's opening), or "" when none does. encoding/json's type
// errors give that offset, and name only the struct field: not a map's key, nor an index.
func PathAt(body []byte, offset int64) string {
	path := ""
	_ = walkJSON(body, false, func(p func() string, end int64) error {
		if end >= offset {
			path = p()
			return errStop
		}
		return nil
	})
	return path
}

var errStop = domain.Invalid("", "stop")

// maxPathInError bounds the path an error names.
const maxPathInError = 256

// jsonLevel is an object or array open in a walk.
type jsonLevel struct {
	step   string // how its parent reaches it: ".key", "[3]" (the first level: "key" or "")
	object bool
	index  int    // the next element of an array
	key    string // the key whose value comes next (objects)
	hasKey bool
	keys   map[string]bool // the object's keys so far, when looking for duplicates
}

// walkJSON reads body's tokens, refusing (when dups) an object key given twice or nesting
// deeper than MaxJSONDepth, and calling value (when set) with each value's path and the
// offset after it (after the opening of an object or array). It stops at the first error,
// at the end of the body's first value, or at JSON that does not parse (not reported: that
// is the decoder's to say).
func walkJSON(body []byte, dups bool, value func(path func() string, end int64) error) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	var stack []*jsonLevel
	pathOf := func(last string) string {
		var b strings.Builder
		for _, l := range stack {
			b.WriteString(l.step)
		}
		b.WriteString(last)
		path := strings.TrimPrefix(b.String(), ".")
		if len(path) > maxPathInError { // keys are the caller's: an error names a bounded part
			path = strings.ToValidUTF8(path[:maxPathInError], "") + "…"
		}
		return path
	}
	// next is the step to the next value: the innermost object's key or array's index.
	next := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if !top.object {
			top.index++
			return "[" + strconv.Itoa(top.index-1) + "]"
		}
		top.hasKey = false // its value is read: the next string is a key
		return "." + top.key
	}
	expectKey := func() bool { return len(stack) > 0 && stack[len(stack)-1].object && !stack[len(stack)-1].hasKey }
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or JSON the decoder reports itself
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			if stack = stack[:len(stack)-1]; len(stack) == 0 {
				return nil // the body's value is whole: what follows is the decoder's to refuse
			}
			continue
		}
		if s, ok := tok.(string); ok && expectKey() {
			top := stack[len(stack)-1]
			if dups {
				if top.keys[s] {
					where := pathOf("." + s)
					return domain.Invalid(where, "%s is given twice", where)
				}
				if top.keys == nil {
					top.keys = map[string]bool{}
				}
				top.keys[s] = true
			}
			top.key, top.hasKey = s, true
			continue
		}
		step := next()
		if value != nil {
			if err := value(func() string { return pathOf(step) }, dec.InputOffset()); err != nil {
				if err == errStop {
					return nil
				}
				return err
			}
		}
		if d, ok := tok.(json.Delim); ok {
			if dups && len(stack) >= MaxJSONDepth {
				where := pathOf(step)
				return domain.Invalid(where, "the JSON nests objects and arrays deeper than %d levels", MaxJSONDepth)
			}
			stack = append(stack, &jsonLevel{step: step, object: d == '{'})
		} else if len(stack) == 0 {
			return nil // a scalar body
		}
	}
}
