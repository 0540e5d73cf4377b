package rest

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
)

// messagePath is the {message_id} of an instance's message.
type messagePath struct {
	instancePath
	MessageID string "json:\"-\" path:\"message_id\" doc:\"The message's id (`msg_…`).\" example:\"msg_01jr8d0c3b5n7q9s1u3w5y7a9c\""
}

// messageContent is a message's content as clients send it: a type and the one field that
// type names (text for text). The bodies of send and of the sandbox's simulated inbound
// messages hold the same fields at their top level (not embedded: encoding/json would name
// an embedded struct in its errors' field paths).
type messageContent struct {
	Type     string
	Text     string
	Media    *mediaInput
	Location *locationInput
	Contact  *contactCardInput
	Poll     *pollInput
	Reaction *reactionInput
	Template *templateInput
}

func (c messageContent) input() (messaging.ContentInput, error) {
	in := messaging.ContentInput{Type: c.Type, Text: c.Text}
	if c.Media != nil {
		in.Media = &domain.Media{URL: c.Media.URL, Caption: c.Media.Caption, FileName: c.Media.FileName, MimeType: c.Media.MimeType,
			ProviderMediaID: c.Media.ProviderMediaID}
	}
	if c.Location != nil {
		// Left out, a coordinate would decode as 0 and send a point off Africa's coast.
		if c.Location.Latitude == nil {
			return in, domain.Invalid("location.latitude", "location.latitude is required")
		}
		if c.Location.Longitude == nil {
			return in, domain.Invalid("location.longitude", "location.longitude is required")
		}
		in.Location = &domain.Location{Latitude: *c.Location.Latitude, Longitude: *c.Location.Longitude,
			Name: c.Location.Name, Address: c.Location.Address}
	}
	if c.Contact != nil {
		in.Contact = &messaging.ContactCardInput{Name: c.Contact.Name, Phones: c.Contact.Phones}
	}
	if c.Poll != nil {
		in.Poll = &domain.Poll{Question: c.Poll.Question, Options: c.Poll.Options, MultipleAnswers: c.Poll.MultipleAnswers}
	}
	if c.Reaction != nil {
		in.Reaction = &domain.Reaction{MessageID: c.Reaction.MessageID, Emoji: c.Reaction.Emoji}
	}
	if c.Template != nil {
		in.Template = &domain.Template{Name: c.Template.Name, Language: c.Template.Language, Components: c.Template.Components}
	}
	return in, nil
}

// The parts of message content, as requests carry them.
type (
	mediaInput struct {
		URL             string `json:"url,omitempty" format:"uri" maxLength:"2048" example:"https://example.com/invoice.pdf" doc:"An absolute http(s) URL the channel's provider fetches the file from. Give this or provider_media_id."`
		ProviderMediaID string `json:"provider_media_id,omitempty" maxLength:"300" example:"AgACAgIAAxkBAAIBZ2" doc:"Instead of a URL: the channel's own id of a file it already holds (a Telegram file_id, a WhatsApp media id), such as a received message's media.provider_media_id on the same instance."`
		Caption         string `json:"caption,omitempty" maxLength:"1024" example:"Your invoice" doc:"A caption (not for audio, voice or stickers)."`
		FileName        string `json:"file_name,omitempty" maxLength:"255" example:"invoice.pdf" doc:"The file name shown (documents)."`
		MimeType        string `json:"mime_type,omitempty" maxLength:"100" example:"application/pdf" doc:"The media type, if the URL does not tell it."`
	}
	locationInput struct {
		Latitude  *float64 `json:"latitude" type:"number" required:"true" minimum:"-90" maximum:"90" example:"51.5007" doc:"Degrees north."`
		Longitude *float64 `json:"longitude" type:"number" required:"true" minimum:"-180" maximum:"180" example:"-0.1246" doc:"Degrees east."`
		Name      string   `json:"name,omitempty" maxLength:"300" example:"Big Ben" doc:"The place's name."`
		Address   string   `json:"address,omitempty" maxLength:"300" example:"Westminster, London SW1A 0AA" doc:"The place's address."`
	}
	contactCardInput struct {
		Name   string   `json:"name" required:"true" maxLength:"200" example:"Ada Lovelace" doc:"The contact's name."`
		Phones []string `json:"phones" required:"true" minItems:"1" maxItems:"10" example:"[\"+15551234567\"]" doc:"Their phone numbers."`
	}
	pollInput struct {
		Question        string   `json:"question" required:"true" maxLength:"300" example:"Which day suits you?" doc:"The question."`
		Options         []string `json:"options" required:"true" minItems:"2" maxItems:"12" example:"[\"Monday\",\"Tuesday\"]" doc:"2 to 12 distinct options of up to 100 characters."`
		MultipleAnswers bool     `json:"multiple_answers,omitempty" example:"false" doc:"Whether people may pick several options."`
	}
	templateInput struct {
		Name       string          `json:"name" required:"true" maxLength:"512" example:"order_shipped" doc:"The approved template's name."`
		Language   string          `json:"language" required:"true" maxLength:"12" example:"en_US" doc:"Its language code."`
		Components json.RawMessage `json:"components,omitempty" example:"[{\"type\":\"body\",\"parameters\":[{\"type\":\"text\",\"text\":\"A-1042\"}]}]" doc:"The template's components (header, body and button parameters) as a JSON array, passed through as WhatsApp documents them."`
	}
	reactionInput struct {
		MessageID string `json:"message_id" required:"true" example:"msg_01jr8d0c3b5n7q9s1u3w5y7a9c" doc:"The message reacted to, in the same chat."`
		Emoji     string `json:"emoji" example:"👍" doc:"One emoji; empty removes the reaction."`
	}
)

