package links

import (
	"context"
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

// StatsQuery is the range and grouping of a link's stats; nil From/To mean the last 30
// days (by day) or the last 24 hours (by hour), up to the end of the current one.
type StatsQuery struct {
	From, To    *time.Time
	Interval    string // "day" (default) or "hour"
	IncludeBots bool
}

// Stats returns a link's clicks in a range: totals, uniques, a time series with every
// interval (zeros included) and breakdowns by country, device, browser, OS and referrer.
func (l *Links) Stats(ctx context.Context, a service.Actor, id string, q StatsQuery) (domain.LinkStats, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeLinksRead)
	if err != nil {
		return domain.LinkStats{}, err
	}
	link, err := l.find(ctx, l.st, wsID, id)
	if err != nil {
		return domain.LinkStats{}, err
	}
	step, span, limit := 24*time.Hour, 30*24*time.Hour, time.Duration(MaxStatsDays)*24*time.Hour
	switch q.Interval {
	case "", "day":
		q.Interval = "day"
	case "hour":
		step, span, limit = time.Hour, 24*time.Hour, MaxStatsHours*time.Hour
	default:
		return domain.LinkStats{}, domain.Invalid("interval", "interval is day or hour")
	}
	// By default the range ends with the current day (or hour), so the series' last step
	// is the one under way.
	to := l.s.Clock().Now().UTC().Truncate(step).Add(step)
	if q.To != nil {
		to = q.To.UTC()
	}
	from := to.Add(-span)
	if q.From != nil {
		from = q.From.UTC()
	}
	if !to.After(from) {
		return domain.LinkStats{}, domain.Invalid("to", "to must be after from")
	}
	if to.Sub(from) > limit {
		return domain.LinkStats{}, domain.Invalid("from", "a range is at most %d days by day or %d hours by hour", MaxStatsDays, MaxStatsHours)
	}
	out := domain.LinkStats{Object: "link_stats", LinkID: link.ID, From: domain.TS(from), To: domain.TS(to),
		Interval: q.Interval, IncludeBots: q.IncludeBots}
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
	series, err := l.st.ClickCounts(ctx, link.ID, from, to, q.IncludeBots, q.Interval)
	if err != nil {
		return out, err
	}
	layout := map[string]string{"day": "2006-01-02", "hour": "2006-01-02 15"}[q.Interval]
	byStart := map[string]int{}
	for i, c := range series {
		byStart[c.Value] = i
	}
	for t := from.Truncate(step); t.Before(to); t = t.Add(step) {
		b := domain.StatsBucket{Start: domain.TS(t)}
		if i, ok := byStart[t.Format(layout)]; ok {
			b.Clicks, b.Uniques = series[i].Clicks, series[i].Uniques
		}
		out.Timeseries = append(out.Timeseries, b)
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
	size := DefaultQRSize
	if sizep != nil {
		size = *sizep
	}
	if size < MinQRSize || size > MaxQRSize {
		return nil, domain.Invalid("size", "size is %d to %d pixels", MinQRSize, MaxQRSize)
	}
	link, err := l.Get(ctx, a, id)
	if err != nil {
		return nil, err
	}
	png, err := qr.PNG(l.QRContent(link), size)
	if err != nil {
		return nil, domain.Internal(err)
	}
	return png, nil
}

// QRSVG returns a link's QR code as SVG.
func (l *Links) QRSVG(ctx context.Context, a service.Actor, id string) (string, error) {
	link, err := l.Get(ctx, a, id)
	if err != nil {
		return "", err
	}
	svg, err := qr.SVG(l.QRContent(link))
	if err != nil {
		return "", domain.Internal(err)
	}
	return svg, nil
}
