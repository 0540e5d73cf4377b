package messaging

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Messages sends messages and reads them.
type Messages struct {
	c     *core
	batch *sendBatcher // group commit of common sends (sendbatch.go)
}

// MaxAddressLength bounds addresses (phone numbers, chat ids, group addresses).
const MaxAddressLength = 128

// SendInput is a message to send: to an address (a contact's, or a group's address or
// grp_ id), with content, optionally answering another message of the chat.
type SendInput struct {
	To string
	ContentInput
	ReplyTo string
	// ThreadID sends into a thread of the chat (a Telegram forum topic); a reply without one
	// goes to the thread of the message it answers.
	ThreadID string
}

// MaxThreadIDLength bounds thread_id (a Telegram topic id is a 32-bit number).
const MaxThreadIDLength = 20

// Send stores a message as queued and queues its send: 202 with the message; its status
// then moves on as events. Nothing is stored for a refused request.
func (s *Messages) Send(ctx context.Context, a service.Actor, instanceID string, in SendInput) (domain.Message, error) {
	typ, content, err := checkSend(a, in)
	if err != nil {
		return domain.Message{}, err
	}
	if batchable(in, content) {
		wsID, err := service.RequireWorkspace(a, domain.ScopeMessagesSend)
		if err != nil {
			return domain.Message{}, err
		}
		if !domain.HasPrefix(instanceID, domain.PrefixInstance) {
			return domain.Message{}, domain.NotFound("instance")
		}
		return s.batch.send(ctx, &pendingSend{a: a, in: in, wsID: wsID, instanceID: instanceID, typ: typ, content: content})
	}
	return s.sendOne(ctx, a, instanceID, in, typ, content)
}

// sendOne stores one checked send in a transaction of its own.
func (s *Messages) sendOne(ctx context.Context, a service.Actor, instanceID string, in SendInput, typ string, content domain.Content) (domain.Message, error) {
	var out domain.Message
	err := s.c.s.Mutate(ctx, a, domain.ScopeMessagesSend, func(c service.Change) error {
		var err error
		out, err = s.sendIn(ctx, c, instanceID, in, typ, content)
		return err
	})
	return out, err
}

// SendIn is Send in the caller's transaction (an automation run's send_message, which
// commits the message and its send job with the run's record, so a run retried after a
// crash never sends twice).
func (s *Messages) SendIn(ctx context.Context, tx *store.Tx, a service.Actor, instanceID string, in SendInput) (domain.Message, error) {
	typ, content, err := checkSend(a, in)
	if err != nil {
		return domain.Message{}, err
	}
	var out domain.Message
	err = s.c.s.MutateIn(tx, a, domain.ScopeMessagesSend, func(c service.Change) error {
		out, err = s.sendIn(ctx, c, instanceID, in, typ, content)
		return err
	})
	return out, err
}

// checkSend checks what a send can be checked for without the database: the key's scope,
// the content, the address and the form of reply_to.
func checkSend(a service.Actor, in SendInput) (string, domain.Content, error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeMessagesSend); err != nil {
		return "", domain.Content{}, err
	}
	typ, content, err := checkContent(in.ContentInput)
	if err != nil {
		return "", domain.Content{}, err
	}
	if err := checkAddressInput("to", in.To); err != nil {
		return "", domain.Content{}, err
	}
	if in.ReplyTo != "" && !domain.HasPrefix(in.ReplyTo, domain.PrefixMessage) {
		return "", domain.Content{}, domain.Invalid("reply_to", "reply_to must be the id of a message of this chat")
	}
	if err := checkThreadID(in.ThreadID); err != nil {
		return "", domain.Content{}, err
	}
	return typ, content, nil
}

// checkThreadID checks the form of a thread id: the only channel with threads (Telegram)
// numbers them.
func checkThreadID(id string) error {
	if id == "" {
		return nil
	}
	if len(id) > MaxThreadIDLength || strings.Trim(id, "0123456789") != "" || strings.TrimLeft(id, "0") == "" {
		return domain.Invalid("thread_id", "thread_id must be a thread's number (a Telegram forum topic's message_thread_id)")
	}
	return nil
}

