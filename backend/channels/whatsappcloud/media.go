package whatsappcloud

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/channels"
)

// mediaInfo is the answer of GET /{media_id}: where to download the file for the next five
// minutes, and what it is.
type mediaInfo struct {
	URL      string   `json:"url"`
	MimeType string   `json:"mime_type"`
	SHA256   string   `json:"sha256"`
	FileSize byteSize `json:"file_size"`
	ID       string   `json:"id"`
}

// byteSize reads file_size, which Meta's reference shows as a string ("303833") and some
// answers carry as a number.
type byteSize int64

func (s *byteSize) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(b, `"`)
	if len(b) == 0 || string(b) == "null" {
		*s = -1
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("file_size %q: %w", b, err)
	}
	*s = byteSize(n)
	return nil
}

// FetchMedia opens a received file: the Graph API names a short-lived URL, which is
// downloaded with the same token through the media client.
func (d *Driver) FetchMedia(ctx context.Context, in channels.Instance, ref string, maxBytes int64) (channels.MediaFile, error) {
	a, err := accountOf(in)
	if err != nil {
		return channels.MediaFile{}, err
	}
	if ref == "" {
		return channels.MediaFile{}, fmt.Errorf("no media id")
	}
	info := mediaInfo{FileSize: -1}
	// phone_number_id makes the API refuse media of another number, so one tenant's
	// notification cannot make us fetch another's files with their token.
	q := url.Values{"phone_number_id": {a.phoneNumberID}}
	if err := d.call(ctx, a, http.MethodGet, url.PathEscape(ref), q, nil, &info); err != nil {
		return channels.MediaFile{}, d.fail(ctx, in, err)
	}
	if maxBytes > 0 && int64(info.FileSize) > maxBytes {
		return channels.MediaFile{}, channels.ErrMediaTooLarge
	}
	if info.URL == "" {
		return channels.MediaFile{}, fmt.Errorf("WhatsApp returned no download URL for media %s", ref)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, info.URL, nil)
	if err != nil {
		return channels.MediaFile{}, fmt.Errorf("WhatsApp returned an unusable download URL for media %s", ref)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := d.opts.MediaClient.Do(req)
	if err != nil {
		return channels.MediaFile{}, fmt.Errorf("downloading WhatsApp media %s: %w", ref, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return channels.MediaFile{}, fmt.Errorf("downloading WhatsApp media %s: HTTP %d", ref, resp.StatusCode)
	}
	if maxBytes > 0 && resp.ContentLength > maxBytes {
		resp.Body.Close()
		return channels.MediaFile{}, channels.ErrMediaTooLarge
	}
	size := int64(info.FileSize)
	if size < 0 {
		size = resp.ContentLength
	}
	ctype := info.MimeType
	if ctype == "" {
		ctype = resp.Header.Get("Content-Type")
	}
	return channels.MediaFile{Body: resp.Body, ContentType: ctype, Size: size}, nil
}

// upload posts a file to POST /{phone_number_id}/media (a multipart form of
// messaging_product, type and file) and returns the media id WhatsApp answers, which a
// message then names. Uploaded media is kept for 30 days.
func (d *Driver) upload(ctx context.Context, a account, f channels.FetchedFile) (string, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("messaging_product", "whatsapp")
	_ = w.WriteField("type", f.ContentType)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="`+quoteEscaper.Replace(f.FileName)+`"`)
	h.Set("Content-Type", f.ContentType)
	part, err := w.CreatePart(h)
	if err != nil {
		return "", err
	}
	if _, err := part.Write(f.Data); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	u := d.opts.GraphURL + "/" + d.opts.APIVersion + "/" + url.PathEscape(a.phoneNumberID) + "/media"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, &body)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	var out struct {
		ID string `json:"id"`
	}
	if err := d.do(req, a, &out); err != nil {
		return "", err
	}
	if out.ID == "" {
		// Nothing was sent to the customer: trying again is safe.
		return "", errors.New("WhatsApp answered the media upload without a media id")
	}
	return out.ID, nil
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "", "\n", "")
