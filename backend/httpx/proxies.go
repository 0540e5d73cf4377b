package httpx

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ParseProxies reads trusted proxies: IP addresses or CIDR prefixes (10.0.0.0/8, ::1).
func ParseProxies(entries []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, e := range entries {
		if p, err := netip.ParsePrefix(e); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(e)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or a CIDR prefix", e)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// TrustProxies makes the client's address that of the visitor behind trusted proxies (a
// TLS terminator, a load balancer): when the connection comes from one of them, the
// address is the last one in X-Forwarded-For that is not a trusted proxy itself (each proxy
// appends the address it received the request from, so the entries before that one are the
// client's own to forge). Everything after it (ClientIP, rate limits, sign-in throttles,
// clicks' countries and unique visitors) sees that address. Without trusted proxies, or for
// a connection from elsewhere, the header is ignored: anyone could send it.
func TrustProxies(trusted []netip.Prefix) func(http.Handler) http.Handler {
	isTrusted := func(a netip.Addr) bool {
		a = a.Unmap()
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	return func(next http.Handler) http.Handler {
		if len(trusted) == 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if peer, err := netip.ParseAddr(ClientIP(r)); err == nil && isTrusted(peer) {
				if client, ok := forwardedClient(r.Header.Values("X-Forwarded-For"), isTrusted); ok {
					r.RemoteAddr = net.JoinHostPort(client.String(), "0")
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// forwardedClient is the rightmost address of the X-Forwarded-For values that is not a
// trusted proxy. A value that is not an address ends the search: what is left of it cannot
// be trusted.
func forwardedClient(values []string, trusted func(netip.Addr) bool) (netip.Addr, bool) {
	for i := len(values) - 1; i >= 0; i-- {
		hops := strings.Split(values[i], ",")
		for j := len(hops) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.TrimSpace(hops[j]))
			if err != nil {
				return netip.Addr{}, false
			}
			if a = a.Unmap().WithZone(""); !trusted(a) {
				return a, true
			}
		}
	}
	return netip.Addr{}, false
}
