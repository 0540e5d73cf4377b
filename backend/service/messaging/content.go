package messaging

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Limits of message content (WhatsApp's, the tightest of the channels we target).
const (
	MaxTextLength     = 4096
	MaxCaptionLength  = 1024
	MaxFileNameLength = 255
	MaxMimeTypeLength = 100
	MaxMediaURLLength = 2048
	MaxPlaceLength    = 300
	MaxContactPhones  = 10
	MaxPollQuestion   = 300
	MaxPollOption     = 100
	MinPollOptions    = 2
	MaxPollOptions    = 12
	MaxEmojiLength    = 16 // bytes: one emoji with its modifiers
	// MaxProviderMediaIDLength bounds a provider's media id (Telegram's file_ids are
	// about 100 characters).
	MaxProviderMediaIDLength = 300
	MaxTemplateName          = 512
	MaxTemplateComponents    = 16 << 10 // bytes of JSON
)

// ContentInput is a message's content as a client sends it: a type and the one field
// that type names (text for text).
type ContentInput struct {
	Type     string
	Text     string
	Media    *domain.Media
	Location *domain.Location
	Contact  *ContactCardInput
	Poll     *domain.Poll
	Reaction *domain.Reaction
	Template *domain.Template
}

// ContactCardInput is a contact to share: the vCard is made from it.
type ContactCardInput struct {
	Name   string
	Phones []string
}

var phoneRE = regexp.MustCompile(`^\+?[0-9][0-9 ()-]{2,30}$`)

// checkContent validates content and returns it in stored form. Every field but the one
// the type names must be absent.
func checkContent(in ContentInput) (string, domain.Content, error) {
	typ := in.Type
	if typ == "" {
		if in.Text == "" {
			return "", domain.Content{}, domain.Invalid("text", "text is required (or type, with the content of that type, for another kind of message)")
		}
		typ = domain.TypeText
	}
	known := false
	for _, t := range domain.MessageTypes {
		known = known || t == typ
	}
	if !known {
		return "", domain.Content{}, domain.Invalid("type", "unknown message type %q: one of %s", typ, strings.Join(domain.MessageTypes, ", "))
	}
	present := []struct {
		field string
		set   bool
	}{{"text", in.Text != ""}, {"media", in.Media != nil}, {"location", in.Location != nil},
		{"contact", in.Contact != nil}, {"poll", in.Poll != nil}, {"reaction", in.Reaction != nil},
		{"template", in.Template != nil}}
	want := typ
	if domain.IsMediaType(typ) {
		want = "media"
	}
	for _, p := range present {
		if p.set && p.field != want {
			return "", domain.Content{}, domain.Invalid(p.field, "%s does not belong in a %s message", p.field, typ)
		}
	}
	var c domain.Content
	switch want {
	case domain.TypeText:
		if strings.TrimSpace(in.Text) == "" {
			return "", c, domain.Invalid("text", "text is required and cannot be blank")
		}
		if utf8.RuneCountInString(in.Text) > MaxTextLength {
			return "", c, domain.Invalid("text", "text is longer than %d characters", MaxTextLength)
		}
		c.Text = in.Text
	case "media":
		m, err := checkMedia(in.Media, typ)
		if err != nil {
			return "", c, err
		}
		c.Media = m
	case domain.TypeLocation:
		if in.Location == nil {
			return "", c, domain.Invalid("location", "a location message needs location")
		}
		l := *in.Location
		if l.Latitude < -90 || l.Latitude > 90 {
			return "", c, domain.Invalid("location.latitude", "latitude must be between -90 and 90")
		}
		if l.Longitude < -180 || l.Longitude > 180 {
			return "", c, domain.Invalid("location.longitude", "longitude must be between -180 and 180")
		}
		if utf8.RuneCountInString(l.Name) > MaxPlaceLength || utf8.RuneCountInString(l.Address) > MaxPlaceLength {
			return "", c, domain.Invalid("location.name", "name and address are at most %d characters", MaxPlaceLength)
		}
		c.Location = &l
	case domain.TypeContact:
		if in.Contact == nil {
			return "", c, domain.Invalid("contact", "a contact message needs contact")
		}
		card, err := checkContactCard(*in.Contact)
		if err != nil {
			return "", c, err
		}
		c.Contact = &card
	case domain.TypePoll:
		if in.Poll == nil {
			return "", c, domain.Invalid("poll", "a poll message needs poll")
		}
		p, err := checkPoll(*in.Poll)
		if err != nil {
			return "", c, err
		}
		c.Poll = &p
	case domain.TypeReaction:
		if in.Reaction == nil {
			return "", c, domain.Invalid("reaction", "a reaction message needs reaction")
		}
		r := *in.Reaction
		if !domain.HasPrefix(r.MessageID, domain.PrefixMessage) {
			return "", c, domain.Invalid("reaction.message_id", "reaction.message_id must be the id of a message of this chat")
		}
		if len(r.Emoji) > MaxEmojiLength {
			return "", c, domain.Invalid("reaction.emoji", "reaction.emoji must be one emoji (or empty to remove a reaction)")
		}
		c.Reaction = &r
	case domain.TypeTemplate:
		t, err := checkTemplate(in.Template)
		if err != nil {
			return "", c, err
		}
		c.Template = t
	}
	return typ, c, nil
}

func checkMedia(m *domain.Media, typ string) (*domain.Media, error) {
	if m == nil {
		return nil, domain.Invalid("media", "a %s message needs media with a url (or a provider_media_id)", typ)
	}
	out := *m
	out.Size, out.NotStored, out.BlobKey = 0, "", "" // set by Switchboard for received media only
	switch {
	case out.URL != "" && out.ProviderMediaID != "":
		return nil, domain.Invalid("media.provider_media_id", "give media.url or media.provider_media_id, not both")
	case out.ProviderMediaID != "":
		if len(out.ProviderMediaID) > MaxProviderMediaIDLength || strings.ContainsAny(out.ProviderMediaID, " \t\r\n/?#") {
			return nil, domain.Invalid("media.provider_media_id", "media.provider_media_id must be a channel's media id (at most %d characters)", MaxProviderMediaIDLength)
		}
	default:
		u, err := url.Parse(out.URL)
		if out.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, domain.Invalid("media.url", "media.url must be an absolute http or https URL (or give media.provider_media_id)")
		}
		if len(out.URL) > MaxMediaURLLength {
			return nil, domain.Invalid("media.url", "media.url is longer than %d characters", MaxMediaURLLength)
		}
	}
	if utf8.RuneCountInString(out.Caption) > MaxCaptionLength {
		return nil, domain.Invalid("media.caption", "media.caption is longer than %d characters", MaxCaptionLength)
	}
	if out.Caption != "" && (typ == domain.TypeAudio || typ == domain.TypeVoice || typ == domain.TypeSticker) {
		return nil, domain.Invalid("media.caption", "a %s message has no caption", typ)
	}
	if utf8.RuneCountInString(out.FileName) > MaxFileNameLength || strings.ContainsAny(out.FileName, "/\\\x00") {
		return nil, domain.Invalid("media.file_name", "media.file_name must be a plain file name of at most %d characters", MaxFileNameLength)
	}
	if len(out.MimeType) > MaxMimeTypeLength || (out.MimeType != "" && !strings.Contains(out.MimeType, "/")) {
		return nil, domain.Invalid("media.mime_type", "media.mime_type must be a media type such as image/jpeg")
	}
	return &out, nil
}

