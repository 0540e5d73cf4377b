package messaging

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/qr"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Instances manages channel instances and their connection.
type Instances struct{ c *core }

// Limits of instances.
const (
	MaxInstancesPerWorkspace = 100
	MaxInstanceNameLength    = 100
	DefaultMessagesPerSecond = 20
	MaxMessagesPerSecond     = 1000
	defaultStringLength      = 500
)

// CreateInstanceInput is a new instance. Channel defaults to sandbox; Connect starts
// connecting at once.
type CreateInstanceInput struct {
	Name              string
	Channel           string
	Config            map[string]any
	MessagesPerSecond *int
	Connect           bool
}

// UpdateInstanceInput changes the fields that are set. Config keys given replace the
// current values (null resets one to its default; a secret sent back as ******** is kept).
type UpdateInstanceInput struct {
	Name              *string
	Config            map[string]any
	MessagesPerSecond *int
	// Remove names the fields an update sent as null (name, config, messages_per_second):
	// an instance cannot be without its name or its settings object (a setting is reset by
	// its own null inside Config), and messages_per_second goes back to its default. REST's
	// PATCH and GraphQL's updateInstance fill it alike.
	Remove map[string]bool
}

// Create registers an instance, disconnected (or connecting, with Connect).
func (s *Instances) Create(ctx context.Context, a service.Actor, in CreateInstanceInput) (domain.Instance, error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeInstancesWrite); err != nil {
		return domain.Instance{}, err
	}
	if in.Channel == "" {
		in.Channel = "sandbox"
	}
	d, ok := s.c.drivers.Get(in.Channel)
	if !ok {
		return domain.Instance{}, domain.Invalid("channel", "unknown channel %q: one of %s", in.Channel,
			strings.Join(s.c.drivers.Names(), ", "))
	}
	name, err := checkName(in.Name, true)
	if err != nil {
		return domain.Instance{}, err
	}
	mps, err := checkRate(in.MessagesPerSecond, DefaultMessagesPerSecond)
	if err != nil {
		return domain.Instance{}, err
	}
	cfg, secrets, err := applyConfig(d.ConfigFields(), in.Config, nil, nil)
	if err != nil {
		return domain.Instance{}, err
	}
	var out store.StoredInstance
	err = s.c.s.Mutate(ctx, a, domain.ScopeInstancesWrite, func(c service.Change) error {
		if err := c.Tx.LockWorkspace(ctx, c.WorkspaceID); err != nil { // the count below stays true until commit
			return err
		}
		n, err := c.Tx.CountInstances(ctx, c.WorkspaceID)
		if err != nil {
			return err
		}
		if n >= MaxInstancesPerWorkspace {
			return &domain.Error{Code: domain.CodeConflict, Reason: "instance_limit_reached",
				Message: fmt.Sprintf("a workspace has at most %d instances; delete one first", MaxInstancesPerWorkspace)}
		}
		sealed, err := s.c.sealSecrets(secrets)
		if err != nil {
			return err
		}
		out = store.StoredInstance{Instance: domain.Instance{ID: domain.NewID(domain.PrefixInstance), WorkspaceID: c.WorkspaceID,
			Name: name, Channel: in.Channel, Status: domain.InstanceDisconnected, Config: cfg, MessagesPerSecond: mps,
			CreatedAt: c.Now, UpdatedAt: c.Now}, SealedSecrets: sealed}
		if callsBack(d) {
			if err := s.c.newCallback(&out); err != nil {
				return err
			}
		}
		if err := c.Tx.CreateInstance(ctx, out); err != nil {
			return err
		}
		pub, err := s.c.public(out)
		if err != nil {
			return err
		}
		if err := s.c.record(ctx, c.Tx, out, domain.EventInstanceCreated, pub.Object().ForEvent()); err != nil {
			return err
		}
		if in.Connect {
			return s.c.startConnecting(ctx, c.Tx, &out, "", c.Now)
		}
		return nil
	})
	if err != nil {
		return domain.Instance{}, err
	}
	return s.c.public(out) // connecting, with connect
}

