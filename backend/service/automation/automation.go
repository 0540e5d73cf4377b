// Package automation holds the rules of the automation surface: inbound publishing
// endpoints (tools POST to /hooks/{token}; each accepted call is stored with its
// automation.published event in one transaction), and the actions they run on each call
// (send a message, create a link, forward), as jobs with a recorded run.
package automation

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Limits.
const (
	MaxNameLength       = 200
	MaxSchemaBytes      = 64 << 10
	MaxEndpoints        = 100
	MaxPayloadBytes     = 1 << 20
	MaxDedupeKeyLength  = 255
	HeaderToken         = "X-Switchboard-Token"
	tokenBytes          = 24 // 192 bits
	headerSecretBytes   = 24
	invalidateEndpoints = "automation-endpoint"
)

// Config is the surface's settings.
type Config struct {
	// HooksBase is the public address endpoints' URLs start with (BaseURL + "/hooks").
	HooksBase string
	// Policy guards the forward action's targets (the webhooks' SSRF policy).
	Policy *ssrf.Policy
}

// Automation is the surface's service.
type Automation struct {
	s     *service.Service
	st    *store.Store
	cfg   Config
	log   *slog.Logger
	msg   *messaging.Messaging
	links *links.Links
	// tokens caches endpoints by token hash for /hooks (invalidated on every change).
	mu     sync.RWMutex
	tokens map[string]store.StoredPublisher
	// gen counts the cache's invalidations: an endpoint loaded while one happened may be
	// the state before the change (a rotated token, a disabled endpoint), so it is not kept.
	gen     uint64
	schemas schemas
	// batch stores concurrent calls together (publishbatch.go).
	batch *callBatcher
}

// New returns the automation service; msg and lnk run the send_message and create_link
// actions.
func New(s *service.Service, msg *messaging.Messaging, lnk *links.Links, cfg Config) *Automation {
	a := &Automation{s: s, st: s.Store(), cfg: cfg, log: s.Logger(), msg: msg, links: lnk, tokens: map[string]store.StoredPublisher{}}
	a.batch = newCallBatcher(a)
	s.OnInvalidate(invalidateEndpoints, func(hash string) {
		a.mu.Lock()
		delete(a.tokens, hash)
		a.gen++
		a.mu.Unlock()
	})
	s.OnResync(func() {
		a.mu.Lock()
		clear(a.tokens)
		a.gen++
		a.mu.Unlock()
	})
	return a
}

// Object returns an endpoint's public representation.
func (a *Automation) Object(p domain.Publisher) domain.PublisherObject {
	return p.Object(a.cfg.HooksBase)
}

// EndpointInput is an endpoint's fields: on update nil fields are kept; an empty schema
// (or JSON null) removes it, as does an action of type "" .
type EndpointInput struct {
	Name         *string
	Verification *string
	Schema       json.RawMessage
	Action       *domain.Action
	Enabled      *bool
	// Remove names the fields an update sent as null: an endpoint cannot be without its
	// name, verification or enabled; null removes the schema or the action. REST's PATCH
	// and GraphQL's updateAutomationEndpoint fill it alike.
	Remove map[string]bool
}

// Created is an endpoint with its verification secret, shown this once.
type Created struct {
	Endpoint domain.Publisher
	Secret   string
}

// newSecret makes the secret of a verification kind.
func newSecret(kind string) string {
	switch kind {
	case domain.VerifyStandardWebhooks:
		return service.NewSigningSecret()
	case domain.VerifyHeaderToken:
		b := make([]byte, headerSecretBytes)
		_, _ = rand.Read(b)
		return "sbt_" + base64.RawURLEncoding.EncodeToString(b)
	}
	return ""
}

