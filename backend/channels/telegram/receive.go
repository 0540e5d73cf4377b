package telegram

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

// secretHeader carries the secret_token given to setWebhook on every webhook call.
const secretHeader = "X-Telegram-Bot-Api-Secret-Token"

var answered = channels.CallbackResponse{Status: 200, ContentType: "application/json", Body: []byte(`{}`)}

// Receive turns one webhook call (one Update) into events. Telegram sends no signature,
// only the secret we gave setWebhook, compared in constant time. Update kinds the service
// has no use for are answered 200 with no events, so Telegram does not redeliver them.
func (d *Driver) Receive(_ context.Context, in channels.Instance, cb channels.Callback) (channels.CallbackResponse, []channels.Event, error) {
	got := cb.Header.Get(secretHeader)
	if in.CallbackSecret == "" || subtle.ConstantTimeCompare([]byte(got), []byte(in.CallbackSecret)) != 1 {
		return channels.CallbackResponse{}, nil, channels.ErrSignature
	}
	var u models.Update
	if err := json.Unmarshal(cb.Body, &u); err != nil {
		// The Bot API grows its unions ("Currently, it can be one of ..."), and the library
		// refuses a variant it does not know, failing the whole update. Telegram would retry
		// a refused update and then drop it, losing the message: read the parts we use.
		if u, err = lenientUpdate(cb.Body); err != nil {
			return channels.CallbackResponse{}, nil, fmt.Errorf("telegram: the update is not valid: %w", err)
		}
	}
	r := receiver{self: selfOf(in)}
	evs := r.update(&u)
	for i := range evs {
		evs[i].InstanceID = in.ID
	}
	return answered, evs, nil
}

// self is the bot itself, as updates name it (its user id) and as the service knows it
// (the instance's address, @username).
type self struct {
	id      int64
	address string
}

// selfOf finds the bot's user id in its token (the digits before the colon).
func selfOf(in channels.Instance) self {
	s := self{address: in.Address}
	prefix, _, _ := strings.Cut(in.Secrets[ConfigToken], ":")
	s.id, _ = strconv.ParseInt(strings.TrimSpace(prefix), 10, 64)
	if s.address == "" {
		s.address = strconv.FormatInt(s.id, 10)
	}
	return s
}

type receiver struct{ self self }

func (r receiver) update(u *models.Update) []channels.Event {
	switch {
	case u.Message != nil:
		return r.message(u.Message)
	case u.ChannelPost != nil:
		return r.message(u.ChannelPost)
	case u.EditedMessage != nil:
		return edited(u.EditedMessage)
	case u.EditedChannelPost != nil:
		return edited(u.EditedChannelPost)
	case u.MessageReaction != nil:
		return reaction(u.ID, u.MessageReaction)
	case u.MyChatMember != nil:
		return r.member(u.MyChatMember, true)
	case u.ChatMember != nil:
		return r.member(u.ChatMember, false)
	}
	return nil
}

func isGroup(c models.Chat) bool {
	return c.Type == models.ChatTypeGroup || c.Type == models.ChatTypeSupergroup
}

func chatAddress(c models.Chat) string { return strconv.FormatInt(c.ID, 10) }

func at(date int) time.Time { return time.Unix(int64(date), 0).UTC() }

func userName(u *models.User) string {
	if n := strings.TrimSpace(u.FirstName + " " + u.LastName); n != "" {
		return n
	}
	return u.Username
}

func chatName(c *models.Chat) string {
	if c.Title != "" {
		return c.Title
	}
	if n := strings.TrimSpace(c.FirstName + " " + c.LastName); n != "" {
		return n
	}
	return c.Username
}

// sender is who wrote a message. A message sent on behalf of a chat (a channel post, an
// anonymous group admin) carries a placeholder user in from, so sender_chat comes first.
func sender(m *models.Message) (address, name string) {
	switch {
	case m.SenderChat != nil:
		return chatAddress(*m.SenderChat), chatName(m.SenderChat)
	case m.From != nil:
		return strconv.FormatInt(m.From.ID, 10), userName(m.From)
	}
	return chatAddress(m.Chat), chatName(&m.Chat)
}