// List returns a page of the workspace's instances, newest first.
func (s *Instances) List(ctx context.Context, a service.Actor, p domain.ListParams) (domain.Page[domain.Instance], error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeInstancesRead)
	if err != nil {
		return domain.Page[domain.Instance]{}, err
	}
	limit, err := service.PageLimit(p)
	if err != nil {
		return domain.Page[domain.Instance]{}, err
	}
	if err := service.CheckCursor(p.After, domain.PrefixInstance); err != nil {
		return domain.Page[domain.Instance]{}, err
	}
	rows, err := s.c.st.Instances(ctx, wsID, p.After, limit)
	if err != nil {
		return domain.Page[domain.Instance]{}, err
	}
	out := make([]domain.Instance, len(rows))
	for i, r := range rows {
		if out[i], err = s.c.public(r); err != nil {
			return domain.Page[domain.Instance]{}, err
		}
	}
	return service.PageOf(out, limit, func(in domain.Instance) string { return in.ID }), nil
}

// Get returns one instance of the workspace.
func (s *Instances) Get(ctx context.Context, a service.Actor, id string) (domain.Instance, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeInstancesRead)
	if err != nil {
		return domain.Instance{}, err
	}
	in, err := s.c.load(ctx, wsID, id)
	if err != nil {
		return domain.Instance{}, err
	}
	return s.c.public(in)
}

// load reads an instance of a workspace (not found for a malformed id).
func (c *core) load(ctx context.Context, wsID, id string) (store.StoredInstance, error) {
	if !domain.HasPrefix(id, domain.PrefixInstance) {
		return store.StoredInstance{}, domain.NotFound("instance")
	}
	return c.st.Instance(ctx, wsID, id)
}

// lock reads an instance of a workspace in tx, locked until tx ends.
func lock(ctx context.Context, tx *store.Tx, wsID, id string) (store.StoredInstance, error) {
	if !domain.HasPrefix(id, domain.PrefixInstance) {
		return store.StoredInstance{}, domain.NotFound("instance")
	}
	return tx.LockInstance(ctx, wsID, id)
}

// Update changes an instance's name, config or pace.
func (s *Instances) Update(ctx context.Context, a service.Actor, id string, in UpdateInstanceInput) (domain.Instance, error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeInstancesWrite); err != nil {
		return domain.Instance{}, err
	}
	if err := service.CannotRemove("", in.Remove, "name", "config"); err != nil {
		return domain.Instance{}, err
	}
	if in.Remove["messages_per_second"] {
		in.MessagesPerSecond = new(DefaultMessagesPerSecond)
	}
	var name string
	if in.Name != nil {
		var err error
		if name, err = checkName(*in.Name, true); err != nil {
			return domain.Instance{}, err
		}
	}
	var out domain.Instance
	err := s.c.s.Mutate(ctx, a, domain.ScopeInstancesWrite, func(c service.Change) error {
		cur, err := lock(ctx, c.Tx, c.WorkspaceID, id)
		if err != nil {
			return err
		}
		d, err := s.c.driver(cur)
		if err != nil {
			return err
		}
		// A request that changes nothing (the same values, nulls for defaults in place)
		// saves nothing and records no instance.updated.
		changed := false
		if in.Name != nil && name != cur.Name {
			cur.Name, changed = name, true
		}
		if in.MessagesPerSecond != nil {
			rate, err := checkRate(in.MessagesPerSecond, 0)
			if err != nil {
				return err
			}
			if rate != cur.MessagesPerSecond {
				cur.MessagesPerSecond, changed = rate, true
				// Messages already queued go at the new pace too.
				if err := c.Tx.RepaceJobs(ctx, domain.JobMessageSend, domain.InstanceKey(cur.ID), paceOf(cur.MessagesPerSecond)); err != nil {
					return err
				}
			}
		}
		if in.Config != nil {
			v, err := s.c.view(cur)
			if err != nil {
				return err
			}
			cfg, secrets, err := applyConfig(d.ConfigFields(), in.Config, cur.Config, v.Secrets)
			if err != nil {
				return err
			}
			if !sameJSON(cfg, cur.Config) || !sameJSON(secrets, v.Secrets) {
				if cur.SealedSecrets, err = s.c.sealSecrets(secrets); err != nil {
					return err
				}
				cur.Config, changed = cfg, true
			}
		}
		if !changed {
			out, err = s.c.public(cur)
			return err
		}
		cur.UpdatedAt = c.Now
		if err := c.Tx.SaveInstance(ctx, cur); err != nil {
			return err
		}
		out, err = s.c.recordInstance(ctx, c.Tx, cur, domain.EventInstanceUpdated)
		return err
	})
	return out, err
}

