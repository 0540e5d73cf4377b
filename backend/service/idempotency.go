package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// IdempotencyWindow is how long a POST's response is replayed for the same Idempotency-Key.
const IdempotencyWindow = 24 * time.Hour

// MaxIdempotencyKeyLength bounds the header.
const MaxIdempotencyKeyLength = 255

// Idempotency implements Idempotency-Key for POST requests: the same key with the same
// request replays the first response; with a different request it is a conflict.
type Idempotency struct{ s *Service }

// Replay is a stored response to send again.
type Replay struct {
	StatusCode  int
	ContentType string
	Body        []byte
}

// Begin claims key for a request fingerprinted by method, path and body, to an operation
// that needs scope ("" for any caller). It returns a replay when the same request already
// completed; otherwise the caller runs the request and calls Finish (or Abandon if it failed
// without a response worth keeping).
//
// The caller must hold scope before anything is claimed or replayed: keys are shared by the
// workspace's API keys, so without the check a key lacking the scope could replay another
// key's answer (a webhook's signing secret), and its own refusal would be kept and replayed
// to the key that has the scope. A replay also needs every scope of the caller that claimed
// the key: an operation can need more than its route's scope (an automation endpoint that
// sends messages needs messages:send too), and its response can hold what only they may see.
func (i *Idempotency) Begin(ctx context.Context, a Actor, scope domain.Scope, key, method, path string, body []byte) (*Replay, error) {
	if err := requireScope(a, scope); err != nil {
		return nil, err
	}
	if key == "" || len(key) > MaxIdempotencyKeyLength {
		return nil, domain.Invalid("Idempotency-Key", "Idempotency-Key must be 1 to %d characters", MaxIdempotencyKeyLength)
	}
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(body)
	fp := hex.EncodeToString(h.Sum(nil))
	now := i.s.cfg.Clock.Now()
	rec, claimed, err := i.s.store.ClaimIdempotencyKey(ctx, store.IdempotentResponse{
		WorkspaceID: scopeOf(a), Key: key, RequestHash: fp, Scopes: scopeList(a), CreatedAt: now})
	if err != nil || claimed {
		return nil, err
	}
	if now.Sub(rec.CreatedAt) >= IdempotencyWindow { // expired record not yet cleaned up
		if err := i.s.store.ReleaseIdempotencyKey(ctx, rec.WorkspaceID, key); err != nil {
			return nil, err
		}
		return i.Begin(ctx, a, scope, key, method, path, body)
	}
	if rec.RequestHash != fp {
		return nil, &domain.Error{Code: domain.CodeConflict, Reason: "idempotency_conflict", Param: "Idempotency-Key",
			Message: "this Idempotency-Key was used with a different request"}
	}
	if missing := missingScope(a, rec.Scopes); missing != "" {
		return nil, &domain.Error{Code: domain.CodeForbidden, Reason: "insufficient_scope", Param: "Idempotency-Key",
			Message: "this Idempotency-Key was first used by a caller with the scope " + string(missing) +
				", which this API key lacks: only such a caller gets its response again"}
	}
	if rec.StatusCode == 0 {
		return nil, &domain.Error{Code: domain.CodeConflict, Reason: "idempotency_in_progress", Param: "Idempotency-Key",
			Message: "a request with this Idempotency-Key is still in progress"}
	}
	opened, err := i.s.box.open(rec.ResponseBody)
	if err != nil {
		return nil, domain.Internal(err)
	}
	return &Replay{StatusCode: rec.StatusCode, ContentType: rec.ResponseType, Body: []byte(opened)}, nil
}

// Finish stores the response of the request that claimed key.
// The body is sealed like other secrets at rest: a create response may carry one.
func (i *Idempotency) Finish(ctx context.Context, a Actor, key string, status int, contentType string, body []byte) error {
	sealed, err := i.s.box.seal(string(body))
	if err != nil {
		return domain.Internal(err)
	}
	return i.s.store.CompleteIdempotencyKey(ctx, scopeOf(a), key, status, contentType, sealed)
}

// Abandon releases key so the client may retry (the request failed with a server error).
func (i *Idempotency) Abandon(ctx context.Context, a Actor, key string) error {
	return i.s.store.ReleaseIdempotencyKey(ctx, scopeOf(a), key)
}

// requireScope allows a caller with scope (any caller when scope is "").
func requireScope(a Actor, scope domain.Scope) error {
	if scope == "" {
		return requireAuthenticated(a)
	}
	_, err := requireWorkspace(a, scope)
	return err
}

// scopeList is what an idempotency record keeps of its caller's scopes: a key's, or full
// access for a console session.
func scopeList(a Actor) string {
	if !a.IsKey() {
		return string(domain.ScopeAll)
	}
	parts := make([]string, len(a.Scopes))
	for i, s := range a.Scopes {
		parts[i] = string(s)
	}
	return strings.Join(parts, ",")
}

// missingScope names a scope of a record's caller that a lacks ("" when it has them all).
// A record from before scopes were kept ("") counts as full access.
func missingScope(a Actor, recorded string) domain.Scope {
	if !a.IsKey() {
		return ""
	}
	if recorded == "" {
		recorded = string(domain.ScopeAll)
	}
	for _, s := range strings.Split(recorded, ",") {
		if !domain.HasScope(a.Scopes, domain.Scope(s)) {
			return domain.Scope(s)
		}
	}
	return ""
}

// scopeOf is the namespace of idempotency keys: the workspace (as Stripe scopes them to the
// account), falling back to the key for safety.
func scopeOf(a Actor) string {
	if a.WorkspaceID != "" {
		return a.WorkspaceID
	}
	return a.KeyID + a.UserID
}
