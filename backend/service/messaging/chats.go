package messaging

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Chats lists an instance's conversations and keeps their read and archived state.
type Chats struct{ c *core }

// ChatPage is a page of chats with their instance's address (for their last messages).
type ChatPage struct {
	domain.Page[domain.Chat]
	InstanceAddress string
}

// List returns a page of an instance's chats filtered by f: the most recently active first
// (f.Sort last_message, the default: the order of a phone's chat list) or the newest first
// (created, whose pages never skip or repeat a chat).
//
// In the last_message order the cursor holds the last chat's id and activity time as the
// page saw them, so paging never repeats a chat: one that gets a message meanwhile moves
// ahead of the cursor. Such a chat is not listed again on the following pages either, even
// when the pass had not reached it yet: a new pass (or the message's events) shows it.
func (s *Chats) List(ctx context.Context, a service.Actor, instanceID string, f domain.ChatFilter, p domain.ListParams) (ChatPage, error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeMessagesRead); err != nil {
		return ChatPage{}, err
	}
	switch f.Sort {
	case "":
		f.Sort = domain.ChatSortLastMessage
	case domain.ChatSortLastMessage, domain.ChatSortCreated:
	default:
		return ChatPage{}, domain.Invalid("sort", "sort must be last_message or created")
	}
	after, err := chatCursor(f.Sort, p.After)
	if err != nil {
		return ChatPage{}, err
	}
	cursor := func(c domain.Chat) string { return c.ID }
	if f.Sort == domain.ChatSortLastMessage {
		cursor = func(c domain.Chat) string { return c.ID + "." + strconv.FormatInt(c.ActiveAt().UnixNano(), 10) }
	}
	p.After = after.ID // listUnder checks it is a chat id
	page, inst, err := listUnder(ctx, s.c, a, domain.ScopeMessagesRead, instanceID, domain.PrefixChat, p,
		func(wsID string, inst store.StoredInstance, limit int) ([]domain.Chat, error) {
			chats, err := s.c.st.Chats(ctx, wsID, inst.ID, f, after, limit)
			for i := range chats {
				chats[i] = s.c.presentChat(chats[i])
			}
			return chats, err
		}, cursor)
	return ChatPage{page, inst.Address}, err
}

// chatCursor reads the after of a chat list: a chat id in the created order; in the
// last_message order, "<chat id>.<activity time in Unix nanoseconds>" (see List).
func chatCursor(sort, after string) (store.ChatPos, error) {
	if after == "" {
		return store.ChatPos{}, nil
	}
	bad := domain.Invalid("after", "after must be the next_cursor of a previous page of the same sort")
	if sort == domain.ChatSortCreated {
		if !domain.HasPrefix(after, domain.PrefixChat) {
			return store.ChatPos{}, bad
		}
		return store.ChatPos{ID: after}, nil
	}
	id, at, ok := strings.Cut(after, ".")
	ns, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || ns < 0 || !domain.HasPrefix(id, domain.PrefixChat) {
		return store.ChatPos{}, bad
	}
	return store.ChatPos{ID: id, ActiveAt: time.Unix(0, ns).UTC()}, nil
}

// Get returns one chat of an instance, with the instance's address.
func (s *Chats) Get(ctx context.Context, a service.Actor, instanceID, id string) (domain.Chat, string, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeMessagesRead)
	if err != nil {
		return domain.Chat{}, "", err
	}
	inst, err := s.c.load(ctx, wsID, instanceID)
	if err != nil {
		return domain.Chat{}, "", err
	}
	if !domain.HasPrefix(id, domain.PrefixChat) {
		return domain.Chat{}, "", domain.NotFound("chat")
	}
	ch, err := s.c.st.Chat(ctx, wsID, inst.ID, id)
	return s.c.presentChat(ch), inst.Address, err
}

// SetArchived archives or unarchives a chat (a new message unarchives it); archived is
// required.
func (s *Chats) SetArchived(ctx context.Context, a service.Actor, instanceID, id string, archived *bool) (domain.Chat, string, error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeMessagesSend); err != nil {
		return domain.Chat{}, "", err
	}
	if archived == nil {
		return domain.Chat{}, "", domain.Invalid("archived", "archived is required (true or false)")
	}
	return s.update(ctx, a, instanceID, id, func(c service.Change, ch domain.Chat) error {
		if ch.Archived == *archived {
			return nil
		}
		return c.Tx.SetChatArchived(ctx, ch.ID, *archived, c.Now)
	})
}