// Delete removes an instance with its messages, chats, groups and contacts; its queued
// sends are dropped, and its stored media files are deleted by a job once this commits. A
// connected instance is logged out first.
func (s *Instances) Delete(ctx context.Context, a service.Actor, id string) (domain.Instance, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeInstancesWrite)
	if err != nil {
		return domain.Instance{}, err
	}
	cur, err := s.c.load(ctx, wsID, id)
	if err != nil {
		return domain.Instance{}, err
	}
	if cur.Status == domain.InstanceConnected {
		if err := s.c.disconnectDriver(ctx, cur); err != nil {
			s.c.log.Warn("logging out a deleted instance failed", "instance_id", cur.ID, "error", err)
		}
	}
	var out domain.Instance
	err = s.c.s.Mutate(ctx, a, domain.ScopeInstancesWrite, func(c service.Change) error {
		cur, err := lock(ctx, c.Tx, c.WorkspaceID, id)
		if err != nil {
			return err
		}
		if _, err := c.Tx.CancelQueuedJobs(ctx, domain.JobMessageSend, domain.InstanceKey(cur.ID)); err != nil {
			return err
		}
		if err := c.Tx.DeleteInstance(ctx, c.WorkspaceID, cur.ID); err != nil {
			return err
		}
		if err := s.c.deleteMediaLater(ctx, c.Tx, c.WorkspaceID, cur.ID, c.Now); err != nil {
			return err
		}
		out, err = s.c.recordInstance(ctx, c.Tx, cur, domain.EventInstanceDeleted)
		return err
	})
	return out, err
}

// Connect starts connecting a disconnected or failed instance (202: the channel answers in
// the background), or pairing again one whose pairing code expired; an instance already
// connecting, pairing or connected is left as it is.
func (s *Instances) Connect(ctx context.Context, a service.Actor, id string) (domain.Instance, error) {
	return s.transition(ctx, a, id, func(c service.Change, cur *store.StoredInstance) error {
		switch {
		case cur.Status == domain.InstanceDisconnected, cur.Status == domain.InstanceFailed:
			return s.c.startConnecting(ctx, c.Tx, cur, "", c.Now)
		case cur.Status == domain.InstancePairing && pairingExpired(*cur, c.Now):
			return s.c.startConnecting(ctx, c.Tx, cur, "pairing code expired", c.Now)
		}
		return nil
	})
}

// Restart reconnects an instance, keeping its session (no new pairing when it had one).
func (s *Instances) Restart(ctx context.Context, a service.Actor, id string) (domain.Instance, error) {
	return s.transition(ctx, a, id, func(c service.Change, cur *store.StoredInstance) error {
		if cur.Status == domain.InstanceConnecting {
			return nil
		}
		return s.c.startConnecting(ctx, c.Tx, cur, "restart requested", c.Now)
	})
}

// Disconnect logs an instance out: the session ends (connecting again pairs again); its
// address and history stay. Queued messages wait until it is connected again.
func (s *Instances) Disconnect(ctx context.Context, a service.Actor, id string) (domain.Instance, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeInstancesWrite)
	if err != nil {
		return domain.Instance{}, err
	}
	cur, err := s.c.load(ctx, wsID, id)
	if err != nil {
		return domain.Instance{}, err
	}
	if cur.Status == domain.InstanceConnected {
		if err := s.c.disconnectDriver(ctx, cur); err != nil {
			return domain.Instance{}, driverError(err, "disconnecting")
		}
	}
	return s.transition(ctx, a, id, func(c service.Change, cur *store.StoredInstance) error {
		if cur.Status == domain.InstanceDisconnected && !cur.Session {
			return nil
		}
		cur.Session = false
		clearPairing(cur)
		return s.c.setStatus(ctx, c.Tx, cur, domain.InstanceDisconnected, "", c.Now)
	})
}

func (c *core) disconnectDriver(ctx context.Context, in store.StoredInstance) error {
	d, err := c.driver(in)
	if err != nil {
		return err
	}
	v, err := c.view(in)
	if err != nil {
		return err
	}
	return d.Disconnect(ctx, v)
}

