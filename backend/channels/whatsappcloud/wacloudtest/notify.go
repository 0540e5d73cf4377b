package wacloudtest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// The notification Meta posts to a webhook (object whatsapp_business_account, field
// messages), as its webhook reference documents it.
type (
	Notification struct {
		Object string  `json:"object"`
		Entry  []Entry `json:"entry"`
	}
	Entry struct {
		ID      string   `json:"id"`
		Changes []Change `json:"changes"`
	}
	Change struct {
		Value Value  `json:"value"`
		Field string `json:"field"`
	}
	Value struct {
		MessagingProduct string    `json:"messaging_product"`
		Metadata         Metadata  `json:"metadata"`
		Contacts         []Contact `json:"contacts,omitempty"`
		Messages         []Message `json:"messages,omitempty"`
		Statuses         []Status  `json:"statuses,omitempty"`
	}
	Metadata struct {
		DisplayPhoneNumber string `json:"display_phone_number"`
		PhoneNumberID      string `json:"phone_number_id"`
	}
	Contact struct {
		Profile Profile `json:"profile"`
		WaID    string  `json:"wa_id"`
	}
	Profile struct {
		Name string `json:"name"`
	}
	// Message is one received message: Type names the one object set.
	Message struct {
		From        string          `json:"from"`
		ID          string          `json:"id"`
		Timestamp   string          `json:"timestamp"`
		Type        string          `json:"type"`
		Context     *Context        `json:"context,omitempty"`
		Text        *Text           `json:"text,omitempty"`
		Image       *Media          `json:"image,omitempty"`
		Video       *Media          `json:"video,omitempty"`
		Audio       *Media          `json:"audio,omitempty"`
		Document    *Media          `json:"document,omitempty"`
		Sticker     *Media          `json:"sticker,omitempty"`
		Location    *Location       `json:"location,omitempty"`
		Contacts    []SharedContact `json:"contacts,omitempty"`
		Reaction    *Reaction       `json:"reaction,omitempty"`
		Interactive *Interactive    `json:"interactive,omitempty"`
		Button      *Button         `json:"button,omitempty"`
	}
	// Context is the message a reply answers.
	Context struct {
		From string `json:"from"`
		ID   string `json:"id"`
	}
	Text struct {
		Body string `json:"body"`
	}
	Media struct {
		Caption  string `json:"caption,omitempty"`
		Filename string `json:"filename,omitempty"`
		MimeType string `json:"mime_type"`
		SHA256   string `json:"sha256"`
		ID       string `json:"id"`
		Voice    bool   `json:"voice,omitempty"`
		Animated bool   `json:"animated,omitempty"`
	}
	Location struct {
		Latitude  float64 `json:"latitude"`
		Longitude float64 `json:"longitude"`
		Name      string  `json:"name,omitempty"`
		Address   string  `json:"address,omitempty"`
	}
	SharedContact struct {
		Name   SharedName    `json:"name"`
		Phones []SharedPhone `json:"phones,omitempty"`
	}
	SharedName struct {
		FormattedName string `json:"formatted_name"`
		FirstName     string `json:"first_name,omitempty"`
		LastName      string `json:"last_name,omitempty"`
	}
	SharedPhone struct {
		Phone string `json:"phone"`
		WaID  string `json:"wa_id,omitempty"`
		Type  string `json:"type,omitempty"`
	}
	Reaction struct {
		MessageID string `json:"message_id"`
		Emoji     string `json:"emoji"`
	}
	Interactive struct {
		Type        string `json:"type"`
		ButtonReply *Reply `json:"button_reply,omitempty"`
		ListReply   *Reply `json:"list_reply,omitempty"`
	}
	Reply struct {
		ID          string `json:"id"`
		Title       string `json:"title"`
		Description string `json:"description,omitempty"`
	}
	// Button is a tap on a template's quick-reply button.
	Button struct {
		Payload string `json:"payload"`
		Text    string `json:"text"`
	}
	// Status is a change of a sent message's status: sent, delivered, read or failed (with
	// Errors).
	Status struct {
		ID           string        `json:"id"`
		Status       string        `json:"status"`
		Timestamp    string        `json:"timestamp"`
		RecipientID  string        `json:"recipient_id"`
		Conversation *Conversation `json:"conversation,omitempty"`
		Pricing      *Pricing      `json:"pricing,omitempty"`
		Errors       []StatusError `json:"errors,omitempty"`
	}
	Conversation struct {
		ID     string `json:"id"`
		Origin struct {
			Type string `json:"type"`
		} `json:"origin"`
	}
	Pricing struct {
		Billable     bool   `json:"billable"`
		PricingModel string `json:"pricing_model"`
		Category     string `json:"category"`
	}
	StatusError struct {
		Code      int        `json:"code"`
		Title     string     `json:"title"`
		Message   string     `json:"message"`
		ErrorData *ErrorData `json:"error_data,omitempty"`
		Href      string     `json:"href,omitempty"`
	}
	ErrorData struct {
		Details string `json:"details"`
	}
)

