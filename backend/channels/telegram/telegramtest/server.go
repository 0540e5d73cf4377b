// Package telegramtest is a fake Telegram Bot API server for tests: an httptest server that
// speaks the Bot API's wire format (https://core.telegram.org/bots/api) for the methods
// Switchboard uses. It takes requests as JSON, URL-encoded forms and multipart forms (what
// real clients send), answers {"ok":true,"result":...} or {"ok":false,"error_code":N,
// "description":"..."} with the matching HTTP status, records every call, and can call a
// webhook the way Telegram does (Deliver).
package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Defaults of a Config.
const (
	DefaultToken    = "123456789:AAHfakeTokenForSwitchboardTests-0123456"
	DefaultUsername = "switchboard_test_bot"
)

// SecretHeader is the header Telegram puts the webhook's secret_token in.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// Config sets up a Server; zero fields take the defaults.
type Config struct {
	// Token is the one token the server accepts (DefaultToken).
	Token string
	// Username and FirstName are the bot's (DefaultUsername, "Switchboard Test").
	Username, FirstName string
	// RequireHTTPS refuses webhook URLs that are not https, as Telegram does. Off by
	// default, since the webhook receivers of tests are plain-HTTP httptest servers.
	RequireHTTPS bool
}

// Call is one request the server received.
type Call struct {
	Method string
	// Params are the request's parameters as text: strings as sent, and the JSON text of
	// everything else (numbers, booleans, objects such as reply_parameters), whichever
	// encoding the client used.
	Params map[string]string
	// Files are uploaded files by parameter name (multipart requests), and FileNames the
	// names their parts carried.
	Files     map[string][]byte
	FileNames map[string]string
	// Status is the HTTP status the server answered, and Result the JSON of its result
	// (ok answers only).
	Status int
	Result json.RawMessage
}

// JSON decodes a parameter that holds JSON (reply_parameters, reaction, options).
func (c Call) JSON(name string, v any) error {
	s, ok := c.Params[name]
	if !ok {
		return fmt.Errorf("telegramtest: %s has no parameter %s", c.Method, name)
	}
	return json.Unmarshal([]byte(s), v)
}

// Webhook is the webhook set with setWebhook.
type Webhook struct {
	URL            string
	SecretToken    string
	AllowedUpdates []string
}

// Server is a fake Bot API server.
type Server struct {
	cfg   Config
	botID int64
	srv   *httptest.Server

	mu         sync.Mutex
	revoked    bool
	webhook    Webhook
	calls      []Call
	fails      map[string][]apiError
	files      map[string]file // by file_id
	chats      map[int64]Chat
	nextMsg    map[int64]int
	messages   map[int64]map[int]*message // chat → message id → message
	banned     map[int64]map[int64]bool
	nextUpdate int64
	nextFile   int
}

type file struct {
	id, path, mime string
	content        []byte
}

type message struct {
	fromBot bool
	text    string
}

// apiError is a Bot API error answer.
type apiError struct {
	code       int
	desc       string
	retryAfter int
}

func badRequest(desc string) *apiError {
	return &apiError{code: http.StatusBadRequest, desc: "Bad Request: " + desc}
}

// New starts a server, closed when the test ends.
func New(tb testing.TB, cfg Config) *Server {
	tb.Helper()
	if cfg.Token == "" {
		cfg.Token = DefaultToken
	}
	if cfg.Username == "" {
		cfg.Username = DefaultUsername
	}
	if cfg.FirstName == "" {
		cfg.FirstName = "Switchboard Test"
	}
	id, _, _ := strings.Cut(cfg.Token, ":")
	s := &Server{cfg: cfg, fails: map[string][]apiError{}, files: map[string]file{}, chats: map[int64]Chat{},
		nextMsg: map[int64]int{}, messages: map[int64]map[int]*message{}, banned: map[int64]map[int64]bool{},
		nextUpdate: 100000}
	s.botID, _ = strconv.ParseInt(id, 10, 64)
	s.srv = httptest.NewServer(s)
	tb.Cleanup(s.srv.Close)
	return s
}

// URL is the server's base URL (the driver's ServerURL).
func (s *Server) URL() string { return s.srv.URL }

// Token is the token the server accepts.
func (s *Server) Token() string { return s.cfg.Token }

// Bot is the bot's own user.
func (s *Server) Bot() User {
	return User{ID: s.botID, FirstName: s.cfg.FirstName, Username: s.cfg.Username, IsBot: true}
}

