package service

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/mail"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Users signs console users up, in and out, and resolves their sessions.
type Users struct {
	s         *Service
	throttle  *Throttle
	dummyOnce sync.Once
	dummyHash string
}

// SignUpInput is a new account.
type SignUpInput struct {
	Email    string
	Password string
	Name     string
}

// SignInInput is a sign-in attempt.
type SignInInput struct {
	Email    string
	Password string
}

// Limits on account input.
const (
	MinPasswordLength = 10
	MaxPasswordLength = 256
	MaxNameLength     = 100
	MaxEmailLength    = 254
)

// errBadCredentials is the one message for every sign-in failure: it never says whether the
// account exists.
var errBadCredentials = &domain.Error{Code: domain.CodeUnauthenticated, Reason: "invalid_credentials",
	Message: "incorrect email or password"}

var errTooManyAttempts = &domain.Error{Code: domain.CodeRateLimited, Reason: "too_many_attempts",
	Message: "too many failed sign-in attempts; try again later"}

// Sign-ups per client address: a person makes an account or two; a script making hundreds
// fills the database and takes the password hasher's turns from sign-ins and link passwords.
const (
	signUpLimit  = 10
	signUpWindow = time.Hour
)

var errTooManySignUps = &domain.Error{Code: domain.CodeRateLimited, Reason: "too_many_sign_ups",
	Message: "too many accounts made from this address; try again later"}

// SignUp creates an account and signs it in, returning the session token.
func (u *Users) SignUp(ctx context.Context, in SignUpInput, client ClientInfo) (domain.User, string, error) {
	email, err := normalizeEmail(in.Email)
	if err != nil {
		return domain.User{}, "", err
	}
	if client.IP != "" {
		key := "signup:" + client.IP
		if u.throttle.Blocked(key, signUpLimit, signUpWindow) {
			return domain.User{}, "", errTooManySignUps
		}
		u.throttle.Fail(key, signUpWindow) // every try counts, made or not
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return domain.User{}, "", domain.Invalid("name", "name is required")
	}
	if utf8.RuneCountInString(name) > MaxNameLength {
		return domain.User{}, "", domain.Invalid("name", "name must be at most %d characters", MaxNameLength)
	}
	if n := utf8.RuneCountInString(in.Password); n < MinPasswordLength || len(in.Password) > MaxPasswordLength {
		return domain.User{}, "", domain.Invalid("password", "password must be %d to %d characters", MinPasswordLength, MaxPasswordLength)
	}
	user := domain.User{ID: domain.NewID(domain.PrefixUser), Email: email, Name: name,
		PasswordHash: u.hashPassword(in.Password), CreatedAt: u.s.cfg.Clock.Now()}
	err = u.s.store.Tx(ctx, func(tx *store.Tx) error { return tx.CreateUser(ctx, user) })
	if domain.IsCode(err, domain.CodeConflict) {
		return domain.User{}, "", &domain.Error{Code: domain.CodeConflict, Param: "email", Reason: "email_taken",
			Message: "an account with this email already exists; sign in instead"}
	}
	if err != nil {
		return domain.User{}, "", err
	}
	token, err := u.newSession(ctx, user.ID)
	return user, token, err
}

// sessionTouchEvery bounds writes of a session's last-seen time.
const sessionTouchEvery = time.Minute

// SignIn checks the password and starts a new session (a fresh token each time).
func (u *Users) SignIn(ctx context.Context, in SignInInput, client ClientInfo) (domain.User, string, error) {
	email := strings.ToLower(strings.TrimSpace(in.Email))
	if len(email) > MaxEmailLength || len(in.Password) > MaxPasswordLength {
		return domain.User{}, "", errBadCredentials
	}
	cfg := u.s.cfg
	acctKey, ipKey := "acct:"+email, "ip:"+client.IP
	if u.throttle.Blocked(acctKey, cfg.SignInLimit, cfg.SignInWindow) ||
		(client.IP != "" && u.throttle.Blocked(ipKey, 5*cfg.SignInLimit, cfg.SignInWindow)) {
		return domain.User{}, "", errTooManyAttempts
	}
	user, err := u.s.store.UserByEmail(ctx, email)
	if err != nil && !domain.IsCode(err, domain.CodeNotFound) {
		return domain.User{}, "", err
	}
	hash := user.PasswordHash
	if err != nil {
		// Hash anyway, so sign-in takes as long whether or not the account exists.
		u.dummyOnce.Do(func() { u.dummyHash = u.hashPassword("not a real password") })
		hash = u.dummyHash
	}
	if !checkPassword(hash, in.Password) || err != nil {
		u.throttle.Fail(acctKey, cfg.SignInWindow)
		u.throttle.Fail(ipKey, cfg.SignInWindow)
		return domain.User{}, "", errBadCredentials
	}
	u.throttle.Reset(acctKey)
	token, err := u.newSession(ctx, user.ID)
	return user, token, err
}

