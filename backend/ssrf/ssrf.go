// Package ssrf keeps outbound webhook requests away from the operator's own network. Every
// connection is checked at dial time on the address actually dialed (after DNS resolution,
// so a name that later resolves elsewhere — DNS rebinding — is caught too): loopback,
// private (RFC 1918), shared (CGNAT), link-local (cloud metadata at 169.254.169.254),
// unique-local IPv6, unspecified, multicast and reserved addresses are refused unless the
// operator's allow-list names the host or a range containing the address.
//
// It imports nothing of ours, so the service (registration checks) and the delivery engine
// (dial-time checks) share one policy.
package ssrf

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// blocked are the ranges refused by default, with why.
var blocked = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (CGNAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local (cloud metadata)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "reserved"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "reserved"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	// IPv4-compatible (deprecated) and IPv4-translated forms embed any IPv4 address.
	{netip.MustParsePrefix("::/96"), "IPv4-compatible"},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated"},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("2001::/23"), "reserved"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
	{netip.MustParsePrefix("fc00::/7"), "unique-local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// internalNames are host names that obviously mean "this machine" or a metadata service.
var internalNames = []string{"localhost", "metadata.google.internal", "metadata", "instance-data"}

// Classify returns why ip is refused by default ("" for a public address).
func Classify(ip netip.Addr) string {
	// ::ffff:10.0.0.1 is 10.0.0.1; fe80::1%eth0 is fe80::1 (a prefix never contains an
	// address with a zone, so a zone would otherwise hide any range).
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() {
		return "invalid"
	}
	for _, b := range blocked {
		if b.prefix.Contains(ip) {
			return b.why
		}
	}
	return ""
}

// Policy is the default rules plus the operator's allow-list.
type Policy struct {
	hosts    map[string]bool
	prefixes []netip.Prefix
}

// NewPolicy parses an allow-list: each entry is an IP ("127.0.0.1"), a CIDR range
// ("10.1.0.0/16") or a host name ("n8n.internal", matched exactly, case-insensitively).
func NewPolicy(allow []string) (*Policy, error) {
	p := &Policy{hosts: map[string]bool{}}
	for _, raw := range allow {
		e := strings.TrimSpace(raw)
		if e == "" {
			continue
		}
		if strings.Contains(e, "/") {
			pre, err := netip.ParsePrefix(e)
			if err != nil {
				return nil, fmt.Errorf("ssrf: allow-list entry %q: %w", e, err)
			}
			p.prefixes = append(p.prefixes, pre.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(strings.Trim(e, "[]")); err == nil {
			p.prefixes = append(p.prefixes, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
			continue
		}
		if strings.ContainsAny(e, " :@") {
			return nil, fmt.Errorf("ssrf: allow-list entry %q is not a host, IP or CIDR", e)
		}
		p.hosts[strings.ToLower(strings.TrimSuffix(e, "."))] = true
	}
	return p, nil
}

// MustPolicy is NewPolicy for known-good lists (tests, defaults).
func MustPolicy(allow ...string) *Policy {
	p, err := NewPolicy(allow)
	if err != nil {
		panic(err)
	}
	return p
}

// HostAllowed reports whether host is on the allow-list by name or address.
func (p *Policy) HostAllowed(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if p.hosts[h] {
		return true
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return p.inAllowedRange(ip)
	}
	return false
}

func (p *Policy) inAllowedRange(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	for _, pre := range p.prefixes {
		if pre.Contains(ip) {
			return true
		}
	}
	return false
}

// CheckIP returns an error when ip may not be dialed.
func (p *Policy) CheckIP(ip netip.Addr) error {
	why := Classify(ip)
	if why == "" || p.inAllowedRange(ip) {
		return nil
	}
	return &BlockedError{Addr: ip.Unmap().String(), Why: why}
}

// CheckURL is the registration-time check: it refuses URLs that obviously target a
// non-public address (an IP literal in a refused range, localhost, a metadata name) unless
// allow-listed. IPv4 literals are read as browsers and resolvers read them, so
// "http://2130706433/", "http://127.1/" and "http://0x7f.0.0.1/" are 127.0.0.1, and a host
// that ends in a number without being a valid IPv4 address ("http://1.2.3.4.5/",
// "http://08.0.0.1/") is refused. Names are not resolved here; the dial-time check covers
// them.
func (p *Policy) CheckURL(u *url.URL) error {
	host := canonicalHost(u.Hostname())
	if p.hosts[strings.TrimSuffix(host, ".")] {
		return nil
	}
	ip, isIP, err := hostAddr(host)
	if err != nil {
		return err
	}
	if isIP {
		return p.CheckIP(ip)
	}
	host = strings.TrimSuffix(host, ".")
	for _, n := range internalNames {
		if host == n || strings.HasSuffix(host, "."+n) {
			return &BlockedError{Addr: host, Why: "internal name"}
		}
	}
	return nil
}

// BlockedError is a refused destination.
type BlockedError struct {
	Addr string
	Why  string
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("destination %s is not allowed (%s address)", e.Addr, e.Why)
}

// IsBlocked reports whether err (from a dial or a request) is a refused destination.
func IsBlocked(err error) bool {
	var b *BlockedError
	return errors.As(err, &b)
}

// DialContext returns a dial function for http.Transport that checks every connection: a
// host on the allow-list is dialed as is; any other is resolved and each address checked
// before the connection is made.
func (p *Policy) DialContext(base *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	guarded := *base
	guarded.Control = func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return &BlockedError{Addr: host, Why: "unresolved"}
		}
		return p.CheckIP(ip)
	}
	open := *base
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if p.hosts[strings.ToLower(strings.TrimSuffix(host, "."))] {
			return open.DialContext(ctx, network, addr)
		}
		return guarded.DialContext(ctx, network, addr)
	}
}
