package telegramtest

import "time"

// Update is an Update object as Telegram sends it (https://core.telegram.org/bots/api#update),
// built by the helpers below; change its fields freely before Deliver.
type Update = map[string]any

// User is a Telegram user.
type User struct {
	ID                            int64
	FirstName, LastName, Username string
	IsBot                         bool
}

func (u User) wire() map[string]any {
	m := map[string]any{"id": u.ID, "is_bot": u.IsBot, "first_name": u.FirstName}
	if u.LastName != "" {
		m["last_name"] = u.LastName
	}
	if u.Username != "" {
		m["username"] = u.Username
	}
	return m
}

// Chat is a Telegram chat: Type is private, group, supergroup or channel.
type Chat struct {
	ID                    int64
	Type, Title, Username string
	FirstName, LastName   string
	Description           string // kept by the server, not sent in updates
}

func (c Chat) wire() map[string]any {
	m := map[string]any{"id": c.ID, "type": c.Type}
	for k, v := range map[string]string{"title": c.Title, "username": c.Username, "first_name": c.FirstName,
		"last_name": c.LastName} {
		if v != "" {
			m[k] = v
		}
	}
	return m
}

// PrivateChat is the private chat of the bot with a user (its id is the user's).
func PrivateChat(u User) Chat {
	return Chat{ID: u.ID, Type: "private", FirstName: u.FirstName, LastName: u.LastName, Username: u.Username}
}

// GroupChat is a supergroup (ids such as -1001234567890).
func GroupChat(id int64, title string) Chat { return Chat{ID: id, Type: "supergroup", Title: title} }

func newMessage(chat Chat, from User, messageID int) map[string]any {
	m := map[string]any{"message_id": messageID, "chat": chat.wire(), "date": time.Now().Unix()}
	if chat.Type != "channel" {
		m["from"] = from.wire()
	}
	return m
}

func wrap(kind string, m map[string]any) Update { return Update{kind: m} }

// TextMessage is a message update with text.
func TextMessage(chat Chat, from User, messageID int, text string) Update {
	m := newMessage(chat, from, messageID)
	m["text"] = text
	return wrap("message", m)
}

// ReplyMessage is a text message answering message replyTo of the same chat.
func ReplyMessage(chat Chat, from User, messageID int, text string, replyTo int) Update {
	u := TextMessage(chat, from, messageID, text)
	u["message"].(map[string]any)["reply_to_message"] = map[string]any{"message_id": replyTo,
		"chat": chat.wire(), "date": time.Now().Unix()}
	return u
}

// TopicMessage is a text message in forum topic (a supergroup with topics): as Telegram
// sends it, it carries the topic's message_thread_id and answers the topic's creation.
func TopicMessage(chat Chat, from User, messageID, topic int, text string) Update {
	u := TextMessage(chat, from, messageID, text)
	m := u["message"].(map[string]any)
	m["message_thread_id"], m["is_topic_message"] = topic, true
	m["reply_to_message"] = map[string]any{"message_id": topic, "chat": chat.wire(), "date": time.Now().Unix(),
		"message_thread_id": topic, "forum_topic_created": map[string]any{"name": "Support", "icon_color": 7322096}}
	return u
}

// PhotoMessage is a photo in three sizes; fileID is the largest one's (the others add
// "-s" and "-m").
func PhotoMessage(chat Chat, from User, messageID int, fileID, caption string) Update {
	m := newMessage(chat, from, messageID)
	m["photo"] = []map[string]any{
		{"file_id": fileID + "-s", "file_unique_id": "u" + fileID + "-s", "width": 90, "height": 60, "file_size": 1500},
		{"file_id": fileID, "file_unique_id": "u" + fileID, "width": 1280, "height": 960, "file_size": 120000},
		{"file_id": fileID + "-m", "file_unique_id": "u" + fileID + "-m", "width": 320, "height": 240, "file_size": 14000},
	}
	if caption != "" {
		m["caption"] = caption
	}
	return wrap("message", m)
}

// DocumentMessage is a file sent as a document.
func DocumentMessage(chat Chat, from User, messageID int, fileID, fileName, mimeType, caption string) Update {
	m := newMessage(chat, from, messageID)
	m["document"] = map[string]any{"file_id": fileID, "file_unique_id": "u" + fileID, "file_name": fileName,
		"mime_type": mimeType, "file_size": 2048}
	if caption != "" {
		m["caption"] = caption
	}
	return wrap("message", m)
}

// EditedMessage is an edited_message update: message messageID now reads text.
func EditedMessage(chat Chat, from User, messageID int, text string) Update {
	m := newMessage(chat, from, messageID)
	m["text"] = text
	m["edit_date"] = time.Now().Unix()
	return wrap("edited_message", m)
}

// Reaction is a message_reaction update: user's reaction on messageID is now emoji ("" when
// the user removed it).
func Reaction(chat Chat, user User, messageID int, emoji string) Update {
	reaction := []map[string]any{}
	if emoji != "" {
		reaction = append(reaction, map[string]any{"type": "emoji", "emoji": emoji})
	}
	return Update{"message_reaction": map[string]any{"chat": chat.wire(), "message_id": messageID,
		"user": user.wire(), "date": time.Now().Unix(), "old_reaction": []map[string]any{}, "new_reaction": reaction}}
}

// MembersJoined is the service message of users joining a group (added by from).
func MembersJoined(chat Chat, from User, messageID int, users ...User) Update {
	m := newMessage(chat, from, messageID)
	var ws []map[string]any
	for _, u := range users {
		ws = append(ws, u.wire())
	}
	m["new_chat_members"] = ws
	return wrap("message", m)
}

// MemberLeft is the service message of a user leaving (or removed from) a group.
func MemberLeft(chat Chat, from User, messageID int, user User) Update {
	m := newMessage(chat, from, messageID)
	m["left_chat_member"] = user.wire()
	return wrap("message", m)
}

// Chat member statuses.
const (
	StatusCreator       = "creator"
	StatusAdministrator = "administrator"
	StatusMember        = "member"
	StatusRestricted    = "restricted"
	StatusLeft          = "left"
	StatusKicked        = "kicked"
)

// ChatMemberUpdated is a chat_member update: from changed user's status in chat.
func ChatMemberUpdated(chat Chat, from, user User, oldStatus, newStatus string) Update {
	return Update{"chat_member": memberUpdate(chat, from, user, oldStatus, newStatus)}
}

// MyChatMemberUpdated is a my_chat_member update: from changed the bot's status in chat
// (added it: left → member; removed it: member → kicked).
func MyChatMemberUpdated(chat Chat, from, bot User, oldStatus, newStatus string) Update {
	return Update{"my_chat_member": memberUpdate(chat, from, bot, oldStatus, newStatus)}
}

func memberUpdate(chat Chat, from, user User, oldStatus, newStatus string) map[string]any {
	return map[string]any{"chat": chat.wire(), "from": from.wire(), "date": time.Now().Unix(),
		"old_chat_member": member(user, oldStatus), "new_chat_member": member(user, newStatus)}
}

// member is a ChatMember object with the fields its status requires.
func member(u User, status string) map[string]any {
	m := map[string]any{"status": status, "user": u.wire()}
	switch status {
	case StatusKicked:
		m["until_date"] = 0
	case StatusRestricted:
		m["is_member"], m["until_date"] = true, 0
	case StatusCreator:
		m["is_anonymous"] = false
	case StatusAdministrator:
		m["can_be_edited"], m["is_anonymous"], m["can_manage_chat"] = false, false, true
	}
	return m
}
