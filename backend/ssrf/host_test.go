package ssrf

import (
	"net/netip"
	"net/url"
	"testing"
)

// Every spelling of an IPv4 address that a browser (WHATWG URL standard) or the C resolver
// accepts is read as that address, so registration refuses loopback however it is written.
func TestCheckURLReadsIPv4AsBrowsersDo(t *testing.T) {
	p := MustPolicy()
	cases := []struct {
		url  string
		addr string // the address the host denotes
		why  string // Classify's reason, or "malformed IPv4"/"malformed IPv6"
	}{
		{"http://2130706433/", "127.0.0.1", "loopback"},     // one 32-bit decimal number
		{"http://127.1/", "127.0.0.1", "loopback"},          // last part fills three bytes
		{"http://127.0.1/", "127.0.0.1", "loopback"},        // last part fills two bytes
		{"http://0/", "0.0.0.0", "unspecified"},             // one number
		{"http://0x7f000001/", "127.0.0.1", "loopback"},     // hexadecimal
		{"http://0X7F000001/", "127.0.0.1", "loopback"},     // hexadecimal, upper case
		{"http://0x7f.0.0.1/", "127.0.0.1", "loopback"},     // hexadecimal part
		{"http://0x7f.1/", "127.0.0.1", "loopback"},         // hexadecimal, two parts
		{"http://0177.0.0.1/", "127.0.0.1", "loopback"},     // octal part
		{"http://017700000001/", "127.0.0.1", "loopback"},   // octal number
		{"http://00000177.0.0.1/", "127.0.0.1", "loopback"}, // octal with many zeros
		{"http://127.0.0.1./", "127.0.0.1", "loopback"},     // one trailing dot
		{"http://0x.0x.0x.0x/", "0.0.0.0", "unspecified"},   // "0x" alone is zero
		{"http://0xa9fea9fe/", "169.254.169.254", "link-local (cloud metadata)"},
		{"http://169.254.43518/", "169.254.169.254", "link-local (cloud metadata)"},
		{"http://012.1/", "10.0.0.1", "private"},
		{"http://3232235777/", "192.168.1.1", "private"},
		{"http://１２７.０.０.１/", "127.0.0.1", "loopback"},          // fullwidth digits, as IDNA maps them
		{"http://127。0。0。1/", "127.0.0.1", "loopback"},          // ideographic full stops
		{"http://[::ffff:127.0.0.1]/", "127.0.0.1", "loopback"}, // IPv4-mapped IPv6
		{"http://[::ffff:7f00:1]/", "127.0.0.1", "loopback"},    // the same, in hex
		{"http://[::1]/", "::1", "loopback"},
		{"http://[0:0:0:0:0:0:0:1]/", "::1", "loopback"},
		{"http://[fe80::1%25eth0]/", "fe80::1", "link-local"}, // a zone does not hide the range
		{"http://[::1%25lo]/", "::1", "loopback"},
		// Hosts that end in a number but are not IPv4 addresses: invalid URLs to a browser.
		{"http://1.2.3.4.5/", "", "malformed IPv4"},
		{"http://08.0.0.1/", "", "malformed IPv4"}, // 8 is not an octal digit
		{"http://0x7g.0.0.1/", "", "malformed IPv4"},
		{"http://256.0.0.1/", "", "malformed IPv4"}, // a non-last part over 255
		{"http://1.2.3.256/", "", "malformed IPv4"},
		{"http://1.16777216/", "", "malformed IPv4"}, // last part over three bytes
		{"http://4294967296/", "", "malformed IPv4"}, // over 32 bits
		{"http://99999999999999999999999/", "", "malformed IPv4"},
		{"http://1..1/", "", "malformed IPv4"},
		{"http://example.123/", "", "malformed IPv4"},
		{"http://example.0x1/", "", "malformed IPv4"},
	}
	for _, c := range cases {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		err = p.CheckURL(u)
		b, ok := err.(*BlockedError)
		if !ok || b.Why != c.why {
			t.Errorf("CheckURL(%s) = %v, want refused as %s", c.url, err, c.why)
			continue
		}
		if c.addr == "" {
			continue
		}
		ip, isIP, err := hostAddr(canonicalHost(u.Hostname()))
		if err != nil || !isIP || ip.Unmap().WithZone("") != netip.MustParseAddr(c.addr) {
			t.Errorf("%s denotes %v (ip %v, err %v), want %s", c.url, ip, isIP, err, c.addr)
		}
	}
}

// Public addresses in the same spellings, and names that merely contain digits, pass.
func TestCheckURLAcceptsPublicSpellings(t *testing.T) {
	p := MustPolicy()
	for _, raw := range []string{
		"http://134744072/",   // 8.8.8.8
		"http://0x8.0x8.8.8/", // 8.8.8.8
		"http://8.8.2056/",    // 8.8.8.8
		"https://1.1.1.1./",   // trailing dot
		"https://[2606:4700::1111]/",
		"https://123.example.com/",
		"https://example.com1/", // ends in a label that is not a number
		"https://0xample.com/",
		"https://a.0xg/", // "0xg" is not a number: a name
		"https://bücher.example/",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if err := p.CheckURL(u); err != nil {
			t.Errorf("CheckURL(%s) = %v, want accepted", raw, err)
		}
	}
}

// The allow-list matches the address a spelling denotes.
func TestCheckURLAllowListMatchesAnySpelling(t *testing.T) {
	p := MustPolicy("127.0.0.0/8", "fe80::/10")
	for _, raw := range []string{"http://2130706433/", "http://127.1/", "http://0x7f.0.0.1/", "http://[fe80::1%25eth0]/"} {
		u, _ := url.Parse(raw)
		if err := p.CheckURL(u); err != nil {
			t.Errorf("allow-listed %s refused: %v", raw, err)
		}
	}
	// A malformed host is refused even so.
	u, _ := url.Parse("http://127.0.0.0.1/")
	if err := p.CheckURL(u); !IsBlocked(err) {
		t.Errorf("malformed host accepted: %v", err)
	}
}

func TestClassifyIgnoresZone(t *testing.T) {
	for addr, want := range map[string]string{"fe80::1%eth0": "link-local", "::1%lo": "loopback", "2606:4700::1111%eth0": ""} {
		if got := Classify(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Classify(%s) = %q, want %q", addr, got, want)
		}
	}
}
