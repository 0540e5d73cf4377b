package automation

import (
	"bytes"
	"errors"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Payload schemas are JSON Schema (draft 2020-12 unless the schema's $schema says
// otherwise), compiled once per endpoint version. A schema cannot load anything: a $ref to
// another document is refused, so a schema never makes the service fetch a URL or a file.

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("a schema cannot load other documents (" + url + ")")
}

func compileSchema(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	// A URL of its own (a file name would put the server's working directory in errors).
	const loc = "https://schema.switchboard.invalid/endpoint.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// schemaProblem says why a schema does not compile: for a schema the metaschema refuses,
// the innermost reason and where ("at '/type': value must be one of …"), without the
// library's nesting or the internal URL the schema was compiled under.
func schemaProblem(err error) string {
	var se *jsonschema.SchemaValidationError
	if !errors.As(err, &se) {
		return err.Error()
	}
	best, depth := "", -1
	for _, line := range strings.Split(se.Err.Error(), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if !strings.HasPrefix(trimmed, "- at ") {
			continue
		}
		if d := len(line) - len(trimmed); d > depth {
			best, depth = strings.TrimPrefix(trimmed, "- "), d
		}
	}
	if best == "" {
		return "it does not follow the JSON Schema specification"
	}
	return best
}

// schemas caches compiled schemas by endpoint id and version (its updated_at).
type schemas struct {
	mu sync.Mutex
	m  map[string]*jsonschema.Schema
}

func (s *schemas) get(key string, raw []byte) (*jsonschema.Schema, error) {
	s.mu.Lock()
	sch, ok := s.m[key]
	s.mu.Unlock()
	if ok {
		return sch, nil
	}
	sch, err := compileSchema(raw)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.m == nil || len(s.m) > 1000 {
		s.m = map[string]*jsonschema.Schema{}
	}
	s.m[key] = sch
	s.mu.Unlock()
	return sch, nil
}

// violation describes why a payload does not match: the JSON pointer of the first value at
// fault and what is wrong with it.
func violation(err error) (where, what string) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "", err.Error()
	}
	out := ve.BasicOutput()
	for _, u := range out.Errors {
		if u.Error != nil {
			where, what = u.InstanceLocation, u.Error.String()
		}
	}
	if what == "" {
		return "", err.Error()
	}
	return where, what
}
