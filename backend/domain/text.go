package domain

import (
	"strings"
	"unicode/utf8"
)

// StorableText makes text from outside (request headers, a provider's answer, an error
// message) storable in either database: valid UTF-8 (other bytes become U+FFFD), without
// NUL, and at most max bytes, cut between characters (max <= 0: no bound). PostgreSQL
// refuses a row with either, which would fail the whole statement (a batch, a job's outcome).
func StorableText(s string, max int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.ReplaceAll(s, "\x00", "")
	if max > 0 && len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}
