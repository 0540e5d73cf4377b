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
	dec := json.NewDecoder(bytes.NewReader(body))
	type level struct {
		path  string
		seen  map[string]bool // nil for an array
		index int             // the next element of an array
		key   string          // the key whose value comes next (objects)
	}
	var stack []*level
	// at is where the next value sits: under the innermost object's key or array's index.
	at := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.seen == nil {
			top.index++
			return top.path + "[" + strconv.Itoa(top.index-1) + "]"
		}
		return joinKey(top.path, top.key)
	}
	expectKey := func() bool { return len(stack) > 0 && stack[len(stack)-1].seen != nil && stack[len(stack)-1].key == "" }
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or JSON the decoder reports itself
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				stack = append(stack, &level{path: at(), seen: map[string]bool{}})
			case '[':
				stack = append(stack, &level{path: at()})
			default: // '}' or ']'
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].seen != nil {
					stack[len(stack)-1].key = ""
				}
			}
			continue
		case string:
			if expectKey() {
				top := stack[len(stack)-1]
				if top.seen[tok] {
					where := joinKey(top.path, tok)
					return domain.Invalid(where, "%s is given twice", where)
				}
				top.seen[tok], top.key = true, tok
				continue
			}
		}
		// A scalar value: the object it was in waits for its next key.
		if at(); len(stack) > 0 && stack[len(stack)-1].seen != nil {
			stack[len(stack)-1].key = ""
		}
	}
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
