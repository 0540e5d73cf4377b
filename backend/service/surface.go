package service

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// This file is the kit a surface's service package (messaging, links, automation) builds
// on, so that each surface holds only its own rules: the workspace-and-scope check, the
// mutation skeleton, list pages and cursors, event recording, and cache invalidation on
// every replica. See docs/architecture.md, "Adding a surface".

// RequireWorkspace allows a console session (with a workspace) or an API key with scope,
// and returns the workspace to act in.
func RequireWorkspace(a Actor, scope domain.Scope) (string, error) { return requireWorkspace(a, scope) }

// RequireScope refuses an actor without scope (none: any signed-in actor): what the API edge
// checks before it reads an operation's input.
func RequireScope(a Actor, scope domain.Scope) error { return requireScope(a, scope) }

// CannotRemove refuses null for a field an object cannot be without. remove names the
// fields an update sent as null (by their API names, as both transports pass them: REST's
// PATCH from the body, GraphQL's update mutations from the input), and names are checked
// in order: the first one sent as null is refused. prefix goes before the name in the
// error's param (an item of a bulk call: "links[2].").
func CannotRemove(prefix string, remove map[string]bool, names ...string) error {
	for _, name := range names {
		if remove[name] {
			return domain.Invalid(prefix+name, "%s cannot be removed: send a new value or leave it out", name)
		}
	}
	return nil
}

// Change is what a mutation knows inside its transaction.
type Change struct {
	Tx          *store.Tx
	WorkspaceID string
	Now         time.Time
}

// Mutate runs the skeleton every change shares: require the scope, read the clock once,
// then run fn in one transaction, in which fn loads, changes and records its event (with
// Record), so the change and its event commit together or not at all.
func (s *Service) Mutate(ctx context.Context, a Actor, scope domain.Scope, fn func(c Change) error) error {
	wsID, err := requireWorkspace(a, scope)
	if err != nil {
		return err
	}
	now := s.cfg.Clock.Now()
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		return fn(Change{Tx: tx, WorkspaceID: wsID, Now: now})
	})
}

// MutateIn is Mutate in a transaction the caller holds, so that the change commits
// together with the caller's own writes (an automation run's record of it) or not at all.
func (s *Service) MutateIn(tx *store.Tx, a Actor, scope domain.Scope, fn func(c Change) error) error {
	wsID, err := requireWorkspace(a, scope)
	if err != nil {
		return err
	}
	return fn(Change{Tx: tx, WorkspaceID: wsID, Now: s.cfg.Clock.Now()})
}

// PageLimit reads a list's page size: absent means DefaultPageLimit; 1..MaxPageLimit.
func PageLimit(p domain.ListParams) (int, error) { return pageLimit(p) }

// PageOf turns the limit+1 rows a store list returns into a page whose cursor is the last
// row's id.
func PageOf[T any](rows []T, limit int, id func(T) string) domain.Page[T] {
	return pageOf(rows, limit, id)
}

// CheckCursor refuses an `after` cursor that is not an id of the listed kind (prefix), with
// one message for every list.
func CheckCursor(after, prefix string) error {
	if after != "" && !domain.HasPrefix(after, prefix) {
		return domain.Invalid("after", "after must be the next_cursor of a previous page")
	}
	return nil
}

// invalidators applies cache invalidations by kind. An invalidation travels to every replica
// (PostgreSQL NOTIFY, in process on SQLite) as "kind:arg".
type invalidators struct {
	mu     sync.RWMutex
	fns    map[string][]func(arg string)
	resync []func()
}

// OnInvalidate registers fn to run on every replica when an invalidation of kind is
// published (the short-link cache registers "link", the key cache "key"). Register at
// construction time.
func (s *Service) OnInvalidate(kind string, fn func(arg string)) {
	s.invalidators.mu.Lock()
	defer s.invalidators.mu.Unlock()
	if s.invalidators.fns == nil {
		s.invalidators.fns = map[string][]func(string){}
	}
	s.invalidators.fns[kind] = append(s.invalidators.fns[kind], fn)
}

// OnResync registers fn to run when this replica may have missed invalidations (its
// notification connection was lost and came back): a cache fed by OnInvalidate drops
// everything it holds. Register at construction time.
func (s *Service) OnResync(fn func()) {
	s.invalidators.mu.Lock()
	defer s.invalidators.mu.Unlock()
	s.invalidators.resync = append(s.invalidators.resync, fn)
}

// resync runs after the notification listener reconnects: every cache kept fresh by
// notifications starts over, and live subscribers catch up from the event log (see
// Events.Subscribe), checking their credential again.
func (s *Service) resync() {
	s.Keys.purgeAll()
	s.invalidators.mu.RLock()
	fns := s.invalidators.resync
	s.invalidators.mu.RUnlock()
	for _, fn := range fns {
		fn()
	}
	s.bus.Resync()
}

// Invalidate publishes an invalidation of kind for arg to every replica once tx commits
// (never if it rolls back). Invalidations must be idempotent.
func (s *Service) Invalidate(ctx context.Context, tx *store.Tx, kind, arg string) error {
	payload := kind + ":" + arg
	// This replica at once on commit (the very next request must see it), the others
	// through the notification; applying one twice is harmless.
	tx.AfterCommit(func() { s.invalidate(payload) })
	return tx.Notify(ctx, channelInvalidate, payload)
}

// InvalidateAfterCommit is Invalidate sent after the commit, batched with other
// announcements, instead of inside the transaction: PostgreSQL commits transactions that
// NOTIFY one at a time, so a NOTIFY in every creation caps creations at one disk flush
// each. The price is that a replica dying between its commit and the announcement leaves
// the other replicas' entries until their cache's TTL, so it is only for entries whose
// staleness that TTL bounds harmlessly (a cached "no such slug" when a link is created).
func (s *Service) InvalidateAfterCommit(tx *store.Tx, kind, arg string) {
	payload := kind + ":" + arg
	tx.AfterCommit(func() { s.invalidate(payload) })
	tx.Announce(channelInvalidate, payload)
}

// invalidate applies an invalidation payload on this replica.
func (s *Service) invalidate(payload string) {
	kind, arg, _ := strings.Cut(payload, ":")
	s.invalidators.mu.RLock()
	fns := s.invalidators.fns[kind]
	s.invalidators.mu.RUnlock()
	for _, fn := range fns {
		fn(arg)
	}
}

// Seal encrypts a secret for storage (AES-256-GCM when the operator configured a secrets
// key, else as is); Open reverses it.
func (s *Service) Seal(secret string) (string, error) { return s.box.seal(secret) }

// Open decrypts a secret sealed with Seal.
func (s *Service) Open(stored string) (string, error) { return s.box.open(stored) }
