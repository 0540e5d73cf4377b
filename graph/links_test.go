package graph_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/shortlink"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
	"github.com/switchboard-dev/switchboard/graph"
)

// linksHarness is the real /graphql handler with the short-link surface, and the real
// redirect handler at /l/, as in the binary.
type linksHarness struct {
	*harness
	links *links.Links
}

func newLinksHarness(t *testing.T, d store.Dialect) *linksHarness {
	t.Helper()
	return newLinksHarnessAt(t, d, domain.SystemClock{})
}

// newLinksHarnessAt is newLinksHarness with the service's clock (the time of clicks).
func newLinksHarnessAt(t *testing.T, d store.Dialect, clk domain.Clock) *linksHarness {
	t.Helper()
	svc, _ := servicetest.New(t, d, service.Config{Clock: clk})
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	l := links.New(svc, links.Config{ShortBase: srv.URL + "/l"})
	l.Start()
	t.Cleanup(l.Close)
	mux.Handle("/graphql", graph.NewHandler(svc, graph.Options{Links: l}))
	mux.Handle("/l/", shortlink.Handler(l, "/l/", svc.Logger()))
	return &linksHarness{harness: &harness{svc: svc, srv: srv}, links: l}
}

func eachLinksDialect(t *testing.T, fn func(t *testing.T, h *linksHarness)) {
	t.Helper()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, newLinksHarness(t, d)) })
	}
}

const linkFields = `id slug shortUrl url title tags expiresAt expiredUrl maxClicks passwordProtected redirectStatus metadata
	externalId utm { source medium campaign term content } iosUrl androidUrl archived clicks lastClickedAt createdAt updatedAt`

type link struct {
	ID, Slug, ShortURL, URL, Title string
	Tags                           []string
	ExpiresAt, ExpiredURL          *string
	MaxClicks                      *int
	PasswordProtected              bool
	RedirectStatus                 int
	Metadata                       map[string]any
	ExternalID                     *string
	UTM                            struct{ Source, Medium, Campaign, Term, Content string }
	IOSURL, AndroidURL             *string
	Archived                       bool
	Clicks                         int
	LastClickedAt                  *string
	QRSVG                          string `json:"qrSvg"`
}

func (h *linksHarness) createLink(t *testing.T, in map[string]any, opts ...option) link {
	t.Helper()
	_, r := h.post(t, `mutation($in: CreateLinkInput!) { createLink(input: $in) { `+linkFields+` } }`, map[string]any{"in": in}, opts...)
	var data struct{ CreateLink link }
	r.decode(t, &data)
	return data.CreateLink
}

func (h *linksHarness) updateLink(t *testing.T, id string, in map[string]any, opts ...option) link {
	t.Helper()
	_, r := h.post(t, `mutation($id: ID!, $in: UpdateLinkInput!) { updateLink(id: $id, input: $in) { `+linkFields+` } }`,
		map[string]any{"id": id, "in": in}, opts...)
	var data struct{ UpdateLink link }
	r.decode(t, &data)
	return data.UpdateLink
}

type linkPage struct {
	Nodes      []link
	HasMore    bool
	NextCursor *string
}

// list runs the links query with vars and returns the page.
func (h *linksHarness) list(t *testing.T, vars map[string]any, opts ...option) linkPage {
	t.Helper()
	_, r := h.post(t, `query($search: String, $tag: String, $archived: Boolean, $sort: LinkSort, $first: Int, $after: String) {
		links(search: $search, tag: $tag, archived: $archived, sort: $sort, first: $first, after: $after) {
			nodes { id slug clicks archived } hasMore nextCursor } }`, vars, opts...)
	var data struct{ Links linkPage }
	r.decode(t, &data)
	return data.Links
}

func slugs(p linkPage) string {
	out := make([]string, len(p.Nodes))
	for i, l := range p.Nodes {
		out[i] = l.Slug
	}
	return strings.Join(out, ",")
}

const browserUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"