// seq numbers the messages the builders make (apart from the ids the server hands out).
var seq atomic.Int64

func nextID() string { return NewWAMID(1_000_000 + int(seq.Add(1))) }

func unix(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// base is a received message of a type, from a customer's number (digits, as the API
// writes it), stamped now.
func base(from, typ string) Message {
	return Message{From: from, ID: nextID(), Timestamp: unix(time.Now()), Type: typ}
}

// TextMessage is a text from a customer.
func TextMessage(from, body string) Message {
	m := base(from, "text")
	m.Text = &Text{Body: body}
	return m
}

// MediaMessage is a file from a customer; kind is image, video, audio, document or sticker.
func MediaMessage(from, kind, mediaID, mimeType, caption string) Message {
	m := base(from, kind)
	sum := sha256.Sum256([]byte(mediaID))
	md := &Media{ID: mediaID, MimeType: mimeType, SHA256: hex.EncodeToString(sum[:])}
	if kind == "image" || kind == "video" || kind == "document" {
		md.Caption = caption
	}
	switch kind {
	case "image":
		m.Image = md
	case "video":
		m.Video = md
	case "audio":
		m.Audio = md
	case "document":
		m.Document = md
	case "sticker":
		m.Sticker = md
	}
	return m
}

// VoiceMessage is a voice note (audio with voice set).
func VoiceMessage(from, mediaID string) Message {
	m := MediaMessage(from, "audio", mediaID, "audio/ogg; codecs=opus", "")
	m.Audio.Voice = true
	return m
}

// DocumentMessage is a document with its file name.
func DocumentMessage(from, mediaID, mimeType, filename, caption string) Message {
	m := MediaMessage(from, "document", mediaID, mimeType, caption)
	m.Document.Filename = filename
	return m
}

// LocationMessage is a shared location.
func LocationMessage(from string, lat, lng float64, name, address string) Message {
	m := base(from, "location")
	m.Location = &Location{Latitude: lat, Longitude: lng, Name: name, Address: address}
	return m
}

// ContactsMessage shares one contact card.
func ContactsMessage(from, name string, phones ...string) Message {
	m := base(from, "contacts")
	first, last, _ := strings.Cut(name, " ")
	c := SharedContact{Name: SharedName{FormattedName: name, FirstName: first, LastName: last}}
	for _, p := range phones {
		c.Phones = append(c.Phones, SharedPhone{Phone: p, Type: "CELL"})
	}
	m.Contacts = []SharedContact{c}
	return m
}

// ReactionMessage is a reaction to message target (an empty emoji removes it).
func ReactionMessage(from, target, emoji string) Message {
	m := base(from, "reaction")
	m.Reaction = &Reaction{MessageID: target, Emoji: emoji}
	return m
}

// ButtonReplyMessage is a tap on a reply button of an interactive message.
func ButtonReplyMessage(from, id, title string) Message {
	m := base(from, "interactive")
	m.Interactive = &Interactive{Type: "button_reply", ButtonReply: &Reply{ID: id, Title: title}}
	return m
}

// ListReplyMessage is a choice in an interactive list.
func ListReplyMessage(from, id, title string) Message {
	m := base(from, "interactive")
	m.Interactive = &Interactive{Type: "list_reply", ListReply: &Reply{ID: id, Title: title}}
	return m
}

// QuickReplyMessage is a tap on a template's quick-reply button (type button).
func QuickReplyMessage(from, payload, text string) Message {
	m := base(from, "button")
	m.Button = &Button{Payload: payload, Text: text}
	return m
}

// InReplyTo makes m answer message id, sent by from (our number's digits for our messages).
func (m Message) InReplyTo(from, id string) Message {
	m.Context = &Context{From: from, ID: id}
	return m
}

// At stamps m with t.
func (m Message) At(t time.Time) Message {
	m.Timestamp = unix(t)
	return m
}

// StatusUpdate is a status (sent, delivered or read) of message id sent to recipient.
func StatusUpdate(id, status, recipient string) Status {
	st := Status{ID: id, Status: status, Timestamp: unix(time.Now()), RecipientID: recipient}
	if status != "read" {
		st.Conversation = &Conversation{ID: "a75d17ad06104c51166f948319b03c6a"}
		st.Conversation.Origin.Type = "service"
		st.Pricing = &Pricing{Billable: true, PricingModel: "CBP", Category: "service"}
	}
	return st
}

// FailedStatus is a failed message with Meta's error: the code, its title (also the
// message) and details.
func FailedStatus(id, recipient string, code int, title, details string) Status {
	st := Status{ID: id, Status: "failed", Timestamp: unix(time.Now()), RecipientID: recipient,
		Errors: []StatusError{{Code: code, Title: title, Message: title,
			Href: "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/"}}}
	if details != "" {
		st.Errors[0].ErrorData = &ErrorData{Details: details}
	}
	return st
}

// At stamps st with t.
func (st Status) At(t time.Time) Status {
	st.Timestamp = unix(t)
	return st
}

// Messages is a value carrying messages to the fake's number; name is the sender's profile
// name (one contact per distinct sender, as Meta lists them).
func (s *Server) Messages(name string, msgs ...Message) Value {
	v := s.value()
	seen := map[string]bool{}
	for _, m := range msgs {
		if !seen[m.From] {
			seen[m.From] = true
			v.Contacts = append(v.Contacts, Contact{Profile: Profile{Name: name}, WaID: m.From})
		}
	}
	v.Messages = msgs
	return v
}

// Statuses is a value carrying statuses of messages the fake's number sent.
func (s *Server) Statuses(sts ...Status) Value {
	v := s.value()
	v.Statuses = sts
	return v
}

func (s *Server) value() Value {
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s.DisplayPhoneNumber)
	return Value{MessagingProduct: "whatsapp", Metadata: Metadata{DisplayPhoneNumber: digits, PhoneNumberID: s.PhoneNumberID}}
}

