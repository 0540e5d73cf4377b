// Package whatsappcloud is the WhatsApp Business Cloud API channel: Meta hosts the number,
// we send through the Graph API (POST /{phone_number_id}/messages) and receive signed
// notifications on the instance's callback URL, which the user pastes into the Meta App
// Dashboard with the verify token. There is no pairing: an access token and a phone number
// id are the whole session. Plain net/http and encoding/json, against Meta's documented
// formats; wacloudtest holds a fake Graph API that speaks them too.
//
// Outbound media named by media.url is fetched here, through the SSRF-guarded media client
// and within MaxMediaBytes, uploaded (POST /{phone_number_id}/media) and sent by the media
// id WhatsApp answers; a provider_media_id is sent as is.
package whatsappcloud

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
)

// Name is the channel's name.
const Name = "whatsapp_cloud"

// Config settings (phone_number_id is plain config; the others are secrets).
const (
	ConfigPhoneNumberID = "phone_number_id"
	ConfigAccessToken   = "access_token"
	ConfigAppSecret     = "app_secret"
	ConfigVerifyToken   = "verify_token"
)

// Defaults of Options.
const (
	DefaultGraphURL = "https://graph.facebook.com"
	// DefaultAPIVersion is available until 2028-07-29 (Meta's Graph API changelog).
	DefaultAPIVersion = "v25.0"
)

// Options configure the driver.
type Options struct {
	// GraphURL is the Graph API's base URL (default DefaultGraphURL; tests point it at
	// wacloudtest).
	GraphURL string
	// APIVersion is the Graph API version in every path (default DefaultAPIVersion).
	APIVersion string
	// Client makes the Graph API calls (default: a client with a 30 s timeout).
	Client *http.Client
	// MediaClient downloads from the URLs the Graph API hands out and fetches the media.url
	// of outbound messages. Those are the provider's and the users' to name, so the
	// composition root passes an SSRF-guarded client (default: channels.GuardedClient with
	// the default policy, which refuses every non-public address).
	MediaClient *http.Client
	// MaxMediaBytes bounds a file fetched from an outbound message's media.url before it is
	// uploaded (default channels.DefaultMaxUploadBytes, 16 MiB: WhatsApp's limit for video
	// and audio; images take at most 5 MB, documents 100 MB).
	MaxMediaBytes int64
}

// The service finds these by type assertion: a missing method would silently disable
// inbound traffic, so the compiler checks them.
var (
	_ channels.Driver       = (*Driver)(nil)
	_ channels.Binder       = (*Driver)(nil)
	_ channels.Receiver     = (*Driver)(nil)
	_ channels.MediaFetcher = (*Driver)(nil)
)

// Driver is the WhatsApp Cloud API channel.
type Driver struct {
	channels.Unsupported
	opts Options
	host atomic.Pointer[channels.Host]
}

// New returns the driver.
func New(opts Options) *Driver {
	if opts.GraphURL == "" {
		opts.GraphURL = DefaultGraphURL
	}
	opts.GraphURL = strings.TrimRight(opts.GraphURL, "/")
	if opts.APIVersion == "" {
		opts.APIVersion = DefaultAPIVersion
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 30 * time.Second}
	}
	if opts.MediaClient == nil {
		opts.MediaClient = channels.GuardedClient(ssrf.MustPolicy(), 30*time.Second)
	}
	if opts.MaxMediaBytes <= 0 {
		opts.MaxMediaBytes = channels.DefaultMaxUploadBytes
	}
	return &Driver{opts: opts}
}

// Bind receives the service's host, through which a revoked token fails the instance.
func (d *Driver) Bind(h channels.Host) { d.host.Store(&h) }

func (d *Driver) Name() string { return Name }

