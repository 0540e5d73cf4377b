package model

import (
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// MarshalTime writes a Time scalar as every Switchboard API does: RFC 3339 in UTC with
// exactly three fractional digits ("2026-01-02T15:04:05.000Z").
func MarshalTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(t.UTC().Format(domain.TimeFormat)))
	})
}

// UnmarshalTime reads a Time input: an RFC 3339 string with any precision and offset. Its
// refusal is the service's invalid-input error, so the answer carries code INVALID.
func UnmarshalTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, domain.Invalid("", "time must be an RFC 3339 string")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, domain.Invalid("", "time must be an RFC 3339 string such as 2026-01-02T15:04:05Z")
	}
	return t.UTC(), nil
}
