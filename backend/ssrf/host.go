package ssrf

import (
	"net/netip"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A URL's host is read here the way a browser (the WHATWG URL standard) and the C
// resolver's inet_aton read it, not the way netip.ParseAddr does: "2130706433", "127.1",
// "0x7f.0.0.1", "0177.0.0.1" and "017700000001" are all 127.0.0.1 to curl, to a resolver
// and to many proxies, so registration must see them as 127.0.0.1 too.

// hostAddr returns the IP address that host (a URL's Hostname(), without brackets) denotes:
// ok is false for a name. err is a *BlockedError when host ends in a number but is not a
// valid IPv4 address (the URL standard makes such a URL invalid), or is a malformed IPv6
// literal.
func hostAddr(host string) (ip netip.Addr, ok bool, err error) {
	if strings.Contains(host, ":") {
		ip, perr := netip.ParseAddr(host)
		if perr != nil {
			return netip.Addr{}, false, &BlockedError{Addr: host, Why: "malformed IPv6"}
		}
		return ip, true, nil
	}
	if !endsInNumber(host) {
		return netip.Addr{}, false, nil
	}
	ip, valid := parseIPv4(host)
	if !valid {
		return netip.Addr{}, false, &BlockedError{Addr: host, Why: "malformed IPv4"}
	}
	return ip, true, nil
}

// canonicalHost lower-cases host and, when it is not ASCII, applies the compatibility
// mapping of IDNA (NFKC, and the ideographic full stops that IDNA reads as dots), which
// HTTP clients apply before they resolve a name: "１２７。０。０。１" is dialled as 127.0.0.1.
func canonicalHost(host string) string {
	for i := 0; i < len(host); i++ {
		if host[i] >= utf8.RuneSelf {
			host = norm.NFKC.String(host)
			host = strings.NewReplacer("\u3002", ".", "\uff0e", ".", "\uff61", ".").Replace(host)
			break
		}
	}
	return strings.ToLower(host)
}

// endsInNumber is the URL standard's "ends in a number" checker: the last label (after
// dropping one trailing empty label) is all digits, or "0x" followed by hex digits.
func endsInNumber(host string) bool {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4 is the URL standard's IPv4 parser: one to four parts separated by dots (one
// trailing dot allowed), each decimal, octal (leading 0) or hexadecimal (leading 0x); every
// part but the last is one byte, the last fills the remaining bytes.
func parseIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var nums [4]uint64
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	last := len(parts) - 1
	for _, n := range nums[:last] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	if nums[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	v := nums[last]
	for i, n := range nums[:last] {
		v |= n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// parseIPv4Number parses one part of an IPv4 address: "0x"/"0X" then hex digits (possibly
// none), "0" then octal digits, or decimal digits. Values too large for any address
// saturate, so the caller refuses them without overflowing.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	radix := uint64(10)
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, radix = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, radix = s[1:], 8
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		var d uint64
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= radix {
			return 0, false
		}
		n = min(n*radix+d, 1<<40) // anything ≥ 2^32 is refused anyway
	}
	return n, true
}
