// Package channels is the one interface between the messaging service and the networks it
// sends through. A driver (the built-in sandbox; later Telegram and WhatsApp Cloud) connects
// an instance, sends and changes messages, manages groups, and reports what happens on its
// network as Events. The service never knows which driver it talks to: it asks the driver's
// Capabilities before offering an operation.
package channels

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Capabilities say what a channel can do; the service refuses the rest with 422
// unsupported_by_channel before anything is stored.
type Capabilities struct {
	// Types are the message types the channel sends.
	Types []string
	// Receipts are the statuses the channel reports after sent (delivered, read); a
	// channel that reports none leaves messages at sent.
	Receipts                              []string
	Reply, Edit, Delete, MarkRead, Typing bool
	Groups, CreateGroups, Check, Pairing  bool
	// Threads: a chat has threads a message can be sent to (Telegram forum topics).
	Threads bool
	// TypingMarksRead: the channel shows a typing indicator only in answer to a received
	// message, which it marks read with everything before it (WhatsApp).
	TypingMarksRead bool
	// Simulated channels (the sandbox) accept made-up inbound messages, for tests and demos.
	Simulated bool
}

// Supports reports whether the channel sends messages of type t.
func (c Capabilities) Supports(t string) bool {
	for _, x := range c.Types {
		if x == t {
			return true
		}
	}
	return false
}

// ConfigField describes one setting of a channel's instance config.
type ConfigField struct {
	Name        string
	Type        string // "string", "bool" or "int"
	Description string
	// Secret fields are write-only: stored encrypted, shown as domain.Redacted.
	Secret   bool
	Required bool
	Default  any
	// Min and Max bound int fields; MaxLength bounds strings (0: 500).
	Min, Max, MaxLength int
}

// Instance is what a driver knows of an instance.
type Instance struct {
	ID          string
	WorkspaceID string
	Address     string
	Config      map[string]any
	Secrets     map[string]string
	// CallbackURL is where the provider calls this instance back
	// ({base}/channels/{driver}/{instance_token}); empty for channels that are not Receivers.
	CallbackURL string
	// CallbackSecret is a per-instance secret (43 characters of [A-Za-z0-9_-]) for providers
	// that echo one on every callback (Telegram's secret_token). It changes with the
	// callback token.
	CallbackSecret string
}

// Bool, Int and String read a config value (already validated against ConfigFields and
// filled with defaults).
func (in Instance) Bool(name string) bool { v, _ := in.Config[name].(bool); return v }

// Int reads an int config value.
func (in Instance) Int(name string) int {
	switch v := in.Config[name].(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	}
	return 0
}

// String reads a string config value.
func (in Instance) String(name string) string { v, _ := in.Config[name].(string); return v }

// Connection is where connecting left an instance: connected (with its address), or pairing
// (with the code and QR payload the user needs).
type Connection struct {
	Status      string // domain.InstanceConnected or domain.InstancePairing
	Address     string
	PairingCode string
	QRPayload   string
	ExpiresAt   time.Time
}

// Outbound is a message to send.
type Outbound struct {
	// MessageID is ours; drivers pass it to providers that deduplicate (a send may be
	// retried after a crash).
	MessageID   string
	ChatAddress string
	Group       bool
	Type        string
	Content     domain.Content
	// ReplyTo is the provider id of the message answered; ReactionTarget the provider id
	// of the message reacted to.
	ReplyTo        string
	ReactionTarget string
	// ThreadID is the thread of the chat to send to ("" for the chat itself).
	ThreadID string
	// Participants are a group's members' addresses (Group only).
	Participants []string
}

// Indicator is a typing indicator to show (State composing or recording) or stop (paused).
type Indicator struct {
	ChatAddress string
	State       string
	// ThreadID is the thread of the chat to show it in ("" for the chat itself).
	ThreadID string
	// Last is the newest message received in the chat (zero when none), for a channel that
	// shows an indicator only in answer to one (TypingMarksRead).
	Last Received
}

// SentMessage names a sent message to edit or delete: its chat and the provider's id for it.
// A group's Participants are its members' addresses, as Outbound carries them, so that a
// channel that delivers to each member (the sandbox) reaches every copy.
type SentMessage struct {
	ChatAddress       string
	Group             bool
	Participants      []string
	ProviderMessageID string
}

// Received is an inbound message marked read: its provider id and who sent it.
type Received struct {
	ProviderMessageID string
	Sender            string
}

// Sent is a provider's answer to a send.
type Sent struct {
	ProviderMessageID string
}

// GroupInfo is a group as a channel knows it.
type GroupInfo struct {
	Address      string
	Subject      string
	Description  string
	Owner        string
	Participants []domain.Participant
}