// Close stops the server (also done when the test ends).
func (s *Server) Close() { s.srv.Close() }

// Revoke makes the token invalid from now on, as /revoke in @BotFather does: every call
// is answered 401 Unauthorized.
func (s *Server) Revoke() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revoked = true
}

// FailNext makes the next call of method fail with status and description (Telegram's
// form, such as "Forbidden: bot was blocked by the user"); retryAfter > 0 adds
// parameters.retry_after (for 429). Several calls queue several failures.
func (s *Server) FailNext(method string, status int, description string, retryAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails[method] = append(s.fails[method], apiError{code: status, desc: description, retryAfter: retryAfter})
}

// AddFile registers a file that getFile and the file server then serve.
func (s *Server) AddFile(fileID, path string, content []byte, mimeType string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[fileID] = file{id: fileID, path: path, mime: mimeType, content: content}
}

// AddChat registers a chat, so it can be addressed by @username and is answered with its
// type and title. Unregistered numeric chats exist too: private when positive, groups
// when negative.
func (s *Server) AddChat(c Chat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chats[c.ID] = c
}

// NextMessageID takes the chat's next message id, for updates a test builds: ids grow per
// chat, shared with the messages the bot sends, as on Telegram.
func (s *Server) NextMessageID(chat int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextMsg[chat]++
	return s.nextMsg[chat]
}

// Webhook returns the webhook set, if any.
func (s *Server) Webhook() (Webhook, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.webhook, s.webhook.URL != ""
}

