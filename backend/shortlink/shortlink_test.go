package shortlink_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/shortlink"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Wrong passwords are limited per visitor and link: five a minute, then 429 with
// Retry-After (even for the right one), while another visitor still gets to try and a right
// password forgives earlier mistakes; the page's policy lets the right password's redirect
// leave for the target's origin.
func TestPasswordTriesAreLimited(t *testing.T) {
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	l := links.New(svc, links.Config{ShortBase: "http://sb.test/l"})
	t.Cleanup(l.Close)
	target, slug, pw := "https://example.com/secret", "locked", "open sesame"
	if _, err := l.Create(context.Background(), owner.Actor, links.Input{URL: &target, Slug: &slug, Password: &pw}); err != nil {
		t.Fatal(err)
	}
	h := shortlink.Handler(l, "/l/", slog.New(slog.NewTextHandler(io.Discard, nil)))
	try := func(ip, password string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/l/locked", strings.NewReader(url.Values{"password": {password}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("User-Agent", chrome)
		r.RemoteAddr = ip + ":40000"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for i := range 5 {
		if w := try("203.0.113.7", "guess"); w.Code != http.StatusSeeOther {
			t.Fatalf("guess %d: %d, want 303 back to the page", i+1, w.Code)
		}
	}
	w := try("203.0.113.7", pw)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "Too many tries") {
		t.Fatalf("sixth try: %d Retry-After %q, want 429 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	// The page itself says so while the visitor waits, rather than a form that cannot work.
	r := httptest.NewRequest(http.MethodGet, "/l/locked", nil)
	r.Header.Set("User-Agent", chrome)
	r.RemoteAddr = "203.0.113.7:40000"
	page := httptest.NewRecorder()
	h.ServeHTTP(page, r)
	if page.Code != http.StatusTooManyRequests || page.Header().Get("Retry-After") == "" || strings.Contains(page.Body.String(), "<form") {
		t.Fatalf("the page during the wait: %d %s", page.Code, page.Body.String())
	}
	w = try("198.51.100.9", pw)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != target {
		t.Fatalf("another visitor with the password: %d %q, want 303 to the target", w.Code, w.Header().Get("Location"))
	}
	for range 4 {
		try("192.0.2.44", "guess")
	}
	if w := try("192.0.2.44", pw); w.Code != http.StatusSeeOther {
		t.Fatalf("the right password after four mistakes: %d, want 303", w.Code)
	}
	for i := range 4 {
		if w := try("192.0.2.44", "guess"); w.Code != http.StatusSeeOther {
			t.Fatalf("mistake %d after a success: %d, want 303 (the success forgave the earlier ones)", i+1, w.Code)
		}
	}
	form := httptest.NewRecorder()
	h.ServeHTTP(form, httptest.NewRequest(http.MethodGet, "/l/locked", nil))
	if csp := form.Header().Get("Content-Security-Policy"); strings.Contains(csp, "form-action") || !strings.Contains(csp, "default-src 'none'") {
		t.Fatalf("password page policy %q: form-action would block the redirect to the target", csp)
	}
}
