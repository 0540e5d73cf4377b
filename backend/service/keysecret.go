package service

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"hash/crc32"
	"math/big"
	"strings"
)

// API key secrets look like sb_live_<32 base62 chars: 190 random bits><6 base62 chars: CRC32>.
// The checksum lets us (and secret scanners) reject a mistyped or made-up key without a
// database look-up.
const (
	keyPrefix       = "sb_live_"
	keyRandomLen    = 32
	keyChecksumLen  = 6
	keySecretLength = len(keyPrefix) + keyRandomLen + keyChecksumLen
	base62          = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

var isBase62 = func() (t [256]bool) {
	for i := range len(base62) {
		t[base62[i]] = true
	}
	return t
}()

func newKeySecret() string {
	var b strings.Builder
	b.WriteString(keyPrefix)
	max := big.NewInt(62)
	for i := 0; i < keyRandomLen; i++ {
		n, _ := rand.Int(rand.Reader, max)
		b.WriteByte(base62[n.Int64()])
	}
	body := b.String()
	return body + keyChecksum(body)
}

func keyChecksum(body string) string {
	sum := crc32.ChecksumIEEE([]byte(body))
	out := make([]byte, keyChecksumLen)
	for i := keyChecksumLen - 1; i >= 0; i-- {
		out[i] = base62[sum%62]
		sum /= 62
	}
	return string(out)
}

// keyWellFormed reports whether secret has the key format and a valid checksum.
func keyWellFormed(secret string) bool {
	if len(secret) != keySecretLength || !strings.HasPrefix(secret, keyPrefix) {
		return false
	}
	for i := len(keyPrefix); i < len(secret); i++ {
		if !isBase62[secret[i]] {
			return false
		}
	}
	body := secret[:len(secret)-keyChecksumLen]
	return keyChecksum(body) == secret[len(body):]
}

// hashKey is what the store keeps: SHA-256 of the whole secret. Secrets have 190 random
// bits, so a fast hash is enough (no dictionary to attack) and lookups stay cheap.
func hashKey(secret string) string {
	var hx [64]byte
	hashKeyHex(&hx, secret)
	return string(hx[:])
}

// hashKeyHex writes hashKey(secret) into dst without allocating (for secrets of the key
// format's length), for the per-request cache look-up.
func hashKeyHex(dst *[64]byte, secret string) {
	var buf [128]byte
	sum := sha256.Sum256(append(buf[:0], secret...))
	hex.Encode(dst[:], sum[:])
}