// visit follows a short link once as a browser would (without following the redirect).
func (h *linksHarness) visit(t *testing.T, slug, agent, referrer string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/l/"+slug, nil)
	req.Header.Set("User-Agent", agent)
	if referrer != "" {
		req.Header.Set("Referer", referrer)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// The console's journey: create a link with every option, find it by search and tag,
// change it, follow it, read its stats and clicks, delete it.
func TestLinksFlow(t *testing.T) {
	eachLinksDialect(t, func(t *testing.T, h *linksHarness) {
		token, _ := h.owner(t)
		s := withSession(token)

		_, r := h.post(t, `{ shortLinkBase }`, nil, s)
		var base struct{ ShortLinkBase string }
		r.decode(t, &base)
		if base.ShortLinkBase != h.srv.URL+"/l" {
			t.Fatalf("shortLinkBase %q", base.ShortLinkBase)
		}

		expires := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Millisecond)
		launch := h.createLink(t, map[string]any{"url": "https://example.com/launch?ref=x", "slug": "launch", "title": " Launch day ",
			"tags": []string{"promo", "q3", "promo"}, "expiresAt": expires.Format(time.RFC3339Nano), "expiredUrl": "https://example.com/over",
			"maxClicks": 100, "password": "s3cret", "redirectStatus": 301, "metadata": map[string]any{"campaign": "spring"},
			"externalId": "crm-1", "utm": map[string]any{"source": "news", "campaign": "launch"},
			"iosUrl": "https://apps.apple.com/app/x", "androidUrl": "https://play.google.com/store/apps/x"}, s)
		if !strings.HasPrefix(launch.ID, "lnk_") || launch.Slug != "launch" || launch.ShortURL != h.srv.URL+"/l/launch" ||
			launch.URL != "https://example.com/launch?ref=x" || launch.Title != "Launch day" || strings.Join(launch.Tags, ",") != "promo,q3" ||
			launch.ExpiresAt == nil || *launch.ExpiresAt != expires.Format("2006-01-02T15:04:05.000Z") ||
			deref(launch.ExpiredURL) != "https://example.com/over" || launch.MaxClicks == nil || *launch.MaxClicks != 100 ||
			!launch.PasswordProtected || launch.RedirectStatus != 301 || launch.Metadata["campaign"] != "spring" ||
			deref(launch.ExternalID) != "crm-1" || launch.UTM.Source != "news" || launch.UTM.Campaign != "launch" || launch.UTM.Medium != "" ||
			deref(launch.IOSURL) != "https://apps.apple.com/app/x" || deref(launch.AndroidURL) != "https://play.google.com/store/apps/x" ||
			launch.Archived || launch.Clicks != 0 || launch.LastClickedAt != nil {
			t.Fatalf("created %+v", launch)
		}
		// The password is write-only: the schema has no field for it.
		_, r = h.post(t, `query($id: ID!) { link(id: $id) { password } }`, map[string]any{"id": launch.ID}, s)
		if r.code(t) != "GRAPHQL_VALIDATION_FAILED" {
			t.Fatalf("password field: %+v", r.Errors)
		}

		// Defaults: a generated slug, 302, no options.
		plain := h.createLink(t, map[string]any{"url": "https://example.org/", "tags": []string{"other"}}, s)
		if len(plain.Slug) != links.GeneratedSlugLength || plain.RedirectStatus != 302 || plain.PasswordProtected || plain.ExpiresAt != nil ||
			plain.MaxClicks != nil || plain.ExpiredURL != nil || plain.ExternalID != nil || plain.Title != "" || len(plain.Metadata) != 0 {
			t.Fatalf("defaults %+v", plain)
		}

		// Bulk: all or none, the refusal naming the item.
		const bulk = `mutation($links: [CreateLinkInput!]!) { bulkCreateLinks(links: $links) { id slug } }`
		_, r = h.post(t, bulk, map[string]any{"links": []any{map[string]any{"url": "https://example.net/a", "slug": "bulk-a"},
			map[string]any{"url": "nope"}}}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "links[1].url" {
			t.Fatalf("bad bulk: %+v", r.Errors)
		}
		_, r = h.post(t, bulk, map[string]any{"links": []any{map[string]any{"url": "https://example.net/a", "slug": "bulk-a"},
			map[string]any{"url": "https://example.net/b", "slug": "bulk-b", "tags": []string{"promo"}}}}, s)
		var bulked struct{ BulkCreateLinks []link }
		r.decode(t, &bulked)
		if len(bulked.BulkCreateLinks) != 2 || bulked.BulkCreateLinks[0].Slug != "bulk-a" || bulked.BulkCreateLinks[1].Slug != "bulk-b" {
			t.Fatalf("bulk %+v", bulked)
		}

		// Lists: newest first, by search, by tag, in pages.
		if got := slugs(h.list(t, nil, s)); got != "bulk-b,bulk-a,"+plain.Slug+",launch" {
			t.Fatalf("all: %s", got)
		}
		if got := slugs(h.list(t, map[string]any{"search": "LAUNCH"}, s)); got != "launch" {
			t.Fatalf("search launch: %s", got)
		}
		if got := slugs(h.list(t, map[string]any{"search": "example.net"}, s)); got != "bulk-b,bulk-a" {
			t.Fatalf("search url: %s", got)
		}
		if got := slugs(h.list(t, map[string]any{"tag": "promo"}, s)); got != "bulk-b,launch" {
			t.Fatalf("tag promo: %s", got)
		}
		p1 := h.list(t, map[string]any{"first": 3}, s)
		if slugs(p1) != "bulk-b,bulk-a,"+plain.Slug || !p1.HasMore || p1.NextCursor == nil {
			t.Fatalf("page 1: %+v", p1)
		}
		p2 := h.list(t, map[string]any{"first": 3, "after": *p1.NextCursor}, s)
		if slugs(p2) != "launch" || p2.HasMore || p2.NextCursor != nil {
			t.Fatalf("page 2: %+v", p2)
		}

		// By the caller's own id.
		_, r = h.post(t, `query($id: ID!) { link(id: $id) { id } }`, map[string]any{"id": "ext_crm-1"}, s)
		var byExt struct{ Link link }
		r.decode(t, &byExt)
		if byExt.Link.ID != launch.ID {
			t.Fatalf("ext_crm-1: %+v", byExt)
		}

		// Update: null clears, absent keeps, archived leaves the active list.
		up := h.updateLink(t, launch.ID, map[string]any{"title": "Launch", "tags": []string{}, "expiresAt": nil, "password": nil,
			"maxClicks": nil, "iosUrl": "", "utm": map[string]any{"source": "mail"}}, s)
		if up.Title != "Launch" || len(up.Tags) != 0 || up.ExpiresAt != nil || up.PasswordProtected || up.MaxClicks != nil ||
			up.IOSURL != nil || deref(up.AndroidURL) == "" || deref(up.ExpiredURL) != "https://example.com/over" ||
			up.UTM.Source != "mail" || up.UTM.Campaign != "" || up.RedirectStatus != 301 || deref(up.ExternalID) != "crm-1" {
			t.Fatalf("updated %+v", up)
		}
		if got := slugs(h.list(t, map[string]any{"tag": "promo"}, s)); got != "bulk-b" {
			t.Fatalf("tag promo after update: %s", got)
		}
		archived := h.updateLink(t, plain.ID, map[string]any{"archived": true}, s)
		if !archived.Archived || archived.Slug != plain.Slug || len(archived.Tags) != 1 {
			t.Fatalf("archived %+v", archived)
		}
		if got := slugs(h.list(t, map[string]any{"archived": false}, s)); got != "bulk-b,bulk-a,launch" {
			t.Fatalf("active: %s", got)
		}
		if got := slugs(h.list(t, map[string]any{"archived": true}, s)); got != plain.Slug {
			t.Fatalf("archived: %s", got)
		}

		// A visit by a person and one by a bot: the person counts.
		resp := h.visit(t, "launch", browserUA, "https://news.example.com/post/1")
		if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "https://example.com/launch?ref=x&utm_source=mail" {
			t.Fatalf("visit: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if resp := h.visit(t, "launch", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", ""); resp.StatusCode != http.StatusMovedPermanently {
			t.Fatalf("bot visit: %d", resp.StatusCode)
		}
		if err := h.links.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}

		_, r = h.post(t, `query($id: ID!) { link(id: $id) { clicks lastClickedAt qrSvg } }`, map[string]any{"id": launch.ID}, s)
		var counted struct{ Link link }
		r.decode(t, &counted)
		if counted.Link.Clicks != 1 || counted.Link.LastClickedAt == nil || !strings.HasPrefix(counted.Link.QRSVG, "<svg") ||
			!strings.Contains(counted.Link.QRSVG, "<path") {
			t.Fatalf("after visits: %+v", counted.Link)
		}
		if got := h.list(t, map[string]any{"sort": "CLICKS", "first": 1}, s); slugs(got) != "launch" || got.Nodes[0].Clicks != 1 {
			t.Fatalf("most clicked: %+v", got)
		}

		const stats = `query($id: ID!, $interval: StatsInterval, $bots: Boolean) {
			linkStats(id: $id, interval: $interval, includeBots: $bots) {
				linkId from to interval includeBots clicks uniques bots
				timeseries { start clicks uniques }
				countries { value clicks } devices { value clicks } browsers { value clicks } os { value clicks } referrers { value clicks } } }`
		type count struct {
			Value  string
			Clicks int
		}
		type statsData struct {
			LinkStats struct {
				LinkID, From, To, Interval string
				IncludeBots                bool
				Clicks, Uniques, Bots      int
				Timeseries                 []struct {
					Start           string
					Clicks, Uniques int
				}
				Countries, Devices, Browsers, OS, Referrers []count
			}
		}
		_, r = h.post(t, stats, map[string]any{"id": launch.ID}, s)
		var day statsData
		r.decode(t, &day)
		st := day.LinkStats
		last := st.Timeseries[len(st.Timeseries)-1]
		if st.LinkID != launch.ID || st.Interval != "DAY" || st.IncludeBots || st.Clicks != 1 || st.Uniques != 1 || st.Bots != 1 ||
			len(st.Timeseries) < 30 || len(st.Timeseries) > 31 || last.Clicks != 1 ||
			len(st.Devices) != 1 || st.Devices[0] != (count{"desktop", 1}) || len(st.Browsers) != 1 || st.Browsers[0] != (count{"Chrome", 1}) ||
			len(st.OS) != 1 || st.OS[0].Value != "Windows" || len(st.Referrers) != 1 || st.Referrers[0] != (count{"news.example.com", 1}) ||
			len(st.Countries) != 1 || st.Countries[0] != (count{"unknown", 1}) {
			t.Fatalf("stats by day: %+v", st)
		}
		_, r = h.post(t, stats, map[string]any{"id": launch.ID, "interval": "HOUR", "bots": true}, s)
		var hour statsData
		r.decode(t, &hour)
		if hour.LinkStats.Interval != "HOUR" || !hour.LinkStats.IncludeBots || hour.LinkStats.Clicks != 2 ||
			len(hour.LinkStats.Timeseries) < 24 || len(hour.LinkStats.Timeseries) > 25 {
			t.Fatalf("stats by hour with bots: %+v", hour.LinkStats)
		}

		const clicks = `query($id: ID!, $bots: Boolean, $first: Int) { linkClicks(id: $id, includeBots: $bots, first: $first) {
			nodes { id linkId timestamp referrer referrerHost browser browserVersion os device country bot botReason qr } hasMore nextCursor } }`
		type click struct {
			ID, LinkID, Timestamp, Browser, OS, Device, Country string
			Referrer, ReferrerHost, BotReason                   *string
			Bot, QR                                             bool
		}
		type clicksData struct {
			LinkClicks struct {
				Nodes   []click
				HasMore bool
			}
		}
		_, r = h.post(t, clicks, map[string]any{"id": launch.ID}, s)
		var people clicksData
		r.decode(t, &people)
		if len(people.LinkClicks.Nodes) != 1 {
			t.Fatalf("clicks: %+v", people)
		}
		c := people.LinkClicks.Nodes[0]
		if !strings.HasPrefix(c.ID, "clk_") || c.LinkID != launch.ID || c.Timestamp == "" || deref(c.Referrer) != "https://news.example.com/post/1" ||
			deref(c.ReferrerHost) != "news.example.com" || c.Browser != "Chrome" || c.Device != "desktop" || c.Bot || c.BotReason != nil || c.QR {
			t.Fatalf("click %+v", c)
		}
		_, r = h.post(t, clicks, map[string]any{"id": launch.ID, "bots": true, "first": 1}, s)
		var all clicksData
		r.decode(t, &all)
		if len(all.LinkClicks.Nodes) != 1 || !all.LinkClicks.HasMore || !all.LinkClicks.Nodes[0].Bot ||
			deref(all.LinkClicks.Nodes[0].BotReason) != "link_preview" {
			t.Fatalf("clicks with bots: %+v", all)
		}

		// Delete: gone, and its slug stays taken.
		_, r = h.post(t, `mutation($id: ID!) { deleteLink(id: $id) { id slug } }`, map[string]any{"id": launch.ID}, s)
		var deleted struct{ DeleteLink link }
		r.decode(t, &deleted)
		if deleted.DeleteLink.ID != launch.ID {
			t.Fatalf("deleted %+v", deleted)
		}
		_, r = h.post(t, `query($id: ID!) { link(id: $id) { id } }`, map[string]any{"id": launch.ID}, s)
		if r.code(t) != "NOT_FOUND" {
			t.Fatalf("deleted link: %+v", r.Errors)
		}
		_, r = h.post(t, `mutation { createLink(input: {url: "https://example.com/", slug: "launch"}) { id } }`, nil, s)
		if r.code(t) != "CONFLICT" || r.Errors[0].Extensions["field"] != "slug" || r.Errors[0].Extensions["reason"] != "slug_taken" {
			t.Fatalf("reusing a deleted slug: %+v", r.Errors)
		}
		if resp := h.visit(t, "launch", browserUA, ""); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("visit after delete: %d", resp.StatusCode)
		}
	})
}

// Bad input is refused with the field named in camelCase, and nothing is stored.
func TestLinksInvalidInput(t *testing.T) {
	eachLinksDialect(t, func(t *testing.T, h *linksHarness) {
		token, _ := h.owner(t)
		s := withSession(token)
		const create = `mutation($in: CreateLinkInput!) { createLink(input: $in) { id } }`
		for name, c := range map[string]struct {
			in          map[string]any
			code, field string
		}{
			"relative url":    {map[string]any{"url": "/somewhere"}, "INVALID", "url"},
			"ftp url":         {map[string]any{"url": "ftp://example.com/file"}, "INVALID", "url"},
			"empty url":       {map[string]any{"url": ""}, "INVALID", "url"},
			"short slug":      {map[string]any{"url": "https://example.com/", "slug": "ab"}, "INVALID", "slug"},
			"reserved slug":   {map[string]any{"url": "https://example.com/", "slug": "graphql"}, "INVALID", "slug"},
			"bad expired url": {map[string]any{"url": "https://example.com/", "expiredUrl": "nope"}, "INVALID", "expiredUrl"},
			"bad ios url":     {map[string]any{"url": "https://example.com/", "iosUrl": "itms://x"}, "INVALID", "iosUrl"},
			"past expiry":     {map[string]any{"url": "https://example.com/", "expiresAt": "2020-01-01T00:00:00Z"}, "INVALID", "expiresAt"},
			"status 200":      {map[string]any{"url": "https://example.com/", "redirectStatus": 200}, "INVALID", "redirectStatus"},
			"negative max":    {map[string]any{"url": "https://example.com/", "maxClicks": -1}, "INVALID", "maxClicks"},
			"array metadata":  {map[string]any{"url": "https://example.com/", "metadata": []any{1}}, "INVALID", "metadata"},
			"long utm":        {map[string]any{"url": "https://example.com/", "utm": map[string]any{"source": strings.Repeat("x", 201)}}, "INVALID", "utm.source"},
			"blank tag":       {map[string]any{"url": "https://example.com/", "tags": []string{" "}}, "INVALID", "tags"},
			"bad external id": {map[string]any{"url": "https://example.com/", "externalId": "a/b"}, "INVALID", "externalId"},
		} {
			_, r := h.post(t, create, map[string]any{"in": c.in}, s)
			if r.code(t) != c.code || r.Errors[0].Extensions["field"] != c.field {
				t.Errorf("%s: %+v", name, r.Errors)
			}
		}
		if got := h.list(t, nil, s); len(got.Nodes) != 0 {
			t.Fatalf("stored after refusals: %+v", got)
		}

		l := h.createLink(t, map[string]any{"url": "https://example.com/", "slug": "keep-me"}, s)
		_, r := h.post(t, `mutation($id: ID!) { updateLink(id: $id, input: {url: "mailto:x@example.com"}) { id } }`, map[string]any{"id": l.ID}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "url" {
			t.Fatalf("update url: %+v", r.Errors)
		}
		_, r = h.post(t, `{ links(first: 0) { nodes { id } } }`, nil, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "first" {
			t.Fatalf("first: 0: %+v", r.Errors)
		}
		_, r = h.post(t, `{ links(createdAfter: "2026-02-01T00:00:00Z", createdBefore: "2026-01-01T00:00:00Z") { nodes { id } } }`, nil, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "createdBefore" {
			t.Fatalf("createdBefore before createdAfter: %+v", r.Errors)
		}
		_, r = h.post(t, `query($id: ID!, $from: Time) { linkStats(id: $id, interval: HOUR, from: $from) { clicks } }`,
			map[string]any{"id": l.ID, "from": time.Now().Add(-30 * 24 * time.Hour).Format(time.RFC3339)}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "from" {
			t.Fatalf("30 days by hour: %+v", r.Errors)
		}
		_, r = h.post(t, `query($id: ID!) { linkClicks(id: $id, first: 101) { nodes { id } } }`, map[string]any{"id": l.ID}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "first" {
			t.Fatalf("linkClicks first: 101: %+v", r.Errors)
		}
		got := h.updateLink(t, l.ID, map[string]any{}, s)
		if got.URL != "https://example.com/" || got.Slug != "keep-me" {
			t.Fatalf("after refused update: %+v", got)
		}
	})
}

// Keys need links:read and links:write; another workspace's links do not exist.
func TestLinksAccess(t *testing.T) {
	eachLinksDialect(t, func(t *testing.T, h *linksHarness) {
		token, _ := h.owner(t)
		s := withSession(token)
		l := h.createLink(t, map[string]any{"url": "https://example.com/", "slug": "mine", "externalId": "own-1"}, s)

		_, reader := h.createKey(t, token, "links:read")
		if got := h.list(t, nil, withKey(reader)); slugs(got) != "mine" {
			t.Fatalf("with links:read: %+v", got)
		}
		for name, q := range map[string]string{
			"create": `mutation { createLink(input: {url: "https://example.com/x"}) { id } }`,
			"update": `mutation($id: ID!) { updateLink(id: $id, input: {title: "x"}) { id } }`,
			"delete": `mutation($id: ID!) { deleteLink(id: $id) { id } }`,
			"bulk":   `mutation { bulkCreateLinks(links: [{url: "https://example.com/x"}]) { id } }`,
		} {
			_, r := h.post(t, q, map[string]any{"id": l.ID}, withKey(reader))
			if r.code(t) != "FORBIDDEN" || r.Errors[0].Extensions["reason"] != "insufficient_scope" ||
				!strings.Contains(r.Errors[0].Message, "links:write") {
				t.Errorf("%s without links:write: %+v", name, r.Errors)
			}
		}
		_, other := h.createKey(t, token, "messages:read")
		_, r := h.post(t, `{ links { nodes { id } } }`, nil, withKey(other))
		if r.code(t) != "FORBIDDEN" || !strings.Contains(r.Errors[0].Message, "links:read") {
			t.Fatalf("without links:read: %+v", r.Errors)
		}
		_, writer := h.createKey(t, token, "links:write", "links:read")
		if got := h.createLink(t, map[string]any{"url": "https://example.com/by-key"}, withKey(writer)); !strings.HasPrefix(got.ID, "lnk_") {
			t.Fatalf("with links:write: %+v", got)
		}
		_, r = h.post(t, `{ links { nodes { id } } }`, nil)
		if r.code(t) != "UNAUTHENTICATED" {
			t.Fatalf("signed out: %+v", r.Errors)
		}

		// Another workspace: not found, by id and by external id, for reads and writes.
		otherToken, _ := h.owner(t)
		o := withSession(otherToken)
		for name, q := range map[string]string{
			"link":   `query($id: ID!) { link(id: $id) { id } }`,
			"stats":  `query($id: ID!) { linkStats(id: $id) { clicks } }`,
			"clicks": `query($id: ID!) { linkClicks(id: $id) { nodes { id } } }`,
			"update": `mutation($id: ID!) { updateLink(id: $id, input: {url: "https://evil.example/"}) { id } }`,
			"delete": `mutation($id: ID!) { deleteLink(id: $id) { id } }`,
		} {
			for _, id := range []string{l.ID, "ext_own-1"} {
				_, r = h.post(t, q, map[string]any{"id": id}, o)
				if r.code(t) != "NOT_FOUND" {
					t.Errorf("%s of another workspace's %s: %+v", name, id, r.Errors)
				}
			}
		}
		if got := h.list(t, nil, o); len(got.Nodes) != 0 {
			t.Fatalf("other workspace sees %+v", got)
		}
		_, r = h.post(t, `query($id: ID!) { link(id: $id) { url } }`, map[string]any{"id": l.ID}, s)
		var still struct{ Link link }
		r.decode(t, &still)
		if still.Link.URL != "https://example.com/" {
			t.Fatalf("after the other workspace's attempts: %+v", still)
		}
	})
}

// Link lists cost the rows they may return, like every list; the console's detail page
// (a link with its QR code, stats and a page of clicks) passes.
func TestLinksComplexity(t *testing.T) {
	h := newLinksHarness(t, store.SQLite)
	token, _ := h.owner(t)
	s := withSession(token)
	for name, q := range map[string]string{
		"25 pages of links":       aliased(25, "links { nodes { id } }"),
		"5 pages of 100 clicks":   aliased(5, `linkClicks(id: "lnk_x", first: 100) { nodes { id } }`),
		"5 stats":                 aliased(5, `linkStats(id: "lnk_x") { clicks }`),
		"50 QR codes of one link": aliased(50, `link(id: "lnk_x") { qrSvg }`),
	} {
		resp, r := h.post(t, q, nil, s)
		if r.code(t) != "COMPLEXITY_LIMIT_EXCEEDED" || resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, %+v", name, resp.StatusCode, r.Errors)
		}
	}
	l := h.createLink(t, map[string]any{"url": "https://example.com/"}, s)
	_, r := h.post(t, `query($id: ID!) { link(id: $id) { `+linkFields+` qrSvg }
		linkStats(id: $id) { clicks uniques bots timeseries { start clicks } countries { value clicks } devices { value clicks }
			browsers { value clicks } os { value clicks } referrers { value clicks } }
		linkClicks(id: $id) { nodes { id timestamp referrerHost browser os device country qr } hasMore nextCursor } }`,
		map[string]any{"id": l.ID}, s)
	if len(r.Errors) > 0 {
		t.Fatalf("the detail page: %+v", r.Errors)
	}
}

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// updateLink reads null as REST's PATCH does: it removes an optional field or sets it back
// to its default (title, tags, metadata, utm, redirectStatus and archived were kept), and
// is refused for url and slug (it was ignored, answering the link unchanged as a success).
// Absent fields are kept.
func TestLinksUpdateNull(t *testing.T) {
	eachLinksDialect(t, func(t *testing.T, h *linksHarness) {
		token, _ := h.owner(t)
		s := withSession(token)
		l := h.createLink(t, map[string]any{"url": "https://example.com/", "slug": "nulls", "title": "T", "tags": []string{"a"},
			"metadata": map[string]any{"k": 1}, "redirectStatus": 308, "archived": true, "utm": map[string]any{"source": "s"},
			"expiredUrl": "https://example.com/over"}, s)

		for _, f := range []string{"url", "slug"} {
			_, r := h.post(t, `mutation($id: ID!, $in: UpdateLinkInput!) { updateLink(id: $id, input: $in) { id } }`,
				map[string]any{"id": l.ID, "in": map[string]any{"title": "changed", f: nil}}, s)
			if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != f {
				t.Fatalf("%s: null: %+v", f, r.Errors)
			}
		}
		// The same in a literal.
		_, r := h.post(t, `mutation($id: ID!) { updateLink(id: $id, input: {url: null}) { id } }`, map[string]any{"id": l.ID}, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "url" {
			t.Fatalf("url: null literal: %+v", r.Errors)
		}

		kept := h.updateLink(t, l.ID, map[string]any{}, s)
		if kept.Title != "T" || len(kept.Tags) != 1 || kept.Metadata["k"] != float64(1) || kept.RedirectStatus != 308 ||
			!kept.Archived || kept.UTM.Source != "s" || kept.URL != "https://example.com/" || kept.Slug != "nulls" {
			t.Fatalf("after refused and empty updates: %+v", kept)
		}

		cleared := h.updateLink(t, l.ID, map[string]any{"title": nil, "tags": nil, "metadata": nil, "redirectStatus": nil,
			"archived": nil, "utm": nil}, s)
		if cleared.Title != "" || cleared.Tags == nil || len(cleared.Tags) != 0 || len(cleared.Metadata) != 0 ||
			cleared.RedirectStatus != 302 || cleared.Archived || cleared.UTM.Source != "" ||
			cleared.URL != "https://example.com/" || cleared.Slug != "nulls" || deref(cleared.ExpiredURL) != "https://example.com/over" {
			t.Fatalf("after nulls: %+v", cleared)
		}
	})
}

// settableClock is a clock a test sets.
type settableClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *settableClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *settableClock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// linkStats in the caller's time zone, as the console asks for it: the steps are Berlin's
// days (26 October 2025 is 25 hours long) or Kolkata's hours (half past the UTC hour), each
// with its start in UTC and in the zone; the range's totals do not depend on the zone; an
// unknown zone is INVALID on the field timezone.
func TestLinkStatsTimezone(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			clk := &settableClock{t: time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC)}
			h := newLinksHarnessAt(t, d, clk)
			token, _ := h.owner(t)
			_, secret := h.createKey(t, token, "links:read", "links:write")
			key := withKey(secret)
			l := h.createLink(t, map[string]any{"url": "https://example.com/tz", "slug": "zoned"}, key)
			for _, at := range []string{
				"2025-10-25T21:30:00Z", // Berlin 25 Oct 23:30 CEST
				"2025-10-25T22:30:00Z", // Berlin 26 Oct 00:30 CEST
				"2025-10-26T00:30:00Z", // Berlin 02:30 CEST
				"2025-10-26T01:30:00Z", // Berlin 02:30 CET
				"2025-10-26T22:59:00Z", // Berlin 26 Oct 23:59 CET
				"2025-10-26T23:00:00Z", // Berlin 27 Oct 00:00 CET
				"2025-10-27T18:29:00Z", // Kolkata 27 Oct 23:59 IST
				"2025-10-27T18:30:00Z", // Kolkata 28 Oct 00:00 IST
				"2025-10-27T18:45:00Z", // Kolkata 28 Oct 00:15 IST
			} {
				when, _ := time.Parse(time.RFC3339, at)
				clk.set(when)
				if resp := h.visit(t, "zoned", browserUA, ""); resp.StatusCode != http.StatusFound {
					t.Fatalf("visit at %s: %d", at, resp.StatusCode)
				}
			}
			if err := h.links.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			clk.set(time.Date(2025, 10, 27, 19, 0, 0, 0, time.UTC)) // Kolkata 00:30 IST on 28 October

			const query = `query($id: ID!, $from: Time, $to: Time, $interval: StatsInterval, $tz: String) {
				linkStats(id: $id, from: $from, to: $to, interval: $interval, timezone: $tz) {
					from to interval timezone clicks uniques timeseries { start localStart clicks uniques } devices { value clicks } } }`
			type stats struct {
				From, To, Interval, Timezone string
				Clicks, Uniques              int
				Timeseries                   []struct {
					Start, LocalStart string
					Clicks, Uniques   int
				}
				Devices []struct {
					Value  string
					Clicks int
				}
			}
			read := func(vars map[string]any) (stats, []string) {
				t.Helper()
				vars["id"] = l.ID
				_, r := h.post(t, query, vars, key)
				var data struct{ LinkStats stats }
				r.decode(t, &data)
				var steps []string
				for _, b := range data.LinkStats.Timeseries {
					steps = append(steps, fmt.Sprintf("%s %s %d/%d", b.LocalStart, b.Start, b.Clicks, b.Uniques))
				}
				return data.LinkStats, steps
			}
			want := func(what string, got []string, want ...string) {
				t.Helper()
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s:\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}

			berlin, steps := read(map[string]any{"from": "2025-10-24T22:00:00Z", "to": "2025-10-28T23:00:00Z", "tz": "Europe/Berlin"})
			want("Berlin's days", steps,
				"2025-10-25T00:00:00.000+02:00 2025-10-24T22:00:00.000Z 1/1",
				"2025-10-26T00:00:00.000+02:00 2025-10-25T22:00:00.000Z 4/2",
				"2025-10-27T00:00:00.000+01:00 2025-10-26T23:00:00.000Z 4/2",
				"2025-10-28T00:00:00.000+01:00 2025-10-27T23:00:00.000Z 0/0")
			if berlin.Timezone != "Europe/Berlin" || berlin.Interval != "DAY" || berlin.From != "2025-10-24T22:00:00.000Z" ||
				berlin.Clicks != 9 || berlin.Uniques != 3 {
				t.Errorf("Berlin: %+v", berlin)
			}
			utc, steps := read(map[string]any{"from": "2025-10-24T22:00:00Z", "to": "2025-10-28T23:00:00Z"})
			want("UTC days", steps,
				"2025-10-24T00:00:00.000Z 2025-10-24T00:00:00.000Z 0/0",
				"2025-10-25T00:00:00.000Z 2025-10-25T00:00:00.000Z 2/1",
				"2025-10-26T00:00:00.000Z 2025-10-26T00:00:00.000Z 4/1",
				"2025-10-27T00:00:00.000Z 2025-10-27T00:00:00.000Z 3/1",
				"2025-10-28T00:00:00.000Z 2025-10-28T00:00:00.000Z 0/0")
			if utc.Timezone != "UTC" || utc.Clicks != berlin.Clicks || utc.Uniques != berlin.Uniques ||
				fmt.Sprint(utc.Devices) != fmt.Sprint(berlin.Devices) {
				t.Errorf("the same range in UTC: %+v, in Berlin %+v", utc, berlin)
			}
			_, steps = read(map[string]any{"interval": "HOUR", "from": "2025-10-27T16:30:00Z", "to": "2025-10-27T20:30:00Z", "tz": "Asia/Kolkata"})
			want("Kolkata's hours", steps,
				"2025-10-27T22:00:00.000+05:30 2025-10-27T16:30:00.000Z 0/0",
				"2025-10-27T23:00:00.000+05:30 2025-10-27T17:30:00.000Z 1/1",
				"2025-10-28T00:00:00.000+05:30 2025-10-27T18:30:00.000Z 2/1",
				"2025-10-28T01:00:00.000+05:30 2025-10-27T19:30:00.000Z 0/0")
			// By default, the last 30 days up to the end of the zone's current day.
			kolkata, steps := read(map[string]any{"tz": "Asia/Kolkata"})
			if kolkata.To != "2025-10-28T18:30:00.000Z" || kolkata.From != "2025-09-28T18:30:00.000Z" || len(steps) != 30 ||
				steps[29] != "2025-10-28T00:00:00.000+05:30 2025-10-27T18:30:00.000Z 2/1" ||
				steps[28] != "2025-10-27T00:00:00.000+05:30 2025-10-26T18:30:00.000Z 3/2" {
				t.Errorf("Kolkata's last 30 days: %s to %s\n%s", kolkata.From, kolkata.To, strings.Join(steps, "\n"))
			}

			for _, tz := range []string{"Mars/Olympus_Mons", "Local", "Asia/" + strings.Repeat("K", 64)} {
				_, r := h.post(t, query, map[string]any{"id": l.ID, "tz": tz}, key)
				if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "timezone" {
					t.Errorf("timezone %q: %+v", tz, r.Errors)
				}
			}
		})
	}
}

// link.listed records the reads of integrations (API keys), not the console's own views: a
// person browsing, searching as they type and refreshing on each click filled the event log
// and every all-events webhook.
func TestLinkListedRecordsKeysNotTheConsole(t *testing.T) {
	h := newLinksHarness(t, store.SQLite)
	token, _ := h.owner(t)
	_, secret := h.createKey(t, token, "links:read")
	count := func() int {
		_, r := h.post(t, `{ events(types: ["link.listed"], first: 100) { nodes { id } } }`, nil, withSession(token))
		var data struct {
			Events struct{ Nodes []struct{ ID string } }
		}
		r.decode(t, &data)
		return len(data.Events.Nodes)
	}
	h.list(t, map[string]any{"search": "a"}, withSession(token))
	h.list(t, map[string]any{"search": "ab"}, withSession(token))
	if n := count(); n != 0 {
		t.Fatalf("%d link.listed events after the console's views, want 0", n)
	}
	h.list(t, map[string]any{"search": "abc"}, withKey(secret))
	if n := count(); n != 1 {
		t.Fatalf("%d link.listed events after a key's read, want 1", n)
	}
}
