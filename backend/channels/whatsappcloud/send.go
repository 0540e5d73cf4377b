package whatsappcloud

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

// messageRequest is the body of POST /{phone_number_id}/messages: a message (type and the
// one object it names) or a read receipt (status and message_id).
type messageRequest struct {
	MessagingProduct string          `json:"messaging_product"`
	RecipientType    string          `json:"recipient_type,omitempty"`
	To               string          `json:"to,omitempty"`
	Type             string          `json:"type,omitempty"`
	Context          *messageContext `json:"context,omitempty"`
	Text             *textObject     `json:"text,omitempty"`
	Image            *mediaObject    `json:"image,omitempty"`
	Video            *mediaObject    `json:"video,omitempty"`
	Audio            *mediaObject    `json:"audio,omitempty"`
	Document         *mediaObject    `json:"document,omitempty"`
	Sticker          *mediaObject    `json:"sticker,omitempty"`
	Location         *locationObject `json:"location,omitempty"`
	Contacts         []contactObject `json:"contacts,omitempty"`
	Reaction         *reactionObject `json:"reaction,omitempty"`
	Template         *templateObject `json:"template,omitempty"`
	Status           string          `json:"status,omitempty"`
	MessageID        string          `json:"message_id,omitempty"`
	TypingIndicator  *typingObject   `json:"typing_indicator,omitempty"`
}

// typingObject asks for "typing…" with a read receipt; text is the only type Meta has.
type typingObject struct {
	Type string `json:"type"`
}

type messageContext struct {
	MessageID string `json:"message_id"`
}

type textObject struct {
	Body       string `json:"body"`
	PreviewURL bool   `json:"preview_url"`
}

// mediaObject names a file by link or by a media id the API already holds.
type mediaObject struct {
	ID       string `json:"id,omitempty"`
	Link     string `json:"link,omitempty"`
	Caption  string `json:"caption,omitempty"`
	Filename string `json:"filename,omitempty"`
	// Voice (audio only) makes an OGG/Opus file a voice message: auto-downloaded, with the
	// business's picture and a transcript. Without it WhatsApp shows a basic audio file.
	Voice bool `json:"voice,omitempty"`
}

type locationObject struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Name      string  `json:"name,omitempty"`
	Address   string  `json:"address,omitempty"`
}

type contactObject struct {
	Name   contactName    `json:"name"`
	Phones []contactPhone `json:"phones,omitempty"`
}

type contactName struct {
	FormattedName string `json:"formatted_name"`
	FirstName     string `json:"first_name,omitempty"`
	LastName      string `json:"last_name,omitempty"`
}

type contactPhone struct {
	Phone string `json:"phone"`
}

// reactionObject: an empty emoji removes the reaction, so it is always sent.
type reactionObject struct {
	MessageID string `json:"message_id"`
	Emoji     string `json:"emoji"`
}

type templateObject struct {
	Name       string          `json:"name"`
	Language   templateLang    `json:"language"`
	Components json.RawMessage `json:"components,omitempty"`
}

type templateLang struct {
	Code string `json:"code"`
}

// messageResponse is the API's answer to a send.
type messageResponse struct {
	Messages []struct {
		ID string `json:"id"`
	} `json:"messages"`
}

func refuse(code, msg string) error {
	return &channels.SendError{Code: code, Message: msg, Permanent: true}
}

// Send posts one message. The API has no idempotency key: a send retried after a crash
// between its POST and our commit reaches the customer twice.
func (d *Driver) Send(ctx context.Context, in channels.Instance, m channels.Outbound) (channels.Sent, error) {
	a, err := accountOf(in)
	if err != nil {
		return channels.Sent{}, refuse("instance_misconfigured", err.Error())
	}
	if m.Group {
		return channels.Sent{}, refuse("unsupported_by_channel", "the WhatsApp Cloud API does not send to groups")
	}
	req, err := buildMessage(m)
	if err != nil {
		return channels.Sent{}, err
	}
	if o := req.media(); o != nil && o.Link != "" {
		// WhatsApp would fetch the link itself, from hosts it can reach and without our
		// checks: the file is fetched here and uploaded, and the message names the upload.
		f, err := channels.Fetch(ctx, d.opts.MediaClient, o.Link, d.opts.MaxMediaBytes)
		if err != nil {
			return channels.Sent{}, err // permanent refusals, or a network error (retried)
		}
		if f.ContentType == "application/octet-stream" && m.Content.Media.MimeType != "" {
			f.ContentType = m.Content.Media.MimeType // the server did not say; the user did
		}
		id, err := d.upload(ctx, a, f)
		if err != nil {
			return channels.Sent{}, d.fail(ctx, in, err)
		}
		o.ID, o.Link = id, ""
		if o == req.Document && o.Filename == "" {
			o.Filename = f.FileName // else WhatsApp shows the document untitled
		}
	}
	var resp messageResponse
	if err := d.call(ctx, a, http.MethodPost, url.PathEscape(a.phoneNumberID)+"/messages", nil, req, &resp); err != nil {
		return channels.Sent{}, d.fail(ctx, in, err)
	}
	if len(resp.Messages) == 0 || resp.Messages[0].ID == "" {
		// Accepted but unnamed: retrying could send it twice, and receipts could not find it.
		return channels.Sent{}, refuse("provider_error", "WhatsApp accepted the message without returning its id")
	}
	return channels.Sent{ProviderMessageID: resp.Messages[0].ID}, nil
}

