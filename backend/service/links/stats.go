package links

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/qr"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Stats ranges: at most MaxStatsDays days by day, MaxStatsHours hours by hour.
const (
	MaxStatsDays  = 366
	MaxStatsHours = 24 * 14
)

// MaxTimezoneLen bounds a time zone's name (the longest IANA name has 32 characters).
const MaxTimezoneLen = 64

// StatsQuery is the range and grouping of a link's stats; nil From/To mean the last 30
// days (by day) or the last 24 hours (by hour), up to the end of the current one.
type StatsQuery struct {
	From, To *time.Time
	Interval string // "day" (default) or "hour"
	// Timezone is the IANA name of the zone whose days and hours the series steps through
	// (and whose current day or hour ends the default range): "" is UTC.
	Timezone    string
	IncludeBots bool
}

// Stats returns a link's clicks in a range: totals, uniques, a time series with every
// interval (zeros included) and breakdowns by country, device, browser, OS and referrer.
//
// The series' steps are the days (from local midnight to local midnight: 23 or 25 hours
// across a DST change) or the hours of q.Timezone; its times are shown in that zone. Totals
// and breakdowns count [from, to) and so do not depend on the zone.
func (l *Links) Stats(ctx context.Context, a service.Actor, id string, q StatsQuery) (domain.LinkStats, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeLinksRead)
	if err != nil {
		return domain.LinkStats{}, err
	}
	loc, err := Zone(q.Timezone)
	if err != nil {
		return domain.LinkStats{}, err
	}
	if q.Timezone == "" {
		q.Timezone = "UTC"
	}
	switch q.Interval {
	case "", "day":
		q.Interval = "day"
	case "hour":
	default:
		return domain.LinkStats{}, domain.Invalid("interval", "interval is day or hour")
	}
	link, err := l.find(ctx, l.st, wsID, id)
	if err != nil {
		return domain.LinkStats{}, err
	}
	// By default the range ends with the current day (or hour), so the series' last step
	// is the one under way.
	day := q.Interval == "day"
	var to time.Time
	if q.To != nil {
		to = q.To.In(loc)
	} else {
		to = nextStep(stepStart(l.s.Clock().Now().In(loc), day), day)
	}
	from := to.Add(-24 * time.Hour)
	switch {
	case q.From != nil:
		from = q.From.In(loc)
	case day && q.To != nil:
		from = to.AddDate(0, 0, -30)
	case day:
		from = stepStart(to.AddDate(0, 0, -30), true) // 30 whole days
	}
	if !to.After(from) {
		return domain.LinkStats{}, domain.Invalid("to", "to must be after from")
	}
	if (day && to.After(from.AddDate(0, 0, MaxStatsDays))) || (!day && to.Sub(from) > MaxStatsHours*time.Hour) {
		return domain.LinkStats{}, domain.Invalid("from", "a range is at most %d days by day or %d hours by hour", MaxStatsDays, MaxStatsHours)
	}
	out := domain.LinkStats{Object: "link_stats", LinkID: link.ID, From: domain.ZonedTimestamp(from),
		To: domain.ZonedTimestamp(to), Interval: q.Interval, Timezone: q.Timezone, IncludeBots: q.IncludeBots}
	total, err := l.st.ClickCounts(ctx, link.ID, from, to, q.IncludeBots, "total")
	if err != nil {
		return out, err
	}
	if len(total) == 1 {
		out.Clicks, out.Uniques = total[0].Clicks, total[0].Uniques
	}
	if out.Bots, err = l.st.CountBotClicks(ctx, link.ID, from, to); err != nil {
		return out, err
	}
	// The steps start at the step under way at from; clicks are counted from from itself
	// (as the totals are), so the steps add up to the total.
	starts := stepStarts(from, to, day)
	bounds := append(append([]time.Time{from}, starts[1:]...), to)
	series, err := l.st.ClickSeries(ctx, link.ID, bounds, q.IncludeBots)
	if err != nil {
		return out, err
	}
	out.Timeseries = make([]domain.StatsBucket, len(starts))
	for i, t := range starts {
		out.Timeseries[i] = domain.StatsBucket{Start: domain.ZonedTimestamp(t), Clicks: series[i].Clicks, Uniques: series[i].Uniques}
	}
	for _, d := range []struct {
		by  string
		out *[]domain.StatsCount
	}{{"country", &out.Countries}, {"device", &out.Devices}, {"browser", &out.Browsers}, {"os", &out.OS},
		{"referrer_host", &out.Referrers}} {
		rows, err := l.st.ClickCounts(ctx, link.ID, from, to, q.IncludeBots, d.by)
		if err != nil {
			return out, err
		}
		*d.out = make([]domain.StatsCount, 0, len(rows))
		for _, r := range rows {
			v := r.Value
			if v == "" {
				v = "unknown"
				if d.by == "referrer_host" {
					v = "direct"
				}
			}
			*d.out = append(*d.out, domain.StatsCount{Value: v, Clicks: r.Clicks})
		}
	}
	return out, nil
}

// zones caches the time zones loaded by name: only names that load are kept, so it holds
// at most the few hundred zones there are.
var zones sync.Map

// Zone returns the time zone of an IANA name such as Europe/Berlin ("" and "UTC": UTC).
// Zone data comes from the system, or from the copy built into the binary (time/tzdata).
// Names are checked first (letters, digits, _ + - and /, starting with a capital letter):
// Local (the server's own zone) and the system's files that are not zones are refused.
func Zone(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	if len(name) > MaxTimezoneLen {
		return nil, domain.Invalid("timezone", "timezone is an IANA time zone name (such as Europe/Berlin) of at most %d characters", MaxTimezoneLen)
	}
	unknown := domain.Invalid("timezone", "timezone %q is not an IANA time zone name (such as Europe/Berlin, America/Los_Angeles or UTC)", name)
	if name == "Local" || name[0] < 'A' || name[0] > 'Z' || strings.Contains(name, "//") || strings.HasSuffix(name, "/") ||
		strings.ContainsFunc(name, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/_+-", r))
		}) {
		return nil, unknown
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, unknown
	}
	zones.Store(name, loc)
	return loc, nil
}

