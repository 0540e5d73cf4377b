package domain

import (
	"encoding/json"
	"time"
)

// Link is a short link: /l/{slug} sends visitors to URL (or to a device's own URL), and
// every visit is a click.
type Link struct {
	ID          string
	WorkspaceID string
	Slug        string
	URL         string
	Title       string
	Tags        []string
	ExpiresAt   *time.Time
	ExpiredURL  string
	// MaxClicks, when set, is how many counted (non-bot) clicks the link redirects; then it
	// is exhausted like an expired link.
	MaxClicks *int64
	// HasPassword tells that visitors must give a password first (its hash is the store's).
	HasPassword    bool
	RedirectStatus int
	Metadata       json.RawMessage
	ExternalID     string
	UTM            UTM
	IOSURL         string
	AndroidURL     string
	Archived       bool
	Clicks         int64
	LastClickedAt  *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// UTM holds the utm_ parameters appended to a link's target.
type UTM struct {
	Source   string `json:"source,omitempty"`
	Medium   string `json:"medium,omitempty"`
	Campaign string `json:"campaign,omitempty"`
	Term     string `json:"term,omitempty"`
	Content  string `json:"content,omitempty"`
}

// Pairs lists the parameters that are set, in a fixed order.
func (u UTM) Pairs() [][2]string {
	var out [][2]string
	for _, p := range [][2]string{{"utm_source", u.Source}, {"utm_medium", u.Medium}, {"utm_campaign", u.Campaign},
		{"utm_term", u.Term}, {"utm_content", u.Content}} {
		if p[1] != "" {
			out = append(out, p)
		}
	}
	return out
}

// LinkObject is the public representation of a link. short_url is where to share it.
type LinkObject struct {
	Object            string          `json:"object"`
	ID                string          `json:"id"`
	Slug              string          `json:"slug"`
	ShortURL          string          `json:"short_url"`
	URL               string          `json:"url"`
	Title             string          `json:"title"`
	Tags              []string        `json:"tags"`
	ExpiresAt         *Timestamp      `json:"expires_at"`
	ExpiredURL        *string         `json:"expired_url"`
	MaxClicks         *int64          `json:"max_clicks"`
	PasswordProtected bool            `json:"password_protected"`
	RedirectStatus    int             `json:"redirect_status"`
	Metadata          json.RawMessage `json:"metadata"`
	ExternalID        *string         `json:"external_id"`
	UTM               UTM             `json:"utm"`
	IOSURL            *string         `json:"ios_url"`
	AndroidURL        *string         `json:"android_url"`
	Archived          bool            `json:"archived"`
	Clicks            int64           `json:"clicks"`
	LastClickedAt     *Timestamp      `json:"last_clicked_at"`
	CreatedAt         Timestamp       `json:"created_at"`
	UpdatedAt         Timestamp       `json:"updated_at"`
}

// Object returns the public representation of l; shortBase is the address slugs hang off
// (".../l" or a dedicated short host).
func (l Link) Object(shortBase string) LinkObject {
	tags := l.Tags
	if tags == nil {
		tags = []string{}
	}
	meta := l.Metadata
	if len(meta) == 0 {
		meta = json.RawMessage("{}")
	}
	return LinkObject{Object: "link", ID: l.ID, Slug: l.Slug, ShortURL: shortBase + "/" + l.Slug, URL: l.URL,
		Title: l.Title, Tags: tags, ExpiresAt: TSPtr(l.ExpiresAt), ExpiredURL: optional(l.ExpiredURL),
		MaxClicks: l.MaxClicks, PasswordProtected: l.HasPassword, RedirectStatus: l.RedirectStatus, Metadata: meta,
		ExternalID: optional(l.ExternalID), UTM: l.UTM, IOSURL: optional(l.IOSURL), AndroidURL: optional(l.AndroidURL),
		Archived: l.Archived, Clicks: l.Clicks, LastClickedAt: TSPtr(l.LastClickedAt),
		CreatedAt: TS(l.CreatedAt), UpdatedAt: TS(l.UpdatedAt)}
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Click is one visit of a link. The visitor's IP is never stored: Visitor is a hash of it
// salted per day, so uniques can be counted within a day and never joined across days.
type Click struct {
	ID             string
	WorkspaceID    string
	LinkID         string
	At             time.Time
	Referrer       string
	ReferrerHost   string
	Browser        string
	BrowserVersion string
	OS             string
	Device         string
	Country        string
	Bot            bool
	BotReason      string
	QR             bool
	Visitor        string
	// Counted tells that the click was already counted against max_clicks when it was
	// redirected (so the batch writer does not count it twice).
	Counted bool
}

// Device kinds of a click.
const (
	DeviceDesktop = "desktop"
	DeviceMobile  = "mobile"
	DeviceTablet  = "tablet"
	DeviceBot     = "bot"
	DeviceUnknown = "unknown"
)

// ClickObject is the public representation of a click.
type ClickObject struct {
	Object         string    `json:"object"`
	ID             string    `json:"id"`
	LinkID         string    `json:"link_id"`
	Timestamp      Timestamp `json:"timestamp"`
	Referrer       *string   `json:"referrer"`
	ReferrerHost   *string   `json:"referrer_host"`
	Browser        string    `json:"browser"`
	BrowserVersion string    `json:"browser_version"`
	OS             string    `json:"os"`
	Device         string    `json:"device"`
	Country        string    `json:"country"`
	Bot            bool      `json:"bot"`
	BotReason      *string   `json:"bot_reason"`
	QR             bool      `json:"qr"`
}

// Object returns the public representation of c.
func (c Click) Object() ClickObject {
	return ClickObject{Object: "click", ID: c.ID, LinkID: c.LinkID, Timestamp: TS(c.At), Referrer: optional(c.Referrer),
		ReferrerHost: optional(c.ReferrerHost), Browser: c.Browser, BrowserVersion: c.BrowserVersion, OS: c.OS,
		Device: c.Device, Country: c.Country, Bot: c.Bot, BotReason: optional(c.BotReason), QR: c.QR}
}

// LinkClicked is the data of a link.clicked event: the click and the link as it is now.
type LinkClicked struct {
	Click ClickObject `json:"click"`
	Link  LinkObject  `json:"link"`
}

// LinkFilter selects links in a list.
type LinkFilter struct {
	Search   string
	Tag      string
	Archived *bool
	Since    *time.Time
	Until    *time.Time
	// Sort is "created" (newest first, the default) or "clicks" (most clicked first).
	Sort string
}

// LinkListed is the data of a link.listed event: what was asked and how many links matched
// the page (never the links themselves).
type LinkListed struct {
	Query LinkListQuery `json:"query"`
	Count int           `json:"count"`
}

// LinkListQuery is the query of a list call as the link.listed event shows it.
type LinkListQuery struct {
	Search   *string    `json:"search"`
	Tag      *string    `json:"tag"`
	Archived *bool      `json:"archived"`
	Since    *Timestamp `json:"created_after"`
	Until    *Timestamp `json:"created_before"`
	Sort     string     `json:"sort"`
	Limit    int        `json:"limit"`
	After    *string    `json:"after"`
}

// ListQuery returns the query as the link.listed event shows it.
func (f LinkFilter) ListQuery(limit int, after string) LinkListQuery {
	q := LinkListQuery{Search: optional(f.Search), Tag: optional(f.Tag), Archived: f.Archived,
		Since: TSPtr(f.Since), Until: TSPtr(f.Until), Sort: f.Sort, Limit: limit, After: optional(after)}
	if q.Sort == "" {
		q.Sort = "created"
	}
	return q
}

// LinkStats is a link's clicks over a time range: totals, a time series and breakdowns.
// Its times are shown in the time zone the stats were asked in (Timezone), whose days
// and hours the series steps through.
type LinkStats struct {
	Object      string         `json:"object"`
	LinkID      string         `json:"link_id"`
	From        ZonedTimestamp `json:"from"`
	To          ZonedTimestamp `json:"to"`
	Interval    string         `json:"interval"`
	Timezone    string         `json:"timezone"`
	IncludeBots bool           `json:"include_bots"`
	Clicks      int64          `json:"clicks"`
	Uniques     int64          `json:"uniques"`
	Bots        int64          `json:"bots"`
	Timeseries  []StatsBucket  `json:"timeseries"`
	Countries   []StatsCount   `json:"countries"`
	Devices     []StatsCount   `json:"devices"`
	Browsers    []StatsCount   `json:"browsers"`
	OS          []StatsCount   `json:"os"`
	Referrers   []StatsCount   `json:"referrers"`
}

// StatsBucket is the clicks of one interval (a day or an hour of the stats' time zone)
// starting at Start.
type StatsBucket struct {
	Start   ZonedTimestamp `json:"start"`
	Clicks  int64          `json:"clicks"`
	Uniques int64          `json:"uniques"`
}

// ZonedTimeFormat is TimeFormat with the time's own offset from UTC instead of a Z (a time
// in UTC still ends in Z): 2025-03-30T00:00:00.000+01:00.
const ZonedTimeFormat = "2006-01-02T15:04:05.000Z07:00"

// ZonedTimestamp is a time that encodes as ZonedTimeFormat in its own location, so its
// first 10 characters are the date there (stats in a caller's time zone).
type ZonedTimestamp time.Time

func (t ZonedTimestamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).Format(ZonedTimeFormat) + `"`), nil
}

func (t *ZonedTimestamp) UnmarshalJSON(b []byte) error {
	var tt time.Time
	if err := json.Unmarshal(b, &tt); err != nil {
		return err
	}
	*t = ZonedTimestamp(tt)
	return nil
}

// StatsCount is the clicks with one value of a dimension (a country, a browser...).
type StatsCount struct {
	Value  string `json:"value"`
	Clicks int64  `json:"clicks"`
}

// Link event types.
const (
	EventLinkCreated = "link.created"
	EventLinkUpdated = "link.updated"
	EventLinkDeleted = "link.deleted"
	EventLinkListed  = "link.listed"
	EventLinkClicked = "link.clicked"
)
