package media

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/blob"
)

type fixture struct {
	srv    *httptest.Server
	store  *blob.Store
	signer *Signer
	clock  *clock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	store, err := blob.Open(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	f := &fixture{store: store, clock: &clock{time.Unix(1_800_000_000, 0)}}
	f.signer = newSigner(f.clock)
	mux := http.NewServeMux()
	mux.Handle(Prefix, Handler(store, f.signer, slog.New(slog.DiscardHandler)))
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	f.signer.Base = f.srv.URL
	return f
}

func (f *fixture) put(t *testing.T, key, contentType string, body []byte) {
	t.Helper()
	if _, err := f.store.Put(context.Background(), key, contentType, bytes.NewReader(body), 1<<20); err != nil {
		t.Fatal(err)
	}
}

func do(t *testing.T, method, rawURL string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// errorCode reads the API envelope's error code.
func errorCode(t *testing.T, body []byte) string {
	t.Helper()
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("not an error envelope: %s", body)
	}
	return env.Error.Code
}

func TestServesSignedMedia(t *testing.T) {
	f := newFixture(t)
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)
	f.put(t, "media/ws_1/inst_1/pic", "image/png", png)
	raw := f.signer.URL("media/ws_1/inst_1/pic")

	res, body := do(t, http.MethodGet, raw, nil)
	if res.StatusCode != http.StatusOK || !bytes.Equal(body, png) {
		t.Fatalf("GET = %d, %d bytes", res.StatusCode, len(body))
	}
	want := map[string]string{
		"Content-Type":            "image/png",
		"Content-Length":          "108",
		"Cache-Control":           "private, max-age=900",
		"X-Content-Type-Options":  "nosniff",
		"Content-Security-Policy": "sandbox",
		"Content-Disposition":     "",
		"Accept-Ranges":           "bytes",
	}
	for k, v := range want {
		if got := res.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}

	// The cache lifetime shrinks with the URL's.
	f.clock.t = f.clock.t.Add(10 * time.Minute)
	res, _ = do(t, http.MethodHead, raw, nil)
	if res.StatusCode != http.StatusOK || res.Header.Get("Cache-Control") != "private, max-age=300" ||
		res.Header.Get("Content-Length") != "108" {
		t.Errorf("HEAD = %d, %v", res.StatusCode, res.Header)
	}

	res, body = do(t, http.MethodGet, raw, http.Header{"Range": {"bytes=8-11"}})
	if res.StatusCode != http.StatusPartialContent || !bytes.Equal(body, []byte{7, 7, 7, 7}) ||
		res.Header.Get("Content-Range") != "bytes 8-11/108" {
		t.Errorf("Range GET = %d %q %v", res.StatusCode, body, res.Header)
	}
}

func TestTamperedURLsAreForbidden(t *testing.T) {
	f := newFixture(t)
	f.put(t, "media/w/i/a", "image/jpeg", []byte("a"))
	f.put(t, "media/w/i/b", "image/jpeg", []byte("b"))
	raw := f.signer.URL("media/w/i/a")
	u, _ := url.Parse(raw)
	q := u.Query()

	with := func(path string, change func(url.Values)) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = append([]string(nil), vs...)
		}
		change(v)
		return f.srv.URL + path + "?" + v.Encode()
	}
	for name, tampered := range map[string]string{
		"other key":       with("/media/media/w/i/b", func(url.Values) {}),
		"later expiry":    with(u.Path, func(v url.Values) { v.Set("expires", "1900000000") }),
		"other signature": with(u.Path, func(v url.Values) { v.Set("signature", strings.Repeat("A", 43)) }),
		"no signature":    with(u.Path, func(v url.Values) { v.Del("signature") }),
		"no query":        f.srv.URL + u.Path,
		"dot-dot key":     with("/media/media/w/i/../j/a", func(url.Values) {}),
		"escaped dot-dot": with("/media/media/w/i/%2e%2e/j/a", func(url.Values) {}),
	} {
		res, body := do(t, http.MethodGet, tampered, nil)
		if res.StatusCode != http.StatusForbidden || errorCode(t, body) != "signature_invalid" {
			t.Errorf("%s: %d %s", name, res.StatusCode, body)
		}
	}
}

func TestExpiredURL(t *testing.T) {
	f := newFixture(t)
	f.put(t, "media/w/i/a", "image/jpeg", []byte("a"))
	raw := f.signer.URL("media/w/i/a")
	f.clock.t = f.clock.t.Add(f.signer.TTL)
	res, body := do(t, http.MethodGet, raw, nil)
	if res.StatusCode != http.StatusForbidden || errorCode(t, body) != "url_expired" {
		t.Errorf("expired: %d %s", res.StatusCode, body)
	}
}

func TestMissingMedia(t *testing.T) {
	f := newFixture(t)
	res, body := do(t, http.MethodGet, f.signer.URL("media/w/i/gone"), nil)
	if res.StatusCode != http.StatusNotFound || errorCode(t, body) != "not_found" {
		t.Errorf("missing: %d %s", res.StatusCode, body)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	f := newFixture(t)
	f.put(t, "media/w/i/a", "image/jpeg", []byte("a"))
	res, body := do(t, http.MethodPost, f.signer.URL("media/w/i/a"), nil)
	if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" ||
		errorCode(t, body) != "method_not_allowed" {
		t.Errorf("POST: %d %v %s", res.StatusCode, res.Header, body)
	}
}

// Files a stranger sent that a browser would render as a page (or run) are downloaded,
// typed as declared, and sandboxed even if opened.
func TestActiveContentIsAnAttachment(t *testing.T) {
	f := newFixture(t)
	for key, ct := range map[string]string{
		"media/w/i/page":  "text/html; charset=utf-8",
		"media/w/i/svg":   "image/svg+xml",
		"media/w/i/pdf":   "application/pdf",
		"media/w/i/voice": "audio/ogg",
	} {
		f.put(t, key, ct, []byte("<html><script>alert(document.cookie)</script></html>"))
		res, _ := do(t, http.MethodGet, f.signer.URL(key), nil)
		wantDisposition := "attachment"
		if ct == "audio/ogg" {
			wantDisposition = ""
		}
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != ct ||
			res.Header.Get("Content-Disposition") != wantDisposition ||
			res.Header.Get("X-Content-Type-Options") != "nosniff" ||
			res.Header.Get("Content-Security-Policy") != "sandbox" {
			t.Errorf("%s: %d %v", ct, res.StatusCode, res.Header)
		}
	}
}

func TestWeakKeyFailsClosed(t *testing.T) {
	f := newFixture(t)
	f.put(t, "media/w/i/a", "image/jpeg", []byte("a"))
	f.signer.Key = []byte("short")
	res, body := do(t, http.MethodGet, f.signer.URL("media/w/i/a"), nil)
	if res.StatusCode != http.StatusInternalServerError || bytes.Contains(body, []byte("short")) {
		t.Errorf("weak key: %d %s", res.StatusCode, body)
	}
}
