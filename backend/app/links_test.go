package app_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/domain"
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
	// Health probes and the main host's /l/ form work on the short host too.
	if res := get("sho.rt", "/l/sale"); res.StatusCode != 302 || res.Header.Get("Location") != url {
		t.Fatalf("short host /l/sale: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	for _, probe := range []string{"/healthz", "/readyz"} {
		if res := get("sho.rt", probe); res.StatusCode != 200 {
			t.Fatalf("short host %s: %d", probe, res.StatusCode)
		}
	}
	if res := get("", "/l/sale"); res.StatusCode != 302 {
		t.Fatalf("main host /l/: %d", res.StatusCode)
	}
	if res := get("", "/sale"); res.StatusCode == 302 {
		t.Fatal("the main host must not answer slugs at its root")
	}
	// Neither address of a short link may be a link's target: both would loop.
	for _, target := range []string{"https://sho.rt/sale", cfg.BaseURL + "/l/sale"} {
		loop := "loop"
		if _, err := a.Links.Create(context.Background(), owner.Actor, links.Input{URL: &target, Slug: &loop}); !domain.IsCode(err, domain.CodeInvalid) {
			t.Fatalf("a link to %s: %v, want it refused", target, err)
		}
	}

	// The clicks written (and any dropped) are on the metrics listener.
	if err := a.Links.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	metricsSrv := httptest.NewServer(a.MetricsHandler())
	defer metricsSrv.Close()
	res, err := http.Get(metricsSrv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(b), "switchboard_link_clicks_written_total 3") ||
		!strings.Contains(string(b), "switchboard_link_clicks_dropped_total 0") ||
		!strings.Contains(string(b), `surface="redirect"`) {
		t.Fatalf("metrics:\n%s", b)
	}
}

// With SWITCHBOARD_GEOIP_FILE set, a visit's click names its country.
func TestGeoIPFileNamesTheCountry(t *testing.T) {
	tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: "GeoLite2-Country", RecordSize: 24, IncludeReservedNetworks: true})
	if err != nil {
		t.Fatal(err)
	}
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	if err := tree.Insert(loopback, mmdbtype.Map{"country": mmdbtype.Map{"iso_code": mmdbtype.String("NZ")}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "country.mmdb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cfg, err := app.FromEnv(func(k string) string {
		if k == "SWITCHBOARD_GEOIP_FILE" {
			return path
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	a, srv := newAppWith(t, storetest.URL(t, "sqlite"), cfg)
	owner := servicetest.NewOwner(t, a.Service)
	url, slug := "https://example.com/kiwi", "kiwi"
	link, err := a.Links.Create(context.Background(), owner.Actor, links.Input{URL: &url, Slug: &slug})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/l/kiwi", nil)
	req.Header.Set("User-Agent", "Mozilla/5.0 Chrome/131.0")
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil || res.StatusCode != 302 {
		t.Fatalf("visit: %v %v", err, res)
	}
	res.Body.Close()
	if err := a.Links.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	clicks, err := a.Links.Clicks(context.Background(), owner.Actor, link.ID, false, domain.ListParams{})
	if err != nil || len(clicks.Data) != 1 || clicks.Data[0].Country != "NZ" {
		t.Fatalf("clicks: %v %+v", err, clicks.Data)
	}
}
