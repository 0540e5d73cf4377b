// Package callbacks serves channel providers' calls to instances' callback URLs:
// GET and POST /channels/{driver}/{callback_token} (Telegram's webhook updates, WhatsApp
// Cloud's verification handshake and notifications). It reads the call (body up to 1 MB,
// a rate limit per instance), hands it to the messaging service, and answers what the
// driver says, or an error in the API's envelope. No rule lives here.
package callbacks

import (
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
)

// Prefix is where the handler is mounted.
const Prefix = "/channels/"

// Rate and Burst bound one instance's callbacks: providers send in bursts (WhatsApp batches
// statuses), and answer a 429 by retrying later.
const (
	Rate  = 50
	Burst = 500
)

// Handler serves /channels/{driver}/{token}.
func Handler(cb *messaging.Callbacks, clock domain.Clock, log *slog.Logger) http.Handler {
	limiter := httpx.NewLimiter(clock, Rate, Burst)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest0, _ := strings.CutPrefix(r.URL.Path, Prefix)
		driver, token, ok := strings.Cut(rest0, "/")
		if !ok || driver == "" || token == "" || strings.Contains(token, "/") {
			rest.WriteError(log, w, r, domain.NotFound("callback"))
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodPost {
			w.Header().Set("Allow", "GET, POST")
			rest.WriteError(log, w, r, &domain.Error{Code: domain.CodeInvalid, Reason: "method_not_allowed",
				Message: "providers call back with GET (verification) or POST"})
			return
		}
		// One bucket per callback URL, that is per instance (made-up tokens get buckets of
		// their own and are then answered 404).
		if v := limiter.Take(driver + ":" + token); !v.Allowed {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(v.RetryAfter.Seconds()))))
			rest.WriteError(log, w, r, &domain.Error{Code: domain.CodeRateLimited, Reason: "rate_limited",
				Message: "too many callbacks for this instance; retry later"})
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, messaging.MaxCallbackBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				rest.WriteError(log, w, r, &domain.Error{Code: domain.CodeInvalid, Reason: httpx.ReasonPayloadTooLarge,
					Message: "a callback is at most 1 MB"})
				return
			}
			rest.WriteError(log, w, r, &domain.Error{Code: domain.CodeUnavailable, Message: "the body could not be read", Err: err})
			return
		}
		resp, err := cb.Receive(r.Context(), driver, token, channels.Callback{Method: r.Method, Header: r.Header,
			Query: r.URL.Query(), Body: body})
		if err != nil {
			rest.WriteError(log, w, r, err)
			return
		}
		if resp.Status == 0 {
			resp.Status = http.StatusOK
		}
		if resp.ContentType != "" {
			w.Header().Set("Content-Type", resp.ContentType)
		}
		w.WriteHeader(resp.Status)
		_, _ = w.Write(resp.Body)
	})
}
