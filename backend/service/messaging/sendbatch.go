package messaging

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/groupcommit"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Group commit of sends (service/groupcommit). On PostgreSQL what bounds accepted sends
// per second is the number of statements per send, not the work: so concurrent sends of
// the common kind (to a person's address; not a reply, a reaction or a group) are stored
// together, one transaction and a handful of multi-row statements per batch. A batch whose
// transaction fails is stored again one send at a time, so no send fails because of
// another.
const maxSendBatch = 64

// pendingSend is one send waiting in a batch.
type pendingSend struct {
	groupcommit.Pending
	a                service.Actor
	in               SendInput
	wsID, instanceID string
	typ              string
	content          domain.Content

	msg     domain.Message
	jobChat string
	alone   bool // it must be stored on its own (its address is a group's)
}

type sendBatcher struct {
	m *Messages
	groupcommit.Batcher[*pendingSend]
}

func newSendBatcher(m *Messages) *sendBatcher {
	b := &sendBatcher{m: m}
	b.Max, b.Store = maxSendBatch, b.store
	return b
}

// batchable tells whether a send can join a batch.
func batchable(in SendInput, content domain.Content) bool {
	return in.ReplyTo == "" && in.ThreadID == "" && content.Reaction == nil && !domain.HasPrefix(in.To, domain.PrefixGroup)
}

// send queues p and waits for its batch.
func (b *sendBatcher) send(ctx context.Context, p *pendingSend) (domain.Message, error) {
	err := b.Do(ctx, p)
	return p.msg, err
}

// store stores a batch, then answers each send.
func (b *sendBatcher) store(batch []*pendingSend) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := b.m.c
	err := c.st.Tx(ctx, func(tx *store.Tx) error { return b.storeIn(ctx, tx, batch) })
	for _, p := range batch {
		switch {
		case p.Err != nil: // refused before anything was written
		case err != nil || p.alone:
			p.msg, p.Err = b.m.sendOne(context.Background(), p.a, p.instanceID, p.in, p.typ, p.content)
		}
	}
}

// storeIn checks every send as sendOne would, in the same order (so a refusal is the same
// error), then writes the accepted ones: their chats, messages, events and send jobs.
func (b *sendBatcher) storeIn(ctx context.Context, tx *store.Tx, batch []*pendingSend) error {
	c := b.m.c
	now := c.now()
	var ids, addresses []string
	for _, p := range batch {
		p.Err, p.alone = nil, false
		ids, addresses = append(ids, p.instanceID), append(addresses, p.to())
	}
	insts, err := tx.InstancesByID(ctx, ids)
	if err != nil {
		return err
	}
	groups, err := tx.GroupAddresses(ctx, ids, addresses)
	if err != nil {
		return err
	}
	type chatKey = string
	var accepted []*pendingSend
	chats := map[chatKey]*store.ChatLast{}
	var order []chatKey
	for _, p := range batch {
		inst, ok := insts[p.instanceID]
		if !ok || inst.WorkspaceID != p.wsID {
			p.Err = domain.NotFound("instance")
			continue
		}
		key := inst.ID + "|" + p.to()
		if groups[key] {
			p.alone = true
			continue
		}
		d, err := c.driver(inst)
		if err != nil {
			return err
		}
		if !d.Capabilities().Supports(p.typ) {
			p.Err = unsupported(p.typ + " messages")
			continue
		}
		target, err := contactTarget(d, "to", p.to())
		if err != nil {
			p.Err = err
			continue
		}
		if inst.Status != domain.InstanceConnected {
			p.Err = errNotConnected
			continue
		}
		id := domain.NewID(domain.PrefixMessage)
		p.msg = domain.Message{ID: id, WorkspaceID: inst.WorkspaceID, InstanceID: inst.ID, Direction: domain.Outbound,
			ChatAddress: target.address, Sender: inst.Address, Type: p.typ, Content: p.content, Status: domain.MessageQueued,
			CreatedAt: now, UpdatedAt: now}
		key = inst.ID + "|" + target.address
		if cl, ok := chats[key]; ok {
			cl.MessageID = id // the batch's last message of the chat is its last
		} else {
			chats[key] = &store.ChatLast{Chat: target.chat(inst, now), MessageID: id, At: now}
			order = append(order, key)
		}
		p.jobChat = key
		accepted = append(accepted, p)
	}
	if len(accepted) == 0 {
		return nil
	}
	list := make([]store.ChatLast, len(order))
	for i, k := range order {
		list[i] = *chats[k]
	}
	chatIDs, archived, err := tx.ChatsWithMessages(ctx, list)
	if err != nil {
		return err
	}
	msgs := make([]domain.Message, len(accepted))
	events := make([]service.EventRecord, len(accepted))
	js := make([]jobs.NewJob, len(accepted))
	for i, p := range accepted {
		p.msg.ChatID = chatIDs[p.jobChat]
		msgs[i] = p.msg
		inst := insts[p.instanceID]
		instID := inst.ID
		events[i] = service.EventRecord{WorkspaceID: inst.WorkspaceID, Type: domain.EventMessageQueued, InstanceID: &instID,
			Data: p.msg.Object(inst.Address)}
		js[i] = sendJob(p.msg, p.msg.ChatID, inst.MessagesPerSecond)
	}
	if err := tx.InsertMessages(ctx, msgs); err != nil {
		return err
	}
	if len(archived) > 0 {
		// Sends brought chats back from the archive: chat.updated, as a received message records.
		back, err := tx.UnarchiveChats(ctx, archived, now)
		if err != nil {
			return err
		}
		for _, ch := range back {
			instID := ch.InstanceID
			events = append(events, service.EventRecord{WorkspaceID: ch.WorkspaceID, Type: domain.EventChatUpdated,
				InstanceID: &instID, Data: c.presentChat(ch).Object(insts[ch.InstanceID].Address)})
		}
	}
	if _, err := c.s.RecordAll(ctx, tx, events); err != nil {
		return err
	}
	return jobs.Enqueue(ctx, tx, now, js...)
}

func (p *pendingSend) to() string { return p.in.To }
