// Package messaging holds the rules of the messaging surface: channel instances, messages,
// chats, groups and contacts. REST and GraphQL call the same methods. Sends are jobs
// (concurrency and pacing per instance, order per chat); what channels report (inbound
// messages, receipts, group changes) is stored as jobs first and applied here. The drivers
// behind channels.Driver do the talking; this package never knows which one it has.
package messaging

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Messaging is the surface's service: one field per resource.
type Messaging struct {
	Instances *Instances
	Messages  *Messages
	Chats     *Chats
	Groups    *Groups
	Contacts  *Contacts
	// Callbacks receives providers' calls to instances' callback URLs.
	Callbacks *Callbacks

	c *core
}

// Config is what the composition root tells the surface.
type Config struct {
	// CallbackBase is the public URL callbacks are served under ({base URL}/channels).
	CallbackBase string
	// Media is where received media goes.
	Media MediaConfig
}

// core is what every resource shares.
type core struct {
	s       *service.Service
	st      *store.Store
	drivers *channels.Registry
	log     *slog.Logger
	cfg     Config
}

// New returns the messaging service over the platform service s, with the given channel
// drivers (which it binds to itself: they emit events and find instances through it).
func New(s *service.Service, drivers *channels.Registry, cfg Config) *Messaging {
	cfg.Media = cfg.Media.withDefaults()
	c := &core{s: s, st: s.Store(), drivers: drivers, log: s.Logger(), cfg: cfg}
	for _, name := range drivers.Names() {
		d, _ := drivers.Get(name)
		if b, ok := d.(channels.Binder); ok {
			b.Bind(host{c})
		}
	}
	msgs := &Messages{c: c}
	msgs.batch = newSendBatcher(msgs)
	return &Messaging{Instances: &Instances{c}, Messages: msgs, Chats: &Chats{c}, Groups: &Groups{c},
		Contacts: &Contacts{c}, Callbacks: &Callbacks{c}, c: c}
}

// Channels describes the channels instances can be created with, sorted by name: a
// catalog, like the event types, answered to anyone.
func (m *Messaging) Channels() []domain.ChannelObject {
	var out []domain.ChannelObject
	for _, name := range m.c.drivers.Names() {
		d, _ := m.c.drivers.Get(name)
		caps := d.Capabilities()
		o := domain.ChannelObject{Object: "channel", Name: name, CallsBack: callsBack(d),
			Capabilities: domain.ChannelCapabilities{MessageTypes: nonNil(caps.Types), Receipts: nonNil(caps.Receipts),
				Reply: caps.Reply, Edit: caps.Edit, Delete: caps.Delete, MarkRead: caps.MarkRead, Typing: caps.Typing,
				Groups: caps.Groups, CreateGroups: caps.CreateGroups, Check: caps.Check, Pairing: caps.Pairing,
				Threads: caps.Threads},
			ConfigFields: []domain.ChannelConfigField{}}
		for _, f := range d.ConfigFields() {
			o.ConfigFields = append(o.ConfigFields, domain.ChannelConfigField{Name: f.Name, Type: f.Type,
				Description: f.Description, Secret: f.Secret, Required: f.Required, Default: f.Default})
		}
		out = append(out, o)
	}
	return out
}

// Errors with a stable reason, shared by both transports.
var (
	errNotConnected = &domain.Error{Code: domain.CodeConflict, Reason: "instance_not_connected",
		Message: "the instance is not connected: connect it first (POST /instances/{id}/connect)"}
	errNotPairing = &domain.Error{Code: domain.CodeConflict, Reason: "instance_not_pairing",
		Message: "the instance is not waiting to be paired: connect it first"}
)

func unsupported(what string) error {
	return &domain.Error{Code: domain.CodeInvalid, Reason: "unsupported_by_channel",
		Message: "this instance's channel does not support " + what}
}

// driverError turns a driver's refusal into a client error: unsupported operations are 422,
// anything else is a failure of the channel (503, its text logged, not shown).
func driverError(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, channels.ErrUnsupported) {
		return unsupported(what)
	}
	var se *channels.SendError
	if errors.As(err, &se) {
		return &domain.Error{Code: domain.CodeInvalid, Reason: se.Code, Message: se.Message}
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return de
	}
	return &domain.Error{Code: domain.CodeUnavailable, Reason: "channel_unavailable",
		Message: "the channel did not answer; try again", Err: err}
}

// driver returns the driver of an instance.
func (c *core) driver(in store.StoredInstance) (channels.Driver, error) {
	d, ok := c.drivers.Get(in.Channel)
	if !ok {
		return nil, domain.Internal(errors.New("no driver for channel " + in.Channel))
	}
	return d, nil
}

