package store

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// CreateUser inserts a user; a taken email is a conflict.
func (t *Tx) CreateUser(ctx context.Context, u domain.User) error {
	_, err := t.exec(ctx, `INSERT INTO users (id, email, name, password_hash, created_at) VALUES (?, ?, ?, ?, ?)`,
		u.ID, u.Email, u.Name, u.PasswordHash, u.CreatedAt)
	return err
}

// UserByEmail finds a user by (already normalised) email.
func (q q) UserByEmail(ctx context.Context, email string) (domain.User, error) {
	var u domain.User
	err := q.get(ctx, &u, `SELECT id, email, name, password_hash, created_at FROM users WHERE email = ?`, email)
	return u, notFoundAs(err, "user")
}

// UserByID finds a user by id.
func (q q) UserByID(ctx context.Context, id string) (domain.User, error) {
	var u domain.User
	err := q.get(ctx, &u, `SELECT id, email, name, password_hash, created_at FROM users WHERE id = ?`, id)
	return u, notFoundAs(err, "user")
}

// CreateSession stores a session (by token hash).
func (q q) CreateSession(ctx context.Context, s domain.Session) error {
	_, err := q.exec(ctx, `INSERT INTO sessions (id, user_id, token_hash, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
		s.ID, s.UserID, s.TokenHash, s.CreatedAt, s.LastSeenAt, s.ExpiresAt)
	return err
}

// SessionByTokenHash finds a session by the hash of its token.
func (q q) SessionByTokenHash(ctx context.Context, hash string) (domain.Session, error) {
	var s domain.Session
	err := q.get(ctx, &s, `SELECT id, user_id, token_hash, created_at, last_seen_at, expires_at FROM sessions WHERE token_hash = ?`, hash)
	return s, notFoundAs(err, "session")
}

// SessionByID finds a session by id.
func (q q) SessionByID(ctx context.Context, id string) (domain.Session, error) {
	var s domain.Session
	err := q.get(ctx, &s, `SELECT id, user_id, token_hash, created_at, last_seen_at, expires_at FROM sessions WHERE id = ?`, id)
	return s, notFoundAs(err, "session")
}

// TouchSession records activity (the service calls it at most once a minute per session).
func (q q) TouchSession(ctx context.Context, id string, at time.Time) error {
	_, err := q.exec(ctx, `UPDATE sessions SET last_seen_at = ? WHERE id = ?`, at, id)
	return err
}

// DeleteSession removes a session by token hash; deleting a missing one is not an error.
func (q q) DeleteSession(ctx context.Context, hash string) error {
	_, err := q.exec(ctx, `DELETE FROM sessions WHERE token_hash = ?`, hash)
	return err
}

// DeleteExpiredSessions removes sessions past their absolute expiry or idle since idleBefore.
func (q q) DeleteExpiredSessions(ctx context.Context, now, idleBefore time.Time) error {
	_, err := q.exec(ctx, `DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?`, now, idleBefore)
	return err
}

// notFoundAs names the missing object in a not-found error.
func notFoundAs(err error, what string) error {
	if domain.IsCode(err, domain.CodeNotFound) {
		return &domain.Error{Code: domain.CodeNotFound, Message: what + " not found", Err: err}
	}
	return err
}
