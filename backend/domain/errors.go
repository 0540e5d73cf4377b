package domain

import (
	"errors"
	"fmt"
)

// Code is a stable, documented error class. Transports map it to their own shape in one place.
type Code string

const (
	CodeNotFound        Code = "not_found"
	CodeInvalid         Code = "invalid"
	CodeConflict        Code = "conflict"
	CodeForbidden       Code = "forbidden"
	CodeUnauthenticated Code = "unauthenticated"
	CodeRateLimited     Code = "rate_limited"
	CodeUnavailable     Code = "unavailable"
	CodeInternal        Code = "internal"
)

// Error is the one error type of the service layer. The client may see Message, Param and
// Reason; Err is for logs only.
type Error struct {
	Code    Code
	Message string
	// Param names the offending input field, if any (snake_case; GraphQL converts).
	Param string
	// Reason is a finer, stable machine code such as "insufficient_scope" or
	// "revoked_api_key"; empty means the transport's default for Code.
	Reason string
	Err    error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrNotFound) match any not-found error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// Sentinels for errors.Is; they match any *Error with the same Code.
var (
	ErrNotFound        = &Error{Code: CodeNotFound}
	ErrInvalid         = &Error{Code: CodeInvalid}
	ErrConflict        = &Error{Code: CodeConflict}
	ErrForbidden       = &Error{Code: CodeForbidden}
	ErrUnauthenticated = &Error{Code: CodeUnauthenticated}
)

// Errorf builds a client-safe error with a code.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid reports bad input in one field.
func Invalid(param, format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Param: param, Message: fmt.Sprintf(format, args...)}
}

// NotFound reports a missing object, or one of another workspace (never distinguished).
func NotFound(what string) *Error {
	return &Error{Code: CodeNotFound, Message: what + " not found"}
}

// Internal wraps an unexpected error; its text never reaches a client. An error that says
// "unavailable" inside (the database is restarting) stays what it is: the client should
// retry, not report a bug.
func Internal(err error) *Error {
	var e *Error
	if errors.As(err, &e) && e.Code == CodeUnavailable {
		return e
	}
	return &Error{Code: CodeInternal, Message: "internal error", Err: err}
}

// ErrorOf returns err as *Error, wrapping anything without a code as internal. An internal
// error that wraps an unavailable one is unavailable.
func ErrorOf(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Code == CodeInternal && e.Err != nil {
			var inner *Error
			if errors.As(e.Err, &inner) && inner.Code == CodeUnavailable {
				return inner
			}
		}
		return e
	}
	return Internal(err)
}

// IsCode reports whether err carries code.
func IsCode(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
