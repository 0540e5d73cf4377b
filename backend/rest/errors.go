package rest

import (
	"log/slog"
	"net/http"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
)

// errorBody is the OpenAI error envelope, so OpenAI-compatible clients parse our errors.
type errorBody struct {
	Error errorObject `json:"error"`
}

type errorObject struct {
	Message   string  `json:"message"`
	Type      string  `json:"type"`
	Param     *string `json:"param"`
	Code      string  `json:"code"`
	RequestID string  `json:"request_id"`
}

// Error types of the envelope.
const (
	typeInvalidRequest = "invalid_request_error"
	typeAuthentication = "authentication_error"
	typePermission     = "permission_error"
	typeRateLimit      = "rate_limit_error"
	typeAPI            = "api_error"
)

// envelopeCodes is the envelope code of each domain code when the error names no finer
// Reason. The HTTP status comes from httpx.Status, shared with GraphQL.
var envelopeCodes = map[domain.Code]string{
	domain.CodeInvalid:         "validation_failed",
	domain.CodeNotFound:        "not_found",
	domain.CodeConflict:        "conflict",
	domain.CodeForbidden:       "forbidden",
	domain.CodeUnauthenticated: "invalid_api_key",
	domain.CodeRateLimited:     "rate_limit_exceeded",
	domain.CodeUnavailable:     "service_unavailable",
	domain.CodeInternal:        "internal_error",
}

// reasonCodes renames the service's transport-neutral reasons to the REST API's stable codes
// where they differ: an event too large for a webhook is HTTP's 413 payload_too_large.
var reasonCodes = map[string]string{
	httpx.ReasonEventTooLarge: httpx.ReasonPayloadTooLarge,
}

// statusOf maps a domain error to its HTTP status, envelope type and code. It is the one
// place where domain errors meet the REST envelope.
func statusOf(e *domain.Error) (status int, typ, code string) {
	status = httpx.Status(e)
	code, ok := envelopeCodes[e.Code]
	if !ok {
		code = envelopeCodes[domain.CodeInternal]
	}
	if e.Reason != "" && e.Code != domain.CodeInternal && ok {
		code = e.Reason
		if c, ok := reasonCodes[e.Reason]; ok {
			code = c
		}
	}
	switch {
	case status == http.StatusUnauthorized:
		typ = typeAuthentication
	case status == http.StatusForbidden:
		typ = typePermission
	case status == http.StatusTooManyRequests:
		typ = typeRateLimit
	case status >= 500:
		typ = typeAPI
	default:
		typ = typeInvalidRequest
	}
	return status, typ, code
}

// error writes err as the error envelope. Internal errors are logged with the request id;
// their text never reaches the client.
func (a *api) error(w http.ResponseWriter, r *http.Request, err error) {
	e := domain.ErrorOf(err)
	status, typ, code := statusOf(e)
	reqID := httpx.RequestIDFrom(r.Context())
	msg := e.Message
	if e.Code == domain.CodeInternal || (status >= 500 && msg == "") || !httpx.KnownCode(e.Code) {
		msg = "internal error"
	}
	if status >= 500 {
		a.log.Error("request failed", "request_id", reqID, "method", r.Method, "path", httpx.LoggedPath(r.URL.Path),
			"status", status, "err", err)
	}
	var param *string
	if e.Param != "" {
		param = &e.Param
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
	}
	if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1") // a restart or failover: try again soon
	}
	writeJSON(w, status, errorBody{errorObject{Message: msg, Type: typ, Param: param, Code: code, RequestID: reqID}})
}

// WriteError writes err as the API's error envelope, for handlers outside /api/v1 that
// answer in its shape (/hooks/{token}).
func WriteError(log *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	(&api{log: log}).error(w, r, err)
}
