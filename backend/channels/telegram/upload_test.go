package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

func photo(url string) channels.Outbound {
	return channels.Outbound{MessageID: "msg_1", ChatAddress: user, Type: domain.TypeImage,
		Content: domain.Content{Media: &domain.Media{URL: url, Caption: "look"}}}
}

// A file sent by URL is fetched here and uploaded: Telegram gets the exact bytes, and the
// file it then holds can be downloaded again by its file_id.
func TestSendByURLUploadsTheFile(t *testing.T) {
	e := connected(t)
	content := bytes.Repeat([]byte("\xff\xd8\xff\xe0 jpeg "), 4096)
	u := e.files.Add("/media/cat.jpg", content, "image/jpeg")
	if _, err := e.d.Send(context.Background(), e.in, photo(u+"?expires=1&signature=abc")); err != nil {
		t.Fatal(err)
	}
	c := e.lastCall(t, "sendPhoto")
	if !bytes.Equal(c.Files["photo"], content) || c.FileNames["photo"] != "cat.jpg" || c.Params["caption"] != "look" {
		t.Fatalf("sendPhoto got %d bytes named %q, params %v", len(c.Files["photo"]), c.FileNames["photo"], c.Params)
	}
	var msg struct {
		Photo []struct {
			FileID string `json:"file_id"`
		} `json:"photo"`
	}
	if err := json.Unmarshal(c.Result, &msg); err != nil || len(msg.Photo) == 0 {
		t.Fatalf("result %s: %v", c.Result, err)
	}
	f, err := e.d.FetchMedia(context.Background(), e.in, msg.Photo[len(msg.Photo)-1].FileID, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f.Body)
	f.Body.Close()
	if !bytes.Equal(got, content) || f.ContentType != "image/jpeg" {
		t.Errorf("downloaded again: %d bytes of %s", len(got), f.ContentType)
	}
}

func TestSendByURLRefusals(t *testing.T) {
	e := connected(t)
	e.d.maxMedia = 1024
	ctx := context.Background()
	refused := func(name string, err error, code string) {
		t.Helper()
		var se *channels.SendError
		if !errors.As(err, &se) || !se.Permanent || se.Code != code {
			t.Errorf("%s: err = %#v, want a permanent %s", name, err, code)
		}
	}
	big := e.files.Add("/big.jpg", bytes.Repeat([]byte("x"), 1025), "image/jpeg")
	_, err := e.d.Send(ctx, e.in, photo(big))
	refused("over the limit", err, channels.CodeMediaTooLarge)
	if !errors.Is(err, channels.ErrMediaTooLarge) {
		t.Errorf("over the limit: %v is not ErrMediaTooLarge", err)
	}
	_, err = e.d.Send(ctx, e.in, photo(e.files.Fail("/gone.jpg", http.StatusNotFound)))
	refused("404", err, channels.CodeMediaUnreachable)
	_, err = e.d.Send(ctx, e.in, photo(e.files.Fail("/broken.jpg", http.StatusInternalServerError)))
	refused("500", err, channels.CodeMediaUnreachable)
	if n := len(e.tg.CallsTo("sendPhoto")); n != 0 {
		t.Errorf("Telegram was called %d times for files that could not be fetched", n)
	}
	if len(e.host.Events()) != 0 {
		t.Errorf("emitted %v", e.host.Events())
	}

	// A file Telegram refuses as too large is not sent again.
	e.d.maxMedia = 1 << 20
	e.tg.FailNext("sendPhoto", http.StatusRequestEntityTooLarge, "Request Entity Too Large", 0)
	_, err = e.d.Send(ctx, e.in, photo(e.files.Add("/ok.jpg", []byte("jpeg"), "image/jpeg")))
	refused("413 from Telegram", err, channels.CodeMediaTooLarge)
}

func TestSendByURLNetworkErrorIsRetried(t *testing.T) {
	e := connected(t)
	u := e.files.Add("/cat.jpg", []byte("jpeg"), "image/jpeg")
	e.files.Close()
	_, err := e.d.Send(context.Background(), e.in, photo(u))
	var se *channels.SendError
	if err == nil || errors.As(err, &se) {
		t.Fatalf("err = %#v, want a plain (retried) error", err)
	}
}

// Without a media client, the driver's own refuses private addresses.
func TestSendByURLThroughTheSSRFGuard(t *testing.T) {
	e := connected(t)
	d := New(Options{ServerURL: e.tg.URL()})
	_, err := d.Send(context.Background(), e.in, photo(e.files.Add("/cat.jpg", []byte("jpeg"), "image/jpeg")))
	var se *channels.SendError
	if !errors.As(err, &se) || !se.Permanent || se.Code != channels.CodeMediaURLBlocked {
		t.Fatalf("err = %#v, want a permanent media_url_blocked", err)
	}
	if e.files.Requests() != 0 || len(e.tg.CallsTo("sendPhoto")) != 0 {
		t.Error("the private address was fetched, or Telegram called")
	}
}

func TestSendByFileIDFetchesNothing(t *testing.T) {
	e := connected(t)
	out := photo("")
	out.Content.Media.ProviderMediaID = "AgACAgQAAxkBAAIB"
	if _, err := e.d.Send(context.Background(), e.in, out); err != nil {
		t.Fatal(err)
	}
	c := e.lastCall(t, "sendPhoto")
	if c.Params["photo"] != "AgACAgQAAxkBAAIB" || len(c.Files) != 0 || e.files.Requests() != 0 {
		t.Errorf("sendPhoto params %v, files %d, media requests %d", c.Params, len(c.Files), e.files.Requests())
	}
}
