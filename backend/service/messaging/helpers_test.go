package messaging_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/sandbox"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// env is a real service with the messaging surface and a running job engine on a fresh
// database, and a workspace owner.
type env struct {
	t     testing.TB
	ctx   context.Context
	svc   *service.Service
	st    *store.Store
	m     *messaging.Messaging
	owner servicetest.Owner
	a     service.Actor
}

func each(t *testing.T, fn func(t *testing.T, e *env)) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, newEnv(t, d, service.Config{}, sandbox.New())) })
	}
}

func newEnv(t testing.TB, d store.Dialect, cfg service.Config, drivers ...channels.Driver) *env {
	svc, st := servicetest.New(t, d, cfg)
	m := messaging.New(svc, channels.NewRegistry(drivers...), messaging.Config{})
	eng := jobs.New(st, jobs.Config{Clock: cfg.Clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	for _, k := range m.Kinds(messaging.DefaultWorkers) {
		eng.Register(k)
	}
	ctx := context.Background()
	if err := eng.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Close)
	owner := servicetest.NewOwner(t, svc)
	return &env{t: t, ctx: ctx, svc: svc, st: st, m: m, owner: owner, a: owner.Actor}
}

// keyActor returns the actor of a new API key of the owner with scopes.
func (e *env) keyActor(scopes ...domain.Scope) service.Actor {
	e.t.Helper()
	_, secret := e.owner.NewKey(e.t, e.svc, scopes...)
	a, err := e.svc.Keys.Authenticate(e.ctx, secret)
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

// connected creates a sandbox instance that pairs itself and waits until it is connected.
func (e *env) connected(name string, cfg map[string]any) domain.Instance {
	e.t.Helper()
	if cfg == nil {
		cfg = map[string]any{}
	}
	cfg["auto_pair"] = true
	in, err := e.m.Instances.Create(e.ctx, e.a, messaging.CreateInstanceInput{Name: name, Config: cfg, Connect: true})
	if err != nil {
		e.t.Fatal(err)
	}
	return e.waitStatus(in.ID, domain.InstanceConnected)
}

func (e *env) waitStatus(id, status string) domain.Instance {
	e.t.Helper()
	var in domain.Instance
	e.eventually("instance "+id+" "+status, func() bool {
		var err error
		in, err = e.m.Instances.Get(e.ctx, e.a, id)
		return err == nil && in.Status == status
	})
	return in
}

// eventually polls cond until it holds, failing the test after a deadline (saying how
// things stand, when given).
func (e *env) eventually(what string, cond func() bool, state ...func() string) {
	e.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			for _, s := range state {
				what += ": " + s()
			}
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *env) send(instanceID, to, text string) domain.Message {
	e.t.Helper()
	m, err := e.m.Messages.Send(e.ctx, e.a, instanceID, messaging.SendInput{To: to, ContentInput: messaging.ContentInput{Text: text}})
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

func (e *env) message(instanceID, id string) domain.Message {
	e.t.Helper()
	m, _, err := e.m.Messages.Get(e.ctx, e.a, instanceID, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

// waitMessageStatus waits for a message to reach status.
func (e *env) waitMessageStatus(instanceID, id, status string) domain.Message {
	e.t.Helper()
	var m domain.Message
	e.eventually("message "+id+" "+status, func() bool {
		m = e.message(instanceID, id)
		return m.Status == status
	}, func() string { return fmt.Sprintf("it is %s", m.Status) })
	return m
}

// waitSent waits until a message was sent (it may be delivered or read by then already).
func (e *env) waitSent(instanceID, id string) domain.Message {
	e.t.Helper()
	var m domain.Message
	e.eventually("message "+id+" sent", func() bool {
		m = e.message(instanceID, id)
		return m.SentAt != nil
	}, func() string { return fmt.Sprintf("it is %s", m.Status) })
	return m
}

func (e *env) messages(instanceID string, f domain.MessageFilter) []domain.Message {
	e.t.Helper()
	p, err := e.m.Messages.List(e.ctx, e.a, instanceID, f, domain.ListParams{Limit: ptr(100)})
	if err != nil {
		e.t.Fatal(err)
	}
	return p.Data
}

// inbound waits until an instance has n inbound messages and returns them oldest first.
func (e *env) inbound(instanceID string, n int) []domain.Message {
	e.t.Helper()
	var ms []domain.Message
	e.eventually("inbound messages", func() bool {
		ms = e.messages(instanceID, domain.MessageFilter{Direction: domain.Inbound})
		return len(ms) >= n
	})
	out := make([]domain.Message, len(ms))
	for i, m := range ms {
		out[len(ms)-1-i] = m
	}
	return out
}

// eventTypes lists the types of the workspace's events about an object (by id in data).
func (e *env) events(types ...string) []domain.Event {
	e.t.Helper()
	p, err := e.svc.Events.List(e.ctx, e.a, domain.EventFilter{Types: types}, domain.ListParams{Limit: ptr(100)})
	if err != nil {
		e.t.Fatal(err)
	}
	return p.Data
}

func ptr[T any](v T) *T { return &v }

func wantCode(t testing.TB, err error, code domain.Code, reason, param string) {
	t.Helper()
	de, ok := err.(*domain.Error)
	if !ok {
		t.Fatalf("error = %v, want a domain error %s/%s", err, code, reason)
	}
	if de.Code != code || (reason != "" && de.Reason != reason) || de.Param != param {
		t.Fatalf("error = %s reason %q param %q (%s), want %s reason %q param %q", de.Code, de.Reason, de.Param, de.Message, code, reason, param)
	}
}
