package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

func TestPresentError(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		message string
		ext     map[string]any
	}{
		{"unauthenticated", &domain.Error{Code: domain.CodeUnauthenticated, Reason: "revoked_api_key", Message: "bad key"},
			"bad key", map[string]any{"code": "UNAUTHENTICATED", "reason": "revoked_api_key"}},
		{"forbidden", &domain.Error{Code: domain.CodeForbidden, Reason: "session_required", Message: "no"},
			"no", map[string]any{"code": "FORBIDDEN", "reason": "session_required"}},
		{"not found", domain.NotFound("api key"), "api key not found", map[string]any{"code": "NOT_FOUND"}},
		{"invalid names the field in camelCase", domain.Invalid("allowed_origins", "bad origin"),
			"bad origin", map[string]any{"code": "INVALID", "field": "allowedOrigins"}},
		{"conflict", &domain.Error{Code: domain.CodeConflict, Param: "email", Reason: "email_taken", Message: "taken"},
			"taken", map[string]any{"code": "CONFLICT", "field": "email", "reason": "email_taken"}},
		{"rate limited", &domain.Error{Code: domain.CodeRateLimited, Message: "slow down"}, "slow down", map[string]any{"code": "RATE_LIMITED"}},
		{"unavailable", &domain.Error{Code: domain.CodeUnavailable, Message: "later"}, "later", map[string]any{"code": "UNAVAILABLE"}},
		{"wrapped domain error", fmt.Errorf("ctx: %w", domain.NotFound("event")), "event not found", map[string]any{"code": "NOT_FOUND"}},
		{"internal hides its text", domain.Internal(errors.New("pq: password authentication failed for secret")),
			"internal error", map[string]any{"code": "INTERNAL"}},
		{"plain errors are internal", errors.New("dial tcp 10.0.0.5:5432: refused"), "internal error", map[string]any{"code": "INTERNAL"}},
		{"unknown code is internal", &domain.Error{Code: "weird", Message: "leak?"}, "internal error", map[string]any{"code": "INTERNAL"}},
		{"gqlgen's own errors pass", &gqlerror.Error{Message: "Cannot query field", Extensions: map[string]any{"code": "GRAPHQL_VALIDATION_FAILED"}},
			"Cannot query field", map[string]any{"code": "GRAPHQL_VALIDATION_FAILED"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			got := presentError(context.Background(), slog.New(slog.NewTextHandler(&logs, nil)), tc.err)
			if got.Message != tc.message {
				t.Errorf("message %q, want %q", got.Message, tc.message)
			}
			if fmt.Sprint(got.Extensions) != fmt.Sprint(tc.ext) {
				t.Errorf("extensions %v, want %v", got.Extensions, tc.ext)
			}
			internal := tc.ext["code"] == "INTERNAL"
			if internal != strings.Contains(logs.String(), "internal error") {
				t.Errorf("internal=%v but log is %q", internal, logs.String())
			}
		})
	}
}

func TestCamelCase(t *testing.T) {
	for in, want := range map[string]string{
		"email": "email", "expires_at": "expiresAt", "allowed_origins": "allowedOrigins",
		"input.event_types": "input.eventTypes", "_x": "x", "": "",
		"payload/order_id": "payload/order_id", "test_payload/line_items/0": "testPayload/line_items/0",
	} {
		if got := camelCase(in); got != want {
			t.Errorf("camelCase(%q) = %q, want %q", in, got, want)
		}
	}
}