// sendMessageRequest is the body of POST /instances/{id}/messages.
type sendMessageRequest struct {
	instancePath
	To       string            "json:\"to\" required:\"true\" maxLength:\"128\" example:\"+15551234567\" doc:\"Who to send to: a phone number in E.164 form (sandbox), or a group (its `grp_…` id or its address).\""
	Type     string            `json:"type,omitempty" enum:"text,image,video,audio,voice,document,sticker,location,contact,poll,reaction,template" example:"text" doc:"The message type; may be left out for text. Set exactly the field it names: text, media (image, video, audio, voice, document, sticker), location, contact, poll, reaction or template. GET /channels lists the types each channel sends."`
	Text     string            `json:"text,omitempty" maxLength:"4096" example:"Your order has shipped." doc:"The text of a text message."`
	Media    *mediaInput       `json:"media,omitempty" doc:"The file of a media message, by URL (or by the channel's media id)."`
	Location *locationInput    `json:"location,omitempty" doc:"The point of a location message."`
	Contact  *contactCardInput `json:"contact,omitempty" doc:"The contact of a contact message (a vCard is made from it)."`
	Poll     *pollInput        `json:"poll,omitempty" doc:"The question and options of a poll."`
	Reaction *reactionInput    `json:"reaction,omitempty" doc:"The emoji of a reaction and the message it reacts to."`
	Template *templateInput    `json:"template,omitempty" doc:"A pre-approved template (WhatsApp Cloud: the only way to write first, or after 24 hours without a reply)."`
	ReplyTo  string            `json:"reply_to,omitempty" example:"msg_01jr8d0c3b5n7q9s1u3w5y7a9c" doc:"The id of a message of the same chat this one answers."`
	ThreadID string            "json:\"thread_id,omitempty\" maxLength:\"20\" example:\"42\" doc:\"Send into this thread of the chat: a Telegram forum topic's `message_thread_id` (channels with `threads`). A reply without it goes to the thread of the message it answers.\""
}

// messagesQuery is the input of GET /instances/{id}/messages.
type messagesQuery struct {
	instancePath
	Direction string     `json:"-" query:"direction" enum:"inbound,outbound" example:"inbound" doc:"Only messages sent (outbound) or received (inbound)."`
	Status    string     `json:"-" query:"status" enum:"queued,sent,delivered,read,failed,received" example:"delivered" doc:"Only messages with this status."`
	ChatID    string     "json:\"-\" query:\"chat_id\" example:\"chat_01jr8d0c3b5n7q9s1u3w5y7a9c\" doc:\"Only messages of this chat (`chat_…`).\""
	Address   string     `json:"-" query:"address" example:"+15551234567" doc:"Only messages of the chat with this address (a contact's or a group's; a group also by its grp_ id)."`
	ThreadID  string     `json:"-" query:"thread_id" maxLength:"20" example:"42" doc:"Only messages of this thread (a Telegram forum topic's message_thread_id)."`
	Since     *time.Time `json:"-" query:"since" example:"2025-04-01T00:00:00Z" doc:"Only messages created at or after this time (RFC 3339)."`
	Until     *time.Time `json:"-" query:"until" example:"2025-04-30T00:00:00Z" doc:"Only messages created before this time (RFC 3339)."`
	listQuery
}

// editMessageRequest is the body of PATCH /instances/{id}/messages/{message_id}.
type editMessageRequest struct {
	messagePath
	Text string `json:"text" required:"true" maxLength:"4096" example:"Your order has shipped (tracking: 1Z999)." doc:"The new text."`
}

// typingRequest is the body of POST /instances/{id}/typing.
type typingRequest struct {
	instancePath
	To       string "json:\"to\" required:\"true\" maxLength:\"128\" example:\"+15551234567\" doc:\"The chat: a phone number, or a group (`grp_…` id or address).\""
	State    string "json:\"state,omitempty\" enum:\"composing,recording,paused\" default:\"composing\" doc:\"`composing` (typing), `recording` (a voice note) or `paused` (stop showing it).\""
	ThreadID string "json:\"thread_id,omitempty\" maxLength:\"20\" example:\"42\" doc:\"Show it in this thread of the chat: a Telegram forum topic's `message_thread_id` (channels with `threads`).\""
}

