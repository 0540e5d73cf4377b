package service

import (
	"context"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// errMissingKey is the authentication failure of a request that carries no key at all. It
// says so: nothing is given away by telling a caller that they sent nothing. Every other
// failure (malformed, unknown, revoked, expired) shares one message, so those 401 bodies
// differ only by their code.
var errMissingKey = &domain.Error{Code: domain.CodeUnauthenticated, Reason: "missing_api_key",
	Message: "No API key was sent. Send one as Authorization: Bearer <key>; create a key in the console at /user/api."}

// MissingKeyError is the authentication failure of a request that carries no credentials.
func MissingKeyError() *domain.Error {
	e := *errMissingKey
	return &e
}

// AuthenticateBearer verifies the value of an Authorization header ("Bearer <key>") for
// every transport alike. A missing value is missing_api_key; another scheme is an invalid
// key. foreignOrigin is the browser Origin of the request when it is another site's (""
// for non-browser calls and for the service's own pages): a key may be used from another
// site only if it lists that origin (or "*").
func (k *Keys) AuthenticateBearer(ctx context.Context, authorization, foreignOrigin string) (Actor, error) {
	if authorization == "" {
		return Actor{}, MissingKeyError()
	}
	scheme, secret, ok := strings.Cut(authorization, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return Actor{}, errInvalidKey
	}
	a, err := k.Authenticate(ctx, strings.TrimSpace(secret))
	if err != nil {
		return Actor{}, err
	}
	if foreignOrigin != "" && !a.AllowsOrigin(foreignOrigin) {
		return Actor{}, &domain.Error{Code: domain.CodeForbidden, Reason: "origin_not_allowed", Param: "Origin",
			Message: "this API key may not be used from the origin " + truncate(foreignOrigin, 100) +
				"; add the origin to the key's allowed origins in the console"}
	}
	return a, nil
}