// sendIn stores one checked send in c's transaction: the message, its message.queued event
// and its send job.
func (s *Messages) sendIn(ctx context.Context, c service.Change, instanceID string, in SendInput, typ string, content domain.Content) (domain.Message, error) {
	// The instance and, when the address is a group's, the group: one query on the
	// hot path.
	if !domain.HasPrefix(instanceID, domain.PrefixInstance) {
		return domain.Message{}, domain.NotFound("instance")
	}
	inst, group, err := c.Tx.InstanceWithGroup(ctx, c.WorkspaceID, instanceID, in.To)
	if err != nil {
		return domain.Message{}, err
	}
	d, err := s.c.driver(inst)
	if err != nil {
		return domain.Message{}, err
	}
	caps := d.Capabilities()
	if !caps.Supports(typ) {
		return domain.Message{}, unsupported(typ + " messages")
	}
	if in.ReplyTo != "" && !caps.Reply {
		return domain.Message{}, unsupported("replies")
	}
	if in.ThreadID != "" && !caps.Threads {
		return domain.Message{}, unsupported("threads")
	}
	var target chatTarget
	switch {
	case domain.HasPrefix(in.To, domain.PrefixGroup):
		target, err = s.c.resolveChat(ctx, c.Tx, d, inst, "to", in.To)
	case group != nil:
		target, err = groupTarget(*group)
	default:
		target, err = contactTarget(d, "to", in.To)
	}
	if err != nil {
		return domain.Message{}, err
	}
	if inst.Status != domain.InstanceConnected {
		return domain.Message{}, errNotConnected
	}
	thread := in.ThreadID
	if in.ReplyTo != "" {
		quoted, err := sameChat(ctx, c.Tx, inst, in.ReplyTo, target.address, "reply_to")
		if err != nil {
			return domain.Message{}, err
		}
		if thread == "" {
			thread = quoted.ThreadID // the answer stays in the topic of the message it answers
		}
	}
	if content.Reaction != nil {
		if _, err := sameChat(ctx, c.Tx, inst, content.Reaction.MessageID, target.address, "reaction.message_id"); err != nil {
			return domain.Message{}, err
		}
	}
	id := domain.NewID(domain.PrefixMessage)
	chat, err := c.Tx.ChatWithMessage(ctx, target.chat(inst, c.Now), id, c.Now)
	if err != nil {
		return domain.Message{}, err
	}
	m := domain.Message{ID: id, WorkspaceID: inst.WorkspaceID, InstanceID: inst.ID, ChatID: chat.ID, Direction: domain.Outbound, ChatAddress: target.address, Sender: inst.Address, Type: typ,
		Content: content, ThreadID: thread, Status: domain.MessageQueued, CreatedAt: c.Now, UpdatedAt: c.Now}
	if in.ReplyTo != "" {
		r := in.ReplyTo
		m.ReplyTo = &r
	}
	if _, err := c.Tx.InsertMessage(ctx, m); err != nil {
		return domain.Message{}, err
	}
	if err := s.c.record(ctx, c.Tx, inst, domain.EventMessageQueued, m.Object(inst.Address)); err != nil {
		return domain.Message{}, err
	}
	if chat.Archived {
		// The send brings the chat back from the archive: chat.updated, as a received message records.
		back, err := c.Tx.UnarchiveChats(ctx, []string{chat.ID}, c.Now)
		if err != nil {
			return domain.Message{}, err
		}
		for _, ch := range back {
			if err := s.c.record(ctx, c.Tx, inst, domain.EventChatUpdated, s.c.presentChat(ch).Object(inst.Address)); err != nil {
				return domain.Message{}, err
			}
		}
	}
	return m, jobs.Enqueue(ctx, c.Tx, c.Now, sendJob(m, chat.ID, inst.MessagesPerSecond))
}

// sendJob is the job that hands a message to its channel: at most sendConcurrency of an
// instance's sends at once, paced to its messages per second, one at a time per chat.
func sendJob(m domain.Message, chatID string, perSecond int) jobs.NewJob {
	return jobs.NewJob{ID: m.ID, Kind: domain.JobMessageSend, Payload: "{}", MaxAttempts: len(sendSchedule) + 1,
		ConcurrencyKey: domain.InstanceKey(m.InstanceID), ConcurrencyLimit: sendConcurrency,
		PacingKey: domain.InstanceKey(m.InstanceID), PacingInterval: paceOf(perSecond),
		OrderingKey: domain.ChatKey(chatID)}
}

// paceOf is the interval between two sends at perSecond.
func paceOf(perSecond int) time.Duration { return time.Second / time.Duration(max(perSecond, 1)) }

// chatTarget is where a message goes: a contact's address or a group.
type chatTarget struct {
	address string
	group   *domain.Group
}