// transition runs fn on the locked instance in one transaction and returns the result.
func (s *Instances) transition(ctx context.Context, a service.Actor, id string, fn func(service.Change, *store.StoredInstance) error) (domain.Instance, error) {
	var out domain.Instance
	err := s.c.s.Mutate(ctx, a, domain.ScopeInstancesWrite, func(c service.Change) error {
		cur, err := lock(ctx, c.Tx, c.WorkspaceID, id)
		if err != nil {
			return err
		}
		if err := fn(c, &cur); err != nil {
			return err
		}
		out, err = s.c.public(cur)
		return err
	})
	return out, err
}

// startConnecting moves an instance to connecting and queues the job that asks its channel.
func (c *core) startConnecting(ctx context.Context, tx *store.Tx, in *store.StoredInstance, reason string, now time.Time) error {
	clearPairing(in)
	if err := c.setStatus(ctx, tx, in, domain.InstanceConnecting, reason, now); err != nil {
		return err
	}
	payload, _ := json.Marshal(connectPayload{InstanceID: in.ID, WorkspaceID: in.WorkspaceID})
	return jobs.Enqueue(ctx, tx, now, jobs.NewJob{Kind: domain.JobInstanceConnect, Payload: string(payload),
		OrderingKey: "connect:" + in.ID, MaxAttempts: 3})
}

var errPairingExpired = &domain.Error{Code: domain.CodeConflict, Reason: "pairing_expired",
	Message: "the pairing code expired: connect the instance again for a new one"}

func pairingExpired(in store.StoredInstance, now time.Time) bool {
	return in.PairingExpiresAt != nil && !now.Before(*in.PairingExpiresAt)
}

func clearPairing(in *store.StoredInstance) {
	in.PairingCode, in.PairingQR, in.PairingExpiresAt = "", "", nil
}

// setStatus saves an instance in a new status and records instance.status_changed (and
// nothing when the status stays).
func (c *core) setStatus(ctx context.Context, tx *store.Tx, in *store.StoredInstance, to, reason string, now time.Time) error {
	from := in.Status
	in.Status, in.StatusReason, in.UpdatedAt = to, reason, now
	if to == domain.InstanceConnected {
		in.ConnectedAt = &now
	}
	if err := tx.SaveInstance(ctx, *in); err != nil {
		return err
	}
	if from == to {
		return nil
	}
	pub, err := c.public(*in)
	if err != nil {
		return err
	}
	var r *string
	if reason != "" {
		r = &reason
	}
	return c.record(ctx, tx, *in, domain.EventInstanceStatusChanged,
		domain.InstanceStatusChange{Instance: pub.Object().ForEvent(), From: from, To: to, Reason: r})
}

// Pairing returns the QR code and pairing code of an instance waiting to be paired. It
// needs instances:write, not read: whoever scans the code links their phone account to the
// instance, so a read-only key must not see it.
func (s *Instances) Pairing(ctx context.Context, a service.Actor, id string) (domain.PairingObject, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeInstancesWrite)
	if err != nil {
		return domain.PairingObject{}, err
	}
	in, err := s.c.load(ctx, wsID, id)
	if err != nil {
		return domain.PairingObject{}, err
	}
	if in.Status != domain.InstancePairing || in.PairingExpiresAt == nil {
		return domain.PairingObject{}, errNotPairing
	}
	if pairingExpired(in, s.c.now()) {
		return domain.PairingObject{}, errPairingExpired
	}
	png, err := qr.PNG(in.PairingQR, 256)
	if err != nil {
		return domain.PairingObject{}, domain.Internal(err)
	}
	return domain.PairingObject{Object: "pairing", InstanceID: in.ID, PairingCode: in.PairingCode,
		QRCode: "data:image/png;base64," + base64.StdEncoding.EncodeToString(png), QRPayload: in.PairingQR,
		ExpiresAt: domain.TS(*in.PairingExpiresAt)}, nil
}

