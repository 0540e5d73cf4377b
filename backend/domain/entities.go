package domain

import "time"

// User is a console user. The password hash never leaves the store and service.
type User struct {
	ID           string    `db:"id"`
	Email        string    `db:"email"`
	Name         string    `db:"name"`
	PasswordHash string    `db:"password_hash"`
	CreatedAt    time.Time `db:"created_at"`
}

// Session is a console sign-in. Only the SHA-256 of its token is stored.
type Session struct {
	ID         string    `db:"id"`
	UserID     string    `db:"user_id"`
	TokenHash  string    `db:"token_hash"`
	CreatedAt  time.Time `db:"created_at"`
	LastSeenAt time.Time `db:"last_seen_at"`
	ExpiresAt  time.Time `db:"expires_at"` // absolute expiry
}

// Workspace owns every object; API keys are scoped to one.
type Workspace struct {
	ID        string    `db:"id"`
	Name      string    `db:"name"`
	OwnerID   string    `db:"owner_id"`
	CreatedAt time.Time `db:"created_at"`
}

// APIKey is a workspace's key. Only the SHA-256 of the secret is stored (Hash), with a
// display Prefix ("sb_live_AbCd") and the secret's last four characters.
type APIKey struct {
	ID             string     `db:"id"`
	WorkspaceID    string     `db:"workspace_id"`
	Name           string     `db:"name"`
	Hash           string     `db:"hash"`
	Prefix         string     `db:"prefix"`
	LastFour       string     `db:"last_four"`
	Scopes         []Scope    `db:"-"`
	AllowedOrigins []string   `db:"-"`
	CreatedBy      string     `db:"created_by"`
	CreatedAt      time.Time  `db:"created_at"`
	LastUsedAt     *time.Time `db:"last_used_at"`
	ExpiresAt      *time.Time `db:"expires_at"`
	RevokedAt      *time.Time `db:"revoked_at"`
}

// Status is "active", "revoked" or "expired" at time now.
func (k *APIKey) Status(now time.Time) string {
	switch {
	case k.RevokedAt != nil:
		return "revoked"
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		return "expired"
	}
	return "active"
}

// Model is an entry of the operator-configured model catalog (OpenAI list shape).
type Model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// Page is one page of a cursor-paginated list.
type Page[T any] struct {
	Data       []T
	HasMore    bool
	NextCursor string
}

// ListParams are the common list inputs: Limit 1..100 (nil: the default, 20), After an
// opaque cursor. Limit is a pointer so that "not given" and an explicit 0 (invalid) differ.
type ListParams struct {
	Limit *int
	After string
}

// Limit returns a page size for ListParams.
func Limit(n int) *int { return &n }
