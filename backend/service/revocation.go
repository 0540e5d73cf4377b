package service

import (
	"context"
	"strings"
	"sync"

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

// credentialActive checks that the key or session behind a is still valid now. A long-lived
// connection authenticates once, so work it starts later (a new subscription) checks again.
func (s *Service) credentialActive(ctx context.Context, a Actor) error {
	now := s.cfg.Clock.Now()
	switch {
	case a.IsKey():
		key, err := s.store.APIKey(ctx, a.WorkspaceID, a.KeyID)
		if domain.IsCode(err, domain.CodeNotFound) || (err == nil && key.Status(now) != "active") {
			return errCredentialRevoked
		}
		return err
	case a.IsSession():
		sess, err := s.store.SessionByID(ctx, a.SessionID)
		if domain.IsCode(err, domain.CodeNotFound) || (err == nil && !now.Before(sess.ExpiresAt)) {
			return errCredentialRevoked
		}
		return err
	}
	return errSignedOut
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
