// Package telegram is the Telegram Bot API channel: one instance is one bot, connected with
// its token from @BotFather. Telegram calls the instance back through a webhook (see
// receive.go); sends, edits and group changes are Bot API calls made with
// github.com/go-telegram/bot.
//
// Telegram message ids are unique only within a chat, so every provider message id this
// driver hands out or reads is "<chat_id>:<message_id>".
//
// Outbound media named by media.url is fetched here, through the SSRF-guarded media client
// and within MaxMediaBytes, and uploaded (multipart); a provider_media_id (a file_id) is
// sent as is.
package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
)

// Name is the channel's name.
const Name = "telegram"

// ConfigToken is the bot token setting.
const ConfigToken = "bot_token"

// DefaultServerURL is Telegram's Bot API server.
const DefaultServerURL = "https://api.telegram.org"

// allowedUpdates are the update kinds the webhook asks for. message_reaction and
// chat_member are only sent when asked for by name (and to bots that are chat admins).
var allowedUpdates = []string{
	models.AllowedUpdateMessage, models.AllowedUpdateEditedMessage,
	models.AllowedUpdateChannelPost, models.AllowedUpdateEditedChannelPost,
	models.AllowedUpdateMessageReaction, models.AllowedUpdateMyChatMember, models.AllowedUpdateChatMember,
}

// Options configure the driver.
type Options struct {
	// ServerURL is the Bot API server (default https://api.telegram.org; tests use a fake,
	// operators may run their own telegram-bot-api server).
	ServerURL string
	// Client makes the Bot API calls (default: a client with a 30 s timeout). Its timeout
	// also bounds uploading a file of up to MaxMediaBytes.
	Client *http.Client
	// MediaClient fetches the media.url of outbound messages, which users name: the
	// composition root passes an SSRF-guarded client (default: channels.GuardedClient with
	// the default policy, which refuses every non-public address).
	MediaClient *http.Client
	// MaxMediaBytes bounds a file fetched from media.url (default
	// channels.DefaultMaxUploadBytes, 16 MiB; Telegram takes bot uploads up to 50 MB, photos
	// up to 10 MB).
	MaxMediaBytes int64
}

// Driver is the Telegram channel.
type Driver struct {
	channels.Unsupported
	server   string
	client   *http.Client
	media    *http.Client
	maxMedia int64
	host     atomic.Pointer[channels.Host]
}

// New returns the Telegram driver.
func New(opts Options) *Driver {
	d := &Driver{server: strings.TrimRight(opts.ServerURL, "/"), client: opts.Client, media: opts.MediaClient,
		maxMedia: opts.MaxMediaBytes}
	if d.server == "" {
		d.server = DefaultServerURL
	}
	if d.client == nil {
		d.client = &http.Client{Timeout: 30 * time.Second}
	}
	if d.media == nil {
		d.media = channels.GuardedClient(ssrf.MustPolicy(), 30*time.Second)
	}
	if d.maxMedia <= 0 {
		d.maxMedia = channels.DefaultMaxUploadBytes
	}
	return d
}

// Bind receives the service's host, through which a revoked token is reported.
func (d *Driver) Bind(h channels.Host) { d.host.Store(&h) }

func (d *Driver) Name() string { return Name }

// Capabilities: Telegram reports no delivery or read receipts to bots, and bots cannot
// create groups, mark messages read or look users up.
func (d *Driver) Capabilities() channels.Capabilities {
	return channels.Capabilities{
		Types: []string{domain.TypeText, domain.TypeImage, domain.TypeVideo, domain.TypeAudio, domain.TypeVoice,
			domain.TypeDocument, domain.TypeSticker, domain.TypeLocation, domain.TypeContact, domain.TypePoll,
			domain.TypeReaction},
		Reply: true, Edit: true, Delete: true, Typing: true, Groups: true, Threads: true,
	}
}

func (d *Driver) ConfigFields() []channels.ConfigField {
	return []channels.ConfigField{
		{Name: ConfigToken, Type: "string", Secret: true, Required: true, MaxLength: 100,
			Description: "The bot's token, such as 123456789:AAH...: ask @BotFather on Telegram " +
				"(/newbot for a new bot, /token for an existing one)."},
	}
}

var (
	chatIDRE   = regexp.MustCompile(`^-?[1-9][0-9]{0,19}$`)
	usernameRE = regexp.MustCompile(`^@[A-Za-z][A-Za-z0-9_]{3,31}$`)
	// tokenRE is the loose shape of a token: the bot's id, a colon, then the secret part.
	tokenRE = regexp.MustCompile(`^[0-9]{1,20}:[A-Za-z0-9_-]{20,80}$`)
)

