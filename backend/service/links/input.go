package links

import (
	"bytes"
	"encoding/json"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Limits of a link's fields.
const (
	MaxURLLength        = 2048
	MaxTitleLength      = 200
	MaxTags             = 20
	MaxTagLength        = 50
	MaxMetadataBytes    = 4096
	MaxExternalIDLength = 128
	MaxUTMLength        = 200
	MaxPasswordLength   = 128
	MaxBulk             = 100
)

// DefaultRedirectStatus is a link's redirect status unless it sets another.
const DefaultRedirectStatus = 302

// Input is a link's fields. On create, nil fields take their defaults; on update, nil
// fields are kept, and a pointer to the zero value clears an optional field ("" clears
// expired_url, a zero time expires_at, 0 max_clicks, "" the password).
type Input struct {
	URL            *string
	Slug           *string
	Title          *string
	Tags           *[]string
	ExpiresAt      *time.Time
	ExpiredURL     *string
	MaxClicks      *int64
	Password       *string
	RedirectStatus *int
	Metadata       json.RawMessage
	ExternalID     *string
	UTM            *domain.UTM
	IOSURL         *string
	AndroidURL     *string
	Archived       *bool
	// Remove names the fields an update sent as null (by their API names: url, slug, title,
	// tags, expires_at, ...): an optional field is removed, the others go back to their
	// defaults (see removals). REST's PATCH and PUT and GraphQL's updateLink fill it alike.
	Remove map[string]bool
}

// removableFields are the fields Remove may name that a link can be without (url and slug
// it cannot).
var removableFields = []string{"title", "tags", "expires_at", "expired_url", "max_clicks", "password",
	"redirect_status", "metadata", "external_id", "utm", "ios_url", "android_url", "archived"}

// removals turns the fields named in Remove into their "removed" values: "" or none for
// the optional ones (title, expires_at, expired_url, max_clicks, password, external_id,
// ios_url, android_url), the default for the others (tags [], metadata {}, utm none,
// redirect_status 302, archived false). A link cannot be without url or slug.
func (in *Input) removals(param string) error {
	if err := service.CannotRemove(param, in.Remove, "url", "slug"); err != nil {
		return err
	}
	for _, name := range removableFields {
		if !in.Remove[name] {
			continue
		}
		switch name {
		case "title":
			in.Title = ptr("")
		case "expired_url":
			in.ExpiredURL = ptr("")
		case "password":
			in.Password = ptr("")
		case "external_id":
			in.ExternalID = ptr("")
		case "ios_url":
			in.IOSURL = ptr("")
		case "android_url":
			in.AndroidURL = ptr("")
		case "max_clicks":
			in.MaxClicks = ptr(int64(0))
		case "expires_at":
			in.ExpiresAt = &time.Time{}
		case "tags":
			in.Tags = &[]string{}
		case "metadata":
			in.Metadata = json.RawMessage("{}")
		case "utm":
			in.UTM = &domain.UTM{}
		case "redirect_status":
			in.RedirectStatus = ptr(DefaultRedirectStatus)
		case "archived":
			in.Archived = ptr(false)
		}
	}
	return nil
}

// apply checks the fields that are set and writes them to sl; param prefixes every field
// name in errors (the item of a bulk call). hash turns a password into its stored hash.
func (l *Links) apply(sl *store.StoredLink, in Input, now time.Time, param string, hash func(string) string) error {
	p := func(name string) string { return param + name }
	if err := in.removals(param); err != nil {
		return err
	}
	if in.URL != nil {
		u, err := l.checkTarget(p("url"), *in.URL)
		if err != nil {
			return err
		}
		sl.URL = u
	}
	if in.Slug != nil {
		if err := checkSlug(p("slug"), *in.Slug); err != nil {
			return err
		}
		sl.Slug = *in.Slug
	}
	if in.Title != nil {
		t := strings.TrimSpace(*in.Title)
		if utf8.RuneCountInString(t) > MaxTitleLength {
			return domain.Invalid(p("title"), "title is at most %d characters", MaxTitleLength)
		}
		sl.Title = t
	}
	if in.Tags != nil {
		tags, err := checkTags(p("tags"), *in.Tags)
		if err != nil {
			return err
		}
		sl.Tags = tags
	}
	if in.ExpiresAt != nil {
		if in.ExpiresAt.IsZero() {
			sl.ExpiresAt = nil
		} else {
			t := in.ExpiresAt.UTC()
			sl.ExpiresAt = &t
		}
	}
	if in.ExpiredURL != nil {
		if *in.ExpiredURL == "" {
			sl.ExpiredURL = ""
		} else {
			u, err := l.checkTarget(p("expired_url"), *in.ExpiredURL)
			if err != nil {
				return err
			}
			sl.ExpiredURL = u
		}
	}
	if in.MaxClicks != nil {
		switch n := *in.MaxClicks; {
		case n < 0:
			return domain.Invalid(p("max_clicks"), "max_clicks is a positive number (0 removes the limit)")
		case n == 0:
			sl.MaxClicks = nil
		default:
			sl.MaxClicks = &n
		}
	}
	if in.Password != nil {
		switch pw := *in.Password; {
		case pw == "":
			sl.PasswordHash = ""
		case utf8.RuneCountInString(pw) > MaxPasswordLength:
			return domain.Invalid(p("password"), "password is at most %d characters", MaxPasswordLength)
		default:
			sl.PasswordHash = hash(pw)
		}
		sl.HasPassword = sl.PasswordHash != ""
	}
	if in.RedirectStatus != nil {
		if !slices.Contains([]int{301, 302, 307, 308}, *in.RedirectStatus) {
			return domain.Invalid(p("redirect_status"), "redirect_status is 301, 302, 307 or 308")
		}
		sl.RedirectStatus = *in.RedirectStatus
	}
	if in.Metadata != nil {
		m := bytes.TrimSpace(in.Metadata)
		if len(m) > MaxMetadataBytes {
			return domain.Invalid(p("metadata"), "metadata is at most %d bytes of JSON", MaxMetadataBytes)
		}
		if string(m) == "null" {
			m = []byte("{}")
		}
		if len(m) == 0 || m[0] != '{' || !json.Valid(m) {
			return domain.Invalid(p("metadata"), "metadata is a JSON object")
		}
		sl.Metadata = json.RawMessage(m)
	}
	if in.ExternalID != nil {
		ext := *in.ExternalID
		if len(ext) > MaxExternalIDLength || strings.ContainsAny(ext, "/?#") || strings.TrimSpace(ext) != ext {
			return domain.Invalid(p("external_id"), "external_id is at most %d characters, without spaces around it or / ? #", MaxExternalIDLength)
		}
		sl.ExternalID = ext
	}
	if in.UTM != nil {
		u := *in.UTM
		for _, f := range []struct{ name, v string }{{"source", u.Source}, {"medium", u.Medium}, {"campaign", u.Campaign},
			{"term", u.Term}, {"content", u.Content}} {
			if utf8.RuneCountInString(f.v) > MaxUTMLength {
				return domain.Invalid(p("utm."+f.name), "utm values are at most %d characters", MaxUTMLength)
			}
		}
		sl.UTM = u
	}
	for _, d := range []struct {
		name string
		in   *string
		out  *string
	}{{"ios_url", in.IOSURL, &sl.IOSURL}, {"android_url", in.AndroidURL, &sl.AndroidURL}} {
		if d.in == nil {
			continue
		}
		if *d.in == "" {
			*d.out = ""
			continue
		}
		u, err := l.checkTarget(p(d.name), *d.in)
		if err != nil {
			return err
		}
		*d.out = u
	}
	if in.Archived != nil {
		sl.Archived = *in.Archived
	}
	if sl.ExpiresAt != nil && in.ExpiresAt != nil && !sl.ExpiresAt.After(now) {
		return domain.Invalid(p("expires_at"), "expires_at must be in the future")
	}
	return nil
}

// checkTarget accepts an absolute http(s) URL of at most MaxURLLength bytes whose host is
// not blocked, and returns it as given.
func (l *Links) checkTarget(param, raw string) (string, error) {
	if raw == "" {
		return "", domain.Invalid(param, "%s is required", param)
	}
	if len(raw) > MaxURLLength {
		return "", domain.Invalid(param, "%s is at most %d bytes", param, MaxURLLength)
	}
	if strings.ContainsAny(raw, " \t\r\n") {
		return "", domain.Invalid(param, "%s must not contain spaces or line breaks (encode them)", param)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return "", domain.Invalid(param, "%s must be an absolute http or https URL", param)
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return "", domain.Invalid(param, "%s must be an absolute http or https URL", param)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", domain.Invalid(param, "%s has an invalid port (1 to 65535)", param)
		}
	}
	if u.User != nil {
		// https://bank.example@evil.example/ reads as the bank's address and goes to evil's:
		// a phishing shape, and a password in a link is shared with everyone it reaches.
		return "", domain.Invalid(param, "%s must not hold a user name or password (user:password@host)", param)
	}
	if l.isShortLink(u) {
		return "", domain.Invalid(param, "%s is a short link of this service: use its target (a link to a short link can loop, counting a click at every turn)", param)
	}
	for _, b := range l.cfg.BlockedHosts {
		if host == b || strings.HasSuffix(host, "."+b) || (net.ParseIP(b) != nil && host == b) {
			return "", &domain.Error{Code: domain.CodeInvalid, Param: param, Reason: "blocked_host",
				Message: "links to " + host + " are not allowed on this service"}
		}
	}
	return raw, nil
}