// message is an inbound message, or the group change a service message reports.
func (r receiver) message(m *models.Message) []channels.Event {
	if isGroup(m.Chat) {
		if evs := r.service(m); evs != nil {
			return evs
		}
	}
	ib := channels.Inbound{ProviderMessageID: providerID(m.Chat.ID, m.ID), ChatAddress: chatAddress(m.Chat),
		Group: isGroup(m.Chat), At: at(m.Date)}
	ib.Sender, ib.SenderName = sender(m)
	// A message in a forum topic names the topic. Outside forums message_thread_id names a
	// reply thread, which is not a place a message can be sent to: left out.
	if m.IsTopicMessage && m.MessageThreadID > 0 {
		ib.ThreadID = strconv.Itoa(m.MessageThreadID)
	}
	// In a forum, every message of a topic replies to the topic's creation: not a reply.
	if q := m.ReplyToMessage; q != nil && q.ForumTopicCreated == nil {
		chat := q.Chat.ID
		if chat == 0 {
			chat = m.Chat.ID
		}
		ib.ReplyTo = providerID(chat, q.ID)
	}
	if !content(m, &ib) {
		return nil // dice, games, pins and the like: nothing the service stores
	}
	return []channels.Event{{Kind: channels.EventMessage, Message: &ib}}
}

// content fills in the message's type and content; false for kinds the service lacks.
func content(m *models.Message, ib *channels.Inbound) bool {
	media := func(typ, fileID, fileName, mime string) {
		ib.Type, ib.MediaRef = typ, fileID
		ib.Content.Media = &domain.Media{Caption: m.Caption, FileName: fileName, MimeType: mime, ProviderMediaID: fileID}
	}
	switch {
	case m.Text != "":
		ib.Type, ib.Content.Text = domain.TypeText, m.Text
	case len(m.Photo) > 0:
		// Telegram sends each photo in several sizes: keep the largest.
		best := m.Photo[0]
		for _, p := range m.Photo[1:] {
			if p.Width*p.Height > best.Width*best.Height {
				best = p
			}
		}
		media(domain.TypeImage, best.FileID, "", "image/jpeg")
	case m.Video != nil:
		media(domain.TypeVideo, m.Video.FileID, m.Video.FileName, m.Video.MimeType)
	case m.VideoNote != nil:
		media(domain.TypeVideo, m.VideoNote.FileID, "", "video/mp4")
	case m.Audio != nil:
		media(domain.TypeAudio, m.Audio.FileID, m.Audio.FileName, m.Audio.MimeType)
	case m.Voice != nil:
		media(domain.TypeVoice, m.Voice.FileID, "", m.Voice.MimeType)
	case m.Document != nil: // animations (GIFs) come with their document too
		media(domain.TypeDocument, m.Document.FileID, m.Document.FileName, m.Document.MimeType)
	case m.Sticker != nil:
		media(domain.TypeSticker, m.Sticker.FileID, "", stickerMime(m.Sticker))
	case m.Location != nil:
		ib.Type = domain.TypeLocation
		ib.Content.Location = &domain.Location{Latitude: m.Location.Latitude, Longitude: m.Location.Longitude}
		if v := m.Venue; v != nil {
			ib.Content.Location.Name, ib.Content.Location.Address = v.Title, v.Address
		}
	case m.Contact != nil:
		c := m.Contact
		ib.Type = domain.TypeContact
		ib.Content.Contact = &domain.ContactCard{Name: strings.TrimSpace(c.FirstName + " " + c.LastName),
			Phones: []string{c.PhoneNumber}, VCard: c.VCard}
	case m.Poll != nil:
		p := &domain.Poll{Question: m.Poll.Question, MultipleAnswers: m.Poll.AllowsMultipleAnswers}
		for _, o := range m.Poll.Options {
			p.Options = append(p.Options, o.Text)
		}
		ib.Type, ib.Content.Poll = domain.TypePoll, p
	default:
		return false
	}
	return true
}

func stickerMime(s *models.Sticker) string {
	switch {
	case s.IsAnimated:
		return "application/x-tgsticker"
	case s.IsVideo:
		return "video/webm"
	}
	return "image/webp"
}

