package service

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Keys manages API keys and verifies them. Verification is served from memory once a key has
// been seen; revocation purges the cache on every replica (store notification), and last-use
// times are written in batches, so a request with a cached key costs no database round trip.
type Keys struct {
	s *Service

	mu    sync.RWMutex
	cache map[string]domain.APIKey // secret hash → key
	gen   uint64                   // bumped by every purge, so a racing load never re-caches a stale key

	// used holds each key's last use not yet written (key id → *lastUse). Every request of a
	// key records its use, so this takes no lock: a mutex here was the most contended one
	// under load.
	used sync.Map
}

// lastUse is a key's last use not yet written, in Unix nanoseconds (0: none pending).
type lastUse struct{ ns atomic.Int64 }

// touch records a use of key id at t.
func (k *Keys) touch(id string, t time.Time) {
	v, ok := k.used.Load(id)
	if !ok {
		v, _ = k.used.LoadOrStore(id, new(lastUse))
	}
	v.(*lastUse).ns.Store(t.UnixNano())
}

// pendingUse is key id's last use not yet written, if any.
func (k *Keys) pendingUse(id string) (time.Time, bool) {
	if v, ok := k.used.Load(id); ok {
		if ns := v.(*lastUse).ns.Load(); ns != 0 {
			return time.Unix(0, ns).UTC(), true
		}
	}
	return time.Time{}, false
}

// Input limits for keys.
const (
	MaxKeyNameLength  = 100
	MaxAllowedOrigins = 20
	maxCachedKeys     = 100_000
	MaxKeyLifetime    = 5 * 365 * 24 * time.Hour
)

func newKeys(s *Service) *Keys {
	return &Keys{s: s, cache: map[string]domain.APIKey{}}
}

// CreateKeyInput is a new key.
type CreateKeyInput struct {
	Name           string
	Scopes         []string
	ExpiresAt      *time.Time
	AllowedOrigins []string
}

// Create makes a key and returns it with its secret, which is never available again.
func (k *Keys) Create(ctx context.Context, a Actor, in CreateKeyInput) (domain.APIKey, string, error) {
	if err := requireSession(a); err != nil {
		return domain.APIKey{}, "", err
	}
	wsID, err := requireWorkspace(a, domain.ScopeAll)
	if err != nil {
		return domain.APIKey{}, "", err
	}
	now := k.s.cfg.Clock.Now()
	key, err := validateKeyInput(in, now)
	if err != nil {
		return domain.APIKey{}, "", err
	}
	secret := newKeySecret()
	key.ID = domain.NewID(domain.PrefixAPIKey)
	key.WorkspaceID = wsID
	key.Hash = hashKey(secret)
	key.Prefix = secret[:len(keyPrefix)+4]
	key.LastFour = secret[len(secret)-4:]
	key.CreatedBy = a.UserID
	key.CreatedAt = now
	err = k.s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateAPIKey(ctx, key); err != nil {
			return err
		}
		_, err := k.s.record(ctx, tx, wsID, domain.EventAPIKeyCreated, nil, key.Object(now))
		return err
	})
	if err != nil {
		return domain.APIKey{}, "", err
	}
	return key, secret, nil
}