// Notify is the body of a notification of values, one change each, in the business
// account's entry.
func (s *Server) Notify(values ...Value) []byte {
	n := Notification{Object: "whatsapp_business_account", Entry: []Entry{{ID: s.WABAID}}}
	for _, v := range values {
		n.Entry[0].Changes = append(n.Entry[0].Changes, Change{Value: v, Field: "messages"})
	}
	b, err := json.Marshal(n)
	if err != nil {
		panic(err) // our own types always marshal
	}
	return b
}

// Sign is the X-Hub-Signature-256 header Meta sends with body: sha256= and the hex
// HMAC-SHA256 of the raw body keyed with the app secret.
func Sign(appSecret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(appSecret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

var client = &http.Client{Timeout: 10 * time.Second}

// Deliver posts a notification to a callback URL as Meta does, signed with appSecret, and
// returns the status it was answered with.
func Deliver(ctx context.Context, callbackURL, appSecret string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, callbackURL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "facebookexternalua")
	req.Header.Set("X-Hub-Signature-256", Sign(appSecret, body))
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// Verify performs the webhook verification handshake Meta makes when the callback URL is
// saved: a GET with hub.mode=subscribe, the verify token and a challenge, which a
// subscriber answers by echoing the challenge.
func Verify(ctx context.Context, callbackURL, verifyToken, challenge string) (int, string, error) {
	u, err := url.Parse(callbackURL)
	if err != nil {
		return 0, "", err
	}
	q := u.Query()
	q.Set("hub.mode", "subscribe")
	q.Set("hub.challenge", challenge)
	q.Set("hub.verify_token", verifyToken)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("User-Agent", "facebookplatform/1.0 (+http://developers.facebook.com)")
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(b), err
}
