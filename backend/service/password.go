package service

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
)

// argon2Slots bounds how many argon2id computations (hashes and checks, of account and
// short-link passwords alike) run at once: half the cores. Each is deliberately costly, and a
// crowd of sign-ins or password guesses must not take the cores that redirects and API
// calls need; the rest wait their turn.
var argon2Slots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))

func argon2ID(password, salt []byte, t, m uint32, p uint8, n uint32) []byte {
	argon2Slots <- struct{}{}
	defer func() { <-argon2Slots }()
	return argon2.IDKey(password, salt, t, m, p, n)
}

// hashPassword returns an argon2id hash in the PHC string format, so the cost can be raised
// later without breaking stored hashes.
func (u *Users) hashPassword(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	m, t := u.s.cfg.Argon2MemoryKiB, u.s.cfg.Argon2Time
	key := argon2ID([]byte(password), salt, t, m, 1, 32)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=1$%s$%s", argon2.Version, m, t,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// checkPassword compares in constant time; a malformed hash never matches.
func checkPassword(hash, password string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false
	}
	got := argon2ID([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// HashSecret hashes a password that is not an account's (a short link's, say) the same way.
func (s *Service) HashSecret(secret string) string { return s.Users.hashPassword(secret) }

// CheckSecret compares a secret with a HashSecret hash in constant time.
func CheckSecret(hash, secret string) bool { return checkPassword(hash, secret) }