// Pair completes pairing where the channel allows it through the API (the sandbox: on a
// real channel the user scans the QR code with their phone). A pairing code, when given,
// must match.
func (s *Instances) Pair(ctx context.Context, a service.Actor, id, code string) (domain.Instance, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeInstancesWrite)
	if err != nil {
		return domain.Instance{}, err
	}
	cur, err := s.c.load(ctx, wsID, id)
	if err != nil {
		return domain.Instance{}, err
	}
	d, err := s.c.driver(cur)
	if err != nil {
		return domain.Instance{}, err
	}
	p, ok := d.(channels.Pairer)
	if !ok {
		return domain.Instance{}, unsupported("pairing through the API (scan the QR code with the phone)")
	}
	if cur.Status != domain.InstancePairing {
		return domain.Instance{}, errNotPairing
	}
	if pairingExpired(cur, s.c.now()) {
		return domain.Instance{}, errPairingExpired
	}
	if code != "" && !equalCode(strings.ToUpper(code), cur.PairingCode) {
		return domain.Instance{}, domain.Invalid("pairing_code", "the pairing code does not match")
	}
	v, err := s.c.view(cur)
	if err != nil {
		return domain.Instance{}, err
	}
	addr, err := p.Pair(ctx, v)
	if err != nil {
		return domain.Instance{}, driverError(err, "pairing")
	}
	return s.transition(ctx, a, id, func(c service.Change, cur *store.StoredInstance) error {
		if cur.Status != domain.InstancePairing {
			return errNotPairing
		}
		if pairingExpired(*cur, c.Now) {
			return errPairingExpired
		}
		return s.c.connected(ctx, c.Tx, cur, addr, c.Now)
	})
}

// recordInstance records an event about an instance with its public form, and returns it.
func (c *core) recordInstance(ctx context.Context, tx *store.Tx, in store.StoredInstance, typ string) (domain.Instance, error) {
	pub, err := c.public(in)
	if err != nil {
		return pub, err
	}
	return pub, c.record(ctx, tx, in, typ, pub.Object().ForEvent())
}

// connected records a completed connection with the instance's address.
func (c *core) connected(ctx context.Context, tx *store.Tx, in *store.StoredInstance, address string, now time.Time) error {
	if address != "" {
		in.Address = address
	}
	in.Session = true
	clearPairing(in)
	return c.setStatus(ctx, tx, in, domain.InstanceConnected, "", now)
}

// connectPayload is the payload of an instance.connect job.
type connectPayload struct {
	InstanceID  string `json:"instance_id"`
	WorkspaceID string `json:"workspace_id"`
}

// runConnect asks the channel to connect an instance still connecting, and records where
// that left it: pairing, connected, or failed with the channel's reason.
func (c *core) runConnect(ctx context.Context, j *jobs.Job) error {
	var p connectPayload
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return jobs.Permanent(err)
	}
	in, err := c.st.Instance(ctx, p.WorkspaceID, p.InstanceID)
	if domain.IsCode(err, domain.CodeNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil || in.Status != domain.InstanceConnecting {
		return err
	}
	d, err := c.driver(in)
	if err != nil {
		return jobs.Permanent(err)
	}
	v, err := c.view(in)
	if err != nil {
		return jobs.Permanent(err)
	}
	conn, cerr := d.Connect(ctx, v, in.Session)
	return c.st.Tx(ctx, func(tx *store.Tx) error {
		cur, err := tx.LockInstance(ctx, p.WorkspaceID, p.InstanceID)
		if domain.IsCode(err, domain.CodeNotFound) {
			return nil
		}
		if err != nil || cur.Status != domain.InstanceConnecting {
			return err
		}
		now := c.now()
		switch {
		case cerr != nil:
			c.log.Info("instance failed to connect", "instance_id", cur.ID, "error", cerr)
			return c.setStatus(ctx, tx, &cur, domain.InstanceFailed, failureReason(cerr), now)
		case conn.Status == domain.InstanceConnected:
			return c.connected(ctx, tx, &cur, conn.Address, now)
		default:
			cur.PairingCode, cur.PairingQR = conn.PairingCode, conn.QRPayload
			exp := conn.ExpiresAt
			cur.PairingExpiresAt = &exp
			return c.setStatus(ctx, tx, &cur, domain.InstancePairing, "", now)
		}
	})
}

// failureReason is the text a failed instance shows: a channel's own message (it never
// holds our secrets), bounded.
func failureReason(err error) string {
	msg := err.Error()
	if utf8.RuneCountInString(msg) > 300 {
		msg = string([]rune(msg)[:300])
	}
	return msg
}

// ---- input checks ----

func checkName(name string, required bool) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" && required {
		return "", domain.Invalid("name", "name is required")
	}
	if utf8.RuneCountInString(name) > MaxInstanceNameLength {
		return "", domain.Invalid("name", "name is longer than %d characters", MaxInstanceNameLength)
	}
	return name, checkNoNUL("name", name)
}

