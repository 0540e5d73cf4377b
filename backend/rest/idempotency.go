package rest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
)

// idempotent implements Idempotency-Key on POST: the first request with a key runs and its
// response is kept for 24 hours; the same key with the same body replays that response
// (marked Idempotent-Replayed: true); with a different body it is 409 idempotency_conflict.
// A server error (5xx) is not kept, so the client can retry with the same key. scope is the
// route's: a key without it is refused before anything is replayed or kept.
func (a *api) idempotent(scope domain.Scope, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A header sent empty or twice is refused (by Begin, or here), not taken as absent:
		// the client meant the request to be safe to retry.
		keys, sent := r.Header["Idempotency-Key"]
		if r.Method != http.MethodPost || !sent {
			next.ServeHTTP(w, r)
			return
		}
		if len(keys) != 1 {
			a.error(w, r, domain.Invalid("Idempotency-Key", "send one Idempotency-Key header, not %d", len(keys)))
			return
		}
		key := keys[0]
		var body []byte
		if r.Body != nil {
			var err error
			if body, err = io.ReadAll(r.Body); err != nil {
				a.error(w, r, decodeError(err))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		ctx, who := r.Context(), actor(r)
		replay, err := a.svc.Idempotency.Begin(ctx, who, scope, key, r.Method, r.URL.Path, body)
		if err != nil {
			a.error(w, r, err)
			return
		}
		if replay != nil {
			h := w.Header()
			h.Set("Idempotent-Replayed", "true")
			h.Set("Content-Type", replay.ContentType)
			h.Set("Content-Length", strconv.Itoa(len(replay.Body)))
			w.WriteHeader(replay.StatusCode)
			_, _ = w.Write(replay.Body)
			return
		}

		rec := &httpx.StatusRecorder{ResponseWriter: w, Body: &bytes.Buffer{}}
		finished := false
		defer func() {
			// Runs even if the handler panics (the claim is released, then the panic goes on
			// to httpx.Recover) and even if the client went away.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			var err error
			if finished && rec.Status < 500 {
				err = a.svc.Idempotency.Finish(ctx, who, key, rec.Status, rec.Header().Get("Content-Type"), rec.Body.Bytes())
			} else {
				err = a.svc.Idempotency.Abandon(ctx, who, key)
			}
			if err != nil {
				a.log.Error("idempotency: keep response", "request_id", httpx.RequestIDFrom(ctx), "err", err, "path", r.URL.Path)
			}
		}()
		next.ServeHTTP(rec, r)
		if rec.Status == 0 {
			rec.Status = http.StatusOK
		}
		finished = true
	})
}
