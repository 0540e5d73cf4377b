package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The console's pages and files carry a policy that keeps every connection on its own origin.
func TestSecurityHeaders(t *testing.T) {
	h := Handler()
	for _, path := range []string{"/user/api", "/user/api/keys", "/user/sign-in", "/user/assets/missing.js"} {
		t.Run(path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://console.test"+path, nil))
			hdr := rec.Result().Header

			csp := hdr.Get("Content-Security-Policy")
			if csp != contentSecurityPolicy {
				t.Errorf("Content-Security-Policy = %q, want %q", csp, contentSecurityPolicy)
			}
			directives := map[string]string{}
			for _, d := range strings.Split(csp, ";") {
				name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
				directives[name] = value
			}
			if got := directives["connect-src"]; got != "'self'" {
				t.Errorf("connect-src = %q, want only 'self' (no ws:, wss: or other hosts)", got)
			}
			for name, want := range map[string]string{"default-src": "'self'", "script-src": "'self'", "frame-ancestors": "'none'"} {
				if got := directives[name]; got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			for name, want := range map[string]string{
				"X-Content-Type-Options": "nosniff",
				"X-Frame-Options":        "DENY",
				"Referrer-Policy":        "strict-origin-when-cross-origin",
			} {
				if got := hdr.Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestMethodNotAllowed(t *testing.T) {
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/user/api", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST status = %d, want 405", rec.Code)
	}
	if got := rec.Header().Get("Allow"); got != "GET, HEAD" {
		t.Errorf("Allow = %q, want %q", got, "GET, HEAD")
	}
}
