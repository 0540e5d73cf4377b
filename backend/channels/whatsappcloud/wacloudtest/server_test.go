package wacloudtest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
)

// post sends a raw messages request and returns the status and the Graph error code.
func post(t *testing.T, s *Server, token, body string) (int, int) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/v21.0/"+s.PhoneNumberID+"/messages", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e.Error.Code
}

// The fake refuses what the real API refuses, so a driver bug cannot pass against it.
func TestMessagesEndpointValidates(t *testing.T) {
	s := New(Config{})
	defer s.Close()
	cases := []struct {
		name, token, body string
		status, code      int
	}{
		{"ok", s.AccessToken, `{"messaging_product":"whatsapp","to":"16315551234","type":"text","text":{"body":"hi"}}`, 200, 0},
		{"no token", "", `{"messaging_product":"whatsapp","to":"1","type":"text","text":{"body":"hi"}}`, 400, 104},
		{"wrong token", "EAAGnope", `{"messaging_product":"whatsapp","to":"1","type":"text","text":{"body":"hi"}}`, 401, 190},
		{"no messaging_product", s.AccessToken, `{"to":"1","type":"text","text":{"body":"hi"}}`, 400, 100},
		{"no to", s.AccessToken, `{"messaging_product":"whatsapp","type":"text","text":{"body":"hi"}}`, 400, 100},
		{"type without its object", s.AccessToken, `{"messaging_product":"whatsapp","to":"1","type":"image"}`, 400, 100},
		{"both id and link", s.AccessToken, `{"messaging_product":"whatsapp","to":"1","type":"image","image":{"id":"1","link":"https://x.example/a.jpg"}}`, 400, 100},
		{"caption on audio", s.AccessToken, `{"messaging_product":"whatsapp","to":"1","type":"audio","audio":{"id":"1","caption":"no"}}`, 400, 100},
		{"template without language", s.AccessToken, `{"messaging_product":"whatsapp","to":"1","type":"template","template":{"name":"x"}}`, 400, 100},
		{"unknown type", s.AccessToken, `{"messaging_product":"whatsapp","to":"1","type":"voice","voice":{"id":"1"}}`, 400, 100},
		{"read receipt", s.AccessToken, `{"messaging_product":"whatsapp","status":"read","message_id":"wamid.X"}`, 200, 0},
	}
	for _, tc := range cases {
		if status, code := post(t, s, tc.token, tc.body); status != tc.status || code != tc.code {
			t.Errorf("%s: %d code %d, want %d code %d", tc.name, status, code, tc.status, tc.code)
		}
	}
	if n := len(s.Calls()); n != len(cases) {
		t.Errorf("recorded %d calls, want %d", n, len(cases))
	}
}

// upload posts a media upload with the given fields (and a file part unless content is
// nil) and returns the status, the Graph error code and the id answered.
func upload(t *testing.T, s *Server, fields map[string]string, content []byte, fileType string) (int, int, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	if content != nil {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="f"`)
		h.Set("Content-Type", fileType)
		p, _ := w.CreatePart(h)
		_, _ = p.Write(content)
	}
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/v21.0/"+s.PhoneNumberID+"/media", &b)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+s.AccessToken)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ID    string `json:"id"`
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Error.Code, out.ID
}

func TestMediaUpload(t *testing.T) {
	s := New(Config{})
	defer s.Close()
	png := []byte("\x89PNG a picture")
	ok := map[string]string{"messaging_product": "whatsapp", "type": "image/png"}
	refusals := []struct {
		name    string
		fields  map[string]string
		content []byte
	}{
		{"no messaging_product", map[string]string{"type": "image/png"}, png},
		{"other messaging_product", map[string]string{"messaging_product": "sms", "type": "image/png"}, png},
		{"no file", ok, nil},
		{"no type", map[string]string{"messaging_product": "whatsapp"}, png},
		{"unsupported type", map[string]string{"messaging_product": "whatsapp", "type": "image/gif"}, png},
		{"sticker over 500 KB", map[string]string{"messaging_product": "whatsapp", "type": "image/webp"}, bytes.Repeat([]byte("x"), 500<<10+1)},
	}
	for _, tc := range refusals {
		if status, code, _ := upload(t, s, tc.fields, tc.content, "image/png"); status != 400 || code != 100 {
			t.Errorf("%s: %d code %d, want 400 code 100", tc.name, status, code)
		}
	}
	status, _, id := upload(t, s, ok, png, "image/png")
	if status != 200 || id == "" {
		t.Fatalf("upload: %d %q", status, id)
	}
	if got, mime, found := s.Media(id); !found || !bytes.Equal(got, png) || mime != "image/png" {
		t.Fatalf("held: %q %s %v", got, mime, found)
	}
	// The upload is then read like a customer's file: its URL, then the bytes.
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/v21.0/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+s.AccessToken)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		URL      string `json:"url"`
		MimeType string `json:"mime_type"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	req, _ = http.NewRequest(http.MethodGet, info.URL, nil)
	req.Header.Set("Authorization", "Bearer "+s.AccessToken)
	resp, err = s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, png) || info.MimeType != "image/png" {
		t.Errorf("download: %q (%s)", got, info.MimeType)
	}
	// And a message names it by id.
	if status, code := post(t, s, s.AccessToken, `{"messaging_product":"whatsapp","to":"16315551234","type":"image","image":{"id":"`+id+`"}}`); status != 200 {
		t.Errorf("message naming the upload: %d code %d", status, code)
	}
}