func validateKeyInput(in CreateKeyInput, now time.Time) (domain.APIKey, error) {
	var key domain.APIKey
	key.Name = strings.TrimSpace(in.Name)
	if key.Name == "" {
		return key, domain.Invalid("name", "name is required")
	}
	if utf8.RuneCountInString(key.Name) > MaxKeyNameLength {
		return key, domain.Invalid("name", "name must be at most %d characters", MaxKeyNameLength)
	}
	if len(in.Scopes) == 0 {
		return key, domain.Invalid("scopes", "choose at least one scope")
	}
	seen := map[domain.Scope]bool{}
	for _, raw := range in.Scopes {
		sc := domain.Scope(strings.TrimSpace(raw))
		if !domain.ValidScope(sc) {
			return key, domain.Invalid("scopes", "unknown scope %q", truncate(raw, 64))
		}
		if !seen[sc] {
			seen[sc] = true
			key.Scopes = append(key.Scopes, sc)
		}
	}
	if seen[domain.ScopeAll] {
		key.Scopes = []domain.Scope{domain.ScopeAll}
	}
	if in.ExpiresAt != nil {
		exp := in.ExpiresAt.UTC().Truncate(time.Millisecond)
		if !exp.After(now) {
			return key, domain.Invalid("expires_at", "expiry must be in the future")
		}
		if exp.Sub(now) > MaxKeyLifetime {
			return key, domain.Invalid("expires_at", "expiry must be within 5 years")
		}
		key.ExpiresAt = &exp
	}
	if len(in.AllowedOrigins) > MaxAllowedOrigins {
		return key, domain.Invalid("allowed_origins", "at most %d origins", MaxAllowedOrigins)
	}
	for _, o := range in.AllowedOrigins {
		origin, err := normalizeOrigin(o)
		if err != nil {
			return key, err
		}
		key.AllowedOrigins = append(key.AllowedOrigins, origin)
	}
	return key, nil
}

// normalizeOrigin accepts "*" or scheme://host[:port] with nothing after it, written as
// browsers send it in Origin (lower case, no default port), since origins are compared as
// strings.
func normalizeOrigin(raw string) (string, error) {
	o := strings.TrimSpace(raw)
	if o == "*" {
		return o, nil
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", domain.Invalid("allowed_origins", "%q is not an origin like https://example.com", truncate(raw, 100))
	}
	// A pattern would be stored and never match: say so rather than refuse its sites later.
	if strings.Contains(u.Host, "*") {
		return "", domain.Invalid("allowed_origins",
			"%q: patterns are not supported; list each origin (https://app.example.com), or \"*\" for any", truncate(raw, 100))
	}
	host := u.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port := u.Port(); port != "" && !(u.Scheme == "https" && port == "443") && !(u.Scheme == "http" && port == "80") {
		host += ":" + port
	}
	return strings.ToLower(u.Scheme + "://" + host), nil
}

// List returns the workspace's keys, newest first (never secrets or hashes).
func (k *Keys) List(ctx context.Context, a Actor) ([]domain.APIKey, error) {
	if err := requireSession(a); err != nil {
		return nil, err
	}
	wsID, err := requireWorkspace(a, domain.ScopeAll)
	if err != nil {
		return nil, err
	}
	keys, err := k.s.store.APIKeys(ctx, wsID)
	if err != nil {
		return nil, err
	}
	for i := range keys {
		keys[i].Hash = ""
		if t, ok := k.pendingUse(keys[i].ID); ok { // not flushed yet: show it anyway
			keys[i].LastUsedAt = &t
		}
	}
	return keys, nil
}

// Revoke revokes a key at once, on every replica. Revoking a revoked key changes nothing.
func (k *Keys) Revoke(ctx context.Context, a Actor, id string) (domain.APIKey, error) {
	if err := requireSession(a); err != nil {
		return domain.APIKey{}, err
	}
	wsID, err := requireWorkspace(a, domain.ScopeAll)
	if err != nil {
		return domain.APIKey{}, err
	}
	now := k.s.cfg.Clock.Now()
	var key domain.APIKey
	err = k.s.store.Tx(ctx, func(tx *store.Tx) error {
		if key, err = tx.APIKey(ctx, wsID, id); err != nil {
			return err
		}
		if key.RevokedAt != nil {
			return nil
		}
		if err := tx.RevokeAPIKey(ctx, wsID, id, now); err != nil {
			return err
		}
		key.RevokedAt = &now
		// Purge this replica's cache as soon as the revocation commits (the very next
		// request must fail), and every other replica's through the notification.
		if err := k.s.Invalidate(ctx, tx, invalidateKey, key.Hash+":"+key.ID); err != nil {
			return err
		}
		_, err := k.s.record(ctx, tx, wsID, domain.EventAPIKeyRevoked, nil, key.Object(now))
		return err
	})
	key.Hash = ""
	return key, err
}

