package blob

import (
	"errors"
	"strings"
)

// MaxKeyBytes is S3's limit on a key, so a key valid here is valid everywhere.
const MaxKeyBytes = 1024

// ErrInvalidKey is a key outside the safe form (see ValidKey).
var ErrInvalidKey = errors.New("blob: invalid key")

// ValidKey reports whether key is safe on every backend: slash-separated segments of
// [A-Za-z0-9._=-], none empty and none starting with a dot (so no "..", no hidden
// files), and not ending in ".attrs", which fileblob keeps for its metadata sidecars.
// Keys reach file paths and URLs, so anything looser would need escaping everywhere.
func ValidKey(key string) bool {
	if key == "" || len(key) > MaxKeyBytes || strings.HasSuffix(key, ".attrs") {
		return false
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" || seg[0] == '.' {
			return false
		}
		for i := 0; i < len(seg); i++ {
			if !keyByte(seg[i]) {
				return false
			}
		}
	}
	return true
}

func keyByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	case c == '.' || c == '_' || c == '-' || c == '=':
		return true
	}
	return false
}
