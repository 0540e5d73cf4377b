package telegramtest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

type answer struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

func post(t *testing.T, u, contentType, body string) (int, answer) {
	t.Helper()
	resp, err := http.Post(u, contentType, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a answer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, a
}

func TestEncodingsAndErrors(t *testing.T) {
	s := New(t, Config{})
	base := s.URL() + "/bot" + s.Token() + "/"

	status, a := post(t, base+"sendMessage", "application/json", `{"chat_id":42,"text":"json"}`)
	if status != 200 || !a.OK {
		t.Fatalf("JSON: %d %+v", status, a)
	}
	var m struct {
		MessageID int    `json:"message_id"`
		Text      string `json:"text"`
		Chat      struct {
			ID   int64  `json:"id"`
			Type string `json:"type"`
		} `json:"chat"`
	}
	if err := json.Unmarshal(a.Result, &m); err != nil || m.MessageID != 1 || m.Text != "json" || m.Chat.ID != 42 || m.Chat.Type != "private" {
		t.Errorf("message = %+v, %v", m, err)
	}

	status, a = post(t, base+"sendMessage", "application/x-www-form-urlencoded", url.Values{"chat_id": {"42"}, "text": {"form"}}.Encode())
	if status != 200 || !a.OK {
		t.Fatalf("form: %d %+v", status, a)
	}
	if c, _ := s.LastCall("sendMessage"); c.Params["chat_id"] != "42" || c.Params["text"] != "form" {
		t.Errorf("recorded %+v", c)
	}

	status, a = post(t, base+"sendMessage", "application/json", `{"chat_id":42}`)
	if status != 400 || a.OK || a.ErrorCode != 400 || a.Description != "Bad Request: message text is empty" {
		t.Errorf("empty text: %d %+v", status, a)
	}

	s.FailNext("sendMessage", 429, "Too Many Requests: retry after 3", 3)
	status, a = post(t, base+"sendMessage", "application/json", `{"chat_id":42,"text":"x"}`)
	if status != 429 || a.ErrorCode != 429 || a.Parameters.RetryAfter != 3 {
		t.Errorf("429: %d %+v", status, a)
	}

	status, a = post(t, s.URL()+"/bot987:wrongWRONGwrong/getMe", "application/json", `{}`)
	if status != 401 || a.Description != "Unauthorized" {
		t.Errorf("wrong token: %d %+v", status, a)
	}
	status, a = post(t, s.URL()+"/botnonsense/getMe", "application/json", `{}`)
	if status != 404 || a.Description != "Not Found" {
		t.Errorf("malformed token: %d %+v", status, a)
	}
	status, _ = post(t, base+"noSuchMethod", "application/json", `{}`)
	if status != 404 {
		t.Errorf("unknown method: %d", status)
	}
	if got := len(s.Calls()); got != 7 {
		t.Errorf("%d calls recorded, want 7", got)
	}
}

// multipartBody is a multipart form with text fields and one file part.
func multipartBody(t *testing.T, fields map[string]string, part, name string, content []byte) (string, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	if part != "" {
		fw, err := w.CreateFormFile(part, name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(content)
	}
	_ = w.Close()
	return w.FormDataContentType(), b.String()
}

// Files uploaded with a send (as the parameter's own part, or attach://<name>) become
// files of the server: getFile and the file server give them back.
func TestUploads(t *testing.T) {
	s := New(t, Config{})
	base := s.URL() + "/bot" + s.Token() + "/"
	pdf := []byte("%PDF-1.7 the report")

	for _, tc := range []struct {
		name, part string
		fields     map[string]string
	}{
		{"own part", "document", map[string]string{"chat_id": "42", "caption": "q3"}},
		{"attach", "file0", map[string]string{"chat_id": "42", "document": "attach://file0"}},
	} {
		ct, body := multipartBody(t, tc.fields, tc.part, "Q3 report.pdf", pdf)
		status, a := post(t, base+"sendDocument", ct, body)
		if status != 200 || !a.OK {
			t.Fatalf("%s: %d %+v", tc.name, status, a)
		}
		var m struct {
			Document struct {
				FileID   string `json:"file_id"`
				FileName string `json:"file_name"`
				MimeType string `json:"mime_type"`
				FileSize int    `json:"file_size"`
			} `json:"document"`
		}
		if err := json.Unmarshal(a.Result, &m); err != nil || m.Document.FileName != "Q3 report.pdf" ||
			m.Document.MimeType != "application/pdf" || m.Document.FileSize != len(pdf) {
			t.Fatalf("%s: document = %+v, %v", tc.name, m.Document, err)
		}
		if c, _ := s.LastCall("sendDocument"); !bytes.Equal(c.Files[tc.part], pdf) || c.FileNames[tc.part] != "Q3 report.pdf" {
			t.Errorf("%s: recorded %+v", tc.name, c)
		}
		status, a = post(t, base+"getFile", "application/json", `{"file_id":"`+m.Document.FileID+`"}`)
		var f struct {
			FilePath string `json:"file_path"`
		}
		if status != 200 || json.Unmarshal(a.Result, &f) != nil || !strings.HasSuffix(f.FilePath, ".pdf") {
			t.Fatalf("%s: getFile: %d %+v", tc.name, status, a)
		}
		resp, err := http.Get(s.URL() + "/file/bot" + s.Token() + "/" + f.FilePath)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Equal(got, pdf) {
			t.Errorf("%s: download: %d %q", tc.name, resp.StatusCode, got)
		}
	}

	ct, body := multipartBody(t, map[string]string{"chat_id": "42"}, "", "", nil)
	if status, a := post(t, base+"sendPhoto", ct, body); status != 400 || a.Description != "Bad Request: there is no photo in the request" {
		t.Errorf("no file: %d %+v", status, a)
	}
	ct, body = multipartBody(t, map[string]string{"chat_id": "42", "photo": "attach://nothing"}, "other", "a.jpg", []byte("x"))
	if status, _ := post(t, base+"sendPhoto", ct, body); status != 400 {
		t.Errorf("attach:// naming no part: %d", status)
	}
}