func (d *Driver) ValidateAddress(address string) error {
	if usernameRE.MatchString(address) {
		return nil
	}
	if chatIDRE.MatchString(address) {
		if _, err := strconv.ParseInt(address, 10, 64); err == nil {
			return nil
		}
	}
	return errors.New("must be a Telegram chat id (an integer, negative for groups and channels, " +
		"such as -1001234567890) or a public @channelusername")
}

// tokenOf returns the instance's bot token, or an error safe to show when it has none.
func tokenOf(in channels.Instance) (string, error) {
	tok := strings.TrimSpace(in.Secrets[ConfigToken])
	if tok == "" {
		return "", errors.New("the instance has no bot token: set bot_token to the token @BotFather gave you")
	}
	if !tokenRE.MatchString(tok) {
		return "", errors.New("bot_token does not look like a token from @BotFather (digits, a colon, then letters and digits)")
	}
	return tok, nil
}

// botFor returns a Bot API client for the instance's token. Making one is cheap (no
// network call: getMe is skipped), so none is kept between calls and a changed token
// takes effect at once.
func (d *Driver) botFor(in channels.Instance) (*bot.Bot, string, error) {
	tok, err := tokenOf(in)
	if err != nil {
		return nil, "", err
	}
	b, err := bot.New(tok, bot.WithSkipGetMe(), bot.WithServerURL(d.server), bot.WithHTTPClient(0, d.client),
		bot.WithUpdatesChannelCap(0), bot.WithErrorsHandler(func(error) {}))
	if err != nil {
		return nil, "", fmt.Errorf("telegram: %s", scrub(err.Error(), tok))
	}
	return b, tok, nil
}

// Connect checks the token (getMe) and points the bot's webhook at the instance's
// callback URL, with its secret.
func (d *Driver) Connect(ctx context.Context, in channels.Instance, _ bool) (channels.Connection, error) {
	b, tok, err := d.botFor(in)
	if err != nil {
		return channels.Connection{}, err
	}
	if in.CallbackURL == "" || in.CallbackSecret == "" {
		return channels.Connection{}, errors.New("telegram: the instance has no callback URL to set as the bot's webhook")
	}
	me, err := b.GetMe(ctx)
	if err != nil {
		return channels.Connection{}, connectError("the token check", err, tok)
	}
	if me.Username == "" {
		return channels.Connection{}, reason("Telegram answered getMe without the bot's username")
	}
	_, err = b.SetWebhook(ctx, &bot.SetWebhookParams{URL: in.CallbackURL, SecretToken: in.CallbackSecret,
		AllowedUpdates: allowedUpdates})
	if err != nil {
		return channels.Connection{}, connectError("the webhook", err, tok)
	}
	return channels.Connection{Status: domain.InstanceConnected, Address: "@" + me.Username}, nil
}

// Disconnect removes the webhook, so Telegram stops calling the instance.
func (d *Driver) Disconnect(ctx context.Context, in channels.Instance) error {
	b, tok, err := d.botFor(in)
	if err != nil {
		return nil // no usable token: there is no webhook we could remove
	}
	_, err = b.DeleteWebhook(ctx, nil)
	if err := classify(err, tok); err != nil {
		if isUnauthorized(err) {
			// A revoked token cannot remove its webhook, and Telegram no longer calls it.
			return nil
		}
		return err
	}
	return nil
}

// chatID is a chat address as the Bot API takes it: the integer id, or "@username" for
// public channels and supergroups.
func chatID(address string) any {
	if n, err := strconv.ParseInt(address, 10, 64); err == nil {
		return n
	}
	return address
}

// providerID joins a chat id and a message id into a provider message id.
func providerID(chat int64, msg int) string {
	return strconv.FormatInt(chat, 10) + ":" + strconv.Itoa(msg)
}

// splitProviderID is the inverse of providerID.
func splitProviderID(id string) (chat int64, msg int, err error) {
	c, m, ok := strings.Cut(id, ":")
	if ok {
		chat, err = strconv.ParseInt(c, 10, 64)
		if err == nil {
			msg, err = strconv.Atoi(m)
		}
	}
	if !ok || err != nil || msg <= 0 {
		return 0, 0, &channels.SendError{Code: "invalid_request", Permanent: true,
			Message: fmt.Sprintf("%q is not a Telegram message id (chat_id:message_id)", id)}
	}
	return chat, msg, nil
}
