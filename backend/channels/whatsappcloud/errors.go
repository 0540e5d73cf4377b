package whatsappcloud

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

// graphError is the Graph API's error object ({"error": {...}}).
type graphError struct {
	Message   string `json:"message"`
	Type      string `json:"type"`
	Code      int    `json:"code"`
	Subcode   int    `json:"error_subcode"`
	ErrorData struct {
		Details string `json:"details"`
	} `json:"error_data"`
	FBTraceID string `json:"fbtrace_id"`
}

// graphFailure is a non-2xx Graph API answer, before mapError says what it means.
type graphFailure struct {
	Status     int
	RetryAfter time.Duration
	graphError
}

func (f *graphFailure) Error() string {
	return fmt.Sprintf("WhatsApp Cloud API: HTTP %d, code %d: %s", f.Status, f.Code, f.text())
}

// text is the provider's message with its details, which usually name the cause.
func (f *graphFailure) text() string {
	msg := f.Message
	if msg == "" {
		msg = http.StatusText(f.Status)
	}
	if d := f.ErrorData.Details; d != "" && d != msg {
		msg += " (" + d + ")"
	}
	return msg
}

// failureOf reads an error answer. Provider text is shown to users (status reasons, message
// errors), so our secrets are scrubbed from it should Meta ever echo one.
func failureOf(resp *http.Response, raw []byte, a account) *graphFailure {
	f := &graphFailure{Status: resp.StatusCode, RetryAfter: retryAfter(resp.Header.Get("Retry-After"))}
	var body struct {
		Error *graphError `json:"error"`
	}
	if json.Unmarshal(raw, &body) == nil && body.Error != nil {
		f.graphError = *body.Error
	}
	f.Message = redact(f.Message, a)
	f.ErrorData.Details = redact(f.ErrorData.Details, a)
	return f
}

func redact(s string, a account) string {
	for _, secret := range []string{a.token, a.appSecret} {
		if len(secret) >= 8 {
			s = strings.ReplaceAll(s, secret, "[redacted]")
		}
	}
	return s
}

// retryAfter reads a Retry-After header: seconds or an HTTP date (0 when absent).
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// Graph API error codes that mean something to us.
const (
	codeTooManyCalls  = 4   // the app's call rate
	codeRateLimit     = 613 // Graph's generic "calls to this API exceeded the rate limit"
	codeAccessToken   = 190 // expired, revoked or malformed token
	codePermission    = 10  // the app or token lacks a permission (also 200–299)
	codeInvalidParam  = 100 // with subcode 33: no such object (an unknown phone number id)
	subcodeNoObject   = 33
	codeWABARateLimit = 80007  // the business account's rate limit
	codeThroughput    = 130429 // Cloud API throughput reached
	codeSpamRateLimit = 131048 // too many messages blocked or flagged as spam
	codeReEngagement  = 131047 // more than 24 hours since the customer last wrote
	codeUndeliverable = 131026 // not on WhatsApp, blocked us, old app version, ...
	codePairRateLimit = 131056 // too many messages to one customer in a short time
)

// errCodeUnauthorized is the SendError code of a refused token, errCodePermission of a
// token without a permission the call needs; the instance fails too, for either: every
// send would fail the same way until the token is replaced.
const (
	errCodeUnauthorized = "unauthorized"
	errCodePermission   = "permission_denied"
)

// mapError says what a failed Graph API call means, in one place: slow down (rate limits),
// give up (the provider refused this message or our token), or try again (5xx, network).
func mapError(err error) error {
	var f *graphFailure
	if !errors.As(err, &f) {
		return err // transport failures are retried
	}
	switch {
	case f.Status == http.StatusTooManyRequests || f.Code == codeTooManyCalls || f.Code == codeRateLimit ||
		f.Code == codeWABARateLimit || f.Code == codeThroughput || f.Code == codeSpamRateLimit ||
		f.Code == codePairRateLimit:
		return &channels.RateLimitedError{RetryAfter: f.RetryAfter, Message: fmt.Sprintf("(%d) %s", f.Code, f.text())}
	case f.Code == codeAccessToken || f.Status == http.StatusUnauthorized:
		return &channels.SendError{Code: errCodeUnauthorized, Permanent: true,
			Message: fmt.Sprintf("WhatsApp refused the access token (%d): %s", f.Code, f.text())}
	case f.Code == codePermission || (f.Code >= 200 && f.Code <= 299):
		return &channels.SendError{Code: errCodePermission, Permanent: true,
			Message: fmt.Sprintf("WhatsApp says the access token lacks a permission (%d): %s; give the token "+
				"whatsapp_business_messaging and whatsapp_business_management for this number", f.Code, f.text())}
	case f.Code == codeReEngagement:
		return &channels.SendError{Code: failureCode(f.Code), Permanent: true,
			Message: "more than 24 hours have passed since the customer last wrote: only an approved template message can reach them now"}
	case f.Code == codeUndeliverable:
		return &channels.SendError{Code: failureCode(f.Code), Permanent: true, Message: f.text()}
	case f.Status >= 500:
		return f // the provider's trouble: retried
	case f.Status >= 400:
		code := failureCode(f.Code)
		if f.Code == 0 {
			code = "provider_error_http_" + strconv.Itoa(f.Status)
		}
		return &channels.SendError{Code: code, Permanent: true, Message: f.text()}
	}
	return f
}

// failureCode is our code for a message WhatsApp refused, the same whether the refusal
// answers the send or arrives later as a failed status: the two we can name, else the
// provider's number.
func failureCode(code int) string {
	switch code {
	case codeReEngagement:
		return "outside_customer_service_window"
	case codeUndeliverable:
		return "recipient_unreachable"
	}
	return "provider_error_" + strconv.Itoa(code)
}

// fail maps err and, when the token was refused, fails the instance through the host so
// the user sees why sends stopped (the token must be replaced by hand).
func (d *Driver) fail(ctx context.Context, in channels.Instance, err error) error {
	err = mapError(err)
	var se *channels.SendError
	if !errors.As(err, &se) || (se.Code != errCodeUnauthorized && se.Code != errCodePermission) {
		return err
	}
	h := d.host.Load()
	if h == nil {
		return err // unbound (a tool or a test): nobody to tell
	}
	ev := channels.Event{InstanceID: in.ID, Kind: channels.EventStatus,
		Status: &channels.Status{Status: domain.InstanceFailed, Reason: se.Message}}
	if eerr := (*h).Emit(ctx, 0, ev); eerr != nil {
		return errors.Join(err, fmt.Errorf("recording the instance's failure: %w", eerr))
	}
	return err
}

// connectError is the reason a failed connect shows (status_reason): the provider's words
// with what to do, never a secret.
func connectError(a account, err error) error {
	var f *graphFailure
	// Subcodes are deprecated in WhatsApp's own errors but still come with Graph's
	// "Unsupported get request"; its type names it too.
	if errors.As(err, &f) && f.Code == codeInvalidParam && (f.Subcode == subcodeNoObject || f.Type == "GraphMethodException") {
		return fmt.Errorf("WhatsApp does not know phone number ID %s, or this access token may not use it: "+
			"check the ID under WhatsApp → API Setup in the Meta App Dashboard", a.phoneNumberID)
	}
	err = mapError(err)
	var se *channels.SendError
	switch {
	case errors.As(err, &se) && (se.Code == errCodeUnauthorized || se.Code == errCodePermission):
		return errors.New(se.Message)
	case errors.As(err, &se):
		return fmt.Errorf("WhatsApp refused (%s): %s", se.Code, se.Message)
	}
	return err
}
