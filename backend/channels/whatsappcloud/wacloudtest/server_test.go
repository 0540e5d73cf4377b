package wacloudtest

import (
	"encoding/json"
	"net/http"
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
