// Package service holds every rule of Switchboard: who may do what, validation, transactions
// and the events changes cause. REST handlers and GraphQL resolvers both call it and nothing
// else; it returns domain types and domain errors and knows nothing of HTTP or GraphQL.
package service

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/events"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Config tunes the service; zero values take the defaults.
type Config struct {
	Clock  domain.Clock
	Logger *slog.Logger
	// Models is the operator's model catalog; empty means DefaultModels.
	Models []domain.Model
	// Password hashing cost; tests may lower it.
	Argon2MemoryKiB uint32
	Argon2Time      uint32
	// Session lifetimes: idle (since last use) and absolute (since sign-in).
	SessionIdle     time.Duration
	SessionAbsolute time.Duration
	// LastUsedFlush is how often API-key last-use times are written (batched).
	LastUsedFlush time.Duration
	// SignInLimit is how many failed sign-ins an account (and 5× that an IP) may have per
	// SignInWindow before further attempts are refused.
	SignInLimit  int
	SignInWindow time.Duration
	// SecretsKey encrypts stored webhook signing secrets (AES-256-GCM under a key derived
	// from it); empty stores them as is. Any high-entropy string works; keep it stable.
	SecretsKey []byte
	// TargetPolicy decides which webhook URLs may be registered (the operator's SSRF
	// allow-list; the sender dials with the same policy). Default: public addresses only.
	TargetPolicy *ssrf.Policy
}

func (c *Config) defaults() {
	if c.Clock == nil {
		c.Clock = domain.SystemClock{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if len(c.Models) == 0 {
		c.Models = DefaultModels
	}
	if c.Argon2MemoryKiB == 0 {
		c.Argon2MemoryKiB = 19 * 1024 // OWASP's argon2id baseline
	}
	if c.Argon2Time == 0 {
		c.Argon2Time = 2
	}
	if c.SessionIdle == 0 {
		c.SessionIdle = 7 * 24 * time.Hour
	}
	if c.SessionAbsolute == 0 {
		c.SessionAbsolute = 30 * 24 * time.Hour
	}
	if c.LastUsedFlush == 0 {
		c.LastUsedFlush = time.Minute
	}
	if c.SignInLimit == 0 {
		c.SignInLimit = 10
	}
	if c.SignInWindow == 0 {
		c.SignInWindow = 15 * time.Minute
	}
}

// Service is the one service layer shared by every transport.
type Service struct {
	Users       *Users
	Workspaces  *Workspaces
	Keys        *Keys
	Models      *Models
	Events      *Events
	Idempotency *Idempotency
	Webhooks    *Webhooks
	// Subscriptions are workflow tools' REST hooks, delivered to as webhook endpoints.
	Subscriptions *Subscriptions

	cfg   Config
	store *store.Store
	bus   *events.Bus
	log   *slog.Logger

	revocations  revocations
	invalidators invalidators
	box          secretBox // encrypts secrets at rest when the operator configured a key

	sinksMu sync.RWMutex
	sinks   []EventSink

	wg     sync.WaitGroup
	cancel context.CancelFunc
}

// EventSink is called in the transaction that records an event, so work it enqueues is as
// durable as the change itself.
type EventSink func(ctx context.Context, tx *store.Tx, e domain.Event) error

// Notification channels between replicas.
const (
	channelEvents     = "sb_events"
	channelInvalidate = "sb_invalidate"
)

// New builds the service on a migrated store.
func New(st *store.Store, cfg Config) *Service {
	cfg.defaults()
	s := &Service{cfg: cfg, store: st, bus: events.NewBus(), log: cfg.Logger, box: newSecretBox(cfg.SecretsKey)}
	s.Users = &Users{s: s, throttle: NewThrottle(cfg.Clock)}
	s.Workspaces = &Workspaces{s: s}
	s.Keys = newKeys(s)
	s.Models = &Models{s: s, catalog: cfg.Models}
	s.Events = &Events{s: s}
	s.Idempotency = &Idempotency{s: s}
	s.Webhooks = newWebhooks(s)
	s.Subscriptions = &Subscriptions{s: s, w: s.Webhooks}
	st.Handle(channelEvents, s.Events.deliver)
	st.Handle(channelInvalidate, s.invalidate)
	s.registerInvalidations()
	return s
}

// Start runs the background work (cross-replica notifications, batched writes, clean-up)
// until ctx ends or Close is called.
func (s *Service) Start(ctx context.Context) error {
	ctx, s.cancel = context.WithCancel(ctx)
	if err := s.store.Listen(ctx, s.log, s.resync); err != nil {
		return err
	}
	s.every(ctx, s.cfg.LastUsedFlush, s.Keys.flushLastUsed)
	s.every(ctx, time.Hour, s.cleanup)
	return nil
}

// Close stops background work and flushes buffered writes.
func (s *Service) Close() {
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.Keys.flushLastUsed(ctx)
}

// Store exposes the store to sibling services built outside this package (webhooks).
func (s *Service) Store() *store.Store { return s.store }

// Bus exposes the in-process event bus.
func (s *Service) Bus() *events.Bus { return s.bus }

// Clock is the service's clock.
func (s *Service) Clock() domain.Clock { return s.cfg.Clock }

// Logger is the service's logger.
func (s *Service) Logger() *slog.Logger { return s.log }

// AddEventSink registers fn to run in the transaction of every recorded event.
func (s *Service) AddEventSink(fn EventSink) {
	s.sinksMu.Lock()
	s.sinks = append(s.sinks, fn)
	s.sinksMu.Unlock()
}

// Go runs fn in the background until Close.
func (s *Service) Go(fn func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
}

func (s *Service) every(ctx context.Context, d time.Duration, fn func(context.Context)) {
	s.Go(func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				fn(ctx)
			}
		}
	})
}

func (s *Service) cleanup(ctx context.Context) {
	now := s.cfg.Clock.Now()
	if err := s.store.DeleteExpiredSessions(ctx, now, now.Add(-s.cfg.SessionIdle)); err != nil {
		s.log.Error("delete expired sessions", "err", err)
	}
}
