package httpx_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/httpx"
)

// Behind trusted proxies the client is the rightmost forwarded address that is not a proxy;
// a connection from anywhere else keeps its own address, whatever it claims.
func TestTrustProxies(t *testing.T) {
	trusted, err := httpx.ParseProxies([]string{"10.0.0.0/8", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	var seen string
	h := httpx.TrustProxies(trusted)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { seen = httpx.ClientIP(r) }))
	for _, c := range []struct {
		peer string
		xff  []string
		want string
	}{
		{"10.1.2.3:5000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"10.1.2.3:5000", []string{"6.6.6.6, 203.0.113.9"}, "203.0.113.9"},                  // the first entry is the client's to forge
		{"10.1.2.3:5000", []string{"203.0.113.9, 10.9.9.9"}, "203.0.113.9"},                 // a second proxy in the chain
		{"10.1.2.3:5000", []string{"198.51.100.1", "203.0.113.9, 10.0.0.7"}, "203.0.113.9"}, // the header given twice
		{"[::1]:5000", []string{"2001:db8::5"}, "2001:db8::5"},
		{"10.1.2.3:5000", nil, "10.1.2.3"},                                 // no header: the proxy itself
		{"10.1.2.3:5000", []string{"not-an-ip, 10.0.0.2"}, "10.1.2.3"},     // unreadable: not trusted
		{"198.51.100.7:5000", []string{"203.0.113.9"}, "198.51.100.7"},     // not a proxy: ignored
		{"[::ffff:10.1.2.3]:5000", []string{"203.0.113.9"}, "203.0.113.9"}, // a mapped proxy address
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.peer
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		if seen != c.want {
			t.Errorf("from %s with %q: client %s, want %s", c.peer, c.xff, seen, c.want)
		}
	}
	if _, err := httpx.ParseProxies([]string{"10.0.0.0/33"}); err == nil {
		t.Error("a bad prefix was accepted")
	}
}
