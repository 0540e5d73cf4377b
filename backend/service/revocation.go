package service

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// revocations lets long-lived work (live subscriptions) end the moment the credential it was
// authorised with — an API key or a console session — is revoked or signed out, on any
// replica (the news travels on the invalidation channel).
type revocations struct {
	mu       sync.Mutex
	watchers map[string]map[chan struct{}]struct{} // key or session id → watchers
}

// watch returns a channel closed when credential id is revoked, and a func to stop watching.
func (r *revocations) watch(id string) (<-chan struct{}, func()) {
	c := make(chan struct{})
	r.mu.Lock()
	if r.watchers == nil {
		r.watchers = map[string]map[chan struct{}]struct{}{}
	}
	if r.watchers[id] == nil {
		r.watchers[id] = map[chan struct{}]struct{}{}
	}
	r.watchers[id][c] = struct{}{}
	r.mu.Unlock()
	return c, func() {
		r.mu.Lock()
		if _, ok := r.watchers[id][c]; ok {
			delete(r.watchers[id], c)
			if len(r.watchers[id]) == 0 {
				delete(r.watchers, id)
			}
		}
		r.mu.Unlock()
	}
}

// revoke closes every watcher of credential id.
func (r *revocations) revoke(id string) {
	r.mu.Lock()
	for c := range r.watchers[id] {
		close(c)
	}
	delete(r.watchers, id)
	r.mu.Unlock()
}

// credentialActive checks that the key or session behind a is still valid now, and returns
// when it stops being valid unless revoked first (zero: a key that never expires). A
// long-lived connection authenticates once, so work it starts later (a new subscription)
// checks again, and a live stream checks again when that time comes.
func (s *Service) credentialActive(ctx context.Context, a Actor) (time.Time, error) {
	now := s.cfg.Clock.Now()
	switch {
	case a.IsKey():
		key, err := s.store.APIKey(ctx, a.WorkspaceID, a.KeyID)
		if err != nil {
			return time.Time{}, revokedIfNotFound(err)
		}
		switch key.Status(now) {
		case "active":
			if key.ExpiresAt == nil {
				return time.Time{}, nil
			}
			return *key.ExpiresAt, nil
		case "expired":
			return time.Time{}, errCredentialExpired
		}
		return time.Time{}, errCredentialRevoked
	case a.IsSession():
		sess, err := s.store.SessionByID(ctx, a.SessionID)
		if err != nil {
			return time.Time{}, revokedIfNotFound(err)
		}
		// The earlier of the absolute and the idle expiry, as Users.Authenticate enforces
		// them; the idle one moves on while the session is used elsewhere.
		until := sess.ExpiresAt
		if idle := sess.LastSeenAt.Add(s.cfg.SessionIdle); idle.Before(until) {
			until = idle
		}
		if !now.Before(until) {
			return time.Time{}, errCredentialExpired
		}
		return until, nil
	}
	return time.Time{}, errSignedOut
}

// CredentialValid reports whether the key or session of a connection authenticated earlier
// (a websocket) is still valid: nil, errCredentialRevoked or errCredentialExpired (both
// unauthenticated), or the error that kept it from being checked. Each operation on such a
// connection checks it, as each HTTP request authenticates.
func (s *Service) CredentialValid(ctx context.Context, a Actor) error {
	_, err := s.credentialActive(ctx, a)
	if ended := credentialEnded(err); ended != nil {
		return ended
	}
	return err
}

// revokedIfNotFound maps a credential deleted since (a signed-out session) to
// errCredentialRevoked; other errors (the database unavailable) pass unchanged.
func revokedIfNotFound(err error) error {
	if domain.IsCode(err, domain.CodeNotFound) {
		return errCredentialRevoked
	}
	return err
}

// credentialEnded is the error a live stream ends with when err, from credentialActive,
// says its credential is no longer valid; nil when it is, or could not be checked.
func credentialEnded(err error) error {
	switch {
	case errors.Is(err, errCredentialExpired):
		return errCredentialExpired
	case errors.Is(err, errCredentialRevoked), errors.Is(err, errSignedOut):
		return errCredentialRevoked
	}
	return nil
}

// Invalidation kinds of the platform: a revoked key ("hash:id": purge the cache entry and
// end the key's live subscriptions) and a signed-out session (its id).
const (
	invalidateKey     = "key"
	invalidateSession = "session"
)

func (s *Service) registerInvalidations() {
	s.OnInvalidate(invalidateKey, func(arg string) {
		hash, id, _ := strings.Cut(arg, ":")
		s.Keys.purge(hash)
		s.revocations.revoke(id)
	})
	s.OnInvalidate(invalidateSession, s.revocations.revoke)
}