func checkContactCard(in ContactCardInput) (domain.ContactCard, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" || utf8.RuneCountInString(name) > 200 || strings.ContainsAny(name, "\r\n") {
		return domain.ContactCard{}, domain.Invalid("contact.name", "contact.name is required (one line, at most 200 characters)")
	}
	if len(in.Phones) == 0 || len(in.Phones) > MaxContactPhones {
		return domain.ContactCard{}, domain.Invalid("contact.phones", "contact.phones needs 1 to %d numbers", MaxContactPhones)
	}
	var v strings.Builder
	v.WriteString("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:" + vcardEscape(name) + "\r\n")
	for _, p := range in.Phones {
		if !phoneRE.MatchString(p) {
			return domain.ContactCard{}, domain.Invalid("contact.phones", "%q is not a phone number", p)
		}
		v.WriteString("TEL;TYPE=CELL:" + p + "\r\n")
	}
	v.WriteString("END:VCARD\r\n")
	return domain.ContactCard{Name: name, Phones: append([]string(nil), in.Phones...), VCard: v.String()}, nil
}

func vcardEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, ",", `\,`, ";", `\;`).Replace(s)
}

func checkPoll(p domain.Poll) (domain.Poll, error) {
	q := strings.TrimSpace(p.Question)
	if q == "" || utf8.RuneCountInString(q) > MaxPollQuestion {
		return p, domain.Invalid("poll.question", "poll.question is required (at most %d characters)", MaxPollQuestion)
	}
	if len(p.Options) < MinPollOptions || len(p.Options) > MaxPollOptions {
		return p, domain.Invalid("poll.options", "poll.options needs %d to %d options", MinPollOptions, MaxPollOptions)
	}
	seen := map[string]bool{}
	for _, o := range p.Options {
		o = strings.TrimSpace(o)
		if o == "" || utf8.RuneCountInString(o) > MaxPollOption {
			return p, domain.Invalid("poll.options", "each option is 1 to %d characters", MaxPollOption)
		}
		if seen[o] {
			return p, domain.Invalid("poll.options", "option %q appears twice", o)
		}
		seen[o] = true
	}
	return domain.Poll{Question: q, Options: append([]string(nil), p.Options...), MultipleAnswers: p.MultipleAnswers}, nil
}

var templateNameRE = regexp.MustCompile(`^[a-z0-9_]+$`)
var languageRE = regexp.MustCompile(`^[a-z]{2,3}(_[A-Za-z0-9]{2,8})?$`)

// checkTemplate validates a template message: the name and language as WhatsApp spells
// them, and components as a JSON array (the channel checks their parameters).
func checkTemplate(t *domain.Template) (*domain.Template, error) {
	if t == nil {
		return nil, domain.Invalid("template", "a template message needs template")
	}
	out := *t
	if len(out.Name) > MaxTemplateName || !templateNameRE.MatchString(out.Name) {
		return nil, domain.Invalid("template.name", "template.name must be the template's name (lowercase letters, digits and underscores)")
	}
	if !languageRE.MatchString(out.Language) {
		return nil, domain.Invalid("template.language", "template.language must be a language code such as en or en_US")
	}
	if c := bytes.TrimSpace(out.Components); len(c) > 0 && !bytes.Equal(c, []byte("null")) {
		var arr []json.RawMessage
		if len(c) > MaxTemplateComponents || json.Unmarshal(c, &arr) != nil {
			return nil, domain.Invalid("template.components", "template.components must be a JSON array of at most %d bytes", MaxTemplateComponents)
		}
		out.Components = append(json.RawMessage(nil), c...)
	} else {
		out.Components = nil
	}
	return &out, nil
}