// Authentication failures. Their messages are the same; only the code differs.
var (
	errInvalidKey = &domain.Error{Code: domain.CodeUnauthenticated, Reason: "invalid_api_key",
		Message: "The API key is invalid, revoked or expired. Create a key in the console at /user/api."}
	errRevokedKey = &domain.Error{Code: domain.CodeUnauthenticated, Reason: "revoked_api_key", Message: errInvalidKey.Message}
	errExpiredKey = &domain.Error{Code: domain.CodeUnauthenticated, Reason: "expired_api_key", Message: errInvalidKey.Message}
)

// Authenticate verifies a key secret and returns its actor.
func (k *Keys) Authenticate(ctx context.Context, secret string) (Actor, error) {
	var hx [64]byte
	hashKeyHex(&hx, secret)
	k.mu.RLock()
	key, ok := k.cache[string(hx[:])] // a look-up by converted bytes does not allocate
	gen := k.gen
	k.mu.RUnlock()
	if !ok {
		// Only a secret of the key format with a valid checksum is worth a database look-up.
		// (A cached key's secret is well formed: the cache holds only stored keys, so checking
		// the format first would change no answer, only cost every request.)
		if !keyWellFormed(secret) {
			return Actor{}, errInvalidKey
		}
		hash := string(hx[:])
		var err error
		key, err = k.s.store.APIKeyByHash(ctx, hash)
		if domain.IsCode(err, domain.CodeNotFound) {
			return Actor{}, errInvalidKey
		}
		if err != nil {
			return Actor{}, err
		}
		k.mu.Lock()
		if k.gen == gen {
			if len(k.cache) >= maxCachedKeys {
				clear(k.cache)
			}
			k.cache[hash] = key
		}
		k.mu.Unlock()
	}
	now := k.s.cfg.Clock.Now()
	switch key.Status(now) {
	case "revoked":
		return Actor{}, errRevokedKey
	case "expired":
		return Actor{}, errExpiredKey
	}
	k.touch(key.ID, now)
	return Actor{KeyID: key.ID, WorkspaceID: key.WorkspaceID, Scopes: key.Scopes, AllowedOrigins: key.AllowedOrigins}, nil
}

// Key returns the calling key's own record (GET /api/v1/me).
func (k *Keys) Key(ctx context.Context, a Actor) (domain.APIKey, domain.Workspace, error) {
	if !a.IsKey() {
		return domain.APIKey{}, domain.Workspace{}, &domain.Error{Code: domain.CodeForbidden, Reason: "api_key_required",
			Message: "this endpoint describes the calling API key"}
	}
	key, err := k.s.store.APIKey(ctx, a.WorkspaceID, a.KeyID)
	if err != nil {
		return key, domain.Workspace{}, err
	}
	key.Hash = ""
	if t, ok := k.pendingUse(key.ID); ok {
		key.LastUsedAt = &t
	}
	ws, err := k.s.store.WorkspaceByID(ctx, a.WorkspaceID)
	return key, ws, err
}

// purge forgets the cached key with this secret hash ("" forgets them all).
func (k *Keys) purge(hash string) {
	k.mu.Lock()
	k.gen++
	if hash == "" {
		clear(k.cache)
	} else {
		delete(k.cache, hash)
	}
	k.mu.Unlock()
}

// purgeAll forgets every cached key (after a lost notification connection).
func (k *Keys) purgeAll() { k.purge("") }

func (k *Keys) flushLastUsed(ctx context.Context) {
	batch := map[string]time.Time{}
	k.used.Range(func(id, v any) bool {
		if ns := v.(*lastUse).ns.Swap(0); ns != 0 {
			batch[id.(string)] = time.Unix(0, ns).UTC()
		}
		return true
	})
	if len(batch) == 0 {
		return
	}
	if err := k.s.store.TouchAPIKeys(ctx, batch); err != nil {
		k.s.log.Warn("write API key last use", "err", err, "keys", len(batch))
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