// Create makes an endpoint with a fresh token (and secret, when verified).
func (a *Automation) Create(ctx context.Context, ac service.Actor, in EndpointInput) (Created, error) {
	var out Created
	err := a.s.Mutate(ctx, ac, domain.ScopeAutomationWrite, func(c service.Change) error {
		if err := c.Tx.LockWorkspace(ctx, c.WorkspaceID); err != nil { // the count below stays true until commit
			return err
		}
		n, err := c.Tx.CountPublishers(ctx, c.WorkspaceID)
		if err != nil {
			return err
		}
		if n >= MaxEndpoints {
			return &domain.Error{Code: domain.CodeInvalid, Reason: "endpoint_limit_reached",
				Message: "a workspace has at most 100 automation endpoints"}
		}
		p := store.StoredPublisher{Publisher: domain.Publisher{ID: domain.NewID(domain.PrefixPublisher), WorkspaceID: c.WorkspaceID,
			Verification: domain.VerifyNone, Enabled: true, CreatedAt: c.Now, UpdatedAt: c.Now}}
		if in.Name == nil {
			return domain.Invalid("name", "name is required")
		}
		if err := a.apply(ctx, ac, c, &p, in); err != nil {
			return err
		}
		secret, err := a.setToken(&p, service.RandomToken(tokenBytes), p.Verification)
		if err != nil {
			return err
		}
		if err := c.Tx.InsertPublisher(ctx, p); err != nil {
			return err
		}
		out = Created{Endpoint: p.Publisher, Secret: secret}
		return a.record(ctx, c, domain.EventAutomationEndpointCreated, p.Publisher)
	})
	return out, err
}

// setToken sets an endpoint's token and, for a verification kind, a new secret (returned).
func (a *Automation) setToken(p *store.StoredPublisher, token, verification string) (string, error) {
	sealed, err := a.s.Seal(token)
	if err != nil {
		return "", domain.Internal(err)
	}
	p.Token, p.SealedToken, p.TokenHash = token, sealed, service.HashToken(token)
	secret := newSecret(verification)
	if p.SealedSecret, err = a.s.Seal(secret); err != nil {
		return "", domain.Internal(err)
	}
	if secret == "" {
		p.SealedSecret = ""
	}
	return secret, nil
}

// apply checks and sets the given fields.
func (a *Automation) apply(ctx context.Context, ac service.Actor, c service.Change, p *store.StoredPublisher, in EndpointInput) error {
	if in.Name != nil {
		name := strings.TrimSpace(*in.Name)
		if name == "" || utf8.RuneCountInString(name) > MaxNameLength {
			return domain.Invalid("name", "name is 1 to %d characters", MaxNameLength)
		}
		p.Name = name
	}
	if in.Verification != nil {
		switch *in.Verification {
		case domain.VerifyNone, domain.VerifyStandardWebhooks, domain.VerifyHeaderToken:
			p.Verification = *in.Verification
		default:
			return domain.Invalid("verification", "verification is none, standard_webhooks or header_token")
		}
	}
	if in.Schema != nil {
		raw := strings.TrimSpace(string(in.Schema))
		if raw == "" || raw == "null" {
			p.Schema = nil
		} else {
			if len(raw) > MaxSchemaBytes {
				return domain.Invalid("schema", "schema is at most %d bytes", MaxSchemaBytes)
			}
			if _, err := compileSchema(json.RawMessage(raw)); err != nil {
				return domain.Invalid("schema", "schema is not a valid JSON Schema: %s", schemaProblem(err))
			}
			p.Schema = json.RawMessage(raw)
		}
	}
	if in.Action != nil {
		if in.Action.Type == "" {
			p.Action = nil
		} else {
			act := *in.Action
			// An action acts with the endpoint's authority: whoever configures it must hold
			// the scope the action needs, or an automation key could send messages.
			if err := requireActionScope(ac, act.Type); err != nil {
				return err
			}
			if err := a.checkAction(ctx, c.WorkspaceID, c.Tx, act); err != nil {
				return err
			}
			p.Action = &act
		}
	}
	if in.Enabled != nil {
		p.Enabled = *in.Enabled
	}
	return nil
}

// List returns a page of the workspace's endpoints.
func (a *Automation) List(ctx context.Context, ac service.Actor, pp domain.ListParams) (domain.Page[domain.Publisher], error) {
	ws, err := service.RequireWorkspace(ac, domain.ScopeAutomationRead)
	if err != nil {
		return domain.Page[domain.Publisher]{}, err
	}
	limit, err := service.PageLimit(pp)
	if err != nil {
		return domain.Page[domain.Publisher]{}, err
	}
	if err := service.CheckCursor(pp.After, domain.PrefixPublisher); err != nil {
		return domain.Page[domain.Publisher]{}, err
	}
	rows, err := a.st.Publishers(ctx, ws, pp.After, limit+1)
	if err != nil {
		return domain.Page[domain.Publisher]{}, err
	}
	out := make([]domain.Publisher, len(rows))
	for i, r := range rows {
		if out[i], err = a.shown(ac, r); err != nil {
			return domain.Page[domain.Publisher]{}, err
		}
	}
	return service.PageOf(out, limit, func(p domain.Publisher) string { return p.ID }), nil
}

