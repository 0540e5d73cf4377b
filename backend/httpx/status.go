package httpx

import (
	"net/http"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// codeStatus is the HTTP status of each domain code. It is the one code→status map: REST
// answers with it and GraphQL uses it for requests refused before an operation runs.
var codeStatus = map[domain.Code]int{
	domain.CodeInvalid:         http.StatusBadRequest,
	domain.CodeNotFound:        http.StatusNotFound,
	domain.CodeConflict:        http.StatusConflict,
	domain.CodeForbidden:       http.StatusForbidden,
	domain.CodeUnauthenticated: http.StatusUnauthorized,
	domain.CodeRateLimited:     http.StatusTooManyRequests,
	domain.CodeUnavailable:     http.StatusServiceUnavailable,
	domain.CodeInternal:        http.StatusInternalServerError,
}

// Reasons HTTP has a finer status for than their domain code's.
const (
	ReasonPayloadTooLarge  = "payload_too_large"      // the request body is over the limit (413)
	ReasonUnsupportedMedia = "unsupported_media_type" // the body's Content-Type is not JSON (415)
	ReasonEventTooLarge    = "event_too_large"        // the service's: an event would exceed 256 KB (413)
)

var reasonStatus = map[string]int{
	ReasonPayloadTooLarge:    http.StatusRequestEntityTooLarge,
	ReasonEventTooLarge:      http.StatusRequestEntityTooLarge,
	ReasonUnsupportedMedia:   http.StatusUnsupportedMediaType,
	"method_not_allowed":     http.StatusMethodNotAllowed,
	"unsupported_by_channel": http.StatusUnprocessableEntity, // a channel driver lacks a capability
	"schema_mismatch":        http.StatusUnprocessableEntity, // a published payload breaks its endpoint's schema
	"cursor_expired":         http.StatusGone,                // an after= cursor points into rows deleted by retention
}

// KnownCode reports whether c is one of the domain's codes (anything else is internal).
func KnownCode(c domain.Code) bool {
	_, ok := codeStatus[c]
	return ok
}

// Status is the HTTP status of a domain error: its code's, or its reason's where HTTP has
// a finer one (413, 415, 405, 422, 410). Unknown codes and internal errors are 500.
func Status(e *domain.Error) int {
	status, ok := codeStatus[e.Code]
	if !ok {
		return http.StatusInternalServerError
	}
	if e.Reason != "" && e.Code != domain.CodeInternal {
		if s, ok := reasonStatus[e.Reason]; ok {
			status = s
		}
	}
	return status
}

// RenameParam reports a service error about input from under the name a transport gives
// that input (the service names inputs once, for every transport: "limit" is GraphQL's
// "first", "types" is REST's ?type=). A message that starts with the old name is renamed too.
func RenameParam(err error, from, to string) error {
	if err == nil {
		return nil
	}
	e := domain.ErrorOf(err)
	if e.Param != from || e.Code == domain.CodeInternal {
		return err
	}
	renamed := *e
	renamed.Param = to
	if rest, ok := strings.CutPrefix(e.Message, from+" "); ok {
		renamed.Message = to + " " + rest
	}
	return &renamed
}