// service turns a group's service message into a group event (nil for other messages).
// The bot's own joining and leaving are left to my_chat_member, which Telegram always sends
// it; other members' changes can also arrive as chat_member updates (to admin bots), so one
// change may be reported twice.
func (r receiver) service(m *models.Message) []channels.Event {
	info := channels.GroupInfo{Address: chatAddress(m.Chat), Subject: m.Chat.Title}
	switch {
	case len(m.NewChatMembers) > 0:
		var added []string
		for _, u := range m.NewChatMembers {
			if u.ID != r.self.id {
				added = append(added, strconv.FormatInt(u.ID, 10))
			}
		}
		return groupEvent(channels.GroupParticipants, info, added, nil)
	case m.LeftChatMember != nil:
		if m.LeftChatMember.ID == r.self.id {
			return []channels.Event{}
		}
		return groupEvent(channels.GroupParticipants, info, nil, []string{strconv.FormatInt(m.LeftChatMember.ID, 10)})
	case m.NewChatTitle != "":
		info.Subject = m.NewChatTitle
		return groupEvent(channels.GroupUpdated, info, nil, nil)
	}
	return nil
}

// groupEvent is one group event; a participants change with nobody in it is none (but
// still not an inbound message: the result is empty, not nil).
func groupEvent(action string, info channels.GroupInfo, added, removed []string) []channels.Event {
	if action == channels.GroupParticipants && len(added) == 0 && len(removed) == 0 {
		return []channels.Event{}
	}
	return []channels.Event{{Kind: channels.EventGroup,
		Group: &channels.Group{Action: action, Info: info, Added: added, Removed: removed}}}
}

// member turns a membership change into a group event: someone joined or left (a promotion
// or a restriction that keeps them in changes nothing the service keeps). For the bot
// itself (mine), leaving or being removed is the group's removal.
func (r receiver) member(cm *models.ChatMemberUpdated, mine bool) []channels.Event {
	if !isGroup(cm.Chat) {
		return nil // private chats (a user blocking the bot) and channels have no group
	}
	was, is := isMember(cm.OldChatMember), isMember(cm.NewChatMember)
	user := memberUser(cm.NewChatMember)
	if was == is || user == nil || (!mine && user.ID == r.self.id) {
		return nil
	}
	addr := strconv.FormatInt(user.ID, 10)
	if mine {
		addr = r.self.address
	}
	info := channels.GroupInfo{Address: chatAddress(cm.Chat), Subject: cm.Chat.Title}
	switch {
	case is:
		return groupEvent(channels.GroupParticipants, info, []string{addr}, nil)
	case mine:
		return groupEvent(channels.GroupRemoved, info, nil, []string{addr})
	}
	return groupEvent(channels.GroupParticipants, info, nil, []string{addr})
}

func isMember(m models.ChatMember) bool {
	switch m.Type {
	case models.ChatMemberTypeOwner, models.ChatMemberTypeAdministrator, models.ChatMemberTypeMember:
		return true
	case models.ChatMemberTypeRestricted:
		return m.Restricted != nil && m.Restricted.IsMember
	}
	return false
}

func memberUser(m models.ChatMember) *models.User {
	switch {
	case m.Owner != nil:
		return m.Owner.User
	case m.Administrator != nil:
		return &m.Administrator.User
	case m.Member != nil:
		return m.Member.User
	case m.Restricted != nil:
		return m.Restricted.User
	case m.Left != nil:
		return m.Left.User
	case m.Banned != nil:
		return m.Banned.User
	}
	return nil
}

// edited is an edit of an inbound text message. Caption edits are not reported: the
// service's edit changes a message's text, which a media message does not have.
func edited(m *models.Message) []channels.Event {
	if m.Text == "" {
		return nil
	}
	return []channels.Event{{Kind: channels.EventEdit, Edit: &channels.Edit{ChatAddress: chatAddress(m.Chat),
		ProviderMessageID: providerID(m.Chat.ID, m.ID), Text: m.Text}}}
}

