package graph

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// noNUL refuses an operation whose variables or string literals hold the NUL character
// (\u0000), as REST refuses it in bodies: no database stores it in text (PostgreSQL
// refuses it), and no name, URL or message needs it.
type noNUL struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = noNUL{}

func (noNUL) ExtensionName() string                   { return "NoNUL" }
func (noNUL) Validate(graphql.ExecutableSchema) error { return nil }

func (noNUL) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	name, found := nulIn(opCtx.Variables, "")
	if !found && (strings.IndexByte(opCtx.RawQuery, 0) >= 0 || strings.Contains(opCtx.RawQuery, `\u0000`)) {
		name, found = "a string in the operation", true
	}
	if !found {
		return nil
	}
	err := gqlerror.Errorf("%s must not contain the NUL character (\\u0000)", name)
	err.Extensions = map[string]any{"code": "INVALID"}
	return err
}

// nulIn finds a string holding NUL in a variables value, and names where it is ("$input.title").
func nulIn(v any, path string) (string, bool) {
	switch val := v.(type) {
	case string:
		return "$" + path, strings.IndexByte(val, 0) >= 0
	case map[string]any:
		for k, e := range val {
			if strings.IndexByte(k, 0) >= 0 {
				return "$" + path, true
			}
			if name, ok := nulIn(e, join(path, k)); ok {
				return name, true
			}
		}
	case []any:
		for _, e := range val {
			if name, ok := nulIn(e, path); ok {
				return name, true
			}
		}
	}
	return "", false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