// shown is an endpoint as ac reads it: with its URL when ac could change the endpoint (and
// so give itself a new URL anyway), else with "{token}" in its place, as events show it.
// The URL is what lets anyone publish, and so run the endpoint's action: a read-only key,
// or one without the action's scope, must not get it.
func (a *Automation) shown(ac service.Actor, p store.StoredPublisher) (domain.Publisher, error) {
	if ac.IsKey() && (!domain.HasScope(ac.Scopes, domain.ScopeAutomationWrite) || requireEndpointScope(ac, p) != nil) {
		out := p.Publisher
		out.Token = redactedToken
		return out, nil
	}
	return a.opened(p)
}

// opened is an endpoint with its token unsealed (its URL is shown again).
func (a *Automation) opened(p store.StoredPublisher) (domain.Publisher, error) {
	token, err := a.s.Open(p.SealedToken)
	if err != nil {
		return domain.Publisher{}, domain.Internal(err)
	}
	out := p.Publisher
	out.Token = token
	return out, nil
}

// load finds an endpoint of a workspace (404 for another's or a malformed id).
func load(ctx context.Context, q interface {
	Publisher(context.Context, string, string) (store.StoredPublisher, error)
}, ws, id string) (store.StoredPublisher, error) {
	if !domain.HasPrefix(id, domain.PrefixPublisher) {
		return store.StoredPublisher{}, domain.NotFound("automation endpoint")
	}
	return q.Publisher(ctx, ws, id)
}

// Get returns an endpoint.
func (a *Automation) Get(ctx context.Context, ac service.Actor, id string) (domain.Publisher, error) {
	ws, err := service.RequireWorkspace(ac, domain.ScopeAutomationRead)
	if err != nil {
		return domain.Publisher{}, err
	}
	p, err := load(ctx, a.st, ws, id)
	if err != nil {
		return domain.Publisher{}, err
	}
	return a.shown(ac, p)
}

// Update changes an endpoint. A new verification kind gets a new secret (returned).
func (a *Automation) Update(ctx context.Context, ac service.Actor, id string, in EndpointInput) (Created, error) {
	// A null is refused whichever endpoint id names (and before it is looked for).
	if _, err := service.RequireWorkspace(ac, domain.ScopeAutomationWrite); err != nil {
		return Created{}, err
	}
	if err := service.CannotRemove("", in.Remove, "name", "verification", "enabled"); err != nil {
		return Created{}, err
	}
	if in.Remove["schema"] {
		in.Schema = json.RawMessage("null")
	}
	if in.Remove["action"] {
		in.Action = &domain.Action{}
	}
	var out Created
	err := a.mutate(ctx, ac, id, domain.EventAutomationEndpointUpdated, func(c service.Change, p *store.StoredPublisher) error {
		before := p.Verification
		if err := a.apply(ctx, ac, c, p, in); err != nil {
			return err
		}
		if p.Verification != before {
			secret := newSecret(p.Verification)
			sealed, err := a.s.Seal(secret)
			if err != nil {
				return domain.Internal(err)
			}
			p.SealedSecret, out.Secret = sealed, secret
			if secret == "" {
				p.SealedSecret = ""
			}
		}
		return nil
	}, &out.Endpoint)
	return out, err
}

// RotateToken gives an endpoint a new URL; the old one answers 404 at once, everywhere.
func (a *Automation) RotateToken(ctx context.Context, ac service.Actor, id string) (domain.Publisher, error) {
	var out domain.Publisher
	err := a.mutate(ctx, ac, id, domain.EventAutomationEndpointUpdated, func(c service.Change, p *store.StoredPublisher) error {
		token := service.RandomToken(tokenBytes)
		sealed, err := a.s.Seal(token)
		if err != nil {
			return domain.Internal(err)
		}
		p.Token, p.SealedToken, p.TokenHash = token, sealed, service.HashToken(token)
		return nil
	}, &out)
	return out, err
}