// buildMessage turns an outbound message into the API's request.
func buildMessage(m channels.Outbound) (messageRequest, error) {
	r := messageRequest{MessagingProduct: "whatsapp", RecipientType: "individual", To: waID(m.ChatAddress), Type: m.Type}
	if m.ReplyTo != "" {
		r.Context = &messageContext{MessageID: m.ReplyTo}
	}
	c := m.Content
	switch m.Type {
	case domain.TypeText:
		r.Text = &textObject{Body: c.Text, PreviewURL: strings.Contains(c.Text, "https://") || strings.Contains(c.Text, "http://")}
	case domain.TypeImage, domain.TypeVideo, domain.TypeAudio, domain.TypeVoice, domain.TypeDocument, domain.TypeSticker:
		if c.Media == nil || (c.Media.URL == "" && c.Media.ProviderMediaID == "") {
			return r, refuse("invalid_content", "a "+m.Type+" message needs media with a url or a provider_media_id")
		}
		o := &mediaObject{ID: c.Media.ProviderMediaID}
		if o.ID == "" {
			o.Link = c.Media.URL // Send uploads it and names the upload instead
		}
		switch m.Type {
		case domain.TypeImage:
			o.Caption, r.Image = c.Media.Caption, o
		case domain.TypeVideo:
			o.Caption, r.Video = c.Media.Caption, o
		case domain.TypeAudio, domain.TypeVoice:
			// There is no voice type: a voice message is audio with voice set (Meta's audio
			// messages reference; the file must be OGG/Opus).
			r.Type, r.Audio, o.Voice = "audio", o, m.Type == domain.TypeVoice
		case domain.TypeDocument:
			o.Caption, o.Filename, r.Document = c.Media.Caption, c.Media.FileName, o
		case domain.TypeSticker:
			r.Sticker = o
		}
	case domain.TypeLocation:
		if c.Location == nil {
			return r, refuse("invalid_content", "a location message needs location")
		}
		l := c.Location
		r.Location = &locationObject{Latitude: l.Latitude, Longitude: l.Longitude, Name: l.Name, Address: l.Address}
	case domain.TypeContact:
		if c.Contact == nil {
			return r, refuse("invalid_content", "a contact message needs contact")
		}
		r.Type = "contacts"
		r.Contacts = []contactObject{contactOf(*c.Contact)}
	case domain.TypeReaction:
		if m.ReactionTarget == "" {
			return r, refuse("reaction_target_unknown", "the message reacted to has no WhatsApp id (it was never sent through WhatsApp)")
		}
		emoji := ""
		if c.Reaction != nil {
			emoji = c.Reaction.Emoji
		}
		r.Reaction = &reactionObject{MessageID: m.ReactionTarget, Emoji: emoji}
		r.Context = nil // a reaction names its target itself
	case domain.TypeTemplate:
		t := c.Template
		if t == nil || t.Name == "" || t.Language == "" {
			return r, refuse("invalid_content", "a template message needs template.name and template.language")
		}
		r.Template = &templateObject{Name: t.Name, Language: templateLang{Code: t.Language}}
		if comps := bytes.TrimSpace(t.Components); len(comps) > 0 && !bytes.Equal(comps, []byte("null")) {
			r.Template.Components = comps // as the user wrote them, in Meta's documented shape
		}
	default:
		return r, refuse("unsupported_by_channel", "the WhatsApp Cloud API does not send "+m.Type+" messages")
	}
	return r, nil
}

// media is the request's media object, if it has one.
func (r messageRequest) media() *mediaObject {
	for _, o := range []*mediaObject{r.Image, r.Video, r.Audio, r.Document, r.Sticker} {
		if o != nil {
			return o
		}
	}
	return nil
}

// contactOf shares a card: WhatsApp wants a formatted name and a first (or last) name.
func contactOf(card domain.ContactCard) contactObject {
	first, last, _ := strings.Cut(strings.TrimSpace(card.Name), " ")
	o := contactObject{Name: contactName{FormattedName: card.Name, FirstName: first, LastName: strings.TrimSpace(last)}}
	for _, p := range card.Phones {
		o.Phones = append(o.Phones, contactPhone{Phone: p})
	}
	return o
}

// MarkRead marks the newest of the messages read: WhatsApp then shows every earlier message
// of the chat read as well, so one call covers them all.
// Typing shows "typing…" in answer to the newest received message, which WhatsApp marks
// read (with the ones before it). WhatsApp has one indicator, so recording shows it too; it
// clears at the next message or after 25 seconds and has no call to stop it, so paused does
// nothing.
func (d *Driver) Typing(ctx context.Context, in channels.Instance, t channels.Indicator) error {
	if t.State == "paused" {
		return nil
	}
	if t.Last.ProviderMessageID == "" {
		return &channels.SendError{Code: "no_received_message", Permanent: true,
			Message: "WhatsApp shows a typing indicator only in answer to a received message"}
	}
	a, err := accountOf(in)
	if err != nil {
		return err
	}
	req := messageRequest{MessagingProduct: "whatsapp", Status: "read", MessageID: t.Last.ProviderMessageID,
		TypingIndicator: &typingObject{Type: "text"}}
	if err := d.call(ctx, a, http.MethodPost, url.PathEscape(a.phoneNumberID)+"/messages", nil, req, nil); err != nil {
		return d.fail(ctx, in, err)
	}
	return nil
}

func (d *Driver) MarkRead(ctx context.Context, in channels.Instance, _ string, read []channels.Received) error {
	newest := ""
	for _, r := range read { // in the order received (the service lists them by id)
		if r.ProviderMessageID != "" {
			newest = r.ProviderMessageID
		}
	}
	if newest == "" {
		return nil
	}
	a, err := accountOf(in)
	if err != nil {
		return err
	}
	req := messageRequest{MessagingProduct: "whatsapp", Status: "read", MessageID: newest}
	if err := d.call(ctx, a, http.MethodPost, url.PathEscape(a.phoneNumberID)+"/messages", nil, req, nil); err != nil {
		return d.fail(ctx, in, err)
	}
	return nil
}