// sameJSON tells whether a and b encode alike (settings read back from the database may
// hold numbers of another Go type than freshly checked ones).
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// checkNoNUL refuses a NUL character in a name kept in a text column: PostgreSQL cannot
// store one (SQLite can), so it would otherwise fail there as a 500, after the channel may
// already have been called.
func checkNoNUL(param, s string) error {
	if strings.ContainsRune(s, 0) {
		return domain.Invalid(param, "%s cannot contain NUL characters", param)
	}
	return nil
}

func checkRate(v *int, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	if *v < 1 || *v > MaxMessagesPerSecond {
		return 0, domain.Invalid("messages_per_second", "messages_per_second must be between 1 and %d", MaxMessagesPerSecond)
	}
	return *v, nil
}

// applyConfig checks settings against a channel's fields and returns the new config
// (defaults filled) and secrets. set holds the changes: a key with null resets it, a
// secret equal to domain.Redacted keeps its value.
func applyConfig(fields []channels.ConfigField, set, cfg map[string]any, secrets map[string]string) (map[string]any, map[string]string, error) {
	byName := map[string]channels.ConfigField{}
	var names []string
	for _, f := range fields {
		byName[f.Name] = f
		names = append(names, f.Name)
	}
	outCfg, outSec := map[string]any{}, map[string]string{}
	for k, v := range cfg {
		outCfg[k] = v
	}
	for k, v := range secrets {
		outSec[k] = v
	}
	for k, v := range set {
		f, ok := byName[k]
		param := "config." + k
		if !ok {
			return nil, nil, domain.Invalid(param, "unknown setting %q: this channel has %s", k, strings.Join(names, ", "))
		}
		if v == nil {
			delete(outCfg, k)
			delete(outSec, k)
			continue
		}
		val, err := checkSetting(f, v, param)
		if err != nil {
			return nil, nil, err
		}
		if f.Secret {
			s := val.(string)
			switch {
			case s == domain.Redacted:
			case s == "":
				delete(outSec, k)
			default:
				outSec[k] = s
			}
			continue
		}
		outCfg[k] = val
	}
	for _, f := range fields {
		if f.Secret {
			if _, ok := outSec[f.Name]; !ok && f.Required {
				return nil, nil, domain.Invalid("config."+f.Name, "%s is required", f.Name)
			}
			continue
		}
		if _, ok := outCfg[f.Name]; !ok {
			if f.Required {
				return nil, nil, domain.Invalid("config."+f.Name, "%s is required", f.Name)
			}
			if f.Default != nil {
				outCfg[f.Name] = f.Default
			}
		}
	}
	return outCfg, outSec, nil
}

func checkSetting(f channels.ConfigField, v any, param string) (any, error) {
	switch f.Type {
	case "bool":
		b, ok := v.(bool)
		if !ok {
			return nil, domain.Invalid(param, "%s must be true or false", f.Name)
		}
		return b, nil
	case "int":
		var n float64
		switch x := v.(type) {
		case float64:
			n = x
		case int:
			n = float64(x)
		case json.Number:
			var err error
			if n, err = x.Float64(); err != nil {
				return nil, domain.Invalid(param, "%s must be a whole number", f.Name)
			}
		default:
			return nil, domain.Invalid(param, "%s must be a whole number", f.Name)
		}
		if n != math.Trunc(n) || n < float64(f.Min) || n > float64(f.Max) {
			return nil, domain.Invalid(param, "%s must be a whole number from %d to %d", f.Name, f.Min, f.Max)
		}
		return int(n), nil
	default:
		s, ok := v.(string)
		if !ok {
			return nil, domain.Invalid(param, "%s must be a string", f.Name)
		}
		limit := f.MaxLength
		if limit == 0 {
			limit = defaultStringLength
		}
		if utf8.RuneCountInString(s) > limit {
			return nil, domain.Invalid(param, "%s is longer than %d characters", f.Name, limit)
		}
		return s, nil
	}
}

func (c *core) sealSecrets(secrets map[string]string) (string, error) {
	if len(secrets) == 0 {
		return "", nil
	}
	raw, _ := json.Marshal(secrets)
	sealed, err := c.s.Seal(string(raw))
	if err != nil {
		return "", domain.Internal(err)
	}
	return sealed, nil
}
