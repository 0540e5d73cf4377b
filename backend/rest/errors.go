package rest

import (
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

// codeDefaults is the status and envelope code of each domain code when the error names no
// finer Reason.
var codeDefaults = map[domain.Code]struct {
	status int
	code   string
}{
	domain.CodeInvalid:         {http.StatusBadRequest, "validation_failed"},
	domain.CodeNotFound:        {http.StatusNotFound, "not_found"},
	domain.CodeConflict:        {http.StatusConflict, "conflict"},
	domain.CodeForbidden:       {http.StatusForbidden, "forbidden"},
	domain.CodeUnauthenticated: {http.StatusUnauthorized, "invalid_api_key"},
	domain.CodeRateLimited:     {http.StatusTooManyRequests, "rate_limit_exceeded"},
	domain.CodeUnavailable:     {http.StatusServiceUnavailable, "service_unavailable"},
	domain.CodeInternal:        {http.StatusInternalServerError, "internal_error"},
}

// reasonStatus overrides the status of a domain code for reasons HTTP has a status for.
var reasonStatus = map[string]int{
	reasonPayloadTooLarge:   http.StatusRequestEntityTooLarge,
	reasonUnsupportedMedia:  http.StatusUnsupportedMediaType,
	"method_not_allowed":    http.StatusMethodNotAllowed,
	"unsupported_operation": http.StatusUnprocessableEntity, // a channel driver lacks a capability
}

// Reasons the transport itself raises.
const (
	reasonPayloadTooLarge  = "payload_too_large"
	reasonUnsupportedMedia = "unsupported_media_type"
)

// statusOf maps a domain error to its HTTP status, envelope type and code. It is the one
// place where domain errors meet HTTP.
func statusOf(e *domain.Error) (status int, typ, code string) {
	d, ok := codeDefaults[e.Code]
	if !ok {
		d = codeDefaults[domain.CodeInternal]
	}
	status, code = d.status, d.code
	if e.Reason != "" && e.Code != domain.CodeInternal {
		code = e.Reason
		if s, ok := reasonStatus[e.Reason]; ok {
			status = s
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
	if e.Code == domain.CodeInternal || (status >= 500 && msg == "") || !knownCode(e.Code) {
		msg = "internal error"
	}
	if status >= 500 {
		a.log.Error("request failed", "request_id", reqID, "method", r.Method, "path", r.URL.Path,
			"status", status, "err", err)
	}
	var param *string
	if e.Param != "" {
		param = &e.Param
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
	}
	writeJSON(w, status, errorBody{errorObject{Message: msg, Type: typ, Param: param, Code: code, RequestID: reqID}})
}

func knownCode(c domain.Code) bool {
	_, ok := codeDefaults[c]
	return ok
}

// renameParam reports a service error about param from under the name the REST API gives
// that input (the service names inputs once, for every transport).
func renameParam(err error, from, to string) error {
	e := domain.ErrorOf(err)
	if e.Param != from {
		return err
	}
	renamed := *e
	renamed.Param = to
	return &renamed
}
