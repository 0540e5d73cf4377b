package graph

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// graphQLCodes maps the service's error codes to extensions.code.
var graphQLCodes = map[domain.Code]string{
	domain.CodeUnauthenticated: "UNAUTHENTICATED",
	domain.CodeForbidden:       "FORBIDDEN",
	domain.CodeNotFound:        "NOT_FOUND",
	domain.CodeInvalid:         "INVALID",
	domain.CodeConflict:        "CONFLICT",
	domain.CodeRateLimited:     "RATE_LIMITED",
	domain.CodeUnavailable:     "UNAVAILABLE",
	domain.CodeInternal:        "INTERNAL",
}

// presentError is the one place where errors become GraphQL errors:
//
//   - a domain error gets its message and extensions.code (UNAUTHENTICATED, FORBIDDEN,
//     NOT_FOUND, INVALID, CONFLICT, RATE_LIMITED, UNAVAILABLE, INTERNAL), extensions.reason
//     when the service gave a finer reason, extensions.field (the camelCase input field) for
//     INVALID and CONFLICT;
//   - gqlgen's own errors (parsing, validation, input coercion, limits) pass unchanged;
//   - anything else is INTERNAL with the message "internal error", and is logged.
//
// badEnumValue is how gqlgen's generated enums refuse a value.
var badEnumValue = regexp.MustCompile(`is not a valid [A-Z][A-Za-z0-9]*$`)

func presentError(ctx context.Context, log *slog.Logger, err error) *gqlerror.Error {
	var de *domain.Error
	if !errors.As(err, &de) {
		var ge *gqlerror.Error
		if errors.As(err, &ge) {
			if ge.Extensions["code"] == nil && badEnumValue.MatchString(ge.Message) {
				// A generated enum's refusal of an argument's value ("clicks is not a valid
				// LinkSort"): input, as a refused Time is.
				if ge.Extensions == nil {
					ge.Extensions = map[string]any{}
				}
				ge.Extensions["code"] = graphQLCodes[domain.CodeInvalid]
			}
			return ge
		}
		de = domain.Internal(err)
	}

	var out *gqlerror.Error
	if !errors.As(err, &out) {
		out = &gqlerror.Error{Err: err}
		if graphql.GetFieldContext(ctx) != nil {
			out.Path = graphql.GetPath(ctx)
		}
	}

	code, ok := graphQLCodes[de.Code]
	if !ok {
		code = "INTERNAL"
	}
	ext := map[string]any{"code": code}
	if code == "INTERNAL" {
		log.ErrorContext(ctx, "graphql: internal error", "err", err, "path", out.Path.String())
		out.Message = "internal error"
		out.Extensions = ext
		return out
	}
	out.Message = de.Message
	if out.Message == "" {
		out.Message = strings.ToLower(strings.ReplaceAll(code, "_", " "))
	}
	if de.Reason != "" {
		ext["reason"] = de.Reason
	}
	if de.Param != "" && (de.Code == domain.CodeInvalid || de.Code == domain.CodeConflict) {
		ext["field"] = camelCase(de.Param)
	}
	out.Extensions = ext
	return out
}

// camelCase turns the service's snake_case field names into GraphQL's ("expires_at" →
// "expiresAt", "input.allowed_origins" → "input.allowedOrigins"). A JSON pointer after the
// field ("payload/order_id": where a test payload fails its schema) names the caller's own
// data and is kept as it is.
func camelCase(s string) string {
	var b strings.Builder
	upper := false
	for i, r := range s {
		if r == '/' {
			b.WriteString(s[i:])
			break
		}
		if r == '_' {
			upper = b.Len() > 0
			continue
		}
		if upper && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		upper = false
		b.WriteRune(r)
	}
	return b.String()
}