func (t chatTarget) chat(inst store.StoredInstance, now time.Time) domain.Chat {
	c := domain.Chat{ID: domain.NewID(domain.PrefixChat), WorkspaceID: inst.WorkspaceID, InstanceID: inst.ID,
		Address: t.address, Kind: domain.ChatDirect, CreatedAt: now, UpdatedAt: now}
	if t.group != nil {
		c.Kind, c.Name = domain.ChatGroup, t.group.Subject
	}
	return c
}

// resolveChat reads an address a client gave: a group of the instance (by grp_ id or its
// address), else a contact address the channel accepts.
func (c *core) resolveChat(ctx context.Context, tx *store.Tx, d channels.Driver, inst store.StoredInstance, param, to string) (chatTarget, error) {
	if domain.HasPrefix(to, domain.PrefixGroup) {
		g, err := tx.Group(ctx, inst.WorkspaceID, inst.ID, to)
		if domain.IsCode(err, domain.CodeNotFound) {
			return chatTarget{}, domain.Invalid(param, "%s is not a group of this instance", param)
		}
		if err != nil {
			return chatTarget{}, err
		}
		return groupTarget(g)
	}
	g, err := tx.GroupByAddress(ctx, inst.ID, to)
	if domain.IsCode(err, domain.CodeNotFound) {
		return contactTarget(d, param, to)
	}
	if err != nil {
		return chatTarget{}, err
	}
	return groupTarget(g)
}

func groupTarget(g domain.Group) (chatTarget, error) {
	if g.Left {
		return chatTarget{}, errGroupLeft
	}
	return chatTarget{address: g.Address, group: &g}, nil
}

func contactTarget(d channels.Driver, param, to string) (chatTarget, error) {
	if err := d.ValidateAddress(to); err != nil {
		return chatTarget{}, domain.Invalid(param, "%s %s", param, err.Error())
	}
	return chatTarget{address: to}, nil
}

var errGroupLeft = &domain.Error{Code: domain.CodeConflict, Reason: "group_left",
	Message: "the instance has left this group"}

// sameChat checks that id names a message of the instance in the chat with address, and
// returns it.
func sameChat(ctx context.Context, tx *store.Tx, inst store.StoredInstance, id, address, param string) (domain.Message, error) {
	m, err := tx.Message(ctx, inst.WorkspaceID, inst.ID, id)
	if domain.IsCode(err, domain.CodeNotFound) || (err == nil && m.ChatAddress != address) {
		return m, domain.Invalid(param, "%s must be the id of a message of this chat", param)
	}
	return m, err
}

func checkAddressInput(param, addr string) error {
	if strings.TrimSpace(addr) == "" {
		return domain.Invalid(param, "%s is required", param)
	}
	if len(addr) > MaxAddressLength {
		return domain.Invalid(param, "%s is longer than %d characters", param, MaxAddressLength)
	}
	return nil
}

// loadIn reads an instance of a workspace in tx (not found for a malformed id).
func loadIn(ctx context.Context, tx *store.Tx, wsID, id string) (store.StoredInstance, error) {
	if !domain.HasPrefix(id, domain.PrefixInstance) {
		return store.StoredInstance{}, domain.NotFound("instance")
	}
	return tx.Instance(ctx, wsID, id)
}

// MessagePage is a page of messages with the address of their instance (the from of
// outbound messages), which their public form needs.
type MessagePage struct {
	domain.Page[domain.Message]
	InstanceAddress string
}

// List returns a page of an instance's messages, newest first, filtered.
func (s *Messages) List(ctx context.Context, a service.Actor, instanceID string, f domain.MessageFilter, p domain.ListParams) (MessagePage, error) {
	page, inst, err := listUnder(ctx, s.c, a, domain.ScopeMessagesRead, instanceID, domain.PrefixMessage, p,
		func(wsID string, inst store.StoredInstance, limit int) ([]domain.Message, error) {
			if err := checkFilter(f); err != nil {
				return nil, err
			}
			if domain.HasPrefix(f.Address, domain.PrefixGroup) {
				// A group by its id, as sends and typing take it.
				g, err := s.c.st.Group(ctx, wsID, inst.ID, f.Address)
				if domain.IsCode(err, domain.CodeNotFound) {
					return nil, domain.Invalid("address", "address is not a group of this instance")
				}
				if err != nil {
					return nil, err
				}
				f.Address = g.Address
			}
			ms, err := s.c.st.Messages(ctx, wsID, inst.ID, f, p.After, limit)
			for i := range ms {
				ms[i] = s.c.present(ms[i])
			}
			return ms, err
		}, func(m domain.Message) string { return m.ID })
	return MessagePage{page, inst.Address}, err
}

