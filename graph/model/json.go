package model

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// MarshalJSON writes a JSON scalar: the raw JSON value as it is (null when empty).
func MarshalJSON(v json.RawMessage) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		if len(v) == 0 {
			_, _ = io.WriteString(w, "null")
			return
		}
		_, _ = w.Write(v)
	})
}

// UnmarshalJSON reads a JSON scalar input (any JSON value) into raw JSON.
func UnmarshalJSON(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("JSON scalar: %w", err)
	}
	return b, nil
}
