package media

import (
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/blob"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/rest"
)

// Handler serves GET and HEAD /media/{key}?expires=…&signature=… from store. The URL is
// the only credential: no API key, no session. Range requests are answered.
func Handler(store *blob.Store, signer *Signer, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			rest.WriteError(log, w, r, &domain.Error{Code: domain.CodeInvalid, Reason: "method_not_allowed",
				Message: "media is read with GET or HEAD"})
			return
		}
		key, _ := strings.CutPrefix(r.URL.Path, Prefix)
		q := r.URL.Query()
		exp, err := signer.verify(key, q.Get("expires"), q.Get("signature"))
		switch {
		case errors.Is(err, ErrURLExpired):
			rest.WriteError(log, w, r, &domain.Error{Code: domain.CodeForbidden, Reason: "url_expired",
				Message: "this media URL has expired; fetch the message again for a fresh one"})
			return
		case errors.Is(err, ErrSignatureInvalid):
			rest.WriteError(log, w, r, &domain.Error{Code: domain.CodeForbidden, Reason: "signature_invalid",
				Message: "this media URL is not valid"})
			return
		case err != nil:
			rest.WriteError(log, w, r, domain.Internal(err))
			return
		}
		// Only keys we signed get here, but one signed before the key rules tightened would
		// otherwise surface as a store error rather than a 404.
		if !blob.ValidKey(key) {
			rest.WriteError(log, w, r, domain.NotFound("media"))
			return
		}
		f, attrs, err := store.Open(r.Context(), key)
		if errors.Is(err, blob.ErrNotFound) {
			rest.WriteError(log, w, r, domain.NotFound("media"))
			return
		}
		if err != nil {
			rest.WriteError(log, w, r, &domain.Error{Code: domain.CodeUnavailable,
				Message: "the media store could not be read; try again", Err: err})
			return
		}
		defer f.Close()

		h := w.Header()
		ct := attrs.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		h.Set("Content-Type", ct)
		// The files come from strangers: the browser must take the declared type as is,
		// never run script from them on our origin, and save anything it would render as a
		// page rather than display it.
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "sandbox")
		if !inline(ct) {
			h.Set("Content-Disposition", "attachment")
		}
		// Cached no longer than the URL is valid, and never by shared caches: the URL is the
		// credential.
		maxAge := max(int64(exp.Sub(signer.now())/time.Second), 0)
		h.Set("Cache-Control", "private, max-age="+strconv.FormatInt(maxAge, 10))
		// ServeContent sets Content-Length, answers Range and If-Modified-Since, and writes
		// no body for HEAD.
		http.ServeContent(w, r, "", attrs.ModTime, f)
	})
}

// inline reports whether a type is displayed rather than downloaded: images, video and
// audio, except SVG, which is a document that can carry script.
func inline(contentType string) bool {
	t, _, err := mime.ParseMediaType(contentType)
	if err != nil || t == "image/svg+xml" {
		return false
	}
	return strings.HasPrefix(t, "image/") || strings.HasPrefix(t, "video/") || strings.HasPrefix(t, "audio/")
}