func checkTags(param string, tags []string) ([]string, error) {
	if len(tags) > MaxTags {
		return nil, domain.Invalid(param, "at most %d tags", MaxTags)
	}
	out := []string{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" || utf8.RuneCountInString(t) > MaxTagLength {
			return nil, domain.Invalid(param, "each tag is 1 to %d characters", MaxTagLength)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// isShortLink tells that u is one of this service's short links (under ShortBase or one of
// RedirectBases, on its host whatever the scheme): a link there could point back at itself,
// and every turn of the loop would be a click.
func (l *Links) isShortLink(u *url.URL) bool {
	for _, b := range append([]string{l.cfg.ShortBase}, l.cfg.RedirectBases...) {
		if under(u, b) {
			return true
		}
	}
	return false
}

// under tells that u is a path below base (same host and port; http and https of one host
// are one service).
func under(u *url.URL, rawBase string) bool {
	base, err := url.Parse(rawBase)
	if err != nil || base.Host == "" {
		return false
	}
	host := func(u *url.URL) string { return strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")) }
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" && !(p == "80" && u.Scheme == "http") && !(p == "443" && u.Scheme == "https") {
			return p
		}
		return "" // the scheme's own
	}
	if host(u) != host(base) || port(u) != port(base) {
		return false
	}
	prefix := strings.TrimSuffix(base.Path, "/") + "/"
	return strings.HasPrefix(u.Path, prefix) && len(u.Path) > len(prefix)
}

func ptr[T any](v T) *T { return &v }
