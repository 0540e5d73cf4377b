package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// This file applies what channels report (channel.event jobs): inbound messages, receipts,
// group changes, session changes and edits. Each is applied in one transaction with its
// events; applying one twice changes nothing more (providers retry, jobs may rerun).

// eventAttempts bounds how often a channel event is tried: a receipt may arrive before the
// send that it is about has committed, so it waits a little and tries again.
const eventAttempts = 8

func eventBackoff(n int) (time.Duration, bool) {
	return time.Duration(n*n) * 100 * time.Millisecond, n < eventAttempts
}

// errNotYet is a channel event about something not stored yet (retried).
var errNotYet = errors.New("not stored yet")

// runEvent applies one channel event.
func (c *core) runEvent(ctx context.Context, j *jobs.Job) error {
	var ev channels.Event
	if err := json.Unmarshal(j.Payload, &ev); err != nil {
		return jobs.Permanent(err)
	}
	if ev.Message != nil && ev.Message.MediaRef != "" {
		if err := c.receiveMedia(ctx, ev.InstanceID, ev.Message, j.Attempt >= j.MaxAttempts); err != nil {
			return err
		}
	}
	return c.st.Tx(ctx, func(tx *store.Tx) error {
		ins, err := tx.InstancesByID(ctx, []string{ev.InstanceID})
		if err != nil {
			return err
		}
		inst, ok := ins[ev.InstanceID]
		if !ok {
			return nil // the instance was deleted: nothing to apply to
		}
		now := c.now()
		switch {
		case ev.Message != nil:
			_, _, err = c.applyInbound(ctx, tx, inst, *ev.Message, now, j.Attempt < j.MaxAttempts)
		case ev.Receipt != nil:
			err = c.applyReceipt(ctx, tx, inst, *ev.Receipt, now)
			if errors.Is(err, errNotYet) && j.Attempt >= j.MaxAttempts {
				err = nil // a receipt of a message not sent through Switchboard (the phone's own): nothing to apply
			}
		case ev.Group != nil:
			err = c.applyGroup(ctx, tx, inst, *ev.Group, now)
		case ev.Status != nil:
			err = c.applyStatus(ctx, tx, inst, *ev.Status, now)
		case ev.Edit != nil:
			err = c.applyEdit(ctx, tx, inst, *ev.Edit, now)
		}
		return err
	})
}

// receiveMedia downloads an inbound message's media before it is stored, unless the
// message is already stored (a provider's retry) or its instance is gone.
func (c *core) receiveMedia(ctx context.Context, instanceID string, ib *channels.Inbound, lastAttempt bool) error {
	ins, err := c.st.InstancesByID(ctx, []string{instanceID})
	if err != nil {
		return err
	}
	inst, ok := ins[instanceID]
	if !ok {
		return nil
	}
	if _, err := c.st.MessageByProviderID(ctx, inst.ID, domain.Inbound, ib.ProviderMessageID); err == nil {
		return nil
	}
	return c.fetchMedia(ctx, inst, ib, lastAttempt)
}

// applyInbound stores an inbound message (once per provider id), moves its chat, creates
// the sender's contact when new, and records message.received. mayWait lets a reply to a
// message not stored yet wait for it (see quoted).
func (c *core) applyInbound(ctx context.Context, tx *store.Tx, inst store.StoredInstance, ib channels.Inbound, now time.Time, mayWait bool) (domain.Message, bool, error) {
	chat := domain.Chat{ID: domain.NewID(domain.PrefixChat), WorkspaceID: inst.WorkspaceID, InstanceID: inst.ID,
		Address: ib.ChatAddress, Kind: domain.ChatDirect, Name: ib.SenderName, CreatedAt: now, UpdatedAt: now}
	if ib.Group {
		chat.Kind, chat.Name = domain.ChatGroup, ""
		if g, err := tx.GroupByAddress(ctx, inst.ID, ib.ChatAddress); err == nil {
			chat.Name = g.Subject
		}
	}
	chat, err := tx.EnsureChat(ctx, chat)
	if err != nil {
		return domain.Message{}, false, err
	}
	m := domain.Message{ID: domain.NewID(domain.PrefixMessage), WorkspaceID: inst.WorkspaceID, InstanceID: inst.ID,
		ChatID: chat.ID, Direction: domain.Inbound, ChatAddress: ib.ChatAddress, Sender: ib.Sender, Type: ib.Type,
		Content: ib.Content, ThreadID: ib.ThreadID, Status: domain.MessageReceived, ProviderMessageID: ib.ProviderMessageID,
		CreatedAt: now, UpdatedAt: now}
	if ib.ReplyTo != "" {
		id, err := c.quoted(ctx, tx, inst.ID, chat.ID, ib.ReplyTo, mayWait)
		if err != nil {
			return m, false, err
		}
		if id != "" {
			m.ReplyTo = &id
		}
	}
	if r := ib.Content.Reaction; r != nil {
		id, err := c.quoted(ctx, tx, inst.ID, chat.ID, r.MessageID, mayWait)
		if err != nil {
			return m, false, err
		}
		m.Content.Reaction = &domain.Reaction{MessageID: id, Emoji: r.Emoji}
	}
	inserted, err := tx.InsertMessage(ctx, m)
	if err != nil || !inserted {
		return m, false, err
	}
	if err := tx.ChatMessage(ctx, chat.ID, m.ID, now, 1); err != nil {
		return m, false, err
	}
	if err := c.ensureContact(ctx, tx, inst, ib.Sender, ib.SenderName, now); err != nil {
		return m, false, err
	}
	if err := c.record(ctx, tx, inst, domain.EventMessageReceived, c.present(m).Object(inst.Address)); err != nil {
		return m, false, err
	}
	if chat.Archived {
		// The message brought the chat back from the archive: a change like any other.
		after, err := tx.Chat(ctx, inst.WorkspaceID, inst.ID, chat.ID)
		if err != nil {
			return m, false, err
		}
		if !after.Archived {
			if err := c.record(ctx, tx, inst, domain.EventChatUpdated, c.presentChat(after).Object(inst.Address)); err != nil {
				return m, false, err
			}
		}
	}
	return m, true, nil
}

