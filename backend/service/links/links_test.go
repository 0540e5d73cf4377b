package links

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// A MaxMind database (written here with MaxMind's own writer) names a click's country;
// without one, or for an address it does not know, the country is unknown.
func TestGeoIPCountry(t *testing.T) {
	tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: "GeoLite2-Country", RecordSize: 24})
	if err != nil {
		t.Fatal(err)
	}
	_, network, _ := net.ParseCIDR("81.2.69.0/24")
	if err := tree.Insert(network, mmdbtype.Map{"country": mmdbtype.Map{"iso_code": mmdbtype.String("GB")}}); err != nil {
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
	g, err := OpenGeoIP(path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for ip, want := range map[string]string{"81.2.69.160": "GB", "8.8.8.8": "", "not an ip": "", "::ffff:81.2.69.1": "GB"} {
		if got := g.Country(ip); got != want {
			t.Errorf("Country(%q) = %q, want %q", ip, got, want)
		}
	}
	var none *GeoIP
	if none.Country("81.2.69.160") != "" {
		t.Error("no database must know no country")
	}
	if _, err := OpenGeoIP(filepath.Join(t.TempDir(), "missing.mmdb")); err == nil {
		t.Error("a missing database must be an error at start")
	}
}

func TestBotReason(t *testing.T) {
	for _, c := range []struct{ method, ua, want string }{
		{"GET", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", ""},
		{"GET", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1", ""},
		{"GET", "curl/8.5.0", ""}, // a developer trying the link counts
		{"HEAD", "Mozilla/5.0 Chrome/131.0", "head_request"},
		{"GET", "", "empty_user_agent"},
		{"GET", "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "link_preview"},
		{"GET", "WhatsApp/2.23.20.0", "link_preview"},
		{"GET", "TelegramBot (like TwitterBot)", "link_preview"},
		{"GET", "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", "link_preview"},
		{"GET", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "crawler"},
		{"GET", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "crawler"},
		{"GET", "python-requests/2.31.0", "crawler"},
		{"GET", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36", "crawler"},
		// Scripted clients are crawlers, as the docs say (curl, above, is the one exception).
		{"GET", "Wget/1.21.4", "crawler"},
		{"GET", "axios/1.6.0", "crawler"},
		{"GET", "PostmanRuntime/7.36.0", "crawler"},
		{"GET", "Python/3.11 aiohttp/3.9.1", "crawler"},
		{"GET", "Ruby", "crawler"},
		{"GET", "node-fetch/1.0", "crawler"},
		{"GET", "Go-http-client/1.1", "crawler"},
		{"GET", "curl/7.88.1", ""},
		// Search Console's URL inspection: a browser's agent with Google's fetcher named at the end.
		{"GET", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Google-InspectionTool/1.0", "crawler"},
		{"GET", "Mozilla/5.0 (compatible; GoogleOther)", "crawler"},
		{"GET", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15", ""},
	} {
		if got := botReason(c.method, parseAgent(c.ua)); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.method, c.ua, got, c.want)
		}
	}
}

// The parser, finding no browser in an agent, names one from its platform comment: the
// click keeps no browser then, never an operating system or a device under that name.
func TestBrowserIsNeverThePlatform(t *testing.T) {
	for _, c := range []struct{ ua, browser, os string }{
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)", "", "macOS"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64)", "", "Windows"},
		{"Mozilla/5.0 (X11; Linux x86_64)", "", "Linux"},
		{"Mozilla/5.0 (Linux; Android 14; Pixel 8)", "", "Android"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", "", "iOS"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15", "Safari", "macOS"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome", "Windows"},
		{"curl/8.5.0", "curl", ""},
	} {
		a := parseAgent(c.ua)
		if a.browser != c.browser || a.os != c.os || (a.browser == "" && a.version != "") {
			t.Errorf("%q: browser %q %q, os %q; want browser %q, os %q", c.ua, a.browser, a.version, a.os, c.browser, c.os)
		}
	}
}

func TestSlugs(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		s := newSlug()
		if checkSlug("slug", s) != nil || len(s) != GeneratedSlugLength || seen[s] {
			t.Fatalf("generated %q", s)
		}
		seen[s] = true
	}
	for _, bad := range []string{"ab", "a b", "ümlaut", "GraphQL", "hooks", "x.y", string(make([]byte, 65))} {
		if checkSlug("slug", bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A link.clicked event built from the link encoded once per batch is byte for byte what
// encoding domain.LinkClicked gives, "<", ">" and "&" kept as they are (as every event's).
func TestClickedDataMatchesLinkClicked(t *testing.T) {
	title := "Tom & Jerry <3"
	link := domain.Link{ID: "lnk_1", WorkspaceID: "ws_1", URL: "https://example.com/?a=1&b=<2>", Slug: "tj", Title: title,
		Tags: []string{"x"}, RedirectStatus: 302, Metadata: json.RawMessage(`{"k": [1, 2]}`)}
	click := domain.Click{ID: "clk_1", LinkID: "lnk_1", At: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC),
		Referrer: "https://news.example/?q=<x>", ReferrerHost: "news.example", Browser: "Chrome", Device: domain.DeviceDesktop}
	obj := link.Object("https://sb.example/l")
	raw, err := domain.Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	got, err := clickedData(click, raw)
	if err != nil {
		t.Fatal(err)
	}
	want, err := domain.Encode(domain.LinkClicked{Click: click.Object(), Link: obj})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) || !strings.Contains(string(got), `"title":"Tom & Jerry <3"`) {
		t.Fatalf("clickedData:\n%s\nwant\n%s", got, want)
	}
}
