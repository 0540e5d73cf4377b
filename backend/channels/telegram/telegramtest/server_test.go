package telegramtest

import (
	"encoding/json"
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
