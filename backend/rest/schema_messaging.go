package rest

import (
	"reflect"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// The messaging surface's public objects, annotated for the document like those of
// schema_objects.go. Their examples are sample objects made with the domain's Object
// methods, as live ones are.

var exampleTime = time.Date(2025, 4, 8, 10, 21, 2, 90_000_000, time.UTC)

const (
	exampleInstanceID = "inst_01jr8d0c3b5n7q9s1u3w5y7a9c"
	exampleAddress    = "+15550100001"
	examplePeer       = "+15550100002"
)

var (
	exampleInstance = domain.Instance{ID: exampleInstanceID, Name: "Support line", Channel: "sandbox",
		Status: domain.InstanceConnected, Address: exampleAddress,
		Config:            map[string]any{"auto_pair": false, "delivered_after_ms": 200, "read_after_ms": 1000, "echo": false},
		Secrets:           map[string]string{"token": ""},
		MessagesPerSecond: 20, ConnectedAt: &exampleTime, CreatedAt: exampleTime, UpdatedAt: exampleTime}.Object()

	exampleMessage = domain.Message{ID: "msg_01jr8d0c3b5n7q9s1u3w5y7a9c", InstanceID: exampleInstanceID,
		ChatID: "chat_01jr8d0c3b5n7q9s1u3w5y7a9c", Direction: domain.Outbound, ChatAddress: examplePeer,
		Sender: exampleAddress, Type: domain.TypeText, Content: domain.Content{Text: "Your order has shipped."},
		Status: domain.MessageDelivered, ProviderMessageID: "msg_01jr8d0c3b5n7q9s1u3w5y7a9c", SentAt: &exampleTime,
		DeliveredAt: &exampleTime, CreatedAt: exampleTime, UpdatedAt: exampleTime}.Object(exampleAddress)

	exampleChat = domain.ChatObject{Object: "chat", ID: "chat_01jr8d0c3b5n7q9s1u3w5y7a9c", InstanceID: exampleInstanceID,
		Address: examplePeer, Type: domain.ChatDirect, Name: ptr("Ada Lovelace"), UnreadCount: 0, Archived: false,
		LastMessage: &exampleMessage, LastMessageAt: ptr(domain.TS(exampleTime)), CreatedAt: domain.TS(exampleTime),
		UpdatedAt: domain.TS(exampleTime)}

	exampleGroup = domain.Group{ID: "grp_01jr8d0c3b5n7q9s1u3w5y7a9c", InstanceID: exampleInstanceID,
		Address: "sbxg_120363041234567890", Subject: "Launch team", Description: "Release coordination",
		Owner: exampleAddress, Participants: []domain.Participant{{Address: exampleAddress, Role: domain.RoleAdmin},
			{Address: examplePeer, Role: domain.RoleMember}}, CreatedAt: exampleTime, UpdatedAt: exampleTime}.Object()

	exampleContact = domain.Contact{ID: "ct_01jr8d0c3b5n7q9s1u3w5y7a9c", InstanceID: exampleInstanceID, Address: examplePeer,
		Name: "Ada Lovelace", Labels: []string{"vip"}, Attributes: map[string]string{"plan": "pro"},
		CreatedAt: exampleTime, UpdatedAt: exampleTime}.Object()

	examplePairing = domain.PairingObject{Object: "pairing", InstanceID: exampleInstanceID, PairingCode: "K7QM-3XWD",
		QRCode:    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAQAAAAEAAQMAAABmvDolAAAABlBMVEX///8AAABVwtN+AAAA…",
		QRPayload: "switchboard-sandbox://pair?instance=" + exampleInstanceID + "&code=K7QM-3XWD",
		ExpiresAt: domain.TS(exampleTime.Add(10 * time.Minute))}
)

// examplesOf is a sample object's fields as JSON values, the examples of its type's fields.
func examplesOf(v any) map[string]any {
	m, _ := jsonValue(v).(map[string]any)
	for k, x := range m {
		if x == nil {
			delete(m, k) // nullable fields take null as their example anyway
		}
	}
	return m
}

func init() {
	for t, n := range messagingNotes {
		typeNotes[t] = n
	}
}

var messagingNotes = map[reflect.Type]typeNote{
	reflect.TypeFor[domain.InstanceObject](): {
		listDoc: "Instances, newest first.",
		fields: map[string]note{
			"object":              {"", `const:"instance"`},
			"id":                  {doc: "The instance's id (`inst_…`)."},
			"name":                {doc: "A name for people."},
			"channel":             {doc: "The channel it connects through (`sandbox`)."},
			"status":              {"`disconnected` → `connecting` → `pairing` (a QR code or pairing code is needed) → `connected`; `failed` (see `status_reason`) can follow any.", `enum:"disconnected,connecting,pairing,connected,failed"`},
			"status_reason":       {"Why the instance failed or reconnected, if it did.", `example:"restart requested"`},
			"address":             {doc: "The instance's own address on its channel (a phone number), known once it has connected; kept across reconnects."},
			"config":              {doc: "The channel's settings with defaults filled; write-only values show as `********`."},
			"messages_per_second": {"How many sends start per second at most.", `minimum:"1" maximum:"1000"`},
			"callback_url":        {"Where the channel's provider calls back (`telegram`, `whatsapp_cloud`): Telegram's is registered on connect; paste WhatsApp Cloud's in the Meta app's webhook settings. Null for channels that do not call back. Rotate it with `POST /instances/{id}/rotate-callback-token`.", `example:"https://sb.example.com/channels/whatsapp_cloud/Yx4kq3Wm9ZpQe2Lr8TnV5cHb7JdS1fGa6uK0oNiRtEw"`},
			"connected_at":        {doc: "When it last connected."},
			"created_at":          {doc: "When it was created."},
			"updated_at":          {doc: "When it last changed."},
		},
		examples: examplesOf(exampleInstance),
	},
	reflect.TypeFor[domain.PairingObject](): {
		fields: map[string]note{
			"object":       {"", `const:"pairing"`},
			"instance_id":  {doc: "The instance being paired."},
			"pairing_code": {doc: "The code to type on the phone (or to send to `POST /instances/{id}/sandbox/pair`)."},
			"qr_code":      {doc: "The QR code to scan, as a PNG data URL (256×256)."},
			"qr_payload":   {doc: "What the QR code encodes, to render it yourself."},
			"expires_at":   {doc: "When the code stops working (connect again for a new one)."},
		},
		examples: examplesOf(examplePairing),
	},
	reflect.TypeFor[domain.MessageObject](): {
		listDoc: "Messages, newest first.",
		fields: map[string]note{
			"object":              {"", `const:"message"`},
			"id":                  {doc: "The message's id (`msg_…`)."},
			"instance_id":         {doc: "The instance it was sent or received through."},
			"chat_id":             {doc: "Its chat (`chat_…`)."},
			"direction":           {"`outbound` (sent by the instance) or `inbound` (received).", `enum:"outbound,inbound"`},
			"from":                {doc: "Who wrote it: the instance's address for outbound messages, the contact's (in a group, the member's) for inbound ones."},
			"to":                  {doc: "Where it went: the contact's or group's address for outbound messages, the instance's (or the group's) for inbound ones."},
			"type":                {"", `enum:"text,image,video,audio,voice,document,sticker,location,contact,poll,reaction,template"`},
			"text":                {doc: "The text of a text message (null for other types)."},
			"media":               {doc: "The file of a media message."},
			"location":            {doc: "The point of a location message."},
			"contact":             {doc: "The contact of a contact message, with its vCard."},
			"poll":                {doc: "The poll of a poll message."},
			"reaction":            {doc: "The reaction of a reaction message."},
			"template":            {doc: "The template of a template message (WhatsApp Cloud)."},
			"reply_to":            {doc: "The id of the message this one answers."},
			"thread_id":           {doc: "The thread of the chat it was sent or received in: a Telegram forum topic's id (null for chats without threads and for a forum's General topic)."},
			"status":              {"Outbound: `queued` → `sent` → `delivered` → `read` (only forward), or `failed`. Inbound: `received`, then `read` once the chat is marked read.", `enum:"queued,sent,delivered,read,failed,received"`},
			"error":               {doc: "Why a failed message failed."},
			"provider_message_id": {doc: "The channel's id of the message, once sent."},
			"edited_at":           {doc: "When its text was last edited."},
			"deleted_at":          {doc: "When it was deleted for everyone."},
			"sent_at":             {doc: "When the channel accepted it."},
			"delivered_at":        {doc: "When it reached the recipient's device."},
			"read_at":             {doc: "When the recipient read it."},
			"failed_at":           {doc: "When it failed."},
			"created_at":          {doc: "When it was queued or received."},
			"updated_at":          {doc: "When it last changed."},
		},
		examples: examplesOf(exampleMessage),
	},
	reflect.TypeFor[domain.ChatObject](): {
		listDoc: "Chats, most recently active first.",
		fields: map[string]note{
			"object":          {"", `const:"chat"`},
			"id":              {doc: "The chat's id (`chat_…`)."},
			"instance_id":     {doc: "Its instance."},
			"address":         {doc: "The other side: a contact's address, or a group's."},
			"type":            {"", `enum:"direct,group"`},
			"name":            {doc: "The contact's name or the group's subject, when known."},
			"unread_count":    {"How many received messages are not read yet.", `minimum:"0"`},
			"archived":        {doc: "Whether the chat is archived (a new message unarchives it)."},
			"last_message":    {doc: "The chat's latest message."},
			"last_message_at": {doc: "When the latest message was sent or received."},
			"created_at":      {doc: "When the chat began."},
			"updated_at":      {doc: "When it last changed."},
		},
		examples: examplesOf(exampleChat),
	},
	reflect.TypeFor[domain.GroupObject](): {
		listDoc: "Groups, newest first.",
		fields: map[string]note{
			"object":       {"", `const:"group"`},
			"id":           {doc: "The group's id (`grp_…`): send to it with `to`."},
			"instance_id":  {doc: "The instance that sees the group."},
			"address":      {doc: "The group's id on the channel (messages to it may use it as `to` too)."},
			"subject":      {doc: "The group's name."},
			"description":  {doc: "What the group is about."},
			"owner":        {doc: "The address of the member who created it."},
			"participants": {doc: "The members and their roles."},
			"left":         {doc: "Whether the instance has left the group (it stays listed, read-only)."},
			"created_at":   {doc: "When the instance learned of the group."},
			"updated_at":   {doc: "When it last changed."},
		},
		examples: examplesOf(exampleGroup),
	},
	reflect.TypeFor[domain.Participant](): {fields: map[string]note{
		"address": {"The member's address.", `example:"+15550100002"`},
		"role":    {"", `enum:"admin,member"`},
	}},
	reflect.TypeFor[domain.ContactObject](): {
		listDoc: "Contacts, newest first.",
		fields: map[string]note{
			"object":      {"", `const:"contact"`},
			"id":          {doc: "The contact's id (`ct_…`)."},
			"instance_id": {doc: "Its instance."},
			"address":     {doc: "Their address on the channel."},
			"name":        {doc: "Their name (empty when unknown)."},
			"labels":      {doc: "Labels for your own use."},
			"attributes":  {doc: "Custom attributes for your own use."},
			"created_at":  {doc: "When the contact was created (by the API, or when they first wrote)."},
			"updated_at":  {doc: "When it last changed."},
		},
		examples: examplesOf(exampleContact),
	},
	reflect.TypeFor[domain.Reachability](): {fields: map[string]note{
		"address":   {"The address asked about.", `example:"+15551234567"`},
		"reachable": {"Whether it can be messaged on the instance's channel.", `example:"true"`},
	}},
	reflect.TypeFor[domain.MediaObject](): {fields: map[string]note{
		"url":               {"Where the file is: the URL it was sent from, or for received media a short-lived signed URL served by Switchboard (`/media/…`; fetch the message again for a fresh one). Absent when a received file was not stored, or when it was sent by `provider_media_id`.", `example:"https://example.com/invoice.pdf"`},
		"caption":           {"Its caption.", `example:"Your invoice"`},
		"file_name":         {"The file name shown.", `example:"invoice.pdf"`},
		"mime_type":         {"Its media type.", `example:"application/pdf"`},
		"size":              {"The stored file's size in bytes (received media).", `example:"48213"`},
		"provider_media_id": {"The channel's own id of the file (a Telegram file_id, a WhatsApp media id): send it again on the same instance with `media.provider_media_id`.", `example:"AgACAgIAAxkBAAIBZ2"`},
		"not_stored":        {"Why a received file was not stored: `too_large` (over SWITCHBOARD_MEDIA_MAX_BYTES), `type_not_allowed` (not in SWITCHBOARD_MEDIA_TYPES) or `unavailable` (the channel would not hand it over). The message is kept.", `enum:"too_large,type_not_allowed,unavailable" example:"too_large"`},
	}},
	reflect.TypeFor[domain.Template](): {fields: map[string]note{
		"name":       {"The approved template's name.", `example:"order_shipped"`},
		"language":   {"Its language code.", `example:"en_US"`},
		"components": {"Its components as sent (header, body and button parameters).", `example:"[{\"type\":\"body\",\"parameters\":[{\"type\":\"text\",\"text\":\"A-1042\"}]}]"`},
	}},
	reflect.TypeFor[domain.ChannelObject](): {
		listDoc: "Channels, by name.",
		fields: map[string]note{
			"object":        {"", `const:"channel"`},
			"name":          {"The channel's name, for `channel` when creating an instance.", `example:"telegram"`},
			"calls_back":    {"Its provider calls instances back: they have a `callback_url`.", `example:"true"`},
			"capabilities":  {doc: "What it can do; anything else is refused with 422 `unsupported_by_channel`."},
			"config_fields": {doc: "The config an instance of it takes."},
		},
	},
	reflect.TypeFor[domain.ChannelCapabilities](): {fields: map[string]note{
		"message_types": {"The message types it sends.", `example:"[\"text\",\"image\",\"reaction\"]"`},
		"receipts":      {"Statuses it reports after `sent`; none means messages stay `sent` (Telegram).", `example:"[\"delivered\",\"read\"]"`},
		"reply":         {"Replies quote a message (`reply_to`).", `example:"true"`},
		"edit":          {"Sent messages can be edited.", `example:"true"`},
		"delete":        {"Sent messages can be deleted for everyone.", `example:"true"`},
		"mark_read":     {"Marking a chat read tells the sender.", `example:"false"`},
		"typing":        {"Typing indicators can be shown.", `example:"true"`},
		"groups":        {"Groups can be listed and managed.", `example:"true"`},
		"create_groups": {"Groups can be created.", `example:"false"`},
		"check":         {"Addresses can be checked for reachability.", `example:"false"`},
		"pairing":       {"Connecting needs a QR code or pairing code.", `example:"false"`},
		"threads":       {"Messages can go to a thread of a chat (`thread_id`: Telegram forum topics).", `example:"false"`},
	}},
	reflect.TypeFor[domain.ChannelConfigField](): {fields: map[string]note{
		"name":        {"The setting's name in `config`.", `example:"bot_token"`},
		"type":        {"`string`, `bool` or `int`.", `enum:"string,bool,int" example:"string"`},
		"description": {"What it is and where to find it.", `example:"The bot's token from @BotFather."`},
		"secret":      {"Write-only: stored encrypted, shown as `********`.", `example:"true"`},
		"required":    {"It must be given.", `example:"true"`},
		"default":     {"Its value when left out (null: none).", `example:"false"`},
	}},
	reflect.TypeFor[domain.Location](): {fields: map[string]note{
		"latitude":  {"Degrees north.", `example:"51.5007"`},
		"longitude": {"Degrees east.", `example:"-0.1246"`},
		"name":      {"The place's name.", `example:"Big Ben"`},
		"address":   {"The place's address.", `example:"Westminster, London SW1A 0AA"`},
	}},
	reflect.TypeFor[domain.ContactCard](): {fields: map[string]note{
		"name":   {"The contact's name.", `example:"Ada Lovelace"`},
		"phones": {"Their phone numbers.", `example:"[\"+15551234567\"]"`},
		"vcard":  {"The vCard 3.0 sent.", `example:"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nTEL;TYPE=CELL:+15551234567\r\nEND:VCARD\r\n"`},
	}},
	reflect.TypeFor[domain.Poll](): {fields: map[string]note{
		"question":         {"The question.", `example:"Which day suits you?"`},
		"options":          {"The options.", `example:"[\"Monday\",\"Tuesday\"]"`},
		"multiple_answers": {"Whether several options may be picked.", `example:"false"`},
	}},
	reflect.TypeFor[domain.Reaction](): {fields: map[string]note{
		"message_id": {"The message reacted to.", `example:"msg_01jr8d0c3b5n7q9s1u3w5y7a9c"`},
		"emoji":      {"The emoji; empty when a reaction was removed.", `example:"👍"`},
	}},
	reflect.TypeFor[domain.MessageError](): {fields: map[string]note{
		"code":    {"A stable code, such as `recipient_unreachable`.", `example:"recipient_unreachable"`},
		"message": {"What went wrong, for people.", `example:"+15550001234 is not on the sandbox network"`},
	}},
}
