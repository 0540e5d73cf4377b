// Package media serves stored media at short-lived signed URLs: GET /media/{key}?expires=…
// &signature=…. Message objects carry such URLs, so whoever holds one can fetch the file
// until it expires, without an API key (a browser's <img>, a workflow tool).
package media

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Prefix is where the handler is mounted.
const Prefix = "/media/"

// MinKeyBytes is the shortest signing key accepted: a shorter one could be guessed.
const MinKeyBytes = 32

var (
	// ErrSignatureInvalid is a URL we did not sign: altered, truncated or made up.
	ErrSignatureInvalid = errors.New("media: invalid URL signature")
	// ErrURLExpired is a URL we signed whose time is up.
	ErrURLExpired = errors.New("media: URL expired")
	// ErrWeakKey is a signer whose key is shorter than MinKeyBytes; it verifies nothing.
	ErrWeakKey = errors.New("media: signing key shorter than 32 bytes")
)

// Signer makes and checks signed media URLs.
type Signer struct {
	// Key is the HMAC-SHA256 key, at least MinKeyBytes long. Changing it invalidates every
	// URL handed out.
	Key []byte
	// Base is the public origin the URLs start with, e.g. https://sb.example.com.
	Base string
	// TTL is how long a URL stays valid.
	TTL time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// URL returns a URL for key that is valid for TTL from now.
func (s *Signer) URL(key string) string {
	exp := strconv.FormatInt(s.now().Add(s.TTL).Unix(), 10)
	q := url.Values{"expires": {exp}, "signature": {base64.RawURLEncoding.EncodeToString(s.mac(key, exp))}}
	return strings.TrimSuffix(s.Base, "/") + Prefix + escapePath(key) + "?" + q.Encode()
}

// Verify checks a URL's key, expires and signature parameters.
func (s *Signer) Verify(key, expires, signature string) error {
	_, err := s.verify(key, expires, signature)
	return err
}

// verify also returns the expiry, which the handler turns into a cache lifetime. The
// signature is checked before the time, so an altered URL is never reported as merely
// expired.
func (s *Signer) verify(key, expires, signature string) (time.Time, error) {
	if len(s.Key) < MinKeyBytes {
		return time.Time{}, ErrWeakKey
	}
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || strings.Contains(key, "\n") {
		return time.Time{}, ErrSignatureInvalid
	}
	got, err := base64.RawURLEncoding.DecodeString(signature)
	if err != nil || !hmac.Equal(got, s.mac(key, expires)) {
		return time.Time{}, ErrSignatureInvalid
	}
	at := time.Unix(exp, 0)
	if !s.now().Before(at) {
		return at, ErrURLExpired
	}
	return at, nil
}

// Validate reports a signer that cannot work: a short key, no lifetime, or a Base that is
// not an http(s) origin. The composition root calls it at start.
func (s *Signer) Validate() error {
	if len(s.Key) < MinKeyBytes {
		return ErrWeakKey
	}
	if s.TTL <= 0 {
		return errors.New("media: the signed URL lifetime must be positive")
	}
	u, err := url.Parse(s.Base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		strings.TrimRight(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("media: the public base URL must be an origin such as https://sb.example.com, not %q", s.Base)
	}
	return nil
}

// mac is HMAC-SHA256 over "key\nexpires". Neither holds a newline (keys are refused if
// they do, expires is a number), so no two pairs share a message.
func (s *Signer) mac(key, expires string) []byte {
	m := hmac.New(sha256.New, s.Key)
	m.Write([]byte(key + "\n" + expires))
	return m.Sum(nil)
}

func (s *Signer) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// escapePath escapes each segment of key; blob keys need none, but a URL must never be
// built from an unescaped string.
func escapePath(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
