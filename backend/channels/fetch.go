package channels

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/ssrf"
)

// DefaultMaxUploadBytes bounds a file fetched from an outbound message's media.url when a
// driver is given no limit: 16 MiB. The file is held in memory while it is uploaded, once
// per concurrent send, so the default stays small; it covers WhatsApp's largest video and
// audio (16 MB) and images (5 MB), and Telegram's photos (10 MB). Operators who send larger
// documents raise the driver's MaxMediaBytes (Telegram takes bot uploads up to 50 MB,
// WhatsApp documents up to 100 MB).
const DefaultMaxUploadBytes = 16 << 20

// Codes of the permanent SendErrors Fetch returns.
const (
	CodeMediaUnreachable = "media_unreachable"
	CodeMediaURLBlocked  = "media_url_blocked"
	CodeMediaTooLarge    = "media_too_large"
)

// FetchedFile is an outbound message's media, downloaded to be uploaded to a provider.
type FetchedFile struct {
	Data []byte
	// ContentType is the media type the server gave (without parameters), else one guessed
	// from the file name's extension, else application/octet-stream.
	ContentType string
	// FileName comes from Content-Disposition, else the URL path's last segment ("file"
	// when neither names one).
	FileName string
}

// GuardedClient returns an HTTP client for URLs that users name: every connection is
// checked against the SSRF policy at dial time (see ssrf.Policy.DialContext), proxies
// from the environment are ignored (a proxy would dial for us, unchecked), and redirects
// are not followed, so a public URL cannot bounce the request inward. Drivers use one with
// the default policy when given no media client.
func GuardedClient(p *ssrf.Policy, timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout,
		Transport: &http.Transport{Proxy: nil, ForceAttemptHTTP2: true, TLSHandshakeTimeout: 10 * time.Second,
			DialContext: p.DialContext(&net.Dialer{Timeout: 10 * time.Second})},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Fetch downloads an outbound message's media.url with c (the caller's SSRF-guarded
// client), refusing files over maxBytes. What it returns says what the job engine does:
//   - a destination the client's SSRF policy refuses → a permanent SendError
//     media_url_blocked;
//   - a non-2xx answer (also a redirect the client did not follow) or an empty file → a
//     permanent SendError media_unreachable;
//   - a file over maxBytes, by Content-Length before reading or while reading → a
//     permanent SendError media_too_large that is also ErrMediaTooLarge (errors.Is);
//   - a URL that is not absolute http(s) → a permanent SendError invalid_request;
//   - a network failure → a plain error, retried. Its text names the URL without its
//     query, which may hold a signature.
func Fetch(ctx context.Context, c *http.Client, rawURL string, maxBytes int64) (FetchedFile, error) {
	if maxBytes <= 0 {
		return FetchedFile{}, errors.New("channels.Fetch: maxBytes must be positive")
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return FetchedFile{}, &SendError{Code: "invalid_request", Permanent: true,
			Message: "media.url must be an absolute http or https URL"}
	}
	shown := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return FetchedFile{}, &SendError{Code: "invalid_request", Permanent: true,
			Message: "media.url must be an absolute http or https URL"}
	}
	req.Header.Set("Accept", "*/*")
	resp, err := c.Do(req)
	if err != nil {
		if ssrf.IsBlocked(err) {
			return FetchedFile{}, &SendError{Code: CodeMediaURLBlocked, Permanent: true,
				Message: "media.url resolves to a non-public address"}
		}
		if ctx.Err() != nil {
			return FetchedFile{}, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text repeats the whole URL
		}
		return FetchedFile{}, fmt.Errorf("fetching media.url %s: %w", shown, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return FetchedFile{}, &SendError{Code: CodeMediaUnreachable, Permanent: true,
			Message: "fetching media.url answered " + resp.Status}
	}
	if resp.ContentLength > maxBytes {
		return FetchedFile{}, tooLarge(maxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return FetchedFile{}, ctx.Err()
		}
		return FetchedFile{}, fmt.Errorf("fetching media.url %s: reading the file: %w", shown, err)
	}
	if int64(len(data)) > maxBytes {
		return FetchedFile{}, tooLarge(maxBytes)
	}
	if len(data) == 0 {
		return FetchedFile{}, &SendError{Code: CodeMediaUnreachable, Permanent: true,
			Message: "fetching media.url answered an empty file"}
	}
	f := FetchedFile{Data: data, FileName: fileName(resp.Header.Get("Content-Disposition"), u.Path)}
	f.ContentType = contentType(resp.Header.Get("Content-Type"), f.FileName)
	return f, nil
}

// mediaTooLarge is a permanent SendError that is also ErrMediaTooLarge.
type mediaTooLarge struct{ se *SendError }

func (e *mediaTooLarge) Error() string   { return e.se.Error() }
func (e *mediaTooLarge) Unwrap() []error { return []error{e.se, ErrMediaTooLarge} }

func tooLarge(maxBytes int64) error {
	return &mediaTooLarge{&SendError{Code: CodeMediaTooLarge, Permanent: true,
		Message: "media.url is larger than the media size limit (" + strconv.FormatInt(maxBytes, 10) + " bytes)"}}
}

// fileName is the name Content-Disposition gives, else the URL path's last segment, kept
// to a plain name (no directories, no control characters).
func fileName(disposition, urlPath string) string {
	name := ""
	if _, params, err := mime.ParseMediaType(disposition); err == nil {
		name = params["filename"] // ParseMediaType decodes filename* into filename
	}
	if name == "" {
		name = path.Base(urlPath) // urlPath is already unescaped
	}
	name = path.Base(strings.ReplaceAll(name, `\`, "/"))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if name = strings.TrimSpace(name); name == "" || name == "." || name == "/" || name == ".." {
		return "file"
	}
	return name
}

// contentType is the server's media type without parameters, or one guessed from the
// extension when the server gave none or only application/octet-stream.
func contentType(header, name string) string {
	typ := ""
	if mt, _, err := mime.ParseMediaType(header); err == nil {
		typ = strings.ToLower(mt)
	}
	if typ == "" || typ == "application/octet-stream" {
		if byExt, _, err := mime.ParseMediaType(mime.TypeByExtension(path.Ext(name))); err == nil {
			return byExt
		}
	}
	if typ == "" {
		return "application/octet-stream"
	}
	return typ
}
