package media

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// clock is a settable time for the signer.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newSigner(c *clock) *Signer {
	return &Signer{Key: testKey, Base: "https://sb.example.com", TTL: 15 * time.Minute, Now: c.now}
}

func parts(t *testing.T, raw string) (key, expires, signature string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	key, ok := strings.CutPrefix(u.Path, Prefix)
	if !ok {
		t.Fatalf("%s is not under %s", raw, Prefix)
	}
	return key, u.Query().Get("expires"), u.Query().Get("signature")
}

func TestSignerURL(t *testing.T) {
	c := &clock{time.Unix(1_800_000_000, 0)}
	s := newSigner(c)
	raw := s.URL("media/ws_1/inst_2/abc")
	if !strings.HasPrefix(raw, "https://sb.example.com/media/media/ws_1/inst_2/abc?expires=1800000900&signature=") {
		t.Fatalf("URL = %s", raw)
	}
	key, exp, sig := parts(t, raw)
	if err := s.Verify(key, exp, sig); err != nil {
		t.Fatalf("Verify of our own URL: %v", err)
	}
	// A trailing slash on Base makes no double slash.
	s.Base = "https://sb.example.com/"
	if raw := s.URL("k"); !strings.HasPrefix(raw, "https://sb.example.com/media/k?") {
		t.Errorf("URL with a slash-ended Base = %s", raw)
	}
}

func TestSignerVerify(t *testing.T) {
	c := &clock{time.Unix(1_800_000_000, 0)}
	s := newSigner(c)
	key, exp, sig := parts(t, s.URL("media/w/i/abc"))
	other := &Signer{Key: []byte("another key, just as long as one"), TTL: time.Minute, Now: c.now}
	_, _, otherSig := parts(t, other.URL("media/w/i/abc"))
	for _, tc := range []struct {
		name              string
		key, expires, sig string
		want              error
	}{
		{"valid", key, exp, sig, nil},
		{"other key", key, exp, "x" + sig[1:], ErrSignatureInvalid},
		{"other signer", key, exp, otherSig, ErrSignatureInvalid},
		{"other blob", "media/w/i/abd", exp, sig, ErrSignatureInvalid},
		{"later expiry", key, "1800009999", sig, ErrSignatureInvalid},
		{"expiry with a sign", key, "+" + exp, sig, ErrSignatureInvalid},
		{"no expiry", key, "", sig, ErrSignatureInvalid},
		{"no signature", key, exp, "", ErrSignatureInvalid},
		{"truncated signature", key, exp, sig[:20], ErrSignatureInvalid},
		{"padded signature", key, exp, sig + "=", ErrSignatureInvalid},
		{"newline in key", key + "\n", exp, sig, ErrSignatureInvalid},
	} {
		if err := s.Verify(tc.key, tc.expires, tc.sig); !errors.Is(err, tc.want) {
			t.Errorf("%s: Verify = %v, want %v", tc.name, err, tc.want)
		}
	}

	c.t = c.t.Add(15*time.Minute - time.Second)
	if err := s.Verify(key, exp, sig); err != nil {
		t.Errorf("a second before expiry: %v", err)
	}
	c.t = c.t.Add(time.Second)
	if err := s.Verify(key, exp, sig); !errors.Is(err, ErrURLExpired) {
		t.Errorf("at expiry: %v, want ErrURLExpired", err)
	}
	// Expired and altered is altered: the signature is what tells them apart.
	if err := s.Verify("media/w/i/abd", exp, sig); !errors.Is(err, ErrSignatureInvalid) {
		t.Errorf("expired and altered: %v, want ErrSignatureInvalid", err)
	}
}

func TestSignerWeakKeyVerifiesNothing(t *testing.T) {
	c := &clock{time.Unix(1_800_000_000, 0)}
	s := &Signer{Key: []byte("short"), Base: "https://sb.example.com", TTL: time.Minute, Now: c.now}
	key, exp, sig := parts(t, s.URL("k"))
	if err := s.Verify(key, exp, sig); !errors.Is(err, ErrWeakKey) {
		t.Errorf("Verify with a short key: %v, want ErrWeakKey", err)
	}
	s.Key = nil
	if err := s.Verify(key, exp, sig); !errors.Is(err, ErrWeakKey) {
		t.Errorf("Verify with no key: %v, want ErrWeakKey", err)
	}
}

func TestSignerValidate(t *testing.T) {
	ok := Signer{Key: testKey, Base: "https://sb.example.com", TTL: time.Hour}
	if err := ok.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	for name, mod := range map[string]func(*Signer){
		"short key":  func(s *Signer) { s.Key = testKey[:31] },
		"no TTL":     func(s *Signer) { s.TTL = 0 },
		"no base":    func(s *Signer) { s.Base = "" },
		"no scheme":  func(s *Signer) { s.Base = "sb.example.com" },
		"ftp base":   func(s *Signer) { s.Base = "ftp://sb.example.com" },
		"query base": func(s *Signer) { s.Base = "https://sb.example.com?x=1" },
		"relative":   func(s *Signer) { s.Base = "/media" },
		"path base":  func(s *Signer) { s.Base = "https://sb.example.com/app" },
		"user base":  func(s *Signer) { s.Base = "https://u:p@sb.example.com" },
	} {
		s := ok
		mod(&s)
		if err := s.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, s)
		}
	}
}
