package rest

import (
	"net/http"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// chatPath is the {chat_id} of an instance's chat.
type chatPath struct {
	instancePath
	ChatID string "json:\"-\" path:\"chat_id\" doc:\"The chat's id (`chat_…`).\" example:\"chat_01jr8d0c3b5n7q9s1u3w5y7a9c\""
}

// chatsQuery is the input of GET /instances/{id}/chats.
type chatsQuery struct {
	instancePath
	Archived *bool  `json:"-" query:"archived" example:"false" doc:"Only archived chats (true) or only the others (false); both when left out."`
	Sort     string "json:\"-\" query:\"sort\" enum:\"last_message,created\" example:\"last_message\" doc:\"`last_message` (the default): the chat with the latest message first, as a phone lists them (a chat without messages counts from its creation). `created`: the newest chat first; its pages never skip or repeat a chat. A cursor works only with the sort that made it.\""
	listQuery
}

// updateChatRequest is the body of PATCH /instances/{id}/chats/{chat_id}.
type updateChatRequest struct {
	chatPath
	Archived *bool `json:"archived" required:"true" nullable:"false" example:"true" doc:"Archive (true) or unarchive (false) the chat. A new message unarchives it."`
}

func (a *api) listChats(r *http.Request, q chatsQuery) (list[domain.ChatObject], error) {
	page, err := a.opts.Messaging.Chats.List(r.Context(), actor(r), q.ID, domain.ChatFilter{Archived: q.Archived, Sort: q.Sort}, q.params())
	return listOf(mapPage(page.Page, func(c domain.Chat) domain.ChatObject { return c.Object(page.InstanceAddress) })), err
}

func (a *api) getChat(r *http.Request, p chatPath) (domain.ChatObject, error) {
	c, address, err := a.opts.Messaging.Chats.Get(r.Context(), actor(r), p.ID, p.ChatID)
	return c.Object(address), err
}

func (a *api) updateChat(r *http.Request, in updateChatRequest) (domain.ChatObject, error) {
	c, address, err := a.opts.Messaging.Chats.SetArchived(r.Context(), actor(r), in.ID, in.ChatID, in.Archived)
	return c.Object(address), err
}

func (a *api) markChatRead(r *http.Request, p chatPath) (domain.ChatObject, error) {
	c, address, err := a.opts.Messaging.Chats.MarkRead(r.Context(), actor(r), p.ID, p.ChatID)
	return c.Object(address), err
}
