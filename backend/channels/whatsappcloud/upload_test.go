package whatsappcloud

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/whatsappcloud/wacloudtest"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

func image(url string) channels.Outbound {
	return channels.Outbound{MessageID: "msg_1", ChatAddress: customerAddress, Type: domain.TypeImage,
		Content: domain.Content{Media: &domain.Media{URL: url, Caption: "Look"}}}
}

func wantPermanent(t *testing.T, err error, code string) {
	t.Helper()
	var se *channels.SendError
	if !errors.As(err, &se) || !se.Permanent || se.Code != code {
		t.Fatalf("err = %#v, want a permanent %s", err, code)
	}
}

// A file sent by URL is fetched here, uploaded as Meta documents it, and the message names
// the upload; the fake then serves the very bytes, as it would a customer's file.
func TestSendByURLUploadsTheFile(t *testing.T) {
	e := newEnv(t)
	content := bytes.Repeat([]byte("\xff\xd8\xff\xe0 jpeg "), 4096)
	u := e.files.Add("/media/cat.jpg", content, "image/jpeg")
	if _, err := e.d.Send(e.ctx, e.in, image(u+"?expires=1&signature=abc")); err != nil {
		t.Fatal(err)
	}
	calls := e.fake.Calls()
	if len(calls) != 2 {
		t.Fatalf("calls = %+v, want the upload then the message", calls)
	}
	up := calls[0]
	if up.Method != http.MethodPost || up.Path != "/"+DefaultAPIVersion+"/"+e.fake.PhoneNumberID+"/media" || !up.Authorized || up.Status != 200 {
		t.Fatalf("upload = %+v", up)
	}
	if up.Form["messaging_product"] != "whatsapp" || up.Form["type"] != "image/jpeg" || up.File == nil ||
		!bytes.Equal(up.File.Content, content) || up.File.Name != "cat.jpg" || up.File.ContentType != "image/jpeg" {
		t.Fatalf("upload form %v, file %+v", up.Form, up.File)
	}
	jsonEqual(t, calls[1].Body, `{`+head+`,"type":"image","image":{"id":"`+firstUpload+`","caption":"Look"}}`)

	f, err := e.d.FetchMedia(e.ctx, e.in, firstUpload, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f.Body)
	f.Body.Close()
	if !bytes.Equal(got, content) || f.ContentType != "image/jpeg" {
		t.Errorf("the upload read back: %d bytes of %s", len(got), f.ContentType)
	}
}

// A server that names no type leaves it to the message's media.mime_type.
func TestUploadTypeFromTheMessage(t *testing.T) {
	e := newEnv(t)
	out := channels.Outbound{MessageID: "msg_1", ChatAddress: customerAddress, Type: domain.TypeAudio,
		Content: domain.Content{Media: &domain.Media{URL: e.files.Add("/stream", []byte("OggS voice"), "application/octet-stream"),
			MimeType: "audio/ogg"}}}
	if _, err := e.d.Send(e.ctx, e.in, out); err != nil {
		t.Fatal(err)
	}
	if up := e.fake.Calls()[0]; up.Form["type"] != "audio/ogg" || up.File.ContentType != "audio/ogg" {
		t.Errorf("upload form %v, file type %q", up.Form, up.File.ContentType)
	}

	// Without either, WhatsApp refuses the type, for good.
	out.Content.Media.MimeType = ""
	_, err := e.d.Send(e.ctx, e.in, out)
	wantPermanent(t, err, "provider_error_100")
}

func TestSendByURLRefusals(t *testing.T) {
	e := newEnv(t)
	e.d.opts.MaxMediaBytes = 1024
	big := e.files.Add("/big.jpg", bytes.Repeat([]byte("x"), 1025), "image/jpeg")
	_, err := e.d.Send(e.ctx, e.in, image(big))
	wantPermanent(t, err, channels.CodeMediaTooLarge)
	if !errors.Is(err, channels.ErrMediaTooLarge) {
		t.Errorf("%v is not ErrMediaTooLarge", err)
	}
	_, err = e.d.Send(e.ctx, e.in, image(e.files.Fail("/gone.jpg", http.StatusNotFound)))
	wantPermanent(t, err, channels.CodeMediaUnreachable)
	_, err = e.d.Send(e.ctx, e.in, image(e.files.Fail("/forbidden.jpg", http.StatusForbidden)))
	wantPermanent(t, err, channels.CodeMediaUnreachable)
	if n := len(e.fake.Calls()); n != 0 {
		t.Errorf("%d Graph calls for files that could not be fetched", n)
	}
	if len(e.host.Events()) != 0 {
		t.Errorf("emitted %v", e.host.Events())
	}
}

func TestSendByURLNetworkErrorIsRetried(t *testing.T) {
	e := newEnv(t)
	u := e.files.Add("/cat.jpg", []byte("jpeg"), "image/jpeg")
	e.files.Close()
	_, err := e.d.Send(e.ctx, e.in, image(u))
	var se *channels.SendError
	if err == nil || errors.As(err, &se) {
		t.Fatalf("err = %#v, want a plain (retried) error", err)
	}
}

// Without a media client, the driver's own refuses private addresses.
func TestSendByURLThroughTheSSRFGuard(t *testing.T) {
	e := newEnv(t)
	d := New(Options{GraphURL: e.fake.URL, Client: e.fake.Client()})
	_, err := d.Send(e.ctx, e.in, image(e.files.Add("/cat.jpg", []byte("jpeg"), "image/jpeg")))
	wantPermanent(t, err, channels.CodeMediaURLBlocked)
	if e.files.Requests() != 0 || len(e.fake.Calls()) != 0 {
		t.Error("the private address was fetched, or WhatsApp called")
	}
}

func TestUploadFailures(t *testing.T) {
	t.Run("a refused token fails the instance", func(t *testing.T) {
		e := newEnv(t)
		e.fake.FailNext(wacloudtest.Failure{Code: 190, Message: "Error validating access token"})
		_, err := e.d.Send(e.ctx, e.in, image(e.files.Add("/a.jpg", []byte("jpeg"), "image/jpeg")))
		wantPermanent(t, err, "unauthorized")
		if evs := e.host.Events(); len(evs) != 1 || evs[0].Status.Status != domain.InstanceFailed {
			t.Errorf("events = %+v", evs)
		}
	})
	t.Run("a 5xx is retried and sends nothing", func(t *testing.T) {
		e := newEnv(t)
		e.fake.FailNext(wacloudtest.Failure{Status: 500, Code: 131000, Message: "Something went wrong"})
		_, err := e.d.Send(e.ctx, e.in, image(e.files.Add("/a.jpg", []byte("jpeg"), "image/jpeg")))
		var se *channels.SendError
		if err == nil || errors.As(err, &se) {
			t.Fatalf("err = %#v, want a plain (retried) error", err)
		}
		if n := len(e.fake.MessageCalls()); n != 0 {
			t.Errorf("%d messages sent after a failed upload", n)
		}
	})
}

func TestSendByMediaIDFetchesNothing(t *testing.T) {
	e := newEnv(t)
	out := image("")
	out.Content.Media.ProviderMediaID = "1013859600285441"
	if _, err := e.d.Send(e.ctx, e.in, out); err != nil {
		t.Fatal(err)
	}
	if n := len(e.fake.Calls()); n != 1 || e.files.Requests() != 0 {
		t.Errorf("%d Graph calls, %d fetches; want only the message", n, e.files.Requests())
	}
	jsonEqual(t, e.fake.LastCall().Body, `{`+head+`,"type":"image","image":{"id":"1013859600285441","caption":"Look"}}`)
}
