package whatsappcloud

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

// notification is what Meta posts to the callback URL (object whatsapp_business_account,
// field messages).
type notification struct {
	Object string `json:"object"`
	Entry  []struct {
		ID      string `json:"id"`
		Changes []struct {
			Field string      `json:"field"`
			Value changeValue `json:"value"`
		} `json:"changes"`
	} `json:"entry"`
}

type changeValue struct {
	MessagingProduct string `json:"messaging_product"`
	Metadata         struct {
		DisplayPhoneNumber string `json:"display_phone_number"`
		PhoneNumberID      string `json:"phone_number_id"`
	} `json:"metadata"`
	Contacts []struct {
		Profile struct {
			Name string `json:"name"`
		} `json:"profile"`
		WaID string `json:"wa_id"`
	} `json:"contacts"`
	Messages []inboundMessage `json:"messages"`
	Statuses []statusUpdate   `json:"statuses"`
}

type inboundMessage struct {
	From      string `json:"from"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Context   *struct {
		From string `json:"from"`
		ID   string `json:"id"`
	} `json:"context"`
	Text *struct {
		Body string `json:"body"`
	} `json:"text"`
	Image    *inboundMedia `json:"image"`
	Video    *inboundMedia `json:"video"`
	Audio    *inboundMedia `json:"audio"`
	Document *inboundMedia `json:"document"`
	Sticker  *inboundMedia `json:"sticker"`
	Location *struct {
		Latitude  float64 `json:"latitude"`
		Longitude float64 `json:"longitude"`
		Name      string  `json:"name"`
		Address   string  `json:"address"`
	} `json:"location"`
	Contacts []struct {
		Name struct {
			FormattedName string `json:"formatted_name"`
		} `json:"name"`
		Phones []struct {
			Phone string `json:"phone"`
			WaID  string `json:"wa_id"`
		} `json:"phones"`
	} `json:"contacts"`
	Reaction *struct {
		MessageID string `json:"message_id"`
		Emoji     string `json:"emoji"`
	} `json:"reaction"`
	Interactive *struct {
		Type        string      `json:"type"`
		ButtonReply *replyTitle `json:"button_reply"`
		ListReply   *replyTitle `json:"list_reply"`
	} `json:"interactive"`
	Button *struct {
		Payload string `json:"payload"`
		Text    string `json:"text"`
	} `json:"button"`
}

type inboundMedia struct {
	ID       string `json:"id"`
	MimeType string `json:"mime_type"`
	Caption  string `json:"caption"`
	Filename string `json:"filename"`
	Voice    bool   `json:"voice"`
}

type replyTitle struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

type statusUpdate struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	Timestamp   string `json:"timestamp"`
	RecipientID string `json:"recipient_id"`
	Errors      []struct {
		Code      int    `json:"code"`
		Title     string `json:"title"`
		Message   string `json:"message"`
		ErrorData struct {
			Details string `json:"details"`
		} `json:"error_data"`
	} `json:"errors"`
}

// Receive answers Meta's verification handshake (GET) and turns signed notifications (POST)
// into events.
func (d *Driver) Receive(_ context.Context, in channels.Instance, cb channels.Callback) (channels.CallbackResponse, []channels.Event, error) {
	if cb.Method == http.MethodGet {
		return verify(in, cb)
	}
	if !signedBy(cb, in.Secrets[ConfigAppSecret]) {
		return channels.CallbackResponse{}, nil, channels.ErrSignature
	}
	var n notification
	if err := json.Unmarshal(cb.Body, &n); err != nil {
		return channels.CallbackResponse{}, nil, fmt.Errorf("whatsapp notification: %w", err)
	}
	var events []channels.Event
	phoneNumberID := strings.TrimSpace(in.String(ConfigPhoneNumberID))
	for _, e := range n.Entry {
		for _, ch := range e.Changes {
			// One app's webhook serves every number of the business account: only this
			// instance's number is ours to apply.
			if ch.Field != "messages" || ch.Value.Metadata.PhoneNumberID != phoneNumberID {
				continue
			}
			events = append(events, valueEvents(in.ID, ch.Value)...)
		}
	}
	return channels.CallbackResponse{Status: http.StatusOK, ContentType: "application/json", Body: []byte("{}")}, events, nil
}

// verify is the subscription handshake: Meta sends the verify token the user chose and
// expects the challenge back.
func verify(in channels.Instance, cb channels.Callback) (channels.CallbackResponse, []channels.Event, error) {
	want := in.Secrets[ConfigVerifyToken]
	got := cb.Query.Get("hub.verify_token")
	if want == "" || cb.Query.Get("hub.mode") != "subscribe" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return channels.CallbackResponse{}, nil, channels.ErrSignature
	}
	return channels.CallbackResponse{Status: http.StatusOK, ContentType: "text/plain",
		Body: []byte(cb.Query.Get("hub.challenge"))}, nil, nil
}

// signedBy checks X-Hub-Signature-256: the hex HMAC-SHA256 of the raw body with the app
// secret.
func signedBy(cb channels.Callback, appSecret string) bool {
	sig, ok := strings.CutPrefix(cb.Header.Get("X-Hub-Signature-256"), "sha256=")
	if !ok || appSecret == "" {
		return false
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(appSecret))
	mac.Write(cb.Body)
	return hmac.Equal(got, mac.Sum(nil))
}

func valueEvents(instanceID string, v changeValue) []channels.Event {
	var events []channels.Event
	for _, m := range v.Messages {
		ib, ok := inbound(m)
		if !ok {
			continue // a type we do not keep (orders, system notices, unsupported)
		}
		ib.SenderName = senderName(v, m.From)
		events = append(events, channels.Event{InstanceID: instanceID, Kind: channels.EventMessage, Message: &ib})
	}
	for _, s := range v.Statuses {
		if r, ok := receipt(s); ok {
			events = append(events, channels.Event{InstanceID: instanceID, Kind: channels.EventReceipt, Receipt: &r})
		}
	}
	return events
}

// senderName is the profile name the notification gives the sender (the only contact's,
// when Meta leaves wa_id out).
func senderName(v changeValue, from string) string {
	for _, c := range v.Contacts {
		if c.WaID == from {
			return c.Profile.Name
		}
	}
	if len(v.Contacts) == 1 && v.Contacts[0].WaID == "" {
		return v.Contacts[0].Profile.Name
	}
	return ""
}

// inbound reads one received message; false for the types we do not store.
func inbound(m inboundMessage) (channels.Inbound, bool) {
	from := address(m.From)
	ib := channels.Inbound{ProviderMessageID: m.ID, ChatAddress: from, Sender: from, Type: m.Type, At: unixTime(m.Timestamp)}
	if m.Context != nil {
		ib.ReplyTo = m.Context.ID
	}
	c := &ib.Content
	switch {
	case m.Type == "text" && m.Text != nil:
		c.Text = m.Text.Body
	case m.Type == "image" && m.Image != nil:
		ib.MediaRef, c.Media = m.Image.ID, m.Image.media()
	case m.Type == "video" && m.Video != nil:
		ib.MediaRef, c.Media = m.Video.ID, m.Video.media()
	case m.Type == "audio" && m.Audio != nil:
		ib.MediaRef, c.Media = m.Audio.ID, m.Audio.media()
		if m.Audio.Voice {
			ib.Type = domain.TypeVoice
		}
	case m.Type == "document" && m.Document != nil:
		ib.MediaRef, c.Media = m.Document.ID, m.Document.media()
	case m.Type == "sticker" && m.Sticker != nil:
		ib.MediaRef, c.Media = m.Sticker.ID, m.Sticker.media()
	case m.Type == "location" && m.Location != nil:
		l := m.Location
		c.Location = &domain.Location{Latitude: l.Latitude, Longitude: l.Longitude, Name: l.Name, Address: l.Address}
	case m.Type == "contacts" && len(m.Contacts) > 0:
		// A message may share several cards; we keep the first, as our content holds one.
		ct := m.Contacts[0]
		card := domain.ContactCard{Name: ct.Name.FormattedName}
		for _, p := range ct.Phones {
			card.Phones = append(card.Phones, p.Phone)
		}
		card.VCard = vcard(card)
		ib.Type, c.Contact = domain.TypeContact, &card
	case m.Type == "reaction" && m.Reaction != nil:
		c.Reaction = &domain.Reaction{MessageID: m.Reaction.MessageID, Emoji: m.Reaction.Emoji}
	case m.Type == "interactive" && m.Interactive != nil:
		// A tap on a reply button or list row reads, in the chat, as its title.
		switch {
		case m.Interactive.ButtonReply != nil:
			c.Text = m.Interactive.ButtonReply.Title
		case m.Interactive.ListReply != nil:
			c.Text = m.Interactive.ListReply.Title
		default:
			return ib, false
		}
		ib.Type = domain.TypeText
	case m.Type == "button" && m.Button != nil:
		// A template's quick-reply button.
		c.Text = m.Button.Text
		if c.Text == "" {
			c.Text = m.Button.Payload
		}
		ib.Type = domain.TypeText
	default:
		return ib, false
	}
	return ib, true
}

func (m *inboundMedia) media() *domain.Media {
	return &domain.Media{Caption: m.Caption, MimeType: m.MimeType, FileName: m.Filename, ProviderMediaID: m.ID}
}

// vcard writes the card as the service writes the ones it sends.
func vcard(c domain.ContactCard) string {
	esc := strings.NewReplacer(`\`, `\\`, ",", `\,`, ";", `\;`, "\r", "", "\n", " ")
	var b strings.Builder
	b.WriteString("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:" + esc.Replace(c.Name) + "\r\n")
	for _, p := range c.Phones {
		b.WriteString("TEL;TYPE=CELL:" + esc.Replace(p) + "\r\n")
	}
	b.WriteString("END:VCARD\r\n")
	return b.String()
}

// receipt reads a status of one of our messages; false for the ones we do not track.
func receipt(s statusUpdate) (channels.Receipt, bool) {
	r := channels.Receipt{ProviderMessageID: s.ID, At: unixTime(s.Timestamp)}
	switch s.Status {
	case "sent":
		r.Status = domain.MessageSent
	case "delivered":
		r.Status = domain.MessageDelivered
	case "read", "played":
		// played: a voice message listened to, which WhatsApp reports after read (or for
		// read, when the user turned read receipts off): at least read.
		r.Status = domain.MessageRead
	case "failed":
		r.Status = domain.MessageFailed
		if len(s.Errors) > 0 {
			e := s.Errors[0]
			r.ErrorCode = failureCode(e.Code)
			msg := e.Title
			if msg == "" {
				msg = e.Message
			}
			if d := e.ErrorData.Details; d != "" && d != msg {
				msg += ": " + d
			}
			r.ErrorMessage = "(" + strconv.Itoa(e.Code) + ") " + msg
		}
	default:
		return r, false // "deleted", "warning": nothing our statuses say
	}
	return r, s.ID != ""
}

// unixTime reads the API's timestamps (seconds, as a string); zero when unreadable, which
// the service reads as now.
func unixTime(s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(n, 0).UTC()
}
