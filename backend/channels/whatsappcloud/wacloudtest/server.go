// Package wacloudtest is a fake WhatsApp Cloud API for tests: an httptest server answering
// the Graph API calls the whatsappcloud driver makes, in Meta's documented formats (the
// phone number, the messages endpoint with its validation, media uploads, media URLs and
// downloads, Graph error bodies with their HTTP statuses), and a sender of signed
// notifications and of the webhook verification handshake, as Meta sends them. It shares no types with the driver,
// so a misreading of the formats on one side shows up as a failing test.
package wacloudtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Config is what the fake knows; zero fields take the defaults below.
type Config struct {
	// AccessToken is the one token the fake accepts.
	AccessToken string
	// PhoneNumberID is the business number's id; DisplayPhoneNumber and VerifiedName are
	// what reading it answers.
	PhoneNumberID      string
	DisplayPhoneNumber string
	VerifiedName       string
	// WABAID is the WhatsApp Business Account id notifications carry in entry.id.
	WABAID string
}

// Defaults of Config.
const (
	DefaultAccessToken        = "EAAGtestSystemUserToken0123456789"
	DefaultPhoneNumberID      = "106540352242922"
	DefaultDisplayPhoneNumber = "+1 631-555-0100"
	DefaultVerifiedName       = "Switchboard Test"
	DefaultWABAID             = "102290129340398"
)

// Server is the fake Graph API. URL (from httptest.Server) is the GraphURL to give the
// driver; Close it when done.
type Server struct {
	*httptest.Server
	Config

	mu       sync.Mutex
	calls    []Call
	fails    []Failure
	media    map[string]mediaFile
	seq      int
	mediaSeq int
}

type mediaFile struct {
	content []byte
	mime    string
}

// Call is one request the fake received.
type Call struct {
	Method string
	// Path is the URL path, such as /v25.0/106540352242922/messages.
	Path  string
	Query url.Values
	// Authorized says the request carried the valid access token as a Bearer token.
	Authorized bool
	// Body is the decoded JSON body (nil when there was none or it was not JSON).
	Body map[string]any
	// Form and File are a multipart body's text fields and its file part named "file"
	// (media uploads).
	Form map[string]string
	File *File
	// Status is what the fake answered.
	Status int
}

// File is an uploaded file part.
type File struct {
	Name, ContentType string
	Content           []byte
}

// Failure is a Graph API error the next call answers with (see FailNext).
type Failure struct {
	// Status is the HTTP status; 0 takes the one Meta uses for Code.
	Status int
	Code   int
	// Subcode is error_subcode (left out when 0, as in v16.0+ answers).
	Subcode int
	// Type defaults to OAuthException, as Meta's WhatsApp errors have it.
	Type    string
	Message string
	// Details goes in error_data.details.
	Details string
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
}

// New starts the fake.
func New(cfg Config) *Server {
	if cfg.AccessToken == "" {
		cfg.AccessToken = DefaultAccessToken
	}
	if cfg.PhoneNumberID == "" {
		cfg.PhoneNumberID = DefaultPhoneNumberID
	}
	if cfg.DisplayPhoneNumber == "" {
		cfg.DisplayPhoneNumber = DefaultDisplayPhoneNumber
	}
	if cfg.VerifiedName == "" {
		cfg.VerifiedName = DefaultVerifiedName
	}
	if cfg.WABAID == "" {
		cfg.WABAID = DefaultWABAID
	}
	s := &Server{Config: cfg, media: map[string]mediaFile{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// FailNext makes the next call (whatever it is) answer with f. Several queue up in order.
func (s *Server) FailNext(f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails = append(s.fails, f)
}

// AddMedia registers a file as if a customer had sent it: GET /{version}/{id} names its
// download URL.
func (s *Server) AddMedia(id string, content []byte, mime string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.media[id] = mediaFile{content: append([]byte(nil), content...), mime: mime}
}

// Media returns a file the fake holds (uploaded, or added with AddMedia), by media id.
func (s *Server) Media(id string) (content []byte, mime string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.media[id]
	return m.content, m.mime, ok
}

// Calls returns every call so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// MessageCalls returns the calls to the messages endpoint (sends and read receipts).
func (s *Server) MessageCalls() []Call {
	var out []Call
	for _, c := range s.Calls() {
		if c.Method == http.MethodPost && strings.HasSuffix(c.Path, "/messages") {
			out = append(out, c)
		}
	}
	return out
}

// LastCall returns the latest call (the zero Call when there was none).
func (s *Server) LastCall() Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.calls) == 0 {
		return Call{}
	}
	return s.calls[len(s.calls)-1]
}

// NewWAMID returns a WhatsApp message id in the API's form (wamid. and base64).
func (s *Server) NewWAMID() string {
	s.mu.Lock()
	s.seq++
	n := s.seq
	s.mu.Unlock()
	return NewWAMID(n)
}

// NewWAMID returns the WhatsApp message id numbered n.
func NewWAMID(n int) string {
	return "wamid." + base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("HBgLMTYzMTU1NTAxMDAVAgARGBI%012d", n)))
}

var versionRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+$`)

// downloadPath is where media is served, as lookaside.fbsbx.com serves it.
const downloadPath = "/whatsapp_business/attachments/"

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	call := Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(),
		Authorized: r.Header.Get("Authorization") == "Bearer "+s.AccessToken}
	if strings.Contains(r.Header.Get("Content-Type"), "json") {
		var body map[string]any
		if json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body) == nil {
			call.Body = body
		}
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		call.Form, call.File = readForm(w, r)
	}
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	s.route(rec, r, call)
	call.Status = rec.status
	s.mu.Lock()
	s.calls = append(s.calls, call)
	s.mu.Unlock()
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) { r.status = code; r.ResponseWriter.WriteHeader(code) }

func (s *Server) route(w http.ResponseWriter, r *http.Request, call Call) {
	s.mu.Lock()
	var fail *Failure
	if len(s.fails) > 0 {
		fail = &s.fails[0]
		s.fails = s.fails[1:]
	}
	s.mu.Unlock()
	if fail != nil {
		writeFailure(w, *fail)
		return
	}
	if r.URL.Path == downloadPath {
		s.download(w, r, call)
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 2 || !versionRE.MatchString(parts[0]) {
		writeFailure(w, Failure{Code: 2500, Message: "Unknown path components: " + r.URL.Path})
		return
	}
	if !s.authorize(w, r) {
		return
	}
	switch {
	case len(parts) == 2 && r.Method == http.MethodGet:
		s.getObject(w, r, parts[1])
	case len(parts) == 3 && parts[2] == "messages" && r.Method == http.MethodPost:
		if parts[1] != s.PhoneNumberID {
			writeFailure(w, noObject("post", parts[1]))
			return
		}
		s.postMessage(w, call.Body)
	case len(parts) == 3 && parts[2] == "media" && r.Method == http.MethodPost:
		if parts[1] != s.PhoneNumberID {
			writeFailure(w, noObject("post", parts[1]))
			return
		}
		s.uploadMedia(w, call)
	default:
		writeFailure(w, noObject(strings.ToLower(r.Method), strings.Join(parts[1:], "/")))
	}
}

// authorize answers as Graph does: no token is 400 (code 104), a wrong one 401 (code 190).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	h := r.Header.Get("Authorization")
	switch {
	case h == "":
		writeFailure(w, Failure{Code: 104, Message: "An access token is required to request this resource."})
		return false
	case h != "Bearer "+s.AccessToken:
		writeFailure(w, Failure{Code: 190, Message: "Invalid OAuth access token - Cannot parse access token"})
		return false
	}
	return true
}

func noObject(method, id string) Failure {
	return Failure{Code: 100, Subcode: 33, Type: "GraphMethodException",
		Message: fmt.Sprintf("Unsupported %s request. Object with ID '%s' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api", method, id)}
}

// getObject reads the phone number (the fields asked for, and id) or a media file's URL.
func (s *Server) getObject(w http.ResponseWriter, r *http.Request, id string) {
	if id == s.PhoneNumberID {
		all := map[string]any{"display_phone_number": s.DisplayPhoneNumber, "verified_name": s.VerifiedName,
			"code_verification_status": "VERIFIED", "quality_rating": "GREEN", "platform_type": "CLOUD_API"}
		out := map[string]any{"id": id}
		fields := r.URL.Query().Get("fields")
		if fields == "" {
			fields = "verified_name,code_verification_status,display_phone_number,quality_rating,platform_type"
		}
		for _, f := range strings.Split(fields, ",") {
			if v, ok := all[strings.TrimSpace(f)]; ok {
				out[strings.TrimSpace(f)] = v
			}
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	s.mu.Lock()
	m, ok := s.media[id]
	s.mu.Unlock()
	if !ok {
		writeFailure(w, noObject("get", id))
		return
	}
	// phone_number_id asks the API to answer only for media of that number.
	if p := r.URL.Query().Get("phone_number_id"); p != "" && p != s.PhoneNumberID {
		writeFailure(w, Failure{Code: 100, Message: "(#100) Invalid parameter",
			Details: "Media " + id + " does not belong to phone number " + p})
		return
	}
	sum := sha256.Sum256(m.content)
	q := url.Values{"mid": {id}, "ext": {"1718000000"}, "hash": {hex.EncodeToString(sum[:8])}}
	writeJSON(w, http.StatusOK, map[string]any{"messaging_product": "whatsapp",
		"url": s.URL + downloadPath + "?" + q.Encode(), "mime_type": m.mime, "sha256": hex.EncodeToString(sum[:]),
		"file_size": strconv.Itoa(len(m.content)), "id": id})
}

// download serves a media URL; like Meta's, it wants the access token.
func (s *Server) download(w http.ResponseWriter, r *http.Request, call Call) {
	s.mu.Lock()
	m, ok := s.media[r.URL.Query().Get("mid")]
	s.mu.Unlock()
	switch {
	case !call.Authorized:
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
	case !ok:
		http.NotFound(w, r)
	default:
		w.Header().Set("Content-Type", m.mime)
		w.Header().Set("Content-Length", strconv.Itoa(len(m.content)))
		_, _ = w.Write(m.content)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// statusFor is the HTTP status Meta answers a code with.
func statusFor(code int) int {
	switch code {
	case 190, 0:
		return http.StatusUnauthorized
	case 4, 80007, 130429, 131056:
		return http.StatusTooManyRequests
	case 10:
		return http.StatusForbidden
	case 1, 2, 131000:
		return http.StatusInternalServerError
	case 131016:
		return http.StatusServiceUnavailable
	}
	if code >= 200 && code <= 299 {
		return http.StatusForbidden
	}
	return http.StatusBadRequest
}

// writeFailure writes a Graph error body.
func writeFailure(w http.ResponseWriter, f Failure) {
	status := f.Status
	if status == 0 {
		status = statusFor(f.Code)
	}
	if f.Type == "" {
		f.Type = "OAuthException"
	}
	e := map[string]any{"message": f.Message, "type": f.Type, "code": f.Code,
		"fbtrace_id": "AbCdEfGhIjKlMnOpQrStUvW"}
	if f.Details != "" {
		e["error_data"] = map[string]any{"messaging_product": "whatsapp", "details": f.Details}
	}
	if f.Subcode != 0 {
		e["error_subcode"] = f.Subcode
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	writeJSON(w, status, map[string]any{"error": e})
}
