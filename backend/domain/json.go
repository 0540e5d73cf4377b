package domain

import (
	"bytes"
	"encoding/json"
	"time"
)

// TimeFormat is how every API shows a time: RFC 3339, UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Timestamp is a time that encodes as TimeFormat.
type Timestamp time.Time

func (t Timestamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format(TimeFormat) + `"`), nil
}

func (t *Timestamp) UnmarshalJSON(b []byte) error {
	var tt time.Time
	if err := json.Unmarshal(b, &tt); err != nil {
		return err
	}
	*t = Timestamp(tt)
	return nil
}

// TS converts a time for JSON output.
func TS(t time.Time) Timestamp { return Timestamp(t) }

// TSPtr converts an optional time for JSON output.
func TSPtr(t *time.Time) *Timestamp {
	if t == nil {
		return nil
	}
	ts := Timestamp(*t)
	return &ts
}

// MarshalJSON writes the public envelope shared by webhooks, subscriptions and the events API.
func (e Event) MarshalJSON() ([]byte, error) {
	data := e.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	return Encode(struct {
		ID          string          `json:"id"`
		Type        string          `json:"type"`
		Timestamp   Timestamp       `json:"timestamp"`
		WorkspaceID string          `json:"workspace_id"`
		Data        json.RawMessage `json:"data"`
	}{e.ID, e.Type, TS(e.Timestamp), e.WorkspaceID, data})
}

// APIKeyObject is the public representation of an API key (REST, events). It never holds
// the secret or its hash.
type APIKeyObject struct {
	Object         string     `json:"object"`
	ID             string     `json:"id"`
	WorkspaceID    string     `json:"workspace_id"`
	Name           string     `json:"name"`
	Prefix         string     `json:"prefix"`
	LastFour       string     `json:"last_four"`
	Scopes         []Scope    `json:"scopes"`
	AllowedOrigins []string   `json:"allowed_origins"`
	Status         string     `json:"status"`
	CreatedAt      Timestamp  `json:"created_at"`
	LastUsedAt     *Timestamp `json:"last_used_at"`
	ExpiresAt      *Timestamp `json:"expires_at"`
	RevokedAt      *Timestamp `json:"revoked_at"`
}

// Object returns the public representation of k at time now.
func (k APIKey) Object(now time.Time) APIKeyObject {
	scopes, origins := k.Scopes, k.AllowedOrigins
	if scopes == nil {
		scopes = []Scope{}
	}
	if origins == nil {
		origins = []string{}
	}
	return APIKeyObject{"api_key", k.ID, k.WorkspaceID, k.Name, k.Prefix, k.LastFour, scopes, origins,
		k.Status(now), TS(k.CreatedAt), TSPtr(k.LastUsedAt), TSPtr(k.ExpiresAt), TSPtr(k.RevokedAt)}
}

// WorkspaceObject is the public representation of a workspace.
type WorkspaceObject struct {
	Object    string    `json:"object"`
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt Timestamp `json:"created_at"`
}

// Object returns the public representation of w.
func (w Workspace) Object() WorkspaceObject {
	return WorkspaceObject{"workspace", w.ID, w.Name, TS(w.CreatedAt)}
}

// Encode is json.Marshal without its HTML escaping: events (and what they carry: an inbound
// payload, a referrer URL, a title) keep "<", ">" and "&" as they are, not as six-byte
// \u003c escapes that made an HTML-heavy payload count three to six times its size against
// the webhook payload limit. Nothing decodes them differently; JSON needs no such escape.
func Encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