// RotateSecret gives an endpoint a new verification secret (shown this once); the old one
// stops verifying at once.
func (a *Automation) RotateSecret(ctx context.Context, ac service.Actor, id string) (Created, error) {
	var out Created
	err := a.mutate(ctx, ac, id, domain.EventAutomationEndpointUpdated, func(c service.Change, p *store.StoredPublisher) error {
		if p.Verification == domain.VerifyNone {
			return &domain.Error{Code: domain.CodeConflict, Reason: "no_verification",
				Message: "this endpoint verifies no secret: set verification first"}
		}
		secret := newSecret(p.Verification)
		sealed, err := a.s.Seal(secret)
		if err != nil {
			return domain.Internal(err)
		}
		p.SealedSecret, out.Secret = sealed, secret
		return nil
	}, &out.Endpoint)
	return out, err
}

// Delete removes an endpoint with its calls and runs; its URL answers 404.
func (a *Automation) Delete(ctx context.Context, ac service.Actor, id string) (domain.Publisher, error) {
	var out domain.Publisher
	err := a.s.Mutate(ctx, ac, domain.ScopeAutomationWrite, func(c service.Change) error {
		p, err := load(ctx, c.Tx, c.WorkspaceID, id)
		if err != nil {
			return err
		}
		if err := c.Tx.DeletePublisher(ctx, c.WorkspaceID, p.ID); err != nil {
			return err
		}
		if err := a.s.Invalidate(ctx, c.Tx, invalidateEndpoints, p.TokenHash); err != nil {
			return err
		}
		if out, err = a.opened(p); err != nil {
			return err
		}
		return a.record(ctx, c, domain.EventAutomationEndpointDeleted, out)
	})
	return out, err
}

// mutate loads an endpoint, lets fn change it, saves it, drops the old token from every
// cache and records typ; out receives the endpoint as saved.
func (a *Automation) mutate(ctx context.Context, ac service.Actor, id, typ string, fn func(service.Change, *store.StoredPublisher) error, out *domain.Publisher) error {
	return a.s.Mutate(ctx, ac, domain.ScopeAutomationWrite, func(c service.Change) error {
		p, err := load(ctx, c.Tx, c.WorkspaceID, id)
		if err != nil {
			return err
		}
		if err := requireEndpointScope(ac, p); err != nil {
			return err
		}
		oldHash := p.TokenHash
		if p.Token, err = a.s.Open(p.SealedToken); err != nil {
			return domain.Internal(err)
		}
		if err := fn(c, &p); err != nil {
			return err
		}
		p.UpdatedAt = c.Now
		if err := c.Tx.SavePublisher(ctx, p); err != nil {
			return err
		}
		if err := a.s.Invalidate(ctx, c.Tx, invalidateEndpoints, oldHash); err != nil {
			return err
		}
		*out = p.Publisher
		return a.record(ctx, c, typ, p.Publisher)
	})
}

// record records an endpoint event. Its url shows "{token}" in place of the token: the
// token lets anyone publish, and events reach every webhook and events:read key.
func (a *Automation) record(ctx context.Context, c service.Change, typ string, p domain.Publisher) error {
	p.Token = redactedToken
	_, err := a.s.Record(ctx, c.Tx, c.WorkspaceID, typ, nil, a.Object(p))
	return err
}

// redactedToken stands for the token in events' URLs.
const redactedToken = "{token}"

// requireActionScope refuses a key that lacks the scope of what the action does.
func requireActionScope(ac service.Actor, typ string) error {
	need := map[string]domain.Scope{domain.ActionSendMessage: domain.ScopeMessagesSend, domain.ActionCreateLink: domain.ScopeLinksWrite}[typ]
	if need == "" || !ac.IsKey() || domain.HasScope(ac.Scopes, need) {
		return nil
	}
	return &domain.Error{Code: domain.CodeForbidden, Reason: "insufficient_scope", Param: "action.type",
		Message: "this API key lacks the scope " + string(need) + ", which a " + typ + " action needs"}
}

// requireEndpointScope refuses a key that lacks the scope of the endpoint's action: changing
// such an endpoint (its token, secret, verification, enabled) or publishing a test call to
// it lets the key run the action, so it takes what configuring the action takes.
func requireEndpointScope(ac service.Actor, p store.StoredPublisher) error {
	if p.Action == nil {
		return nil
	}
	err := requireActionScope(ac, p.Action.Type)
	if de, ok := err.(*domain.Error); ok {
		return &domain.Error{Code: de.Code, Reason: de.Reason,
			Message: de.Message + ", and this endpoint runs one: a key that changes or tests it could run the action"}
	}
	return err
}
