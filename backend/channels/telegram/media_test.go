package telegram

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/telegram/telegramtest"
)

func TestFetchMedia(t *testing.T) {
	e := connected(t)
	content := []byte("\xff\xd8\xff\xe0 a jpeg, more or less")
	e.tg.AddFile("AgACbig", "photos/file_7.jpg", content, "image/jpeg")
	e.tg.AddFile("AwACvoice", "voice/file_8.pdf", []byte("%PDF"), "")

	f, err := e.d.FetchMedia(context.Background(), e.in, "AgACbig", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(f.Body)
	f.Body.Close()
	if err != nil || string(body) != string(content) {
		t.Fatalf("body = %q, %v", body, err)
	}
	if f.ContentType != "image/jpeg" || f.FileName != "file_7.jpg" || f.Size != int64(len(content)) {
		t.Errorf("file = %+v", f)
	}
	e.lastCall(t, "getFile")

	// Without a type from the server, the extension tells.
	f, err = e.d.FetchMedia(context.Background(), e.in, "AwACvoice", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	f.Body.Close()
	if f.ContentType != "application/pdf" {
		t.Errorf("content type = %q, want it from the extension", f.ContentType)
	}

	if _, err := e.d.FetchMedia(context.Background(), e.in, "AgACbig", int64(len(content)-1)); !errors.Is(err, channels.ErrMediaTooLarge) {
		t.Errorf("over the limit: %v, want ErrMediaTooLarge", err)
	}

	_, err = e.d.FetchMedia(context.Background(), e.in, "nope", 1<<20)
	var se *channels.SendError
	if !errors.As(err, &se) || se.Code != "invalid_request" {
		t.Errorf("unknown file: %v", err)
	}
}

// TestFetchMediaOverTelegramsDownloadLimit: "bots can download files of up to 20MB in
// size" (getFile); Telegram refuses larger ones with "Bad Request: file is too big".
// That is the file being too large, not a passing failure worth retrying.
func TestFetchMediaOverTelegramsDownloadLimit(t *testing.T) {
	e := connected(t)
	e.tg.AddFile("BAACbigvideo", "videos/file_9.mp4", make([]byte, telegramtest.MaxDownloadBytes+1), "video/mp4")
	_, err := e.d.FetchMedia(context.Background(), e.in, "BAACbigvideo", 50<<20)
	if !errors.Is(err, channels.ErrMediaTooLarge) {
		t.Errorf("a file over 20 MB: %v, want ErrMediaTooLarge", err)
	}
	if c := e.lastCall(t, "getFile"); c.Status != http.StatusBadRequest {
		t.Errorf("getFile answered %d, want 400", c.Status)
	}
}
