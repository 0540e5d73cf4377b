package automation

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Templates: an action's string fields may hold "{{payload.a.b}}" (a field of the payload;
// array elements by index, "{{payload.items.0.sku}}"), "{{endpoint.id}}" or
// "{{endpoint.name}}". Nothing else can be read and nothing runs: a template is text with
// holes. A hole naming a field the payload lacks is an error (the run fails, saying which),
// never an empty string sent to a customer.

// maxTemplate bounds a template's length.
const maxTemplate = 4096

// scope is what templates can read.
type scope struct {
	payload  any
	endpoint map[string]string
}

// render fills a template's holes.
func render(tpl string, sc scope) (string, error) {
	var b strings.Builder
	rest := tpl
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		b.WriteString(rest[:i])
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unclosed {{ in %q", tpl)
		}
		path := strings.TrimSpace(rest[i+2 : i+j])
		v, err := lookup(path, sc)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		rest = rest[i+j+2:]
	}
}

// checkTemplate refuses a template that could never render: unclosed holes, or holes that
// name something templates cannot read.
func checkTemplate(tpl string) error {
	if len(tpl) > maxTemplate {
		return fmt.Errorf("is longer than %d bytes", maxTemplate)
	}
	rest := tpl
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			return nil
		}
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			return fmt.Errorf("has an unclosed {{")
		}
		path := strings.TrimSpace(rest[i+2 : i+j])
		switch {
		case path == "payload" || strings.HasPrefix(path, "payload."):
		case path == "endpoint.id" || path == "endpoint.name":
		default:
			return fmt.Errorf("reads {{%s}}: templates read payload.<field> or endpoint.id / endpoint.name", path)
		}
		rest = rest[i+j+2:]
	}
}

func lookup(path string, sc scope) (string, error) {
	if v, ok := sc.endpoint[path]; ok {
		return v, nil
	}
	parts := strings.Split(path, ".")
	if parts[0] != "payload" {
		return "", fmt.Errorf("{{%s}}: templates read payload.<field> or endpoint.id / endpoint.name", path)
	}
	cur := sc.payload
	for i, p := range parts[1:] {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[p]
			if !ok {
				return "", fmt.Errorf("{{%s}}: the payload has no %s", path, strings.Join(parts[:i+2], "."))
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 || n >= len(v) {
				return "", fmt.Errorf("{{%s}}: the payload has no %s", path, strings.Join(parts[:i+2], "."))
			}
			cur = v[n]
		default:
			return "", fmt.Errorf("{{%s}}: %s is not an object or a list", path, strings.Join(parts[:i+1], "."))
		}
	}
	switch v := cur.(type) {
	case nil:
		return "", fmt.Errorf("{{%s}}: the payload's value is null", path)
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	default:
		b, err := domain.Encode(v)
		return string(b), err
	}
}
