package telegramtest

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// handle answers one authorised call (s.mu held): its result, or an error as Telegram words it.
func (s *Server) handle(method string, p map[string]string, up upload) (any, *apiError) {
	switch method {
	case "getMe":
		return map[string]any{"id": s.botID, "is_bot": true, "first_name": s.cfg.FirstName,
			"username": s.cfg.Username, "can_join_groups": true, "can_read_all_group_messages": false,
			"supports_inline_queries": false}, nil
	case "setWebhook":
		return s.setWebhook(p)
	case "deleteWebhook":
		s.webhook = Webhook{}
		return true, nil
	case "getWebhookInfo":
		return map[string]any{"url": s.webhook.URL, "has_custom_certificate": false, "pending_update_count": 0,
			"allowed_updates": s.webhook.AllowedUpdates}, nil
	case "sendMessage":
		if strings.TrimSpace(p["text"]) == "" {
			return nil, badRequest("message text is empty")
		}
		return s.send(p, map[string]any{"text": p["text"]})
	case "sendPhoto", "sendVideo", "sendAudio", "sendVoice", "sendDocument", "sendSticker":
		return s.sendMedia(method, p, up)
	case "sendLocation":
		lat, err1 := strconv.ParseFloat(p["latitude"], 64)
		lon, err2 := strconv.ParseFloat(p["longitude"], 64)
		if err1 != nil || err2 != nil {
			return nil, badRequest("wrong latitude or longitude specified")
		}
		return s.send(p, map[string]any{"location": map[string]any{"latitude": lat, "longitude": lon}})
	case "sendContact":
		if p["phone_number"] == "" || p["first_name"] == "" {
			return nil, badRequest("phone_number and first_name are required")
		}
		c := map[string]any{"phone_number": p["phone_number"], "first_name": p["first_name"]}
		for _, k := range []string{"last_name", "vcard"} {
			if p[k] != "" {
				c[k] = p[k]
			}
		}
		return s.send(p, map[string]any{"contact": c})
	case "sendPoll":
		return s.sendPoll(p)
	case "setMessageReaction":
		return s.setReaction(p)
	case "editMessageText":
		return s.editText(p)
	case "deleteMessage":
		chat, msg, aerr := s.target(p)
		if aerr != nil {
			return nil, aerr
		}
		if s.messages[chat][msg] == nil {
			return nil, badRequest("message to delete not found")
		}
		delete(s.messages[chat], msg)
		return true, nil
	case "sendChatAction":
		if _, aerr := s.chat(p["chat_id"]); aerr != nil {
			return nil, aerr
		}
		switch p["action"] {
		case "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice",
			"upload_document", "choose_sticker", "find_location", "record_video_note", "upload_video_note":
			return true, nil
		}
		return nil, badRequest("wrong parameter action in request")
	case "setChatTitle", "setChatDescription":
		return s.setChatText(method, p)
	case "banChatMember", "unbanChatMember":
		return s.ban(method, p)
	case "leaveChat":
		if _, aerr := s.chat(p["chat_id"]); aerr != nil {
			return nil, aerr
		}
		return true, nil
	case "getFile":
		f, ok := s.files[p["file_id"]]
		if !ok {
			return nil, badRequest("invalid file_id")
		}
		if len(f.content) > MaxDownloadBytes {
			return nil, badRequest("file is too big")
		}
		return map[string]any{"file_id": f.id, "file_unique_id": "u" + f.id, "file_size": len(f.content),
			"file_path": f.path}, nil
	}
	return nil, &apiError{code: http.StatusNotFound, desc: "Not Found"}
}

var secretTokenRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)

