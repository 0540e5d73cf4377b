package app_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// With a dedicated short host, its /{slug} redirects and short_url uses it; the service's
// own host keeps /l/{slug}, and its other paths are not taken by slugs.
func TestShortHost(t *testing.T) {
	cfg, err := app.FromEnv(func(k string) string {
		if k == "SWITCHBOARD_SHORT_HOST" {
			return "https://sho.rt/"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	a, srv := newAppWith(t, storetest.URL(t, "sqlite"), cfg)
	owner := servicetest.NewOwner(t, a.Service)
	url := "https://example.com/sale"
	slug := "sale"
	link, err := a.Links.Create(context.Background(), owner.Actor, links.Input{URL: &url, Slug: &slug})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Links.Object(link).ShortURL; got != "https://sho.rt/sale" {
		t.Fatalf("short_url %q", got)
	}
	get := func(host, path string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Host = host
		req.Header.Set("User-Agent", "Mozilla/5.0 Chrome/131.0")
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := get("sho.rt", "/sale"); res.StatusCode != 302 || res.Header.Get("Location") != url {
		t.Fatalf("short host: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if res := get("sho.rt", "/nothing"); res.StatusCode != 404 {
		t.Fatalf("short host, unknown slug: %d", res.StatusCode)
	}
	if res := get("", "/l/sale"); res.StatusCode != 302 {
		t.Fatalf("main host /l/: %d", res.StatusCode)
	}
	if res := get("", "/sale"); res.StatusCode == 302 {
		t.Fatal("the main host must not answer slugs at its root")
	}
}