// MarkRead marks a chat's received messages read, here and, where the channel tells
// senders, on the channel (read receipts).
func (s *Chats) MarkRead(ctx context.Context, a service.Actor, instanceID, id string) (domain.Chat, string, error) {
	ch, addr, read, err := s.readHere(ctx, a, instanceID, id)
	if err != nil || len(read) == 0 {
		return ch, addr, err
	}
	wsID, _ := service.RequireWorkspace(a, domain.ScopeMessagesSend)
	inst, err := s.c.load(ctx, wsID, instanceID)
	if err != nil {
		return ch, addr, err
	}
	d, err := s.c.driver(inst)
	if err != nil || !d.Capabilities().MarkRead || inst.Status != domain.InstanceConnected {
		return ch, addr, err
	}
	v, err := s.c.view(inst)
	if err != nil {
		return ch, addr, err
	}
	rs := make([]channels.Received, len(read))
	for i, m := range read {
		rs[i] = channels.Received{ProviderMessageID: m.ProviderMessageID, Sender: m.Sender}
	}
	// The chat is read here whatever the channel answers; a failed receipt is only logged.
	if err := d.MarkRead(ctx, v, ch.Address, rs); err != nil {
		s.c.log.Warn("sending read receipts failed", "instance_id", inst.ID, "chat_id", ch.ID, "error", err)
	}
	return ch, addr, nil
}

// readHere marks a chat's received messages read in the store (each one's
// message.status_updated, and chat.updated when its unread count changes) and returns the
// messages it marked, without telling the channel.
func (s *Chats) readHere(ctx context.Context, a service.Actor, instanceID, id string) (domain.Chat, string, []domain.Message, error) {
	var read []domain.Message
	ch, addr, err := s.update(ctx, a, instanceID, id, func(c service.Change, ch domain.Chat) error {
		var err error
		if read, err = c.Tx.MarkChatRead(ctx, ch.ID, c.Now); err != nil || len(read) == 0 {
			return err
		}
		inst, err := loadIn(ctx, c.Tx, c.WorkspaceID, instanceID)
		if err != nil {
			return err
		}
		rs := make([]service.EventRecord, len(read))
		for i, m := range read {
			m.Status, m.ReadAt, m.UpdatedAt = domain.MessageRead, &c.Now, c.Now
			rs[i] = service.EventRecord{WorkspaceID: inst.WorkspaceID, Type: domain.EventMessageStatusUpdated,
				InstanceID: &inst.ID, Data: s.c.present(m).Object(inst.Address)}
		}
		_, err = s.c.s.RecordAll(ctx, c.Tx, rs)
		return err
	})
	return ch, addr, read, err
}

// update changes a chat in one transaction and records chat.updated, unless the chat
// stayed as it was (read again, archived again).
func (s *Chats) update(ctx context.Context, a service.Actor, instanceID, id string, fn func(service.Change, domain.Chat) error) (domain.Chat, string, error) {
	var out domain.Chat
	var address string
	err := s.c.s.Mutate(ctx, a, domain.ScopeMessagesSend, func(c service.Change) error {
		inst, err := loadIn(ctx, c.Tx, c.WorkspaceID, instanceID)
		if err != nil {
			return err
		}
		address = inst.Address
		if !domain.HasPrefix(id, domain.PrefixChat) {
			return domain.NotFound("chat")
		}
		ch, err := c.Tx.Chat(ctx, c.WorkspaceID, inst.ID, id)
		if err != nil {
			return err
		}
		if err := fn(c, ch); err != nil {
			return err
		}
		if out, err = c.Tx.Chat(ctx, c.WorkspaceID, inst.ID, id); err != nil {
			return err
		}
		out = s.c.presentChat(out)
		if out.Archived == ch.Archived && out.UnreadCount == ch.UnreadCount {
			return nil
		}
		return s.c.record(ctx, c.Tx, inst, domain.EventChatUpdated, out.Object(inst.Address))
	})
	return out, address, err
}
