package service

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
)

// secretBox encrypts secrets at rest (webhook signing secrets, replayable responses that
// carry them) with AES-256-GCM under a key derived from the
// operator's SecretsKey. Without a key, secrets are stored as is. Values written with a key
// start with "enc:v1:", so a key can be introduced later (older rows stay readable).
type secretBox struct{ aead cipher.AEAD }

const sealedPrefix = "enc:v1:"

var errNoSecretsKey = errors.New("stored secret is encrypted but no secrets key is configured")

func newSecretBox(key []byte) secretBox {
	if len(key) == 0 {
		return secretBox{}
	}
	sum := sha256.Sum256(append([]byte("switchboard secrets v1\x00"), key...))
	block, err := aes.NewCipher(sum[:])
	if err != nil {
		panic(err) // 32-byte key: cannot fail
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return secretBox{aead}
}

func (b secretBox) seal(secret string) (string, error) {
	if b.aead == nil {
		return secret, nil
	}
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return sealedPrefix + base64.RawStdEncoding.EncodeToString(b.aead.Seal(nonce, nonce, []byte(secret), nil)), nil
}

func (b secretBox) open(stored string) (string, error) {
	if !strings.HasPrefix(stored, sealedPrefix) {
		return stored, nil
	}
	if b.aead == nil {
		return "", errNoSecretsKey
	}
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(stored, sealedPrefix))
	if err != nil || len(raw) < b.aead.NonceSize() {
		return "", errors.New("stored secret: corrupt value")
	}
	n := b.aead.NonceSize()
	plain, err := b.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return "", errors.New("stored secret: cannot decrypt (wrong secrets key?)")
	}
	return string(plain), nil
}