// Calls returns every call received, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CallsTo returns the calls of one method, in order.
func (s *Server) CallsTo(method string) []Call {
	var out []Call
	for _, c := range s.Calls() {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// LastCall returns the last call of a method.
func (s *Server) LastCall(method string) (Call, bool) {
	cs := s.CallsTo(method)
	if len(cs) == 0 {
		return Call{}, false
	}
	return cs[len(cs)-1], true
}

// Deliver sends an update to the webhook as Telegram does: a JSON POST with the secret
// token header. An Update (map) without update_id gets the next one. Messages in the update
// become known to the server (a bot may then react to them or delete them). It returns the
// webhook's HTTP status.
func (s *Server) Deliver(ctx context.Context, update any) (int, error) {
	wh, ok := s.Webhook()
	if !ok {
		return 0, errors.New("telegramtest: no webhook is set")
	}
	return s.DeliverWithSecret(ctx, update, wh.SecretToken)
}

// DeliverWithSecret is Deliver with another secret token ("" sends none), for testing
// that wrong ones are refused.
func (s *Server) DeliverWithSecret(ctx context.Context, update any, secret string) (int, error) {
	wh, ok := s.Webhook()
	if !ok {
		return 0, errors.New("telegramtest: no webhook is set")
	}
	if u, ok := update.(Update); ok {
		if _, has := u["update_id"]; !has {
			s.mu.Lock()
			s.nextUpdate++
			u["update_id"] = s.nextUpdate
			s.mu.Unlock()
		}
	}
	body, err := json.Marshal(update)
	if err != nil {
		return 0, err
	}
	s.learn(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wh.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set(SecretHeader, secret)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// learn records the messages of a delivered update as existing.
func (s *Server) learn(body []byte) {
	var u map[string]struct {
		MessageID int    `json:"message_id"`
		Text      string `json:"text"`
		Chat      struct {
			ID int64 `json:"id"`
		} `json:"chat"`
	}
	if json.Unmarshal(body, &u) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, kind := range []string{"message", "channel_post", "edited_message", "edited_channel_post"} {
		m, ok := u[kind]
		if !ok || m.MessageID == 0 {
			continue
		}
		if s.messages[m.Chat.ID] == nil {
			s.messages[m.Chat.ID] = map[int]*message{}
		}
		if s.messages[m.Chat.ID][m.MessageID] == nil {
			s.messages[m.Chat.ID][m.MessageID] = &message{text: m.Text}
		}
		if s.nextMsg[m.Chat.ID] < m.MessageID {
			s.nextMsg[m.Chat.ID] = m.MessageID
		}
	}
}

var tokenShape = regexp.MustCompile(`^[0-9]+:[A-Za-z0-9_-]+$`)

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok {
		s.serveFile(w, rest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	token, method, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || method == "" {
		writeError(w, &apiError{code: http.StatusNotFound, desc: "Not Found"})
		return
	}
	params, files, names, perr := readParams(r)
	call := Call{Method: method, Params: params, Files: files, FileNames: names}
	var result any
	var aerr *apiError
	s.mu.Lock()
	switch {
	case !tokenShape.MatchString(token):
		aerr = &apiError{code: http.StatusNotFound, desc: "Not Found"} // what Telegram answers
	case token != s.cfg.Token || s.revoked:
		aerr = &apiError{code: http.StatusUnauthorized, desc: "Unauthorized"}
	case errors.Is(perr, errTooLarge):
		aerr = &apiError{code: http.StatusRequestEntityTooLarge, desc: "Request Entity Too Large"}
	case perr != nil:
		aerr = badRequest(perr.Error())
	case len(s.fails[method]) > 0:
		f := s.fails[method][0]
		s.fails[method] = s.fails[method][1:]
		aerr = &f
	default:
		result, aerr = s.handle(method, params, upload{files, names})
	}
	call.Status = http.StatusOK
	if aerr != nil {
		call.Status = aerr.code
	} else {
		call.Result, _ = json.Marshal(result)
	}
	s.calls = append(s.calls, call)
	s.mu.Unlock()
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, e *apiError) {
	body := map[string]any{"ok": false, "error_code": e.code, "description": e.desc}
	if e.retryAfter > 0 {
		body["parameters"] = map[string]any{"retry_after": e.retryAfter}
		w.Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	writeJSON(w, e.code, body)
}

// MaxUploadBytes is the largest file a bot may upload (50 MB): a larger request is
// answered 413 Request Entity Too Large, as Telegram's server does.
const MaxUploadBytes = 50 << 20

// errTooLarge is a request body over the upload limit.
var errTooLarge = errors.New("request entity too large")

// upload is a request's uploaded files and their names, by parameter.
type upload struct {
	files map[string][]byte
	names map[string]string
}

// readParams reads a request's parameters from the query string and the body, in any of
// the encodings the Bot API accepts.
func readParams(r *http.Request) (map[string]string, map[string][]byte, map[string]string, error) {
	params := map[string]string{}
	files := map[string][]byte{}
	names := map[string]string{}
	for k, v := range r.URL.Query() {
		params[k] = v[0]
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxUploadBytes+1<<20+1))
	if err != nil || len(body) == 0 {
		return params, files, names, err
	}
	if len(body) > MaxUploadBytes+1<<20 { // room for the other parts
		return params, files, names, errTooLarge
	}
	ct, ctParams, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			return params, files, names, errors.New("can't parse JSON object")
		}
		for k, raw := range m {
			var str string
			if json.Unmarshal(raw, &str) == nil {
				params[k] = str
			} else {
				params[k] = string(raw)
			}
		}
	case "application/x-www-form-urlencoded":
		q, err := url.ParseQuery(string(body))
		if err != nil {
			return params, files, names, errors.New("can't parse form")
		}
		for k, v := range q {
			params[k] = v[0]
		}
	case "multipart/form-data":
		req := &http.Request{Header: http.Header{"Content-Type": {mime.FormatMediaType(ct, ctParams)}},
			Body: io.NopCloser(bytes.NewReader(body)), Method: http.MethodPost}
		if err := req.ParseMultipartForm(32 << 20); err != nil {
			return params, files, names, errors.New("can't parse multipart form")
		}
		for k, v := range req.MultipartForm.Value {
			params[k] = v[0]
		}
		for k, fhs := range req.MultipartForm.File {
			f, err := fhs[0].Open()
			if err != nil {
				return params, files, names, err
			}
			files[k], _ = io.ReadAll(f)
			names[k] = fhs[0].Filename
			f.Close()
		}
	default:
		return params, files, names, errors.New("unsupported Content-Type")
	}
	return params, files, names, nil
}

func (s *Server) serveFile(w http.ResponseWriter, rest string) {
	token, path, _ := strings.Cut(rest, "/")
	s.mu.Lock()
	var found *file
	if token == s.cfg.Token && !s.revoked {
		for _, f := range s.files {
			if f.path == path {
				found = &f
				break
			}
		}
	}
	s.mu.Unlock()
	if found == nil {
		writeError(w, &apiError{code: http.StatusNotFound, desc: "Not Found"})
		return
	}
	ct := found.mime
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(found.content)))
	_, _ = w.Write(found.content)
}
