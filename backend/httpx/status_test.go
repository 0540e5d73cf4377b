package httpx_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
)

func TestStatus(t *testing.T) {
	for _, c := range []struct {
		err  *domain.Error
		want int
	}{
		{domain.Invalid("x", "bad"), http.StatusBadRequest},
		{domain.NotFound("thing"), http.StatusNotFound},
		{&domain.Error{Code: domain.CodeConflict}, http.StatusConflict},
		{&domain.Error{Code: domain.CodeForbidden, Reason: "insufficient_scope"}, http.StatusForbidden},
		{&domain.Error{Code: domain.CodeUnauthenticated, Reason: "missing_api_key"}, http.StatusUnauthorized},
		{&domain.Error{Code: domain.CodeRateLimited}, http.StatusTooManyRequests},
		{&domain.Error{Code: domain.CodeUnavailable}, http.StatusServiceUnavailable},
		{domain.Internal(errors.New("boom")), http.StatusInternalServerError},
		{&domain.Error{Code: "weird"}, http.StatusInternalServerError},
		{&domain.Error{Code: domain.CodeInvalid, Reason: "payload_too_large"}, http.StatusRequestEntityTooLarge},
		{&domain.Error{Code: domain.CodeInvalid, Reason: "event_too_large"}, http.StatusRequestEntityTooLarge},
		{&domain.Error{Code: domain.CodeInvalid, Reason: "unsupported_media_type"}, http.StatusUnsupportedMediaType},
		{&domain.Error{Code: domain.CodeInvalid, Reason: "multiple_authorization_headers"}, http.StatusBadRequest},
		{&domain.Error{Code: domain.CodeInternal, Reason: "payload_too_large"}, http.StatusInternalServerError},
	} {
		if got := httpx.Status(c.err); got != c.want {
			t.Errorf("Status(%s/%s) = %d, want %d", c.err.Code, c.err.Reason, got, c.want)
		}
	}
}

func TestRenameParam(t *testing.T) {
	err := httpx.RenameParam(domain.Invalid("limit", "limit must be between 1 and 100"), "limit", "first")
	if e := domain.ErrorOf(err); e.Param != "first" || e.Message != "first must be between 1 and 100" {
		t.Fatalf("renamed: %+v", e)
	}
	other := domain.Invalid("after", "bad cursor")
	if httpx.RenameParam(other, "limit", "first") != error(other) {
		t.Fatal("an error about another param changed")
	}
}