// view is what a driver sees of an instance: its config and opened secrets.
func (c *core) view(in store.StoredInstance) (channels.Instance, error) {
	v := channels.Instance{ID: in.ID, WorkspaceID: in.WorkspaceID, Address: in.Address, Config: in.Config,
		Secrets: map[string]string{}}
	var err error
	if v.CallbackURL, v.CallbackSecret, err = c.callbackURL(in); err != nil {
		return v, err
	}
	if in.SealedSecrets == "" {
		return v, nil
	}
	plain, err := c.s.Open(in.SealedSecrets)
	if err != nil {
		return v, domain.Internal(err)
	}
	if err := json.Unmarshal([]byte(plain), &v.Secrets); err != nil {
		return v, domain.Internal(err)
	}
	return v, nil
}

// public returns an instance's domain form with its secret names (values never leave).
func (c *core) public(in store.StoredInstance) (domain.Instance, error) {
	v, err := c.view(in)
	if err != nil {
		return domain.Instance{}, err
	}
	names := make(map[string]string, len(v.Secrets))
	for k := range v.Secrets {
		names[k] = ""
	}
	out := in.Instance
	out.Secrets, out.CallbackURL = names, v.CallbackURL
	return out, nil
}

// record records an event of an instance in tx.
func (c *core) record(ctx context.Context, tx *store.Tx, in store.StoredInstance, typ string, data any) error {
	id := in.ID
	_, err := c.s.Record(ctx, tx, in.WorkspaceID, typ, &id, data)
	return err
}

// now reads the platform clock.
func (c *core) now() time.Time { return c.s.Clock().Now() }

// host is what drivers get: emitting events as jobs, finding instances by address.
type host struct{ c *core }

// Emit stores channel events as jobs, each run after delay, in a transaction of its own.
// What happens in one chat keeps its order (one ordering key per instance and chat): its
// inbound messages, their edits, and a group's membership changes, which carry the whole
// member list, so one applied out of order would leave an older list in place.
func (h host) Emit(ctx context.Context, delay time.Duration, events ...channels.Event) error {
	if len(events) == 0 {
		return nil
	}
	now := h.c.now()
	js := make([]jobs.NewJob, len(events))
	for i, ev := range events {
		payload, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		js[i] = jobs.NewJob{Kind: domain.JobChannelEvent, Payload: string(payload), RunAt: now.Add(delay),
			MaxAttempts: eventAttempts}
		if chat := eventChat(ev); chat != "" {
			js[i].OrderingKey = "inbound:" + ev.InstanceID + ":" + chat
		}
	}
	return h.c.st.Tx(ctx, func(tx *store.Tx) error { return jobs.Enqueue(ctx, tx, now, js...) })
}

// eventChat is the chat an event happens in ("" for receipts and session changes, which
// need no order: statuses only move forward).
func eventChat(ev channels.Event) string {
	switch {
	case ev.Message != nil:
		return ev.Message.ChatAddress
	case ev.Group != nil:
		return ev.Group.Info.Address
	case ev.Edit != nil:
		return ev.Edit.ChatAddress
	}
	return ""
}

// InstanceByAddress finds the workspace's instance with an address on a channel.
func (h host) InstanceByAddress(ctx context.Context, workspaceID, channel, address string) (string, bool, error) {
	if address == "" {
		return "", false, nil
	}
	return h.c.st.InstanceIDByAddress(ctx, workspaceID, channel, address)
}

// equalCode compares pairing codes in constant time.
func equalCode(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// listUnder is the shape every list under an instance shares: the scope, the page size and
// cursor (ids with prefix), the instance (not found when it is another workspace's), then
// limit+1 rows from the store, cut into a page.
func listUnder[T any](ctx context.Context, c *core, a service.Actor, scope domain.Scope, instanceID, prefix string,
	p domain.ListParams, rows func(wsID string, inst store.StoredInstance, limit int) ([]T, error), id func(T) string,
) (domain.Page[T], store.StoredInstance, error) {
	wsID, err := service.RequireWorkspace(a, scope)
	if err != nil {
		return domain.Page[T]{}, store.StoredInstance{}, err
	}
	limit, err := service.PageLimit(p)
	if err != nil {
		return domain.Page[T]{}, store.StoredInstance{}, err
	}
	if err := service.CheckCursor(p.After, prefix); err != nil {
		return domain.Page[T]{}, store.StoredInstance{}, err
	}
	inst, err := c.load(ctx, wsID, instanceID)
	if err != nil {
		return domain.Page[T]{}, inst, err
	}
	rs, err := rows(wsID, inst, limit)
	if err != nil {
		return domain.Page[T]{}, inst, err
	}
	return service.PageOf(rs, limit, id), inst, nil
}
