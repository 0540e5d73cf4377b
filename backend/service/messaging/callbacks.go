package messaging

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// This file receives providers' calls to an instance's callback URL,
// /channels/{driver}/{callback_token}: Telegram's webhook updates, WhatsApp Cloud's
// verification handshake and notifications. The token routes the call; the driver verifies
// it (the provider's signature or echoed secret) before anything is stored.

// MaxCallbackBytes bounds a callback's body. Providers send a few kilobytes, but Meta's
// webhook notifications may batch changes up to 3 MB (its documented bound).
const MaxCallbackBytes = 3 << 20

// callbackTokenBytes is the entropy of callback tokens and secrets (256 bits).
const callbackTokenBytes = 32

var (
	errCallbackNotFound = &domain.Error{Code: domain.CodeNotFound, Reason: "callback_not_found",
		Message: "no instance has this callback URL (it may have been rotated or deleted)"}
	errCallbackSignature = &domain.Error{Code: domain.CodeUnauthenticated, Reason: "signature_invalid",
		Message: "the callback is not signed by the provider with this instance's secret"}
)

// callsBack reports whether a channel's provider calls instances back.
func callsBack(d channels.Driver) bool {
	_, ok := d.(channels.Receiver)
	return ok
}

// newCallback gives an instance a fresh callback token and secret (sealed), replacing any
// earlier ones: the old URL stops working at once.
func (c *core) newCallback(in *store.StoredInstance) error {
	token, secret := service.RandomToken(callbackTokenBytes), service.RandomToken(callbackTokenBytes)
	sealedToken, err := c.s.Seal(token)
	if err != nil {
		return domain.Internal(err)
	}
	sealedSecret, err := c.s.Seal(secret)
	if err != nil {
		return domain.Internal(err)
	}
	hash := service.HashToken(token)
	in.CallbackTokenHash, in.SealedCallbackToken, in.SealedCallbackSecret = &hash, sealedToken, sealedSecret
	return nil
}

// callbackURL returns an instance's callback URL and secret ("" for channels that do not
// call back).
func (c *core) callbackURL(in store.StoredInstance) (url, secret string, err error) {
	if in.CallbackTokenHash == nil {
		return "", "", nil
	}
	token, err := c.s.Open(in.SealedCallbackToken)
	if err != nil {
		return "", "", domain.Internal(err)
	}
	if secret, err = c.s.Open(in.SealedCallbackSecret); err != nil {
		return "", "", domain.Internal(err)
	}
	return c.cfg.CallbackBase + "/" + in.Channel + "/" + token, secret, nil
}

// RotateCallbackToken gives an instance a new callback URL (and provider secret); the old
// one answers 404 from now on. A connected instance reconnects, so channels that register
// their webhook (Telegram) register the new URL; others (WhatsApp Cloud) need it pasted in
// the provider's dashboard.
func (s *Instances) RotateCallbackToken(ctx context.Context, a service.Actor, id string) (domain.Instance, error) {
	return s.transition(ctx, a, id, func(c service.Change, cur *store.StoredInstance) error {
		if cur.CallbackTokenHash == nil {
			return &domain.Error{Code: domain.CodeInvalid, Reason: "unsupported_by_channel",
				Message: "this instance's channel does not call back: it has no callback URL"}
		}
		if err := s.c.newCallback(cur); err != nil {
			return err
		}
		cur.UpdatedAt = c.Now
		if err := c.Tx.SaveInstance(ctx, *cur); err != nil {
			return err
		}
		pub, err := s.c.public(*cur)
		if err != nil {
			return err
		}
		if err := s.c.record(ctx, c.Tx, *cur, domain.EventInstanceUpdated, pub.Object().ForEvent()); err != nil {
			return err
		}
		if cur.Status == domain.InstanceConnected || cur.Status == domain.InstancePairing {
			return s.c.startConnecting(ctx, c.Tx, cur, "callback URL rotated", c.Now)
		}
		return nil
	})
}

// Callbacks receives providers' calls.
type Callbacks struct{ c *core }

// Receive handles one call to /channels/{driver}/{token}: it finds the instance, lets its
// driver verify the call and read it, stores what it reported as channel.event jobs (so the
// provider is answered at once, and a retried call changes nothing: each event is applied
// once per provider message id), and returns the driver's answer for the provider. An
// unknown token, or one of another driver, is 404; a bad signature is 401.
func (cb *Callbacks) Receive(ctx context.Context, driver, token string, call channels.Callback) (channels.CallbackResponse, error) {
	c := cb.c
	if token == "" || len(token) > 100 {
		return channels.CallbackResponse{}, errCallbackNotFound
	}
	in, err := c.st.InstanceByCallbackToken(ctx, service.HashToken(token))
	if domain.IsCode(err, domain.CodeNotFound) || (err == nil && in.Channel != driver) {
		return channels.CallbackResponse{}, errCallbackNotFound
	}
	if err != nil {
		return channels.CallbackResponse{}, err
	}
	d, err := c.driver(in)
	if err != nil {
		return channels.CallbackResponse{}, err
	}
	rcv, ok := d.(channels.Receiver)
	if !ok {
		return channels.CallbackResponse{}, errCallbackNotFound
	}
	v, err := c.view(in)
	if err != nil {
		return channels.CallbackResponse{}, err
	}
	resp, events, err := rcv.Receive(ctx, v, call)
	switch {
	case errors.Is(err, channels.ErrSignature):
		c.log.Info("channel callback refused: bad signature", "instance_id", in.ID, "channel", in.Channel)
		return channels.CallbackResponse{}, errCallbackSignature
	case err != nil:
		return channels.CallbackResponse{}, &domain.Error{Code: domain.CodeInvalid, Reason: "invalid_callback",
			Message: "the callback could not be read", Err: err}
	}
	for i := range events {
		events[i].InstanceID = in.ID // a driver cannot report for another instance
	}
	if err := (host{c}).Emit(ctx, 0, events...); err != nil {
		return channels.CallbackResponse{}, err
	}
	return resp, nil
}
