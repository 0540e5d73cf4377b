package telegram

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/go-telegram/bot"

	"github.com/switchboard-dev/switchboard/backend/channels"
)

// FetchMedia opens the download of a file a message carried (ref is its file_id): getFile
// says where it is and how large, then the file is fetched from the Bot API's file server.
func (d *Driver) FetchMedia(ctx context.Context, in channels.Instance, ref string, maxBytes int64) (channels.MediaFile, error) {
	b, tok, err := d.callBot(in)
	if err != nil {
		return channels.MediaFile{}, err
	}
	f, err := b.GetFile(ctx, &bot.GetFileParams{FileID: ref})
	if err != nil {
		err = d.fail(ctx, in, tok, err)
		var se *channels.SendError
		if errors.As(err, &se) && strings.Contains(strings.ToLower(se.Message), "file is too big") {
			// Bots download files of up to 20 MB; Telegram says so of larger ones, whatever
			// the media size limit is here.
			return channels.MediaFile{}, channels.ErrMediaTooLarge
		}
		return channels.MediaFile{}, err
	}
	if f.FilePath == "" {
		return channels.MediaFile{}, errors.New("telegram: getFile gave no file_path")
	}
	if maxBytes > 0 && f.FileSize > maxBytes {
		return channels.MediaFile{}, channels.ErrMediaTooLarge
	}
	return d.download(ctx, tok, f.FilePath, f.FileSize)
}

// download fetches a file by hand: the library only builds the link
// (FileDownloadLink), and its answers are files, not Bot API JSON. The link holds the
// token, so no error may show it.
func (d *Driver) download(ctx context.Context, tok, filePath string, size int64) (channels.MediaFile, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.server+"/file/bot"+tok+"/"+filePath, nil)
	if err != nil {
		return channels.MediaFile{}, fmt.Errorf("telegram: %s", scrub(err.Error(), tok))
	}
	resp, err := d.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return channels.MediaFile{}, ctx.Err()
		}
		return channels.MediaFile{}, fmt.Errorf("telegram: downloading a file: %s", scrub(err.Error(), tok))
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return channels.MediaFile{}, fmt.Errorf("telegram: downloading a file: %s", resp.Status)
	}
	if resp.ContentLength >= 0 {
		size = resp.ContentLength
	} else if size <= 0 {
		size = -1
	}
	ctype, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	if ctype = strings.TrimSpace(ctype); ctype == "" || ctype == "application/octet-stream" {
		// Telegram's file server often answers octet-stream; the extension says more.
		if byExt, _, _ := strings.Cut(mime.TypeByExtension(path.Ext(filePath)), ";"); byExt != "" {
			ctype = byExt
		} else if ctype == "" {
			ctype = "application/octet-stream"
		}
	}
	return channels.MediaFile{Body: resp.Body, ContentType: ctype, FileName: path.Base(filePath), Size: size}, nil
}