// stepStarts lists the starts of the days (day) or hours of t's location from the one
// under way at from up to to (excluded).
func stepStarts(from, to time.Time, day bool) []time.Time {
	var out []time.Time
	for t := stepStart(from, day); t.Before(to); {
		out = append(out, t)
		next := nextStep(t, day)
		if !next.After(t) { // never: zone data that did would otherwise loop forever
			next = t.Add(time.Hour)
		}
		t = next
	}
	return out
}

// stepStart is the start of the day (day) or hour of t's location that t is in.
func stepStart(t time.Time, day bool) time.Time {
	if day {
		y, m, d := t.Date()
		return midnight(y, m, d, t.Location())
	}
	s := t.Add(-time.Duration(t.Minute())*time.Minute - time.Duration(t.Second())*time.Second - time.Duration(t.Nanosecond()))
	// A change of offset by other than whole hours (Australia/Lord_Howe's DST is 30
	// minutes) moves where hours start: the hour under way then began at the change.
	if start, _ := t.ZoneBounds(); s.Before(start) {
		_, before := start.Add(-time.Nanosecond).Zone()
		if _, after := start.Zone(); (after-before)%3600 != 0 {
			s = start
		}
	}
	return s
}

// nextStep is the start of the day or hour after the one starting at t.
func nextStep(t time.Time, day bool) time.Time {
	if day {
		y, m, d := t.Date()
		return midnight(y, m, d+1, t.Location())
	}
	return stepStart(t.Add(time.Hour), false)
}

// midnight is the first instant of a day in loc: 00:00, or when the clocks skip midnight
// (America/Santiago in September, America/Havana in March) the instant they jump.
func midnight(y int, m time.Month, d int, loc *time.Location) time.Time {
	want := time.Date(y, m, d, 0, 0, 0, 0, time.UTC) // the day, normalised (32 January is 1 February)
	t := time.Date(want.Year(), want.Month(), want.Day(), 0, 0, 0, 0, loc)
	if t.YearDay() != want.YearDay() { // the evening before, in the offset after the jump
		_, t = t.ZoneBounds()
	}
	return t
}

// Clicks lists a link's raw clicks, newest first (bots left out unless asked). Raw clicks
// are kept for their retention (stats outlive them); an older cursor is 410 cursor_expired.
func (l *Links) Clicks(ctx context.Context, a service.Actor, id string, bots bool, p domain.ListParams) (domain.Page[domain.Click], error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeLinksRead)
	if err != nil {
		return domain.Page[domain.Click]{}, err
	}
	limit, err := service.PageLimit(p)
	if err != nil {
		return domain.Page[domain.Click]{}, err
	}
	if err := service.CheckCursor(p.After, domain.PrefixClick); err != nil {
		return domain.Page[domain.Click]{}, err
	}
	link, err := l.find(ctx, l.st, wsID, id)
	if err != nil {
		return domain.Page[domain.Click]{}, err
	}
	if err := l.st.CheckCursor(ctx, store.TableClicks, p.After); err != nil {
		return domain.Page[domain.Click]{}, err
	}
	rows, err := l.st.Clicks(ctx, link.ID, bots, p.After, limit+1)
	if err != nil {
		return domain.Page[domain.Click]{}, err
	}
	return service.PageOf(rows, limit, func(c domain.Click) string { return c.ID }), nil
}

// QR sizes in pixels.
const (
	MinQRSize     = 64
	MaxQRSize     = 2048
	DefaultQRSize = 512
)

// QRContent is what a link's QR code holds: its short URL, marked so scans count as qr.
func (l *Links) QRContent(link domain.Link) string { return l.Object(link).ShortURL + "?qr=1" }

// QRPNG returns a link's QR code as a PNG of exactly size×size pixels (nil: DefaultQRSize).
// A size given is checked, 0 included: only a size left out takes the default.
func (l *Links) QRPNG(ctx context.Context, a service.Actor, id string, sizep *int) ([]byte, error) {
	text, size, err := l.qrOf(ctx, a, id, sizep)
	if err != nil {
		return nil, err
	}
	png, err := qr.PNG(text, size)
	if err != nil {
		return nil, domain.Internal(err)
	}
	return png, nil
}

// QRSVG returns a link's QR code as SVG, size×size pixels as it opens (nil: DefaultQRSize),
// checked as QRPNG's; it scales to any size without loss.
func (l *Links) QRSVG(ctx context.Context, a service.Actor, id string, sizep *int) (string, error) {
	text, size, err := l.qrOf(ctx, a, id, sizep)
	if err != nil {
		return "", err
	}
	svg, err := qr.SVG(text, size)
	if err != nil {
		return "", domain.Internal(err)
	}
	return svg, nil
}

// qrOf checks a QR code's size and returns what it encodes.
func (l *Links) qrOf(ctx context.Context, a service.Actor, id string, sizep *int) (string, int, error) {
	size := DefaultQRSize
	if sizep != nil {
		size = *sizep
	}
	if size < MinQRSize || size > MaxQRSize {
		return "", 0, domain.Invalid("size", "size is %d to %d pixels", MinQRSize, MaxQRSize)
	}
	link, err := l.Get(ctx, a, id)
	if err != nil {
		return "", 0, err
	}
	return l.QRContent(link), size, nil
}
