package rest

import (
	"encoding/json"
	"reflect"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// The short-link surface's public objects, annotated for the document like those of
// schema_objects.go, with examples made by the domain's Object methods.

var (
	exampleLinkMax = int64(1000)
	exampleLink    = domain.Link{ID: "lnk_01jr8d0c3b5n7q9s1u3w5y7a9c", Slug: "launch", URL: "https://example.com/blog/launch",
		Title: "Launch post", Tags: []string{"launch"}, MaxClicks: &exampleLinkMax, RedirectStatus: 302,
		Metadata: json.RawMessage(`{"campaign":"q4"}`), ExternalID: "post-1234",
		UTM: domain.UTM{Source: "newsletter", Medium: "email"}, Clicks: 42, LastClickedAt: &exampleTime,
		CreatedAt: exampleTime, UpdatedAt: exampleTime}.Object("https://sb.example.com/l")
	exampleClick = domain.Click{ID: "clk_01jr8d0c3b5n7q9s1u3w5y7a9c", LinkID: exampleLink.ID, At: exampleTime,
		Referrer: "https://news.example.org/post/1", ReferrerHost: "news.example.org", Browser: "Chrome",
		BrowserVersion: "131.0.0.0", OS: "macOS", Device: domain.DeviceDesktop, Country: "DE"}.Object()
)

func init() {
	for t, n := range linkNotes {
		typeNotes[t] = n
	}
}

var linkNotes = map[reflect.Type]typeNote{
	reflect.TypeFor[domain.LinkObject](): {
		listDoc: "Links.",
		fields: map[string]note{
			"object":             {"", `const:"link"`},
			"id":                 {doc: "The link's id (`lnk_…`)."},
			"slug":               {doc: "The path after the short host (case-sensitive)."},
			"short_url":          {doc: "The link to share."},
			"url":                {doc: "Where it sends visitors."},
			"title":              {doc: "A name for people."},
			"tags":               {doc: "Tags for filtering."},
			"expires_at":         {doc: "When it stops redirecting (null: never)."},
			"expired_url":        {doc: "Where it sends visitors once expired or exhausted (null: an expired page, 410)."},
			"max_clicks":         {doc: "How many counted clicks it redirects (null: no limit)."},
			"password_protected": {doc: "Whether visitors must enter a password first."},
			"redirect_status":    {"The redirect's status code: 301, 302, 307 or 308.", `example:"302"`},
			"metadata":           {"Your own JSON object.", `type:"object"`},
			"external_id":        {doc: "Your own id for it (null: none)."},
			"utm":                {doc: "utm_ parameters set on the target."},
			"ios_url":            {doc: "Where iOS visitors go instead (null: url)."},
			"android_url":        {doc: "Where Android visitors go instead (null: url)."},
			"archived":           {doc: "Whether it is archived (it still redirects)."},
			"clicks":             {doc: "Counted clicks (bots left out), written within a second of the visit."},
			"last_clicked_at":    {doc: "The last counted click (null: none yet)."},
			"created_at":         {doc: "When it was created."},
			"updated_at":         {doc: "When it last changed."},
		},
		examples: examplesOf(exampleLink),
	},
	reflect.TypeFor[domain.UTM](): {fields: map[string]note{
		"source":   {"utm_source.", `example:"newsletter"`},
		"medium":   {"utm_medium.", `example:"email"`},
		"campaign": {"utm_campaign.", `example:"q4-launch"`},
		"term":     {"utm_term.", `example:"shoes"`},
		"content":  {"utm_content.", `example:"header-link"`},
	}},
	reflect.TypeFor[domain.ClickObject](): {
		listDoc: "Clicks, newest first.",
		fields: map[string]note{
			"object":          {"", `const:"click"`},
			"id":              {doc: "The click's id (`clk_…`)."},
			"link_id":         {doc: "Its link."},
			"timestamp":       {doc: "When the visit happened."},
			"referrer":        {doc: "The page the visitor came from (null: none sent)."},
			"referrer_host":   {doc: "Its host."},
			"browser":         {doc: "The browser, parsed from the User-Agent (empty: unknown)."},
			"browser_version": {doc: "Its version."},
			"os":              {doc: "The operating system."},
			"device":          {"The kind of device.", `enum:"desktop,mobile,tablet,bot,unknown"`},
			"country":         {doc: "ISO 3166 country code (empty without a GeoIP database, or when unknown)."},
			"bot":             {doc: "Whether the visit was a bot's (left out of counts, stats and webhooks unless asked)."},
			"bot_reason":      {doc: "Why it was flagged: `crawler`, `link_preview`, `head_request` or `empty_user_agent` (null: a person)."},
			"qr":              {doc: "Whether it came through the link's QR code."},
		},
		examples: examplesOf(exampleClick),
	},
	reflect.TypeFor[domain.LinkStats](): {fields: map[string]note{
		"object":       {"", `const:"link_stats"`},
		"link_id":      {"The link.", `example:"lnk_01jr8d0c3b5n7q9s1u3w5y7a9c"`},
		"from":         {"Start of the range, with the time zone's offset (`Z` in UTC).", `example:"2025-03-27T00:00:00.000+01:00"`},
		"to":           {"End of the range (excluded), with the time zone's offset.", `example:"2025-04-03T00:00:00.000+02:00"`},
		"interval":     {"The time series' step.", `enum:"day,hour" example:"day"`},
		"timezone":     {"The time zone whose days or hours the series steps through (IANA name).", `example:"Europe/Berlin"`},
		"include_bots": {"Whether bots are counted.", `example:"false"`},
		"clicks":       {"Clicks in the range.", `example:"42"`},
		"uniques":      {"Unique visitors, counted per day.", `example:"37"`},
		"bots":         {"Bot visits in the range (counted or not).", `example:"5"`},
		"timeseries":   {doc: "Every step of the range, zeros included."},
		"countries":    {doc: "Clicks by country, most first (`unknown` without GeoIP)."},
		"devices":      {doc: "Clicks by device."},
		"browsers":     {doc: "Clicks by browser."},
		"os":           {doc: "Clicks by operating system."},
		"referrers":    {doc: "Clicks by referring host (`direct`: none)."},
	}},
	reflect.TypeFor[domain.StatsBucket](): {fields: map[string]note{
		"start": {"The step's start: local midnight (or the hour) in the time zone, with its offset, so its first 10 " +
			"characters are the local date (`2025-03-30T00:00:00.000+01:00` starts a 23-hour day in Europe/Berlin).",
			`example:"2025-03-30T00:00:00.000+01:00"`},
		"clicks":  {"Clicks in it.", `example:"12"`},
		"uniques": {"Unique visitors in it (per UTC day: a step across two UTC days may count a visitor twice).", `example:"10"`},
	}},
	reflect.TypeFor[domain.StatsCount](): {fields: map[string]note{
		"value":  {"The country, device, browser, OS or referring host.", `example:"DE"`},
		"clicks": {"Its clicks.", `example:"7"`},
	}},
}