// quoted finds the local id of the message a reply or reaction points at ("" when it is
// not ours to know, say one sent from the phone itself). A peer can answer a message before
// our send of it commits its provider id, so while the chat has a send in flight the event
// waits and is retried, until its last try.
func (c *core) quoted(ctx context.Context, tx *store.Tx, instanceID, chatID, providerID string, mayWait bool) (string, error) {
	if id, ok := localID(ctx, tx, instanceID, providerID); ok {
		return id, nil
	}
	if !mayWait {
		return "", nil
	}
	sending, err := tx.ChatHasQueuedOutbound(ctx, chatID)
	if err != nil {
		return "", err
	}
	if sending {
		return "", errNotYet
	}
	return "", nil
}

// localID finds the instance's message with a provider id (either direction).
func localID(ctx context.Context, tx *store.Tx, instanceID, providerID string) (string, bool) {
	for _, dir := range []string{domain.Outbound, domain.Inbound} {
		if m, err := tx.MessageByProviderID(ctx, instanceID, dir, providerID); err == nil {
			return m.ID, true
		}
	}
	return "", false
}

// ensureContact creates the contact of an address that wrote to the instance, once.
func (c *core) ensureContact(ctx context.Context, tx *store.Tx, inst store.StoredInstance, address, name string, now time.Time) error {
	if address == "" || address == inst.Address {
		return nil
	}
	ct := domain.Contact{ID: domain.NewID(domain.PrefixContact), WorkspaceID: inst.WorkspaceID, InstanceID: inst.ID,
		Address: address, Name: name, CreatedAt: now, UpdatedAt: now}
	created, err := tx.InsertContact(ctx, ct)
	if err != nil || !created {
		return err
	}
	return c.record(ctx, tx, inst, domain.EventContactCreated, ct.Object())
}

// applyReceipt moves an outbound message's status forward (never back): a delivered after
// read changes nothing. A receipt for a message not sent yet waits for the send to commit.
func (c *core) applyReceipt(ctx context.Context, tx *store.Tx, inst store.StoredInstance, r channels.Receipt, now time.Time) error {
	m, err := tx.LockMessageByProviderID(ctx, inst.ID, domain.Outbound, r.ProviderMessageID)
	if domain.IsCode(err, domain.CodeNotFound) {
		return errNotYet
	}
	if err != nil {
		return err
	}
	return c.advance(ctx, tx, inst, &m, r.Status, r.ErrorCode, r.ErrorMessage, r.At, now)
}

// advance sets a message's status to status when that moves it forward, recording the
// event of each step (a message jumping from queued records message.sent first).
func (c *core) advance(ctx context.Context, tx *store.Tx, inst store.StoredInstance, m *domain.Message, status, code, msg string, at, now time.Time) error {
	if m.Status == domain.MessageFailed || domain.StatusRank(status) <= domain.StatusRank(m.Status) {
		return nil
	}
	if at.IsZero() {
		at = now
	}
	if status != domain.MessageFailed && m.Status == domain.MessageQueued {
		m.Status, m.SentAt = domain.MessageSent, &at
		if status != domain.MessageSent {
			if err := c.saveAndRecord(ctx, tx, inst, m, domain.EventMessageSent, now); err != nil {
				return err
			}
		}
	}
	if m.SentAt != nil && at.Before(*m.SentAt) {
		at = *m.SentAt // a receipt may be stamped before we recorded the send: keep times in order
	}
	typ := domain.EventMessageStatusUpdated
	switch status {
	case domain.MessageSent:
		m.SentAt, typ = &at, domain.EventMessageSent
	case domain.MessageDelivered:
		m.DeliveredAt = &at
	case domain.MessageRead:
		m.ReadAt = &at
		if m.DeliveredAt == nil {
			m.DeliveredAt = &at
		}
	case domain.MessageFailed:
		if code == "" {
			code = "send_failed"
		}
		m.FailedAt, m.Error, typ = &at, &domain.MessageError{Code: code, Message: msg}, domain.EventMessageFailed
	}
	m.Status = status
	return c.saveAndRecord(ctx, tx, inst, m, typ, now)
}