func checkFilter(f domain.MessageFilter) error {
	if f.Direction != "" && f.Direction != domain.Inbound && f.Direction != domain.Outbound {
		return domain.Invalid("direction", "direction must be inbound or outbound")
	}
	if f.Status != "" && domain.StatusRank(f.Status) < 0 {
		return domain.Invalid("status", "status must be one of queued, sent, delivered, read, failed, received")
	}
	if f.ChatID != "" && !domain.HasPrefix(f.ChatID, domain.PrefixChat) {
		return domain.Invalid("chat_id", "chat_id must be a chat id (chat_...)")
	}
	if len(f.Address) > MaxAddressLength {
		return domain.Invalid("address", "address is longer than %d characters", MaxAddressLength)
	}
	if err := checkThreadID(f.ThreadID); err != nil {
		return err
	}
	if f.Since != nil && f.Until != nil && !f.Until.After(*f.Since) {
		return domain.Invalid("until", "until must be after since")
	}
	return nil
}

// Get returns one message of an instance, with the instance's address.
func (s *Messages) Get(ctx context.Context, a service.Actor, instanceID, id string) (domain.Message, string, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeMessagesRead)
	if err != nil {
		return domain.Message{}, "", err
	}
	inst, m, err := s.c.loadMessage(ctx, wsID, instanceID, id)
	return s.c.present(m), inst.Address, err
}

func (c *core) loadMessage(ctx context.Context, wsID, instanceID, id string) (store.StoredInstance, domain.Message, error) {
	inst, err := c.load(ctx, wsID, instanceID)
	if err != nil {
		return inst, domain.Message{}, err
	}
	if !domain.HasPrefix(id, domain.PrefixMessage) {
		return inst, domain.Message{}, domain.NotFound("message")
	}
	m, err := c.st.Message(ctx, wsID, inst.ID, id)
	return inst, m, err
}

var errNotChangeable = &domain.Error{Code: domain.CodeConflict, Reason: "message_not_changeable",
	Message: "only a sent outbound message that is not deleted can be changed (text messages only for edits)"}

// Edit changes the text of a sent text message, on the channel and here.
func (s *Messages) Edit(ctx context.Context, a service.Actor, instanceID, id, text string) (domain.Message, string, error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeMessagesSend); err != nil {
		return domain.Message{}, "", err
	}
	if strings.TrimSpace(text) == "" {
		return domain.Message{}, "", domain.Invalid("text", "text is required and cannot be blank")
	}
	if utf8.RuneCountInString(text) > MaxTextLength {
		return domain.Message{}, "", domain.Invalid("text", "text is longer than %d characters", MaxTextLength)
	}
	return s.change(ctx, a, instanceID, id, "editing messages", func(caps channels.Capabilities) bool { return caps.Edit },
		func(m domain.Message) bool { return m.Type == domain.TypeText },
		func(m domain.Message) bool { return m.Content.Text == text },
		func(ctx context.Context, d channels.Driver, v channels.Instance, m channels.SentMessage) error {
			return d.Edit(ctx, v, m, text)
		},
		func(m *domain.Message, now time.Time) string {
			m.Content.Text, m.EditedAt = text, &now
			return domain.EventMessageEdited
		})
}

// Delete deletes a sent message for everyone, on the channel and here (the message stays
// listed, marked deleted).
func (s *Messages) Delete(ctx context.Context, a service.Actor, instanceID, id string) (domain.Message, string, error) {
	return s.change(ctx, a, instanceID, id, "deleting messages", func(caps channels.Capabilities) bool { return caps.Delete },
		func(domain.Message) bool { return true }, func(domain.Message) bool { return false },
		func(ctx context.Context, d channels.Driver, v channels.Instance, m channels.SentMessage) error {
			return d.Delete(ctx, v, m)
		},
		func(m *domain.Message, now time.Time) string {
			m.DeletedAt = &now
			return domain.EventMessageDeleted
		})
}

