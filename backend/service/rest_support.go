package service

import "github.com/switchboard-dev/switchboard/backend/domain"

// MissingKeyError is the authentication failure of a request that carries no credentials.
// Its message is the one every other key failure carries, so that 401 bodies differ only
// by their code (missing, malformed, unknown, revoked and expired keys alike).
func MissingKeyError() *domain.Error {
	e := *errInvalidKey
	e.Reason = "missing_api_key"
	return &e
}