// SignOut ends the session of token (a missing session is fine).
func (u *Users) SignOut(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	return u.s.store.Tx(ctx, func(tx *store.Tx) error {
		sess, err := tx.SessionByTokenHash(ctx, HashToken(token))
		if domain.IsCode(err, domain.CodeNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := tx.DeleteSession(ctx, sess.TokenHash); err != nil {
			return err
		}
		// End the session's live subscriptions here and on every other replica.
		return u.s.Invalidate(ctx, tx, invalidateSession, sess.ID)
	})
}

// Authenticate resolves a session token to its actor, enforcing idle and absolute expiry.
func (u *Users) Authenticate(ctx context.Context, token string) (Actor, error) {
	if token == "" || len(token) > 100 {
		return Actor{}, errSignedOut
	}
	sess, err := u.s.store.SessionByTokenHash(ctx, HashToken(token))
	if domain.IsCode(err, domain.CodeNotFound) {
		return Actor{}, errSignedOut
	}
	if err != nil {
		return Actor{}, err
	}
	now := u.s.cfg.Clock.Now()
	if !now.Before(sess.ExpiresAt) || now.Sub(sess.LastSeenAt) >= u.s.cfg.SessionIdle {
		_ = u.s.store.DeleteSession(ctx, sess.TokenHash)
		return Actor{}, &domain.Error{Code: domain.CodeUnauthenticated, Reason: "session_expired", Message: "your session expired; sign in again"}
	}
	if now.Sub(sess.LastSeenAt) > sessionTouchEvery {
		if err := u.s.store.TouchSession(ctx, sess.ID, now); err != nil {
			u.s.log.Warn("touch session", "err", err)
		}
	}
	a := Actor{UserID: sess.UserID, SessionID: sess.ID}
	ws, err := u.s.store.WorkspaceByOwner(ctx, sess.UserID)
	switch {
	case err == nil:
		a.WorkspaceID = ws.ID
	case !domain.IsCode(err, domain.CodeNotFound):
		return Actor{}, err
	}
	return a, nil
}

// Get returns the signed-in user.
func (u *Users) Get(ctx context.Context, a Actor) (domain.User, error) {
	if !a.IsSession() {
		return domain.User{}, errSignedOut
	}
	user, err := u.s.store.UserByID(ctx, a.UserID)
	user.PasswordHash = ""
	return user, err
}

func (u *Users) newSession(ctx context.Context, userID string) (string, error) {
	token := "sbs_" + RandomToken(32)
	now := u.s.cfg.Clock.Now()
	err := u.s.store.CreateSession(ctx, domain.Session{ID: domain.NewID(domain.PrefixSession), UserID: userID,
		TokenHash: HashToken(token), CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(u.s.cfg.SessionAbsolute)})
	if err != nil {
		return "", err
	}
	return token, nil
}

func normalizeEmail(raw string) (string, error) {
	email := strings.ToLower(strings.TrimSpace(raw))
	if email == "" {
		return "", domain.Invalid("email", "email is required")
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || len(email) > MaxEmailLength || !strings.Contains(email[strings.IndexByte(email, '@'):], ".") {
		return "", domain.Invalid("email", "email is not a valid address")
	}
	return email, nil
}

// RandomToken returns n random bytes, base64url-encoded (session tokens, publishing and
// callback tokens: every unguessable token of the service).
func RandomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashToken is the hex SHA-256 a token is stored and looked up by.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