// reaction is a user's reaction change on a message, as an inbound reaction message: the
// first emoji of the new reactions, or "" when they were cleared. Reactions are no messages
// on Telegram, so the stored one is named after the update (redelivered with the same id).
// Custom-emoji reactions have no emoji to show and are left out.
func reaction(updateID int64, mr *models.MessageReactionUpdated) []channels.Event {
	emoji, ok := "", len(mr.NewReaction) == 0
	for _, rt := range mr.NewReaction {
		if rt.Type == models.ReactionTypeTypeEmoji && rt.ReactionTypeEmoji != nil {
			emoji, ok = rt.ReactionTypeEmoji.Emoji, true
			break
		}
		if rt.Type == models.ReactionTypeTypePaid {
			emoji, ok = "⭐", true
			break
		}
	}
	if !ok {
		return nil
	}
	target := providerID(mr.Chat.ID, mr.MessageID)
	ib := channels.Inbound{ProviderMessageID: target + ":reaction:" + strconv.FormatInt(updateID, 10),
		ChatAddress: chatAddress(mr.Chat), Group: isGroup(mr.Chat), Type: domain.TypeReaction,
		Content: domain.Content{Reaction: &domain.Reaction{MessageID: target, Emoji: emoji}}, At: at(mr.Date)}
	switch {
	case mr.User != nil:
		ib.Sender, ib.SenderName = strconv.FormatInt(mr.User.ID, 10), userName(mr.User)
	case mr.ActorChat != nil:
		ib.Sender, ib.SenderName = chatAddress(*mr.ActorChat), chatName(mr.ActorChat)
	default:
		return nil // anonymous: Telegram reports those only as counts
	}
	return []channels.Event{{Kind: channels.EventMessage, Message: &ib}}
}

// messageFields are the Message fields this driver reads; lenientUpdate keeps only these.
var messageFields = map[string]bool{"message_id": true, "message_thread_id": true, "from": true, "sender_chat": true,
	"date": true, "chat": true, "reply_to_message": true, "text": true, "caption": true, "photo": true, "video": true,
	"video_note": true, "audio": true, "voice": true, "document": true, "sticker": true, "location": true, "venue": true,
	"contact": true, "poll": true, "new_chat_members": true, "left_chat_member": true, "new_chat_title": true,
	"forum_topic_created": true, "edit_date": true}

// knownReactions are the ReactionType variants the library decodes.
var knownReactions = map[string]bool{"emoji": true, "custom_emoji": true, "paid": true}

// lenientUpdate decodes an update the library refused, keeping of its messages only the
// fields the driver reads and of reactions only the known kinds, so that a field or variant
// newer than the library does not lose the message.
func lenientUpdate(body []byte) (models.Update, error) {
	var u models.Update
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return u, err
	}
	if _, ok := raw["update_id"]; !ok {
		return u, fmt.Errorf("no update_id")
	}
	for _, k := range []string{"message", "channel_post", "edited_message", "edited_channel_post"} {
		if m, ok := raw[k]; ok {
			raw[k] = trimMessage(m, 2)
		}
	}
	if r, ok := raw["message_reaction"]; ok {
		raw["message_reaction"] = trimReactions(r)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return u, err
	}
	return u, json.Unmarshal(b, &u)
}

// trimMessage keeps a message's messageFields (and those of the message it replies to,
// depth levels down).
func trimMessage(m json.RawMessage, depth int) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(m, &fields) != nil {
		return m
	}
	for k, v := range fields {
		switch {
		case !messageFields[k] || (k == "reply_to_message" && depth == 0):
			delete(fields, k)
		case k == "reply_to_message":
			fields[k] = trimMessage(v, depth-1)
		}
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return m
	}
	return b
}

// trimReactions drops reaction kinds the library does not know from a reaction update.
func trimReactions(r json.RawMessage) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(r, &fields) != nil {
		return r
	}
	for _, k := range []string{"new_reaction", "old_reaction"} {
		var list []json.RawMessage
		if json.Unmarshal(fields[k], &list) != nil {
			continue
		}
		kept := []json.RawMessage{}
		for _, x := range list {
			var t struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(x, &t) == nil && knownReactions[t.Type] {
				kept = append(kept, x)
			}
		}
		fields[k], _ = json.Marshal(kept)
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return r
	}
	return b
}
