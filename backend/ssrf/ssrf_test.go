package ssrf

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1":        "loopback",
		"127.8.9.10":       "loopback",
		"10.0.0.1":         "private",
		"172.16.5.4":       "private",
		"172.31.255.255":   "private",
		"192.168.1.1":      "private",
		"100.64.0.1":       "shared (CGNAT)",
		"100.100.100.200":  "shared (CGNAT)", // Alibaba Cloud metadata
		"169.254.169.254":  "link-local (cloud metadata)",
		"0.0.0.0":          "unspecified",
		"224.0.0.1":        "multicast",
		"255.255.255.255":  "reserved",
		"::1":              "loopback",
		"::":               "unspecified",
		"fe80::1":          "link-local",
		"fd00:ec2::254":    "unique-local", // AWS IPv6 metadata
		"fc00::1":          "unique-local",
		"ff02::1":          "multicast",
		"::ffff:10.0.0.1":  "private", // IPv4-mapped
		"::ffff:127.0.0.1": "loopback",
		"64:ff9b::a00:1":   "NAT64",
		"::127.0.0.1":      "IPv4-compatible", // dialled as ::7f00:1 when Linux routes it
		"::ffff:0:7f00:1":  "IPv4-translated",
		"8.8.8.8":          "",
		"1.1.1.1":          "",
		"172.32.0.1":       "",
		"100.128.0.1":      "",
		"2606:4700::1111":  "",
		"2001:4860::8888":  "",
	}
	for addr, want := range cases {
		if got := Classify(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Classify(%s) = %q, want %q", addr, got, want)
		}
	}
}

func TestAllowList(t *testing.T) {
	p, err := NewPolicy([]string{"127.0.0.1", " 10.1.0.0/16 ", "N8N.internal", "fd00::/8", ""})
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{"127.0.0.1", "10.1.2.3", "fd12::1", "::ffff:127.0.0.1", "8.8.8.8"}
	refused := []string{"127.0.0.2", "10.2.0.1", "169.254.169.254", "::1"}
	for _, a := range allowed {
		if err := p.CheckIP(netip.MustParseAddr(a)); err != nil {
			t.Errorf("%s refused: %v", a, err)
		}
	}
	for _, a := range refused {
		if err := p.CheckIP(netip.MustParseAddr(a)); err == nil || !IsBlocked(err) {
			t.Errorf("%s allowed", a)
		}
	}
	if !p.HostAllowed("n8n.internal") || !p.HostAllowed("n8n.INTERNAL.") || p.HostAllowed("x.n8n.internal") {
		t.Error("host names match exactly, case-insensitively")
	}
	for _, bad := range []string{"10.0.0.0/33", "user@host", "a b"} {
		if _, err := NewPolicy([]string{bad}); err == nil {
			t.Errorf("allow-list entry %q accepted", bad)
		}
	}
}

func TestCheckURL(t *testing.T) {
	p := MustPolicy("n8n.internal")
	refused := []string{"http://127.0.0.1/", "http://localhost:8080/", "http://api.localhost/", "http://[::1]/",
		"http://169.254.169.254/latest", "http://metadata.google.internal/", "http://10.0.0.1/", "http://0.0.0.0/"}
	allowed := []string{"https://example.com/", "http://n8n.internal:5678/webhook", "https://8.8.8.8/",
		"http://internal.example.com/"} // a name: checked when dialed, not here
	for _, raw := range refused {
		u, _ := url.Parse(raw)
		if err := p.CheckURL(u); err == nil {
			t.Errorf("%s accepted at registration", raw)
		}
	}
	for _, raw := range allowed {
		u, _ := url.Parse(raw)
		if err := p.CheckURL(u); err != nil {
			t.Errorf("%s refused: %v", raw, err)
		}
	}
}

// The dial-time check runs on the address the name resolved to, so a public-looking or
// allowed-at-registration name that resolves to loopback is refused when connecting.
func TestDialChecksResolvedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	base := &net.Dialer{Timeout: 2 * time.Second}
	ctx := context.Background()

	dial := MustPolicy().DialContext(base)
	for _, addr := range []string{"localhost:" + port, "127.0.0.1:" + port} {
		if c, err := dial(ctx, "tcp", addr); err == nil || !IsBlocked(err) {
			if c != nil {
				c.Close()
			}
			t.Errorf("dial %s: %v, want refused", addr, err)
		}
	}
	// Allow-listing the address (or the name) lets it through.
	for _, p := range []*Policy{MustPolicy("127.0.0.0/8"), MustPolicy("localhost")} {
		c, err := p.DialContext(base)(ctx, "tcp4", "localhost:"+port)
		if err != nil {
			t.Errorf("allow-listed dial: %v", err)
			continue
		}
		c.Close()
	}
}
