package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-telegram/bot"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

// codeUnauthorized is the SendError code of a call made with a token Telegram refuses.
const codeUnauthorized = "unauthorized"

// reasonRevoked is the status reason of an instance whose token stopped working.
const reasonRevoked = "Telegram refused the bot token (401 Unauthorized): it was revoked or changed; " +
	"set the current token from @BotFather (/token) and connect again"

// classify sorts a Bot API error into what the service does with it, in one place:
//   - 429 → *channels.RateLimitedError, retried after Telegram's retry_after;
//   - 401 (and 404, which Telegram answers for a token of the wrong shape) → a permanent
//     SendError with code "unauthorized" (see isUnauthorized);
//   - 400 and 403 about the chat or the request → a permanent SendError with a stable code
//     and Telegram's description; 413 (an upload over Telegram's limit) → a permanent
//     media_too_large;
//   - anything else (5xx, network) → a plain error, which the job engine retries.
//
// The library reports errors as "<kind>, <Telegram's description>" and already masks the
// token in network errors; every text is scrubbed again anyway, since a token in an error
// would end up in logs and status reasons.
func classify(err error, token string) error {
	if err == nil {
		return nil
	}
	var tooMany *bot.TooManyRequestsError
	var migrated *bot.MigrateError
	var own *channels.SendError
	switch {
	case errors.As(err, &own):
		return err // refused before calling Telegram
	case errors.As(err, &tooMany):
		return &channels.RateLimitedError{RetryAfter: time.Duration(tooMany.RetryAfter) * time.Second,
			Message: scrub(description(tooMany.Message, bot.ErrorTooManyRequests), token)}
	case errors.Is(err, bot.ErrorUnauthorized), errors.Is(err, bot.ErrorNotFound):
		return &channels.SendError{Code: codeUnauthorized, Message: reasonRevoked, Permanent: true}
	case errors.As(err, &migrated):
		return &channels.SendError{Code: "chat_migrated", Permanent: true,
			Message: fmt.Sprintf("the group was upgraded to a supergroup: its chat id is now %d", migrated.MigrateToChatID)}
	case errors.Is(err, bot.ErrorForbidden):
		desc := scrub(description(err.Error(), bot.ErrorForbidden), token)
		code := "forbidden"
		if unreachable(desc) {
			code = "recipient_unreachable"
		}
		return &channels.SendError{Code: code, Message: desc, Permanent: true}
	case errors.Is(err, bot.ErrorBadRequest):
		desc := scrub(description(err.Error(), bot.ErrorBadRequest), token)
		code := "invalid_request"
		switch lower := strings.ToLower(desc); {
		case unreachable(desc):
			code = "recipient_unreachable"
		case strings.Contains(lower, "not enough rights"), strings.Contains(lower, "have no rights"):
			code = "forbidden"
		}
		return &channels.SendError{Code: code, Message: desc, Permanent: true}
	case strings.Contains(err.Error(), ", 413 "):
		// The library reports other statuses only in its text: "... for method sendPhoto,
		// 413 Request Entity Too Large". Sending the same file again cannot succeed.
		return &channels.SendError{Code: channels.CodeMediaTooLarge, Permanent: true,
			Message: "Telegram refused the file as too large (bots upload files of at most 50 MB, photos of at most 10 MB)"}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("telegram: %s", scrub(err.Error(), token))
}

// unreachable reports whether Telegram's description says the chat cannot be written to
// at all (as opposed to the bot lacking a right in it).
func unreachable(desc string) bool {
	desc = strings.ToLower(desc)
	for _, s := range []string{"chat not found", "user not found", "bot was blocked", "user is deactivated",
		"bot was kicked", "bot is not a member", "can't initiate conversation", "peer_id_invalid"} {
		if strings.Contains(desc, s) {
			return true
		}
	}
	return false
}

// description is Telegram's own text from a library error "<kind>, <description>".
func description(msg string, kind error) string {
	return strings.TrimSpace(strings.TrimPrefix(msg, kind.Error()+","))
}

// scrub removes the token from a text, raw or URL-escaped.
func scrub(s, token string) string {
	if token == "" {
		return s
	}
	s = strings.ReplaceAll(s, token, "<token>")
	return strings.ReplaceAll(s, url.PathEscape(token), "<token>")
}

func isUnauthorized(err error) bool {
	var se *channels.SendError
	return errors.As(err, &se) && se.Code == codeUnauthorized
}

// fail classifies an error of a call made for a connected instance. A refused token also
// marks the instance failed, through the host: nothing will work until the user sets a new
// one. (Should that event be lost, the next refused call reports it again.)
func (d *Driver) fail(ctx context.Context, in channels.Instance, token string, err error) error {
	err = classify(err, token)
	if isUnauthorized(err) {
		if h := d.host.Load(); h != nil {
			_ = (*h).Emit(ctx, 0, channels.Event{InstanceID: in.ID, Kind: channels.EventStatus,
				Status: &channels.Status{Status: domain.InstanceFailed, Reason: reasonRevoked}})
		}
	}
	return err
}

// reason is an error whose whole text is meant for the instance's status_reason.
type reason string

func (r reason) Error() string { return string(r) }

// connectError is the status reason of a failed connect step ("the token check", "the
// webhook"): Telegram's own words (they never hold the token), without the library's
// prefixes.
func connectError(step string, err error, token string) error {
	switch {
	case errors.Is(err, bot.ErrorUnauthorized):
		return reason("Telegram refused the bot token (401 Unauthorized): check it with @BotFather (/token)")
	case errors.Is(err, bot.ErrorNotFound):
		return reason("Telegram refused the bot token (404 Not Found): check it with @BotFather (/token)")
	case errors.Is(err, bot.ErrorBadRequest):
		return reason("Telegram refused " + step + ": " + scrub(description(err.Error(), bot.ErrorBadRequest), token))
	case errors.Is(err, bot.ErrorForbidden):
		return reason("Telegram refused " + step + ": " + scrub(description(err.Error(), bot.ErrorForbidden), token))
	}
	return reason("Telegram did not answer " + step + ": " + classify(err, token).Error())
}
