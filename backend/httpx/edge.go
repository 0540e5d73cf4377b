package httpx

import (
	"net/http"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// The API edge: what /api/v1 and /graphql both do before a request reaches the service
// (see docs/architecture.md). Each transport calls these helpers, so a rule about headers,
// keys or limits is written once:
//
//   - Authorization reads the one Authorization header (two are refused);
//   - APIHeaders sets the headers every API response carries (nosniff);
//   - a Limiter is shared by both transports, so a key spends one bucket (ratelimit.go);
//   - Status maps domain codes to HTTP statuses for both (status.go).

// ErrMultipleAuthorization refuses a request that carries more than one Authorization
// header: which one a proxy, a cache or the service would honour is ambiguous.
var ErrMultipleAuthorization = &domain.Error{Code: domain.CodeInvalid, Reason: "multiple_authorization_headers",
	Param: "Authorization", Message: "send one Authorization header, not several"}

// Authorization returns the request's Authorization header ("" when absent), or
// ErrMultipleAuthorization when there are several.
func Authorization(r *http.Request) (string, error) {
	v := r.Header["Authorization"]
	switch len(v) {
	case 0:
		return "", nil
	case 1:
		return v[0], nil
	}
	return "", ErrMultipleAuthorization
}

var nosniff = []string{"nosniff"}

// APIHeaders sets the security headers of every API response (REST and GraphQL alike):
// X-Content-Type-Options: nosniff, so a browser never reads a JSON answer as a script or page.
func APIHeaders(h http.Header) {
	h["X-Content-Type-Options"] = nosniff
}