func (s *Server) setWebhook(p map[string]string) (any, *apiError) {
	u := p["url"]
	if u == "" { // an empty URL removes the webhook
		s.webhook = Webhook{}
		return true, nil
	}
	parsed, err := url.Parse(u)
	if err != nil || parsed.Host == "" || (parsed.Scheme != "https" && parsed.Scheme != "http") {
		return nil, badRequest("bad webhook: Failed to resolve host: Name or service not known")
	}
	if s.cfg.RequireHTTPS && parsed.Scheme != "https" {
		return nil, badRequest("bad webhook: An HTTPS URL must be provided for webhook")
	}
	if t := p["secret_token"]; t != "" && !secretTokenRE.MatchString(t) {
		return nil, badRequest("secret token contains unallowed characters")
	}
	wh := Webhook{URL: u, SecretToken: p["secret_token"]}
	if a := p["allowed_updates"]; a != "" {
		if err := json.Unmarshal([]byte(a), &wh.AllowedUpdates); err != nil {
			return nil, badRequest("can't parse allowed updates JSON object")
		}
	}
	s.webhook = wh
	return true, nil
}

// chat resolves a chat_id parameter: an integer, or @username of a registered chat.
func (s *Server) chat(id string) (Chat, *apiError) {
	if id == "" {
		return Chat{}, badRequest("chat_id is empty")
	}
	if strings.HasPrefix(id, "@") {
		for _, c := range s.chats {
			if c.Username != "" && "@"+c.Username == id {
				return c, nil
			}
		}
		return Chat{}, badRequest("chat not found")
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n == 0 {
		return Chat{}, badRequest("chat not found")
	}
	if c, ok := s.chats[n]; ok {
		return c, nil
	}
	if n > 0 {
		return Chat{ID: n, Type: "private", FirstName: "User " + id}, nil
	}
	return Chat{ID: n, Type: "supergroup", Title: "Group " + id}, nil
}

// target resolves chat_id and message_id.
func (s *Server) target(p map[string]string) (int64, int, *apiError) {
	c, aerr := s.chat(p["chat_id"])
	if aerr != nil {
		return 0, 0, aerr
	}
	msg, err := strconv.Atoi(p["message_id"])
	if err != nil || msg <= 0 {
		return 0, 0, badRequest("message identifier is not specified")
	}
	return c.ID, msg, nil
}

// send stores a message from the bot and answers it, with the reply it quotes.
func (s *Server) send(p map[string]string, fields map[string]any) (any, *apiError) {
	c, aerr := s.chat(p["chat_id"])
	if aerr != nil {
		return nil, aerr
	}
	var reply map[string]any
	if rp := p["reply_parameters"]; rp != "" {
		var params struct {
			MessageID                int  `json:"message_id"`
			AllowSendingWithoutReply bool `json:"allow_sending_without_reply"`
		}
		if err := json.Unmarshal([]byte(rp), &params); err != nil {
			return nil, badRequest("can't parse reply parameters JSON object")
		}
		if q := s.messages[c.ID][params.MessageID]; q != nil {
			reply = map[string]any{"message_id": params.MessageID, "chat": c.wire(), "date": time.Now().Unix()}
			if q.text != "" {
				reply["text"] = q.text
			}
		} else if !params.AllowSendingWithoutReply {
			return nil, badRequest("message to be replied not found")
		}
	}
	s.nextMsg[c.ID]++
	id := s.nextMsg[c.ID]
	if s.messages[c.ID] == nil {
		s.messages[c.ID] = map[int]*message{}
	}
	text, _ := fields["text"].(string)
	s.messages[c.ID][id] = &message{fromBot: true, text: text}
	m := map[string]any{"message_id": id, "from": s.Bot().wire(), "chat": c.wire(), "date": time.Now().Unix()}
	for k, v := range fields {
		m[k] = v
	}
	if reply != nil {
		m["reply_to_message"] = reply
	}
	return m, nil
}

// sendMedia answers a file send. The file is a file_id (a known one is kept), a URL, or
// an upload: the file itself as the parameter's multipart part, or "attach://<name>"
// naming another part. A URL or an upload becomes a new file, as on Telegram; an uploaded
// one is then served by getFile and the file server, with the bytes as uploaded (Telegram
// would recompress a photo).
func (s *Server) sendMedia(method string, p map[string]string, up upload) (any, *apiError) {
	field := strings.ToLower(strings.TrimPrefix(method, "send"))
	ref := p[field]
	part := field
	if name, ok := strings.CutPrefix(ref, "attach://"); ok {
		part, ref = name, ""
	}
	content, uploaded := up.files[part]
	if ref == "" && !uploaded {
		return nil, badRequest("there is no " + field + " in the request")
	}
	if uploaded && len(content) == 0 {
		return nil, badRequest("file must be non-empty")
	}
	if len(content) > MaxUploadBytes {
		return nil, &apiError{code: http.StatusRequestEntityTooLarge, desc: "Request Entity Too Large"}
	}
	name := fileName(ref)
	if uploaded {
		name = up.names[part]
	}
	id := ref
	if _, known := s.files[ref]; !known || uploaded {
		s.nextFile++
		id = fmt.Sprintf("BQACAgfake%06d", s.nextFile)
	}
	if uploaded {
		ext := path.Ext(name)
		if field == "photo" {
			ext = ".jpg"
		}
		s.files[id] = file{id: id, path: fmt.Sprintf("%ss/file_%d%s", field, s.nextFile, ext),
			content: append([]byte(nil), content...)}
	}
	obj := map[string]any{"file_id": id, "file_unique_id": "u" + id}
	if uploaded {
		obj["file_size"] = len(content)
		if mt := mime.TypeByExtension(path.Ext(name)); mt != "" && field != "photo" && field != "sticker" {
			obj["mime_type"], _, _ = strings.Cut(mt, ";")
		}
	}
	fields := map[string]any{}
	switch field {
	case "photo":
		big := map[string]any{"file_id": id, "file_unique_id": "u" + id, "width": 1280, "height": 853, "file_size": 98000}
		if uploaded {
			big["file_size"] = len(content)
		}
		fields["photo"] = []map[string]any{
			{"file_id": id + "s", "file_unique_id": "u" + id + "s", "width": 90, "height": 60, "file_size": 1200}, big,
		}
	case "video":
		obj["width"], obj["height"], obj["duration"] = 1280, 720, 10
	case "audio", "voice":
		obj["duration"] = 5
	case "document":
		obj["file_name"] = name
	case "sticker":
		obj["type"], obj["width"], obj["height"], obj["is_animated"], obj["is_video"] = "regular", 512, 512, false, false
	}
	if field != "photo" {
		fields[field] = obj
	}
	if c := p["caption"]; c != "" && field != "sticker" {
		fields["caption"] = c
	}
	return s.send(p, fields)
}

// Uploaded returns the content of a file a bot uploaded (or AddFile registered), by its
// file_id, as getFile and the file server serve it.
func (s *Server) Uploaded(fileID string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[fileID]
	return f.content, ok
}

func fileName(ref string) string {
	if u, err := url.Parse(ref); err == nil && u.Path != "" {
		parts := strings.Split(u.Path, "/")
		return parts[len(parts)-1]
	}
	return "file"
}

func (s *Server) sendPoll(p map[string]string) (any, *apiError) {
	if strings.TrimSpace(p["question"]) == "" {
		return nil, badRequest("poll question must be non-empty")
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(p["options"]), &raw); err != nil {
		return nil, badRequest("can't parse options JSON object")
	}
	var options []map[string]any
	for _, r := range raw {
		// Options may be InputPollOption objects or, as older clients send, strings.
		var o struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(r, &o) != nil {
			_ = json.Unmarshal(r, &o.Text)
		}
		options = append(options, map[string]any{"text": o.Text, "voter_count": 0})
	}
	if len(options) < 2 || len(options) > 12 {
		return nil, badRequest("poll must have at least 2 option")
	}
	s.nextFile++
	return s.send(p, map[string]any{"poll": map[string]any{"id": strconv.Itoa(5000000 + s.nextFile),
		"question": p["question"], "options": options, "total_voter_count": 0, "is_closed": false,
		"is_anonymous": p["is_anonymous"] != "false", "type": "regular",
		"allows_multiple_answers": p["allows_multiple_answers"] == "true"}})
}

func (s *Server) setReaction(p map[string]string) (any, *apiError) {
	if _, _, aerr := s.target(p); aerr != nil {
		return nil, aerr
	}
	if r := p["reaction"]; r != "" {
		var rs []struct {
			Type  string `json:"type"`
			Emoji string `json:"emoji"`
		}
		if err := json.Unmarshal([]byte(r), &rs); err != nil {
			return nil, badRequest("can't parse reaction types JSON object")
		}
		for _, x := range rs {
			if x.Type != "emoji" && x.Type != "custom_emoji" && x.Type != "paid" || x.Type == "emoji" && !ReactionEmoji[x.Emoji] {
				return nil, badRequest("REACTION_INVALID")
			}
		}
	}
	return true, nil
}

func (s *Server) editText(p map[string]string) (any, *apiError) {
	chat, msg, aerr := s.target(p)
	if aerr != nil {
		return nil, aerr
	}
	if strings.TrimSpace(p["text"]) == "" {
		return nil, badRequest("message text is empty")
	}
	m := s.messages[chat][msg]
	if m == nil || !m.fromBot {
		return nil, badRequest("message to edit not found")
	}
	if m.text == p["text"] {
		return nil, badRequest("message is not modified: specified new message content and reply markup are " +
			"exactly the same as a current content and reply markup of the message")
	}
	m.text = p["text"]
	c, _ := s.chat(p["chat_id"])
	now := time.Now().Unix()
	return map[string]any{"message_id": msg, "from": s.Bot().wire(), "chat": c.wire(), "date": now,
		"edit_date": now, "text": m.text}, nil
}

func (s *Server) setChatText(method string, p map[string]string) (any, *apiError) {
	c, aerr := s.chat(p["chat_id"])
	if aerr != nil {
		return nil, aerr
	}
	if c.Type == "private" {
		return nil, badRequest("chat is not a group")
	}
	if method == "setChatTitle" {
		if strings.TrimSpace(p["title"]) == "" {
			return nil, badRequest("chat title is empty")
		}
		if c.Title == p["title"] {
			return true, nil // TDLib answers an unchanged title itself, as done
		}
		c.Title = p["title"]
	} else {
		if c.Description == p["description"] {
			return nil, badRequest("chat description is not modified")
		}
		c.Description = p["description"]
	}
	s.chats[c.ID] = c
	return true, nil
}

func (s *Server) ban(method string, p map[string]string) (any, *apiError) {
	c, aerr := s.chat(p["chat_id"])
	if aerr != nil {
		return nil, aerr
	}
	user, err := strconv.ParseInt(p["user_id"], 10, 64)
	if err != nil || user <= 0 {
		return nil, badRequest("invalid user_id specified")
	}
	if s.banned[c.ID] == nil {
		s.banned[c.ID] = map[int64]bool{}
	}
	if method == "banChatMember" {
		s.banned[c.ID][user] = true
	} else {
		delete(s.banned[c.ID], user)
	}
	return true, nil
}

// Banned reports whether a user is banned from a chat now.
func (s *Server) Banned(chat, user int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.banned[chat][user]
}

// MaxDownloadBytes is the largest file getFile serves a bot: "For the moment, bots can
// download files of up to 20MB in size" (Bot API, getFile). Larger ones are refused with
// "Bad Request: file is too big".
const MaxDownloadBytes = 20 << 20

// ReactionEmoji are the emoji a bot may react with (Bot API, ReactionTypeEmoji: "Currently,
// it can be one of ..."), as Telegram writes them: without variation selectors (U+FE0F).
var ReactionEmoji = map[string]bool{}

func init() {
	for _, e := range []string{"❤", "👍", "👎", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩",
		"🤮", "💩", "🙏", "👌", "🕊", "🤡", "🥱", "🥴", "😍", "🐳", "❤\u200d🔥", "🌚", "🌭", "💯", "🤣", "⚡", "🍌",
		"🏆", "💔", "🤨", "😐", "🍓", "🍾", "💋", "🖕", "😈", "😴", "😭", "🤓", "👻", "👨\u200d💻", "👀", "🎃", "🙈",
		"😇", "😨", "🤝", "✍", "🤗", "🫡", "🎅", "🎄", "☃", "💅", "🤪", "🗿", "🆒", "💘", "🙉", "🦄", "😘", "💊",
		"🙊", "😎", "👾", "🤷\u200d♂", "🤷", "🤷\u200d♀", "😡"} {
		ReactionEmoji[e] = true
	}
}
