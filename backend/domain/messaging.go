package domain

import (
	"encoding/json"
	"strings"
	"time"
)

// This file holds the messaging surface: channel instances, messages, chats, groups and
// contacts, their public objects, and their event types. docs/messaging.md describes them.

// PrefixChat names a conversation of an instance.
const PrefixChat = "chat_"

// Instance statuses. An instance goes disconnected → connecting → pairing (when the channel
// needs a QR scan or a code) → connected; failed (with a reason) can follow any of them.
const (
	InstanceDisconnected = "disconnected"
	InstanceConnecting   = "connecting"
	InstancePairing      = "pairing"
	InstanceConnected    = "connected"
	InstanceFailed       = "failed"
)

// Instance is one account on one channel (a sandbox number, later a Telegram bot or a
// WhatsApp Business number) that a workspace sends and receives through.
type Instance struct {
	ID           string
	WorkspaceID  string
	Name         string
	Channel      string
	Status       string
	StatusReason string
	// Address is the instance's own address on its channel (a phone number, a bot's
	// username), known once it has connected; kept across reconnects.
	Address string
	// Config holds the channel's settings without secrets; Secrets holds the write-only
	// ones (in the store they are encrypted).
	Config  map[string]any
	Secrets map[string]string
	// MessagesPerSecond paces sends: at most this many start per second.
	MessagesPerSecond int
	// Session is true while the channel holds a paired session: connecting again (restart)
	// skips pairing. Disconnecting logs out and ends it.
	Session bool
	// PairingCode, PairingQR (the QR code's payload) and PairingExpiresAt are set while
	// pairing.
	PairingCode      string
	PairingQR        string
	PairingExpiresAt *time.Time
	ConnectedAt      *time.Time
	// CallbackURL is where the channel's provider calls back (channels that call back:
	// Telegram, WhatsApp Cloud), to paste where the provider asks for it.
	CallbackURL string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Redacted is how a write-only config value shows once set.
const Redacted = "********"

// InstanceObject is the public representation of an instance; secrets show as Redacted.
type InstanceObject struct {
	Object            string         `json:"object"`
	ID                string         `json:"id"`
	Name              string         `json:"name"`
	Channel           string         `json:"channel"`
	Status            string         `json:"status"`
	StatusReason      *string        `json:"status_reason"`
	Address           *string        `json:"address"`
	Config            map[string]any `json:"config"`
	MessagesPerSecond int            `json:"messages_per_second"`
	CallbackURL       *string        `json:"callback_url"`
	ConnectedAt       *Timestamp     `json:"connected_at"`
	CreatedAt         Timestamp      `json:"created_at"`
	UpdatedAt         Timestamp      `json:"updated_at"`
}

// Object returns the public representation of in.
// ForEvent is the object as events carry it: the callback URL's token (the last part of
// its path) shows as "{token}", as an automation endpoint's URL does. Events are read with
// events:read, kept for weeks and sent to every webhook; the URL itself is for those who
// manage the instance (GET /instances/{id}).
func (o InstanceObject) ForEvent() InstanceObject {
	if o.CallbackURL != nil {
		if i := strings.LastIndexByte(*o.CallbackURL, '/'); i >= 0 {
			u := (*o.CallbackURL)[:i+1] + "{token}"
			o.CallbackURL = &u
		}
	}
	return o
}

func (in Instance) Object() InstanceObject {
	cfg := make(map[string]any, len(in.Config)+len(in.Secrets))
	for k, v := range in.Config {
		cfg[k] = v
	}
	for k := range in.Secrets {
		cfg[k] = Redacted
	}
	return InstanceObject{"instance", in.ID, in.Name, in.Channel, in.Status, strPtr(in.StatusReason),
		strPtr(in.Address), cfg, in.MessagesPerSecond, strPtr(in.CallbackURL), TSPtr(in.ConnectedAt), TS(in.CreatedAt), TS(in.UpdatedAt)}
}

// InstanceStatusChange is the data of an instance.status_changed event.
type InstanceStatusChange struct {
	Instance InstanceObject `json:"instance"`
	From     string         `json:"from"`
	To       string         `json:"to"`
	Reason   *string        `json:"reason"`
}

// PairingObject is what pairing an instance needs: a QR code to scan and the same secret
// as a code to type.
type PairingObject struct {
	Object      string    `json:"object"`
	InstanceID  string    `json:"instance_id"`
	PairingCode string    `json:"pairing_code"`
	QRCode      string    `json:"qr_code"`
	QRPayload   string    `json:"qr_payload"`
	ExpiresAt   Timestamp `json:"expires_at"`
}

// Message directions and statuses. Outbound statuses only move forward: queued → sent →
// delivered → read; failed ends a message that was never sent. Inbound messages are
// received, then read once the chat is marked read.
const (
	Outbound = "outbound"
	Inbound  = "inbound"

	MessageQueued    = "queued"
	MessageSent      = "sent"
	MessageDelivered = "delivered"
	MessageRead      = "read"
	MessageFailed    = "failed"
	MessageReceived  = "received"
)

// StatusRank orders message statuses; a status never moves to a lower rank.
func StatusRank(status string) int {
	switch status {
	case MessageQueued:
		return 0
	case MessageSent, MessageReceived:
		return 1
	case MessageDelivered:
		return 2
	case MessageRead:
		return 3
	case MessageFailed:
		return 4
	}
	return -1
}

// Message types.
const (
	TypeText     = "text"
	TypeImage    = "image"
	TypeVideo    = "video"
	TypeAudio    = "audio"
	TypeVoice    = "voice"
	TypeDocument = "document"
	TypeSticker  = "sticker"
	TypeLocation = "location"
	TypeContact  = "contact"
	TypePoll     = "poll"
	TypeReaction = "reaction"
	// TypeTemplate is a pre-approved message template (WhatsApp's answer to its 24-hour
	// rule: outside it, only templates reach a user).
	TypeTemplate = "template"
)

// MediaTypes are the message types that carry media by URL.
var MediaTypes = []string{TypeImage, TypeVideo, TypeAudio, TypeVoice, TypeDocument, TypeSticker}

// MessageTypes lists every message type.
var MessageTypes = append([]string{TypeText}, append(append([]string{}, MediaTypes...),
	TypeLocation, TypeContact, TypePoll, TypeReaction, TypeTemplate)...)

// IsMediaType reports whether t carries media.
func IsMediaType(t string) bool {
	for _, m := range MediaTypes {
		if m == t {
			return true
		}
	}
	return false
}

// Media is a file: sent by URL (or by a provider's media id, to resend one the channel
// already holds), and received into Switchboard's blob store, served at a short-lived
// signed URL.
type Media struct {
	URL      string `json:"url,omitempty"`
	Caption  string `json:"caption,omitempty"`
	FileName string `json:"file_name,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
	// Size is the stored file's size in bytes (received media).
	Size int64 `json:"size,omitempty"`
	// ProviderMediaID is the channel's own id of the file (Telegram's file_id, WhatsApp's
	// media id): received media carry it, and a send may name one instead of a URL.
	ProviderMediaID string `json:"provider_media_id,omitempty"`
	// NotStored says why received media was not stored (too_large, type_not_allowed,
	// unavailable): the message is kept, without a url.
	NotStored string `json:"not_stored,omitempty"`
	// BlobKey is where received media is stored; never shown (the service signs URL from it).
	BlobKey string `json:"blob_key,omitempty"`
}

// MediaObject is media as clients see it (received media's url is a short-lived signed
// URL the service sets).
type MediaObject struct {
	URL             string `json:"url,omitempty"`
	Caption         string `json:"caption,omitempty"`
	FileName        string `json:"file_name,omitempty"`
	MimeType        string `json:"mime_type,omitempty"`
	Size            int64  `json:"size,omitempty"`
	ProviderMediaID string `json:"provider_media_id,omitempty"`
	NotStored       string `json:"not_stored,omitempty"`
}

// Object returns the public representation of m (nil for none).
func (m *Media) Object() *MediaObject {
	if m == nil {
		return nil
	}
	return &MediaObject{m.URL, m.Caption, m.FileName, m.MimeType, m.Size, m.ProviderMediaID, m.NotStored}
}

// Template is a pre-approved message template: its name, language code, and the
// provider's components (header, body and button parameters) as the provider documents
// them.
type Template struct {
	Name       string          `json:"name"`
	Language   string          `json:"language"`
	Components json.RawMessage `json:"components,omitempty"`
}

// Location is a point on the map.
type Location struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Name      string  `json:"name,omitempty"`
	Address   string  `json:"address,omitempty"`
}

// ContactCard is a contact shared in a message, with its vCard.
type ContactCard struct {
	Name   string   `json:"name"`
	Phones []string `json:"phones"`
	VCard  string   `json:"vcard"`
}

// Poll asks a question with options.
type Poll struct {
	Question        string   `json:"question"`
	Options         []string `json:"options"`
	MultipleAnswers bool     `json:"multiple_answers"`
}

// Reaction is an emoji on another message; an empty emoji removes the reaction.
type Reaction struct {
	MessageID string `json:"message_id"`
	Emoji     string `json:"emoji"`
}

// Content is what a message carries: Text for text messages, and the one field its type
// names for the others.
type Content struct {
	Text     string       `json:"text,omitempty"`
	Media    *Media       `json:"media,omitempty"`
	Location *Location    `json:"location,omitempty"`
	Contact  *ContactCard `json:"contact,omitempty"`
	Poll     *Poll        `json:"poll,omitempty"`
	Reaction *Reaction    `json:"reaction,omitempty"`
	Template *Template    `json:"template,omitempty"`
}

// MessageError says why a message failed.
type MessageError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Message is one message sent or received through an instance.
type Message struct {
	ID          string
	WorkspaceID string
	InstanceID  string
	ChatID      string
	Direction   string
	// ChatAddress is the other side: a contact's address or a group's.
	ChatAddress string
	// Sender is who wrote it: the instance's address for outbound messages, the contact's
	// (or, in a group, the member's) for inbound ones.
	Sender  string
	Type    string
	Content Content
	// ReplyTo is the id of the message this one answers.
	ReplyTo *string
	// ThreadID is the channel's thread within the chat (a Telegram forum topic's id).
	ThreadID          string
	Status            string
	Error             *MessageError
	ProviderMessageID string
	EditedAt          *time.Time
	DeletedAt         *time.Time
	SentAt            *time.Time
	DeliveredAt       *time.Time
	ReadAt            *time.Time
	FailedAt          *time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// MessageObject is the public representation of a message.
type MessageObject struct {
	Object            string        `json:"object"`
	ID                string        `json:"id"`
	InstanceID        string        `json:"instance_id"`
	ChatID            string        `json:"chat_id"`
	Direction         string        `json:"direction"`
	From              string        `json:"from"`
	To                string        `json:"to"`
	Type              string        `json:"type"`
	Text              *string       `json:"text"`
	Media             *MediaObject  `json:"media"`
	Location          *Location     `json:"location"`
	Contact           *ContactCard  `json:"contact"`
	Poll              *Poll         `json:"poll"`
	Reaction          *Reaction     `json:"reaction"`
	Template          *Template     `json:"template"`
	ReplyTo           *string       `json:"reply_to"`
	ThreadID          *string       `json:"thread_id"`
	Status            string        `json:"status"`
	Error             *MessageError `json:"error"`
	ProviderMessageID *string       `json:"provider_message_id"`
	EditedAt          *Timestamp    `json:"edited_at"`
	DeletedAt         *Timestamp    `json:"deleted_at"`
	SentAt            *Timestamp    `json:"sent_at"`
	DeliveredAt       *Timestamp    `json:"delivered_at"`
	ReadAt            *Timestamp    `json:"read_at"`
	FailedAt          *Timestamp    `json:"failed_at"`
	CreatedAt         Timestamp     `json:"created_at"`
	UpdatedAt         Timestamp     `json:"updated_at"`
}

// Object returns the public representation of m. instanceAddress is the instance's own
// address (the from of outbound messages, the to of inbound ones).
func (m Message) Object(instanceAddress string) MessageObject {
	from, to := m.Sender, instanceAddress
	if m.Direction == Outbound {
		to = m.ChatAddress
	} else if m.Sender != m.ChatAddress {
		to = m.ChatAddress // a member's message in a group goes to the group
	}
	var text *string
	if m.Type == TypeText {
		t := m.Content.Text
		text = &t
	}
	return MessageObject{Object: "message", ID: m.ID, InstanceID: m.InstanceID, ChatID: m.ChatID,
		Direction: m.Direction, From: from, To: to, Type: m.Type, Text: text, Media: m.Content.Media.Object(),
		Location: m.Content.Location, Contact: m.Content.Contact, Poll: m.Content.Poll, Reaction: m.Content.Reaction,
		Template: m.Content.Template, ReplyTo: m.ReplyTo, ThreadID: strPtr(m.ThreadID), Status: m.Status, Error: m.Error, ProviderMessageID: strPtr(m.ProviderMessageID),
		EditedAt: TSPtr(m.EditedAt), DeletedAt: TSPtr(m.DeletedAt), SentAt: TSPtr(m.SentAt),
		DeliveredAt: TSPtr(m.DeliveredAt), ReadAt: TSPtr(m.ReadAt), FailedAt: TSPtr(m.FailedAt),
		CreatedAt: TS(m.CreatedAt), UpdatedAt: TS(m.UpdatedAt)}
}

// MessageFilter selects messages of an instance.
type MessageFilter struct {
	Direction string
	Status    string
	ChatID    string
	// Address matches the chat's address (a contact or a group).
	Address string
	// ThreadID matches messages of one thread (a Telegram forum topic).
	ThreadID string
	Since    *time.Time
	Until    *time.Time
}

// Chat kinds.
const (
	ChatDirect = "direct"
	ChatGroup  = "group"
)

// Chat is a conversation of an instance: with one contact, or in one group.
type Chat struct {
	ID            string
	WorkspaceID   string
	InstanceID    string
	Address       string
	Kind          string
	Name          string
	UnreadCount   int
	Archived      bool
	LastMessageID *string
	LastMessageAt *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// LastMessage is filled by reads that join it.
	LastMessage *Message
}

// ActiveAt is when the chat last had a message, or was created when it has none: the key of
// the last_message order of chat lists.
func (c Chat) ActiveAt() time.Time {
	if c.LastMessageAt != nil {
		return *c.LastMessageAt
	}
	return c.CreatedAt
}

// Orders of chat lists.
const (
	// ChatSortLastMessage lists the chat with the latest message first (a chat with none
	// counts from its creation), as WhatsApp and Evolution API list chats: the default.
	ChatSortLastMessage = "last_message"
	// ChatSortCreated lists the newest chat first. Its pages never skip or repeat a chat.
	ChatSortCreated = "created"
)

// ChatFilter selects and orders an instance's chats.
type ChatFilter struct {
	// Archived keeps archived chats (true) or the others (false); nil keeps both.
	Archived *bool
	// Sort is ChatSortLastMessage ("" too) or ChatSortCreated.
	Sort string
}

// ChatObject is the public representation of a chat.
type ChatObject struct {
	Object        string         `json:"object"`
	ID            string         `json:"id"`
	InstanceID    string         `json:"instance_id"`
	Address       string         `json:"address"`
	Type          string         `json:"type"`
	Name          *string        `json:"name"`
	UnreadCount   int            `json:"unread_count"`
	Archived      bool           `json:"archived"`
	LastMessage   *MessageObject `json:"last_message"`
	LastMessageAt *Timestamp     `json:"last_message_at"`
	CreatedAt     Timestamp      `json:"created_at"`
	UpdatedAt     Timestamp      `json:"updated_at"`
}

// Object returns the public representation of c.
func (c Chat) Object(instanceAddress string) ChatObject {
	var last *MessageObject
	if c.LastMessage != nil {
		o := c.LastMessage.Object(instanceAddress)
		last = &o
	}
	return ChatObject{"chat", c.ID, c.InstanceID, c.Address, c.Kind, strPtr(c.Name), c.UnreadCount, c.Archived,
		last, TSPtr(c.LastMessageAt), TS(c.CreatedAt), TS(c.UpdatedAt)}
}

// Group participant roles.
const (
	RoleAdmin  = "admin"
	RoleMember = "member"
)

// Participant is a member of a group.
type Participant struct {
	Address string `json:"address"`
	Role    string `json:"role"`
}

// Group is a group chat as one instance sees it. Address is the group's id on the channel
// (what messages to the group are sent to).
type Group struct {
	ID           string
	WorkspaceID  string
	InstanceID   string
	Address      string
	Subject      string
	Description  string
	Owner        string
	Participants []Participant
	// Left is set once the instance has left the group (it stays listed, read-only).
	Left      bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// GroupObject is the public representation of a group.
type GroupObject struct {
	Object       string        `json:"object"`
	ID           string        `json:"id"`
	InstanceID   string        `json:"instance_id"`
	Address      string        `json:"address"`
	Subject      string        `json:"subject"`
	Description  string        `json:"description"`
	Owner        string        `json:"owner"`
	Participants []Participant `json:"participants"`
	Left         bool          `json:"left"`
	CreatedAt    Timestamp     `json:"created_at"`
	UpdatedAt    Timestamp     `json:"updated_at"`
}

// Object returns the public representation of g.
func (g Group) Object() GroupObject {
	ps := g.Participants
	if ps == nil {
		ps = []Participant{}
	}
	return GroupObject{"group", g.ID, g.InstanceID, g.Address, g.Subject, g.Description, g.Owner, ps, g.Left,
		TS(g.CreatedAt), TS(g.UpdatedAt)}
}

// ChangeParticipants returns the participants after adding (as members) and removing
// addresses; an address both added and removed is removed.
func ChangeParticipants(ps []Participant, add, remove []string) []Participant {
	gone := map[string]bool{}
	for _, r := range remove {
		gone[r] = true
	}
	out := []Participant{}
	have := map[string]bool{}
	for _, p := range ps {
		if !gone[p.Address] {
			out = append(out, p)
			have[p.Address] = true
		}
	}
	for _, a := range add {
		if !have[a] && !gone[a] {
			out = append(out, Participant{Address: a, Role: RoleMember})
			have[a] = true
		}
	}
	return out
}

// GroupParticipantsChange is the data of a group.participants_changed event.
type GroupParticipantsChange struct {
	Group   GroupObject `json:"group"`
	Added   []string    `json:"added"`
	Removed []string    `json:"removed"`
}

// Contact is someone an instance talks with.
type Contact struct {
	ID          string
	WorkspaceID string
	InstanceID  string
	Address     string
	Name        string
	Labels      []string
	Attributes  map[string]string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// ContactObject is the public representation of a contact.
type ContactObject struct {
	Object     string            `json:"object"`
	ID         string            `json:"id"`
	InstanceID string            `json:"instance_id"`
	Address    string            `json:"address"`
	Name       string            `json:"name"`
	Labels     []string          `json:"labels"`
	Attributes map[string]string `json:"attributes"`
	CreatedAt  Timestamp         `json:"created_at"`
	UpdatedAt  Timestamp         `json:"updated_at"`
}

// Object returns the public representation of c.
func (c Contact) Object() ContactObject {
	labels, attrs := c.Labels, c.Attributes
	if labels == nil {
		labels = []string{}
	}
	if attrs == nil {
		attrs = map[string]string{}
	}
	return ContactObject{"contact", c.ID, c.InstanceID, c.Address, c.Name, labels, attrs, TS(c.CreatedAt), TS(c.UpdatedAt)}
}

// Reachability says whether an address can be messaged on an instance's channel.
type Reachability struct {
	Address   string `json:"address"`
	Reachable bool   `json:"reachable"`
}

// Messaging event types.
const (
	EventInstanceCreated       = "instance.created"
	EventInstanceUpdated       = "instance.updated"
	EventInstanceDeleted       = "instance.deleted"
	EventInstanceStatusChanged = "instance.status_changed"
	EventMessageQueued         = "message.queued"
	EventMessageSent           = "message.sent"
	EventMessageReceived       = "message.received"
	EventMessageStatusUpdated  = "message.status_updated"
	EventMessageFailed         = "message.failed"
	EventMessageEdited         = "message.edited"
	EventMessageDeleted        = "message.deleted"
	EventChatUpdated           = "chat.updated"
	EventGroupCreated          = "group.created"
	EventGroupUpdated          = "group.updated"
	EventGroupParticipants     = "group.participants_changed"
	EventGroupLeft             = "group.left"
	EventContactCreated        = "contact.created"
	EventContactUpdated        = "contact.updated"
	EventContactDeleted        = "contact.deleted"
)

// Job kinds of the messaging surface.
const (
	// JobMessageSend hands one outbound message to its channel; the job's id is the
	// message's.
	JobMessageSend = "message.send"
	// JobInstanceConnect connects an instance to its channel.
	JobInstanceConnect = "instance.connect"
	// JobChannelEvent applies one event a channel reported (an inbound message, a receipt,
	// a group change), stored first so a provider is answered at once.
	JobChannelEvent = "channel.event"
	// JobMediaDelete deletes the stored media files of a deleted instance.
	JobMediaDelete = "media.delete"
)

// InstanceKey is the concurrency and pacing key of an instance's sends.
func InstanceKey(instanceID string) string { return "instance:" + instanceID }

// ChatKey is the ordering key of a chat's sends: one at a time, in order.
func ChatKey(chatID string) string { return "chat:" + chatID }

// RawJSON marshals v for storage; v is always marshalable (our own types).
func RawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ChannelObject describes a channel instances can be created with: what it can do and the
// config an instance of it takes.
type ChannelObject struct {
	Object string `json:"object"`
	Name   string `json:"name"`
	// CallsBack says the channel's provider calls instances back: they have a callback_url
	// to paste where the provider asks for it.
	CallsBack    bool                 `json:"calls_back"`
	Capabilities ChannelCapabilities  `json:"capabilities"`
	ConfigFields []ChannelConfigField `json:"config_fields"`
}

// ChannelCapabilities are what a channel does; the rest is refused with 422
// unsupported_by_channel.
type ChannelCapabilities struct {
	MessageTypes []string `json:"message_types"`
	// Receipts are the statuses reported after sent (delivered, read).
	Receipts     []string `json:"receipts"`
	Reply        bool     `json:"reply"`
	Edit         bool     `json:"edit"`
	Delete       bool     `json:"delete"`
	MarkRead     bool     `json:"mark_read"`
	Typing       bool     `json:"typing"`
	Groups       bool     `json:"groups"`
	CreateGroups bool     `json:"create_groups"`
	Check        bool     `json:"check"`
	Pairing      bool     `json:"pairing"`
	// Threads: messages can go to a thread of a chat (thread_id: Telegram forum topics).
	Threads bool `json:"threads"`
}

// ChannelConfigField is one setting of a channel's instance config.
type ChannelConfigField struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	Secret      bool   `json:"secret"`
	Required    bool   `json:"required"`
	Default     any    `json:"default"`
}
