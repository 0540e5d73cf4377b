package httpx

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// NoDuplicateKeys refuses a JSON body with an object that names a key twice, at any depth,
// naming it by its path ("links[1].slug"): encoding/json keeps the last one, so
// {"url":"a","url":"b"} would create a link to b without a word about a. REST bodies and
// GraphQL requests (their variables) both pass through it. JSON that does not parse is
// left to the decoder's own errors.
func NoDuplicateKeys(body []byte) error {
	seen := map[string]bool{} // object path and key; each object has a path of its own
	return walkJSON(body, func(object, key string) error {
		where := joinKey(object, key)
		if seen[object+"\x00"+key] {
			return domain.Invalid(where, "%s is given twice", where)
		}
		seen[object+"\x00"+key] = true
		return nil
	}, nil)
}

// PathAt is the path ("attributes.plan", "labels[1]") of the value of body that ends at
// offset (an objects's or array's opening), or "" when none does. encoding/json's type
// errors give that offset, and name only the struct field: not a map's key, nor an index.
func PathAt(body []byte, offset int64) string {
	path := ""
	_ = walkJSON(body, nil, func(p string, end int64) error {
		if end >= offset {
			path = p
			return errStop
		}
		return nil
	})
	return path
}

var errStop = domain.Invalid("", "stop")

// walkJSON reads body's tokens, calling key (when set) with each object key and the path
// of its object, and value (when set) with each value's path and the offset after it (after
// the opening of an object or array). It stops at the first error of theirs, at the end of
// the body's first value, or at JSON that does not parse (not reported: that is the
// decoder's to say).
func walkJSON(body []byte, key func(object, key string) error, value func(path string, end int64) error) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	type level struct {
		path   string
		object bool
		index  int    // the next element of an array
		key    string // the key whose value comes next (objects)
		hasKey bool
	}
	var stack []*level
	// at is where the next value sits: under the innermost object's key or array's index.
	at := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if !top.object {
			top.index++
			return top.path + "[" + strconv.Itoa(top.index-1) + "]"
		}
		top.hasKey = false // its value is read: the next string is a key
		return joinKey(top.path, top.key)
	}
	expectKey := func() bool { return len(stack) > 0 && stack[len(stack)-1].object && !stack[len(stack)-1].hasKey }
	visit := func(path string) error {
		if value == nil {
			return nil
		}
		return value(path, dec.InputOffset())
	}
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
			if key != nil {
				if err := key(top.path, s); err != nil {
					return err
				}
			}
			top.key, top.hasKey = s, true
			continue
		}
		path := at()
		if err := visit(path); err != nil {
			if err == errStop {
				return nil
			}
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &level{path: path, object: d == '{'})
		} else if len(stack) == 0 {
			return nil // a scalar body
		}
	}
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