// Driver is one channel.
type Driver interface {
	Name() string
	Capabilities() Capabilities
	ConfigFields() []ConfigField
	// ValidateAddress checks a contact address (a group's address comes from the channel).
	ValidateAddress(address string) error
	// Connect starts a session; hasSession says an earlier pairing still holds.
	Connect(ctx context.Context, in Instance, hasSession bool) (Connection, error)
	// Disconnect ends the session (logs out).
	Disconnect(ctx context.Context, in Instance) error
	Send(ctx context.Context, in Instance, m Outbound) (Sent, error)
	Edit(ctx context.Context, in Instance, m SentMessage, text string) error
	Delete(ctx context.Context, in Instance, m SentMessage) error
	// MarkRead tells the senders of the given inbound messages that they were read.
	MarkRead(ctx context.Context, in Instance, chatAddress string, read []Received) error
	// Typing shows or stops a typing indicator.
	Typing(ctx context.Context, in Instance, t Indicator) error
	Check(ctx context.Context, in Instance, addresses []string) ([]bool, error)
	CreateGroup(ctx context.Context, in Instance, g GroupInfo) (GroupInfo, error)
	UpdateGroup(ctx context.Context, in Instance, g GroupInfo) error
	ChangeParticipants(ctx context.Context, in Instance, g GroupInfo, add, remove []string) error
	LeaveGroup(ctx context.Context, in Instance, g GroupInfo) error
}

// Pairer is a driver whose pairing can be completed through the API (the sandbox: real
// channels pair when the user scans the QR code on their phone).
type Pairer interface {
	Pair(ctx context.Context, in Instance) (address string, err error)
}

// ErrUnsupported is returned for an operation the channel lacks.
var ErrUnsupported = errors.New("not supported by this channel")

// Unsupported can be embedded by drivers: it refuses every optional operation.
type Unsupported struct{}

func (Unsupported) Edit(context.Context, Instance, SentMessage, string) error {
	return ErrUnsupported
}
func (Unsupported) Delete(context.Context, Instance, SentMessage) error { return ErrUnsupported }
func (Unsupported) MarkRead(context.Context, Instance, string, []Received) error {
	return ErrUnsupported
}
func (Unsupported) Typing(context.Context, Instance, Indicator) error { return ErrUnsupported }
func (Unsupported) Check(context.Context, Instance, []string) ([]bool, error) {
	return nil, ErrUnsupported
}
func (Unsupported) CreateGroup(context.Context, Instance, GroupInfo) (GroupInfo, error) {
	return GroupInfo{}, ErrUnsupported
}
func (Unsupported) UpdateGroup(context.Context, Instance, GroupInfo) error { return ErrUnsupported }
func (Unsupported) ChangeParticipants(context.Context, Instance, GroupInfo, []string, []string) error {
	return ErrUnsupported
}
func (Unsupported) LeaveGroup(context.Context, Instance, GroupInfo) error { return ErrUnsupported }

// RateLimitedError is a provider asking us to slow down (HTTP 429, Telegram's
// retry_after): the job engine retries the operation after RetryAfter (0: its own backoff).
type RateLimitedError struct {
	RetryAfter time.Duration
	Message    string
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("rate limited by the provider (retry after %s): %s", e.RetryAfter, e.Message)
}

// SendError is a provider's refusal of a message, with its code (recipient_unreachable,
// ...); Permanent ones are not retried.
type SendError struct {
	Code, Message string
	Permanent     bool
}

func (e *SendError) Error() string { return e.Code + ": " + e.Message }

// Event kinds a channel reports.
const (
	EventMessage = "message" // an inbound message
	EventReceipt = "receipt" // a status of an outbound message
	EventGroup   = "group"   // a group was created, changed, or the instance was removed
	EventStatus  = "status"  // the session changed (paired, logged out, failed)
	EventEdit    = "edit"    // an inbound message was edited or deleted
)

// Event is something that happened on a channel to one instance.
type Event struct {
	InstanceID string   `json:"instance_id"`
	Kind       string   `json:"kind"`
	Message    *Inbound `json:"message,omitempty"`
	Receipt    *Receipt `json:"receipt,omitempty"`
	Group      *Group   `json:"group,omitempty"`
	Status     *Status  `json:"status,omitempty"`
	Edit       *Edit    `json:"edit,omitempty"`
}

// Inbound is a message received.
type Inbound struct {
	ProviderMessageID string         `json:"provider_message_id"`
	ChatAddress       string         `json:"chat_address"`
	Group             bool           `json:"group,omitempty"`
	Sender            string         `json:"sender"`
	SenderName        string         `json:"sender_name,omitempty"`
	Type              string         `json:"type"`
	Content           domain.Content `json:"content"`
	ReplyTo           string         `json:"reply_to,omitempty"`
	// ThreadID is the thread of the chat it was written in (a Telegram forum topic).
	ThreadID string `json:"thread_id,omitempty"`
	// MediaRef is the provider's reference to the message's media (Telegram's file_id,
	// WhatsApp's media id): the service downloads it with FetchMedia into the blob store
	// before storing the message. Content.Media then carries caption, file name and type.
	MediaRef string    `json:"media_ref,omitempty"`
	At       time.Time `json:"at"`
}

