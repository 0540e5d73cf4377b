package whatsappcloud

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/channels"
)

func TestFetchMedia(t *testing.T) {
	e := newEnv(t)
	photo := []byte("\xff\xd8\xff\xe0 a tiny jpeg")
	e.fake.AddMedia("1013859600285441", photo, "image/jpeg")

	f, err := e.d.FetchMedia(e.ctx, e.in, "1013859600285441", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(f.Body)
	f.Body.Close()
	if err != nil || string(got) != string(photo) || f.ContentType != "image/jpeg" || f.Size != int64(len(photo)) {
		t.Fatalf("file = %q %s %d (%v)", got, f.ContentType, f.Size, err)
	}
	calls := e.fake.Calls()
	if len(calls) != 2 || calls[0].Path != "/"+DefaultAPIVersion+"/1013859600285441" ||
		calls[0].Query.Get("phone_number_id") != e.fake.PhoneNumberID || !calls[1].Authorized || calls[1].Status != 200 {
		t.Fatalf("calls = %+v", calls)
	}
}

func TestFetchMediaRefusesLargeFiles(t *testing.T) {
	e := newEnv(t)
	e.fake.AddMedia("42", []byte(strings.Repeat("x", 2048)), "video/mp4")
	if _, err := e.d.FetchMedia(e.ctx, e.in, "42", 1024); !errors.Is(err, channels.ErrMediaTooLarge) {
		t.Fatalf("err = %v, want ErrMediaTooLarge", err)
	}
	if n := len(e.fake.Calls()); n != 1 {
		t.Fatalf("%d calls, want only the lookup (no download)", n)
	}
}

func TestFetchMediaUnknown(t *testing.T) {
	e := newEnv(t)
	_, err := e.d.FetchMedia(e.ctx, e.in, "404404", 1<<20)
	var se *channels.SendError
	if !errors.As(err, &se) || !se.Permanent || se.Code != "provider_error_100" {
		t.Fatalf("err = %#v, want permanent provider_error_100", err)
	}
}

// file_size comes as a string in Meta's reference and as a number in some answers.
func TestFileSizeEitherWay(t *testing.T) {
	for _, body := range []string{`{"file_size":"303833"}`, `{"file_size":303833}`} {
		var m mediaInfo
		if err := json.Unmarshal([]byte(body), &m); err != nil || m.FileSize != 303833 {
			t.Errorf("%s: %d %v", body, m.FileSize, err)
		}
	}
}