func (c *core) saveAndRecord(ctx context.Context, tx *store.Tx, inst store.StoredInstance, m *domain.Message, typ string, now time.Time) error {
	m.UpdatedAt = now
	if err := tx.SaveMessage(ctx, *m); err != nil {
		return err
	}
	return c.record(ctx, tx, inst, typ, c.present(*m).Object(inst.Address))
}

// applyGroup stores a group change the channel reported, with its event.
func (c *core) applyGroup(ctx context.Context, tx *store.Tx, inst store.StoredInstance, ge channels.Group, now time.Time) error {
	g, err := tx.GroupByAddress(ctx, inst.ID, ge.Info.Address)
	isNew := domain.IsCode(err, domain.CodeNotFound)
	if err != nil && !isNew {
		return err
	}
	if isNew {
		if ge.Action == channels.GroupRemoved {
			return nil
		}
		g = domain.Group{ID: domain.NewID(domain.PrefixGroup), WorkspaceID: inst.WorkspaceID, InstanceID: inst.ID,
			Address: ge.Info.Address, CreatedAt: now}
	}
	// Channels that cannot list members (a Telegram bot) report changes without the whole
	// group: what they leave out is kept.
	if ge.Info.Subject != "" || isNew {
		g.Subject = ge.Info.Subject
	}
	if ge.Info.Description != "" || ge.Info.Participants != nil || isNew {
		g.Description = ge.Info.Description
	}
	if ge.Info.Participants != nil {
		g.Participants = ge.Info.Participants
	} else if ge.Action == channels.GroupParticipants {
		g.Participants = domain.ChangeParticipants(g.Participants, ge.Added, ge.Removed)
	}
	g.UpdatedAt = now
	if ge.Info.Owner != "" {
		g.Owner = ge.Info.Owner
	}
	g.Left = ge.Action == channels.GroupRemoved
	if err := tx.SaveGroup(ctx, g); err != nil {
		return err
	}
	switch {
	case isNew:
		return c.record(ctx, tx, inst, domain.EventGroupCreated, g.Object())
	case ge.Action == channels.GroupRemoved:
		return c.record(ctx, tx, inst, domain.EventGroupLeft, g.Object())
	case ge.Action == channels.GroupParticipants:
		return c.record(ctx, tx, inst, domain.EventGroupParticipants,
			domain.GroupParticipantsChange{Group: g.Object(), Added: nonNil(ge.Added), Removed: nonNil(ge.Removed)})
	default:
		return c.record(ctx, tx, inst, domain.EventGroupUpdated, g.Object())
	}
}

// applyStatus applies a session change: a pairing completed on the phone, a logout or a
// failure the channel noticed.
func (c *core) applyStatus(ctx context.Context, tx *store.Tx, inst store.StoredInstance, st channels.Status, now time.Time) error {
	cur, err := tx.LockInstance(ctx, inst.WorkspaceID, inst.ID)
	if err != nil {
		return err
	}
	switch st.Status {
	case domain.InstanceConnected:
		if cur.Status == domain.InstanceConnecting {
			return errNotYet // the connect job has not recorded pairing yet
		}
		if cur.Status != domain.InstancePairing {
			return nil
		}
		return c.connected(ctx, tx, &cur, st.Address, now)
	case domain.InstanceDisconnected, domain.InstanceFailed:
		cur.Session = st.Status == domain.InstanceFailed && cur.Session
		clearPairing(&cur)
		return c.setStatus(ctx, tx, &cur, st.Status, st.Reason, now)
	}
	return nil
}

// applyEdit applies an edit or deletion of an inbound message by its sender.
func (c *core) applyEdit(ctx context.Context, tx *store.Tx, inst store.StoredInstance, e channels.Edit, now time.Time) error {
	m, err := tx.LockMessageByProviderID(ctx, inst.ID, domain.Inbound, e.ProviderMessageID)
	if domain.IsCode(err, domain.CodeNotFound) {
		return nil
	}
	if err != nil || m.DeletedAt != nil {
		return err
	}
	if !e.Deleted && m.EditedAt != nil && m.Content.Text == e.Text {
		return nil // the provider retried the same edit
	}
	typ := domain.EventMessageEdited
	if e.Deleted {
		m.DeletedAt, typ = &now, domain.EventMessageDeleted
	} else {
		m.Content.Text, m.EditedAt = e.Text, &now
	}
	return c.saveAndRecord(ctx, tx, inst, &m, typ, now)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
