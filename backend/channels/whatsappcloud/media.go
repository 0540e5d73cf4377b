package whatsappcloud

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

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