// change is the shape of Edit and Delete: check, ask the channel, then store and record. A
// change to what the message already is (unchanged) is answered with the message as it is:
// nothing is sent to the channel and no event recorded.
func (s *Messages) change(ctx context.Context, a service.Actor, instanceID, id, what string,
	can func(channels.Capabilities) bool, fits, unchanged func(domain.Message) bool,
	call func(context.Context, channels.Driver, channels.Instance, channels.SentMessage) error,
	apply func(*domain.Message, time.Time) string) (domain.Message, string, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeMessagesSend)
	if err != nil {
		return domain.Message{}, "", err
	}
	inst, m, err := s.c.loadMessage(ctx, wsID, instanceID, id)
	if err != nil {
		return domain.Message{}, "", err
	}
	d, err := s.c.driver(inst)
	if err != nil {
		return domain.Message{}, "", err
	}
	if !can(d.Capabilities()) {
		return domain.Message{}, "", unsupported(what)
	}
	if m.Direction != domain.Outbound || m.DeletedAt != nil || m.ProviderMessageID == "" ||
		m.Status == domain.MessageQueued || m.Status == domain.MessageFailed || !fits(m) {
		return domain.Message{}, "", errNotChangeable
	}
	if unchanged(m) {
		return s.c.present(m), inst.Address, nil
	}
	if inst.Status != domain.InstanceConnected {
		return domain.Message{}, "", errNotConnected
	}
	v, err := s.c.view(inst)
	if err != nil {
		return domain.Message{}, "", err
	}
	sent := channels.SentMessage{ChatAddress: m.ChatAddress, ProviderMessageID: m.ProviderMessageID}
	if sent.Group, sent.Participants, err = s.c.groupMembers(ctx, inst.ID, m.ChatAddress); err != nil {
		return domain.Message{}, "", err
	}
	if err := call(ctx, d, v, sent); err != nil {
		return domain.Message{}, "", driverError(err, what)
	}
	err = s.c.s.Mutate(ctx, a, domain.ScopeMessagesSend, func(c service.Change) error {
		if m, err = c.Tx.LockMessage(ctx, id); err != nil {
			return err
		}
		typ := apply(&m, c.Now)
		m.UpdatedAt = c.Now
		if err := c.Tx.SaveMessage(ctx, m); err != nil {
			return err
		}
		return s.c.record(ctx, c.Tx, inst, typ, m.Object(inst.Address))
	})
	return s.c.present(m), inst.Address, err
}

// Typing states.
var typingStates = []string{"composing", "recording", "paused"}

// TypingInput is a typing indicator to show: in the chat To (a thread of it with ThreadID),
// State composing (the default), recording or paused.
type TypingInput struct {
	To, State, ThreadID string
}

// Typing shows a typing (or recording) indicator in a chat, or stops it (paused), and
// returns the state shown (composing when none is given). Where the channel shows it only in
// answer to a received message, which it marks read (WhatsApp), the newest one received in
// the chat is named, and the chat is marked read here too, as the sender now sees it.
func (s *Messages) Typing(ctx context.Context, a service.Actor, instanceID string, in TypingInput) (string, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeMessagesSend)
	if err != nil {
		return "", err
	}
	to, state := in.To, in.State
	if state == "" {
		state = "composing"
	}
	if !slices.Contains(typingStates, state) {
		return "", domain.Invalid("state", "state must be one of %s", strings.Join(typingStates, ", "))
	}
	if err := checkAddressInput("to", to); err != nil {
		return "", err
	}
	if err := checkThreadID(in.ThreadID); err != nil {
		return "", err
	}
	inst, err := s.c.load(ctx, wsID, instanceID)
	if err != nil {
		return "", err
	}
	d, err := s.c.driver(inst)
	if err != nil {
		return "", err
	}
	if !d.Capabilities().Typing {
		return "", unsupported("typing indicators")
	}
	if in.ThreadID != "" && !d.Capabilities().Threads {
		return "", unsupported("threads")
	}
	var target chatTarget
	if err := s.c.st.Tx(ctx, func(tx *store.Tx) error {
		target, err = s.c.resolveChat(ctx, tx, d, inst, "to", to)
		return err
	}); err != nil {
		return "", err
	}
	if inst.Status != domain.InstanceConnected {
		return "", errNotConnected
	}
	v, err := s.c.view(inst)
	if err != nil {
		return "", err
	}
	var last channels.Received
	var chatID string
	marksRead := d.Capabilities().TypingMarksRead && state != "paused"
	if marksRead {
		m, err := s.c.st.LastReceived(ctx, inst.ID, target.address)
		if domain.IsCode(err, domain.CodeNotFound) || (err == nil && m.ProviderMessageID == "") {
			return "", errNothingReceived
		}
		if err != nil {
			return "", err
		}
		last, chatID = channels.Received{ProviderMessageID: m.ProviderMessageID, Sender: m.Sender}, m.ChatID
	}
	if err := driverError(d.Typing(ctx, v, channels.Indicator{ChatAddress: target.address, State: state, ThreadID: in.ThreadID, Last: last}),
		"typing indicators"); err != nil {
		return "", err
	}
	if marksRead {
		if _, _, _, err := (&Chats{c: s.c}).readHere(ctx, a, inst.ID, chatID); err != nil {
			return "", err
		}
	}
	return state, nil
}