// Receipt is a new status of an outbound message, found by its provider id.
type Receipt struct {
	ProviderMessageID string    `json:"provider_message_id"`
	Status            string    `json:"status"`
	ErrorCode         string    `json:"error_code,omitempty"`
	ErrorMessage      string    `json:"error_message,omitempty"`
	At                time.Time `json:"at"`
}

// Group actions.
const (
	GroupCreated      = "created"
	GroupUpdated      = "updated"
	GroupParticipants = "participants"
	GroupRemoved      = "removed"
)

// Group is a change to a group the instance is in.
type Group struct {
	Action  string    `json:"action"`
	Info    GroupInfo `json:"info"`
	Added   []string  `json:"added,omitempty"`
	Removed []string  `json:"removed,omitempty"`
}

// Status is a session change.
type Status struct {
	Status  string `json:"status"`
	Address string `json:"address,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Edit is an inbound message edited (Text set) or deleted.
type Edit struct {
	ChatAddress       string `json:"chat_address"`
	ProviderMessageID string `json:"provider_message_id"`
	Text              string `json:"text,omitempty"`
	Deleted           bool   `json:"deleted,omitempty"`
}

// Emitter takes a channel's events: each is stored and applied as a job, after delay.
type Emitter interface {
	Emit(ctx context.Context, delay time.Duration, events ...Event) error
}

// Directory finds instances by address, for channels that link instances with each other
// (the sandbox's instances message each other).
type Directory interface {
	InstanceByAddress(ctx context.Context, workspaceID, channel, address string) (id string, ok bool, err error)
}

// Host is what the messaging service offers drivers.
type Host interface {
	Emitter
	Directory
}

// Binder is a driver that needs the Host; the service binds it when it starts.
type Binder interface {
	Bind(h Host)
}

// Registry holds the drivers by name.
type Registry struct{ drivers map[string]Driver }

// NewRegistry returns a registry of the given drivers.
func NewRegistry(ds ...Driver) *Registry {
	r := &Registry{drivers: map[string]Driver{}}
	for _, d := range ds {
		r.drivers[d.Name()] = d
	}
	return r
}

// Get returns the driver of a channel.
func (r *Registry) Get(name string) (Driver, bool) {
	d, ok := r.drivers[name]
	return d, ok
}

// Names lists the channels, sorted.
func (r *Registry) Names() []string {
	var out []string
	for n := range r.drivers {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Callback is a provider's HTTP call to the instance's callback URL
// (/channels/{driver}/{instance_token}), as received: signatures cover the raw body.
type Callback struct {
	Method string
	Header http.Header
	Query  url.Values
	Body   []byte
}

// CallbackResponse is what the provider is answered (a verification challenge, or 200).
type CallbackResponse struct {
	Status      int
	ContentType string
	Body        []byte
}

// ErrSignature is a callback that is unsigned or wrongly signed (or carries the wrong
// secret): it is answered 401 and changes nothing. Any other error from Receive is a
// malformed callback, answered 400.
var ErrSignature = errors.New("the callback is not signed by the provider")

// Receiver is a driver whose provider calls back (Telegram's webhook, WhatsApp Cloud's
// notifications). Receive verifies a callback with the instance's secrets (constant-time
// signature checks; an unsigned or wrongly signed call is an error and changes nothing)
// and turns it into Events. The service stores those as channel.event jobs before
// answering, so providers are answered at once and a retried callback, whose events carry
// the same provider message ids, stores nothing twice.
type Receiver interface {
	Receive(ctx context.Context, in Instance, cb Callback) (CallbackResponse, []Event, error)
}

// MediaFile is a provider's media, being downloaded. Size is -1 when the provider does not
// say; the caller closes Body.
type MediaFile struct {
	Body        io.ReadCloser
	ContentType string
	FileName    string
	Size        int64
}

// MediaFetcher is a driver whose inbound media arrives as a reference (Inbound.MediaRef).
// FetchMedia opens the download; a file the provider says is larger than maxBytes is
// refused with ErrMediaTooLarge before downloading (the caller still bounds the copy).
type MediaFetcher interface {
	FetchMedia(ctx context.Context, in Instance, ref string, maxBytes int64) (MediaFile, error)
}

// ErrMediaTooLarge is a provider's file over the size limit.
var ErrMediaTooLarge = errors.New("the file is larger than the media size limit")