func (d *Driver) Capabilities() channels.Capabilities {
	return channels.Capabilities{
		Types: []string{domain.TypeText, domain.TypeImage, domain.TypeVideo, domain.TypeAudio, domain.TypeVoice,
			domain.TypeDocument, domain.TypeSticker, domain.TypeLocation, domain.TypeContact, domain.TypeReaction,
			domain.TypeTemplate},
		Receipts: []string{domain.MessageDelivered, domain.MessageRead},
		Reply:    true, MarkRead: true, Typing: true, TypingMarksRead: true,
	}
}

func (d *Driver) ConfigFields() []channels.ConfigField {
	return []channels.ConfigField{
		{Name: ConfigPhoneNumberID, Type: "string", Required: true, MaxLength: 64,
			Description: "The phone number ID (not the number itself): Meta App Dashboard → WhatsApp → API Setup."},
		{Name: ConfigAccessToken, Type: "string", Secret: true, Required: true, MaxLength: 2000,
			Description: "A System User access token with the whatsapp_business_messaging permission."},
		{Name: ConfigAppSecret, Type: "string", Secret: true, Required: true, MaxLength: 200,
			Description: "The app secret (App settings → Basic): Meta signs every notification with it."},
		{Name: ConfigVerifyToken, Type: "string", Secret: true, Required: true, MaxLength: 200,
			Description: "Any string you choose: paste it with the callback URL into the app's WhatsApp webhook configuration."},
	}
}

var addressRE = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)

func (d *Driver) ValidateAddress(address string) error {
	if !addressRE.MatchString(address) {
		return fmt.Errorf("must be a phone number in E.164 form, such as +16315551234")
	}
	return nil
}

// waID is an address as the API writes it: E.164 digits without the plus.
func waID(address string) string { return strings.TrimPrefix(address, "+") }

// address is a WhatsApp id (or a display number such as "+1 631-555-1234") in our form.
func address(id string) string {
	var b strings.Builder
	b.WriteByte('+')
	for _, r := range id {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// account is what every Graph API call of an instance needs.
type account struct {
	phoneNumberID string
	token         string
	appSecret     string
}

// phoneNumberIDRE keeps the configured id a single path segment of digits, as Meta's are.
var phoneNumberIDRE = regexp.MustCompile(`^[0-9]{1,32}$`)

func accountOf(in channels.Instance) (account, error) {
	a := account{phoneNumberID: strings.TrimSpace(in.String(ConfigPhoneNumberID)),
		token: in.Secrets[ConfigAccessToken], appSecret: in.Secrets[ConfigAppSecret]}
	if !phoneNumberIDRE.MatchString(a.phoneNumberID) {
		return a, errors.New("phone_number_id must be the numeric phone number ID from the Meta App Dashboard (WhatsApp → API Setup)")
	}
	if a.token == "" {
		return a, errors.New("access_token is not set")
	}
	return a, nil
}

// Connect checks the token and the phone number id by reading the number; the webhook is
// configured in the Meta dashboard, so nothing is registered here.
func (d *Driver) Connect(ctx context.Context, in channels.Instance, _ bool) (channels.Connection, error) {
	a, err := accountOf(in)
	if err != nil {
		return channels.Connection{}, err
	}
	var phone struct {
		DisplayPhoneNumber string `json:"display_phone_number"`
		VerifiedName       string `json:"verified_name"`
	}
	q := url.Values{"fields": {"display_phone_number,verified_name"}}
	if err := d.call(ctx, a, http.MethodGet, url.PathEscape(a.phoneNumberID), q, nil, &phone); err != nil {
		return channels.Connection{}, connectError(a, err)
	}
	addr := address(phone.DisplayPhoneNumber)
	if d.ValidateAddress(addr) != nil {
		return channels.Connection{}, fmt.Errorf("WhatsApp answered an unusable display phone number %q", phone.DisplayPhoneNumber)
	}
	return channels.Connection{Status: domain.InstanceConnected, Address: addr}, nil
}

// Disconnect has nothing to end remotely: the token stays valid until revoked in Meta's
// Business Manager, and notifications keep coming until the webhook is removed there.
func (d *Driver) Disconnect(context.Context, channels.Instance) error { return nil }