var errNothingReceived = &domain.Error{Code: domain.CodeConflict, Reason: "no_received_message",
	Param: "to", Message: "this channel shows a typing indicator only in answer to a message received in the chat, and none was"}

// InjectInput is an inbound message to simulate: as if From had written it, in a group
// when Group is set (its grp_ id or address).
type InjectInput struct {
	From     string
	FromName string
	Group    string
	ContentInput
	ReplyTo string
}

// Inject stores an inbound message as if a contact had written it, on channels that
// simulate a network (the sandbox), for tests and demos. It is applied at once, as a
// real one would be, with the same events.
func (s *Messages) Inject(ctx context.Context, a service.Actor, instanceID string, in InjectInput) (domain.Message, string, error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeMessagesSend); err != nil {
		return domain.Message{}, "", err
	}
	typ, content, err := checkContent(in.ContentInput)
	if err != nil {
		return domain.Message{}, "", err
	}
	if err := checkAddressInput("from", in.From); err != nil {
		return domain.Message{}, "", err
	}
	if utf8.RuneCountInString(in.FromName) > MaxContactNameLength {
		return domain.Message{}, "", domain.Invalid("from_name", "from_name is longer than %d characters", MaxContactNameLength)
	}
	if err := checkNoNUL("from_name", in.FromName); err != nil {
		return domain.Message{}, "", err
	}
	var out domain.Message
	var address string
	err = s.c.s.Mutate(ctx, a, domain.ScopeMessagesSend, func(c service.Change) error {
		inst, err := loadIn(ctx, c.Tx, c.WorkspaceID, instanceID)
		if err != nil {
			return err
		}
		address = inst.Address
		d, err := s.c.driver(inst)
		if err != nil {
			return err
		}
		if !d.Capabilities().Simulated {
			return unsupported("simulated inbound messages")
		}
		if err := d.ValidateAddress(in.From); err != nil {
			return domain.Invalid("from", "from %s", err.Error())
		}
		ib := channels.Inbound{ProviderMessageID: "sim." + domain.NewID(domain.PrefixMessage), ChatAddress: in.From,
			Sender: in.From, SenderName: in.FromName, Type: typ, Content: content, At: c.Now}
		if in.Group != "" {
			// Whatever does not name one of the instance's groups is refused as that (not
			// as a malformed person's address, which is what a send's to would be).
			t, err := s.c.resolveChat(ctx, c.Tx, d, inst, "group", in.Group)
			if err != nil && !domain.IsCode(err, domain.CodeInvalid) {
				return err
			}
			if err != nil || t.group == nil {
				return domain.Invalid("group", "group is not a group of this instance (give its id, grp_…, or its address)")
			}
			ib.ChatAddress, ib.Group = t.address, true
		}
		if inst.Status != domain.InstanceConnected {
			return errNotConnected
		}
		for _, ref := range []struct{ id, param string }{{in.ReplyTo, "reply_to"}, {reactionTarget(content), "reaction.message_id"}} {
			if ref.id == "" {
				continue
			}
			m, err := c.Tx.Message(ctx, inst.WorkspaceID, inst.ID, ref.id)
			if err != nil || m.ChatAddress != ib.ChatAddress || m.ProviderMessageID == "" {
				return domain.Invalid(ref.param, "%s must be the id of a sent message of this chat", ref.param)
			}
			if ref.param == "reply_to" {
				ib.ReplyTo = m.ProviderMessageID
			} else {
				r := *content.Reaction
				r.MessageID = m.ProviderMessageID
				ib.Content.Reaction = &r
			}
		}
		out, _, err = s.c.applyInbound(ctx, c.Tx, inst, ib, c.Now, false)
		return err
	})
	return out, address, err
}

func reactionTarget(c domain.Content) string {
	if c.Reaction == nil {
		return ""
	}
	return c.Reaction.MessageID
}