// typingObject is the answer to POST /instances/{id}/typing.
type typingObject struct {
	Object     string `json:"object" const:"typing"`
	InstanceID string `json:"instance_id" example:"inst_01jr8d0c3b5n7q9s1u3w5y7a9c" doc:"The instance."`
	To         string `json:"to" example:"+15551234567" doc:"The chat."`
	State      string `json:"state" enum:"composing,recording,paused" doc:"The state shown."`
}

// injectMessageRequest is the body of POST /instances/{id}/sandbox/inbound.
type injectMessageRequest struct {
	instancePath
	From     string            "json:\"from\" required:\"true\" maxLength:\"128\" example:\"+15557654321\" doc:\"Who writes: a phone number in E.164 form (in a group, the member).\""
	FromName string            `json:"from_name,omitempty" maxLength:"200" example:"Grace Hopper" doc:"The sender's name, as their profile would show it."`
	Group    string            "json:\"group,omitempty\" example:\"grp_01jr8d0c3b5n7q9s1u3w5y7a9c\" doc:\"Write in this group of the instance (`grp_…` id or address) instead of a direct chat.\""
	Type     string            `json:"type,omitempty" enum:"text,image,video,audio,voice,document,sticker,location,contact,poll,reaction" example:"text" doc:"The message type; may be left out for text. Set exactly the field it names: text, media (image, video, audio, voice, document, sticker), location, contact, poll or reaction."`
	Text     string            `json:"text,omitempty" maxLength:"4096" example:"Your order has shipped." doc:"The text of a text message."`
	Media    *mediaInput       `json:"media,omitempty" doc:"The file of a media message, by URL."`
	Location *locationInput    `json:"location,omitempty" doc:"The point of a location message."`
	Contact  *contactCardInput `json:"contact,omitempty" doc:"The contact of a contact message (a vCard is made from it)."`
	Poll     *pollInput        `json:"poll,omitempty" doc:"The question and options of a poll."`
	Reaction *reactionInput    `json:"reaction,omitempty" doc:"The emoji of a reaction and the message it reacts to."`
	ReplyTo  string            `json:"reply_to,omitempty" example:"msg_01jr8d0c3b5n7q9s1u3w5y7a9c" doc:"The id of a sent message of the same chat this one answers."`
}

func (a *api) sendMessage(r *http.Request, in sendMessageRequest) (domain.MessageObject, error) {
	content, err := messageContent{in.Type, in.Text, in.Media, in.Location, in.Contact, in.Poll, in.Reaction, in.Template}.input()
	if err != nil {
		return domain.MessageObject{}, err
	}
	m, err := a.opts.Messaging.Messages.Send(r.Context(), actor(r), in.ID, messaging.SendInput{To: in.To,
		ContentInput: content, ReplyTo: in.ReplyTo, ThreadID: in.ThreadID})
	return m.Object(m.Sender), err // an outbound message's sender is the instance's address
}

func (a *api) listMessages(r *http.Request, q messagesQuery) (list[domain.MessageObject], error) {
	page, err := a.opts.Messaging.Messages.List(r.Context(), actor(r), q.ID, domain.MessageFilter{Direction: q.Direction,
		Status: q.Status, ChatID: q.ChatID, Address: q.Address, ThreadID: q.ThreadID, Since: q.Since, Until: q.Until}, q.params())
	return listOf(mapPage(page.Page, func(m domain.Message) domain.MessageObject { return m.Object(page.InstanceAddress) })), err
}

func (a *api) getMessage(r *http.Request, p messagePath) (domain.MessageObject, error) {
	m, address, err := a.opts.Messaging.Messages.Get(r.Context(), actor(r), p.ID, p.MessageID)
	return m.Object(address), err
}

func (a *api) editMessage(r *http.Request, in editMessageRequest) (domain.MessageObject, error) {
	m, address, err := a.opts.Messaging.Messages.Edit(r.Context(), actor(r), in.ID, in.MessageID, in.Text)
	return m.Object(address), err
}

func (a *api) deleteMessage(r *http.Request, p messagePath) (domain.MessageObject, error) {
	m, address, err := a.opts.Messaging.Messages.Delete(r.Context(), actor(r), p.ID, p.MessageID)
	return m.Object(address), err
}

func (a *api) sendTyping(r *http.Request, in typingRequest) (typingObject, error) {
	state, err := a.opts.Messaging.Messages.Typing(r.Context(), actor(r), in.ID, messaging.TypingInput{To: in.To, State: in.State, ThreadID: in.ThreadID})
	return typingObject{Object: "typing", InstanceID: in.ID, To: in.To, State: state}, err
}

func (a *api) injectMessage(r *http.Request, in injectMessageRequest) (domain.MessageObject, error) {
	content, err := messageContent{in.Type, in.Text, in.Media, in.Location, in.Contact, in.Poll, in.Reaction, nil}.input()
	if err != nil {
		return domain.MessageObject{}, err
	}
	m, address, err := a.opts.Messaging.Messages.Inject(r.Context(), actor(r), in.ID, messaging.InjectInput{From: in.From,
		FromName: in.FromName, Group: in.Group, ContentInput: content, ReplyTo: in.ReplyTo})
	return m.Object(address), err
}
