package links

import (
	"encoding/json"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
)

// sampleBase is the short_url prefix of samples (the live one is the operator's).
const sampleBase = "https://sb.example.com/l"

// eventTypes is the short-link surface's table of event types, with samples built by the
// same Object methods as live data.
var eventTypes = []service.EventType{
	{Type: domain.EventLinkCreated, Description: "A short link was created (one event per link of a bulk call).",
		Sample: func(now time.Time) any { return sampleLink(now).Object(sampleBase) }},
	{Type: domain.EventLinkUpdated, Description: "A short link's target, slug or settings changed.",
		Sample: func(now time.Time) any { return sampleLink(now).Object(sampleBase) }},
	{Type: domain.EventLinkDeleted, Description: "A short link was deleted with its clicks (its slug stays taken for 30 days).",
		Sample: func(now time.Time) any { return sampleLink(now).Object(sampleBase) }},
	{Type: domain.EventLinkListed, Description: "The links list was read with an API key: the query and how many links the page held, never the links.",
		Sample: func(now time.Time) any {
			tag := "launch"
			return domain.LinkListed{Query: domain.LinkFilter{Tag: tag}.ListQuery(20, ""), Count: 1}
		}},
	{Type: domain.EventLinkClicked, Description: "A person clicked a short link (bots and link previews are left out): the click and the link.",
		Sample: func(now time.Time) any {
			l := sampleLink(now)
			c := domain.Click{ID: "clk_01jr8d0c3b5n7q9s1u3w5y7a9c", LinkID: l.ID, At: now, Referrer: "https://news.example.org/post/1",
				ReferrerHost: "news.example.org", Browser: "Chrome", BrowserVersion: "131.0.0.0", OS: "macOS",
				Device: domain.DeviceDesktop, Country: "DE"}
			return domain.LinkClicked{Click: c.Object(), Link: l.Object(sampleBase)}
		}},
}

var _ = service.RegisterEventTypes(eventTypes...)

func sampleLink(now time.Time) domain.Link {
	return domain.Link{ID: "lnk_01jr8d0c3b5n7q9s1u3w5y7a9c", Slug: "launch", URL: "https://example.com/blog/launch",
		Title: "Launch post", Tags: []string{"launch"}, RedirectStatus: 302, Metadata: json.RawMessage(`{"campaign":"q4"}`),
		UTM: domain.UTM{Source: "newsletter", Medium: "email"}, Clicks: 42, LastClickedAt: &now, CreatedAt: now, UpdatedAt: now}
}
