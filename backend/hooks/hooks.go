// Package hooks serves inbound publishing calls: POST /hooks/{token}. It reads the request
// (body up to 1 MB, the headers that verify and deduplicate), asks the automation service
// to publish it, and answers 202 {"id":"evt_…"} or an error in the API's envelope. No rule
// lives here.
package hooks

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service/automation"
)

// Prefix is where the handler is mounted.
const Prefix = "/hooks/"

// Handler serves /hooks/{token}.
func Handler(a *automation.Automation, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, _ := strings.CutPrefix(r.URL.Path, Prefix)
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			rest.WriteError(log, w, r, &domain.Error{Code: domain.CodeInvalid, Reason: "method_not_allowed",
				Message: "publish with POST"})
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, automation.MaxPayloadBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				rest.WriteError(log, w, r, &domain.Error{Code: domain.CodeInvalid, Reason: httpx.ReasonPayloadTooLarge,
					Message: "a payload is at most 1 MB"})
				return
			}
			rest.WriteError(log, w, r, &domain.Error{Code: domain.CodeUnavailable, Message: "the body could not be read", Err: err})
			return
		}
		h := r.Header
		call := automation.Call{Token: token, ContentType: h.Get("Content-Type"), Body: body,
			IdempotencyKey: h.Get("Idempotency-Key"), WebhookID: h.Get("webhook-id"),
			WebhookTimestamp: h.Get("webhook-timestamp"), WebhookSignature: h.Get("webhook-signature"),
			HeaderToken: h.Get(automation.HeaderToken)}
		c, replayed, err := a.Publish(r.Context(), call)
		if err != nil {
			rest.WriteError(log, w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if replayed {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		w.WriteHeader(http.StatusAccepted)
		_ = json.NewEncoder(w).Encode(map[string]string{"id": c.ID, "object": "automation_call"})
	})
}
