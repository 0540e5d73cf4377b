package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/service"
)

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeJSON encodes v as the response body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := buffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 64<<10 {
			buf.Reset()
			buffers.Put(buf)
		}
	}()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":{"message":"internal error","type":"api_error","param":null,"code":"internal_error","request_id":""}}` + "\n")
	}
	writeBody(w, status, buf.Bytes())
}

var contentTypeJSON = []string{"application/json"}

// smallBody is the size up to which net/http sets Content-Length itself: a handler that
// writes less than a few KB and returns without flushing gets it (net/http buffers 2 KB before
// it would chunk), so small bodies skip a header of their own.
const smallBody = 1024

// writeBody writes an encoded JSON body with status.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	if len(body) > smallBody {
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// encodeJSON is v as writeJSON writes it (no HTML escaping, a final newline).
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// list is the shape of every list response.
type list[T any] struct {
	Object     string  `json:"object"`
	Data       []T     `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

func listOf[T any](p domain.Page[T]) list[T] {
	l := list[T]{Object: "list", Data: p.Data, HasMore: p.HasMore}
	if l.Data == nil {
		l.Data = []T{}
	}
	if p.NextCursor != "" {
		l.NextCursor = &p.NextCursor
	}
	return l
}

// decode reads a JSON object body into dst strictly: the content type must be JSON, unknown
// fields are refused (naming the field), and so is anything after the object.
func decode(r *http.Request, dst any) error {
	if err := requireJSON(r); err != nil {
		return err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return decodeError(err)
	}
	if err := checkKeys(body, dst); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(withPath(err, body))
	}
	if _, err := dec.Token(); err != io.EOF {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return decodeError(err)
		}
		return domain.Invalid("", "the request body must hold one JSON object and nothing after it")
	}
	return nil
}

// decodeOptional is decode for bodies that may be left out: an empty body leaves dst as is.
func decodeOptional(r *http.Request, dst any) error {
	if r.ContentLength == 0 && r.Header.Get("Content-Type") == "" {
		return nil
	}
	body, err := readOptionalBody(r)
	if err != nil || body == nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return decode(r, dst)
}

// nullFields names the top-level fields of a JSON object body sent as null, which
// encoding/json reads like fields left out: a PATCH hands them to the service, whose rules
// tell "remove" (or, for a field an object cannot be without, a refusal) from "keep".
func nullFields(body []byte) map[string]bool {
	var sent map[string]json.RawMessage
	_ = json.Unmarshal(body, &sent) // the body decoded strictly already
	out := map[string]bool{}
	for k, v := range sent {
		if string(v) == "null" {
			out[k] = true
		}
	}
	return out
}

// readOptionalBody reads a body that may be left out: nil when it is empty or blank.
func readOptionalBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, decodeError(err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	return body, nil
}

// decodeNone reads the body of an operation that takes none (POST .../rotate-secret): empty,
// or an empty JSON object, as some clients send on every POST. Anything else is refused,
// naming the first field, as decode refuses unknown fields: a setting sent to an operation
// that has none must not pass silently.
func decodeNone(r *http.Request, _ any) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	body, err := readOptionalBody(r)
	if err != nil || body == nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return domain.Invalid("", "this operation takes no request body")
	}
	if len(fields) == 0 {
		return nil
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	slices.Sort(names)
	return domain.Invalid(names[0], "unknown field %q: this operation takes no request body", names[0])
}

func requireJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		shown := ct
		if shown == "" {
			shown = "none"
		}
		return &domain.Error{Code: domain.CodeInvalid, Reason: httpx.ReasonUnsupportedMedia, Param: "Content-Type",
			Message: fmt.Sprintf("the request body must be JSON with Content-Type: application/json (got %s)", truncate(shown, 100))}
	}
	return nil
}

// withPath completes a type error's field with the map keys and array indexes under it
// ("attributes.plan", "labels[1]"), which encoding/json leaves out, from where in body it
// happened.
func withPath(err error, body []byte) error {
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) || typeErr.Field == "" {
		return err
	}
	field := jsonPath(typeErr.Field)
	if full := httpx.PathAt(body, typeErr.Offset); full != field && (strings.HasPrefix(full, field+".") || strings.HasPrefix(full, field+"[")) {
		return typeErrorAt{typeErr, full}
	}
	return err
}

// typeErrorAt is a type error with the whole path of the value at fault.
type typeErrorAt struct {
	*json.UnmarshalTypeError
	path string
}

func (e typeErrorAt) Unwrap() error { return e.UnmarshalTypeError }

// decodeError turns a JSON decoding failure into a client error naming the field at fault.
func decodeError(err error) error {
	var (
		tooLarge  *http.MaxBytesError
		syntax    *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
		domainErr *domain.Error
	)
	switch {
	case errors.As(err, &domainErr):
		return domainErr
	case errors.As(err, &tooLarge):
		return payloadTooLarge(tooLarge.Limit)
	case errors.As(err, &syntax):
		return domain.Invalid("", "the request body is not valid JSON (at byte %d)", syntax.Offset)
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return domain.Invalid("", "the request body must be a JSON object")
		}
		field := jsonPath(typeErr.Field)
		if at := (typeErrorAt{}); errors.As(err, &at) {
			field = at.path
		}
		kind := typeErr.Type.Kind().String()
		// A number where a whole one goes is the right type with the wrong value: say so.
		if n, ok := strings.CutPrefix(typeErr.Value, "number "); ok && (strings.HasPrefix(kind, "int") || strings.HasPrefix(kind, "uint")) {
			if strings.ContainsAny(n, ".eE") {
				return domain.Invalid(field, "%s must be a whole number, not %s", field, n)
			}
			return domain.Invalid(field, "%s is out of range (%s)", field, n)
		}
		return domain.Invalid(field, "%s must be %s", field, jsonKind(kind))
	case errors.Is(err, io.EOF):
		return domain.Invalid("", "the request body is empty; send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return domain.Invalid("", "the request body is not valid JSON (it ends too early)")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		return domain.Invalid(field, "unknown field %q", field)
	}
	return domain.Invalid("", "the request body could not be read as JSON")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	if strings.HasPrefix(goKind, "int") || strings.HasPrefix(goKind, "uint") || strings.HasPrefix(goKind, "float") {
		return "a number"
	}
	return "of another type"
}

func payloadTooLarge(limit int64) *domain.Error {
	return &domain.Error{Code: domain.CodeInvalid, Reason: httpx.ReasonPayloadTooLarge,
		Message: fmt.Sprintf("the request body is larger than %d bytes", limit)}
}

// Query parameters. Parsing a parameter's syntax is decoding; every rule about its value
// (ranges, known event types, ...) is the service's.

// mapPage converts a page's items (to their public objects).
func mapPage[T, U any](p domain.Page[T], f func(T) U) domain.Page[U] {
	out := domain.Page[U]{Data: make([]U, len(p.Data)), HasMore: p.HasMore, NextCursor: p.NextCursor}
	for i, v := range p.Data {
		out.Data[i] = f(v)
	}
	return out
}

// queryLimit reads ?limit= (absent: nil, the service's default; the range is the service's rule).
func queryLimit(r *http.Request) (*int, error) {
	raw := r.URL.Query().Get("limit")
	if raw == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return nil, domain.Invalid("limit", "limit must be an integer between 1 and %d", service.MaxPageLimit)
	}
	return &n, nil
}

// queryList reads a parameter given repeatedly and/or comma-separated.
func queryList(r *http.Request, name string) []string {
	var out []string
	for _, v := range r.URL.Query()[name] {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// queryTime reads an RFC 3339 time parameter (absent: nil).
func queryTime(r *http.Request, name string) (*time.Time, error) {
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return nil, nil
	}
	t, err := bodyTime(name, raw)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// jsonPath drops from a decoder's field path the names of embedded Go structs
// ("LinkFields.expired_url" is the body's "expired_url"): the API's JSON names are
// lower-case snake_case, so a segment with a capital is a Go type's.
func jsonPath(field string) string {
	parts := strings.Split(field, ".")
	out := parts[:0]
	for _, p := range parts {
		if p != strings.ToLower(p) {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ".")
}
