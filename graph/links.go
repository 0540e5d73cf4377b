package graph

import (
	"context"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/graph/model"
)

// This file holds the short-link surface's resolvers: links, their clicks, stats and QR
// codes. Each decodes its input, calls one method of links.Links and converts the result
// with the same null rules as REST's objects (domain.LinkObject, domain.ClickObject).

func (r *queryResolver) ShortLinkBase(context.Context) (string, error) {
	return r.links.ShortBase(), nil
}

func (r *queryResolver) Links(ctx context.Context, search *string, tag *string, archived *bool, createdAfter *time.Time,
	createdBefore *time.Time, sort *model.LinkSort, first *int, after *string) (*model.LinkConnection, error) {
	f := domain.LinkFilter{Search: deref(search), Tag: deref(tag), Archived: archived, Since: createdAfter, Until: createdBefore}
	if sort != nil {
		f.Sort = strings.ToLower(string(*sort))
	}
	page, err := r.links.List(ctx, actor(ctx), f, domain.ListParams{Limit: first, After: deref(after)})
	if err != nil {
		return nil, httpx.RenameParam(err, "limit", "first")
	}
	conn := &model.LinkConnection{Nodes: make([]model.Link, len(page.Data)), HasMore: page.HasMore,
		NextCursor: optional(page.NextCursor)}
	for i, l := range page.Data {
		conn.Nodes[i] = r.toLink(l)
	}
	return conn, nil
}

func (r *queryResolver) Link(ctx context.Context, id string) (*model.Link, error) {
	return r.linkResult(r.links.Get(ctx, actor(ctx), id))
}

func (r *queryResolver) LinkStats(ctx context.Context, id string, from *time.Time, to *time.Time, interval *model.StatsInterval,
	timezone *string, includeBots *bool) (*model.LinkStats, error) {
	q := links.StatsQuery{From: from, To: to, Timezone: deref(timezone), IncludeBots: deref(includeBots)}
	if interval != nil {
		q.Interval = strings.ToLower(string(*interval))
	}
	s, err := r.links.Stats(ctx, actor(ctx), id, q)
	if err != nil {
		return nil, err
	}
	out := &model.LinkStats{LinkID: s.LinkID, From: time.Time(s.From), To: time.Time(s.To),
		Interval: model.StatsInterval(strings.ToUpper(s.Interval)), Timezone: s.Timezone, IncludeBots: s.IncludeBots, Clicks: int(s.Clicks),
		Uniques: int(s.Uniques), Bots: int(s.Bots), Timeseries: make([]model.StatsBucket, len(s.Timeseries)),
		Countries: s.Countries, Devices: s.Devices, Browsers: s.Browsers, Os: s.OS, Referrers: s.Referrers}
	for i, b := range s.Timeseries {
		out.Timeseries[i] = model.StatsBucket{Start: time.Time(b.Start), LocalStart: time.Time(b.Start).Format(domain.ZonedTimeFormat),
			Clicks: int(b.Clicks), Uniques: int(b.Uniques)}
	}
	return out, nil
}

func (r *queryResolver) LinkClicks(ctx context.Context, id string, includeBots *bool, first *int, after *string) (*model.LinkClickConnection, error) {
	page, err := r.links.Clicks(ctx, actor(ctx), id, deref(includeBots), domain.ListParams{Limit: first, After: deref(after)})
	if err != nil {
		return nil, httpx.RenameParam(err, "limit", "first")
	}
	conn := &model.LinkClickConnection{Nodes: make([]model.LinkClick, len(page.Data)), HasMore: page.HasMore,
		NextCursor: optional(page.NextCursor)}
	for i, c := range page.Data {
		o := c.Object()
		conn.Nodes[i] = model.LinkClick{ID: o.ID, LinkID: o.LinkID, Timestamp: c.At, Referrer: o.Referrer,
			ReferrerHost: o.ReferrerHost, Browser: o.Browser, BrowserVersion: o.BrowserVersion, Os: o.OS, Device: o.Device,
			Country: o.Country, Bot: o.Bot, BotReason: o.BotReason, QR: o.QR}
	}
	return conn, nil
}

func (r *mutationResolver) CreateLink(ctx context.Context, input model.CreateLinkInput) (*model.Link, error) {
	return r.linkResult(r.links.Create(ctx, actor(ctx), createInput(input)))
}

func (r *mutationResolver) UpdateLink(ctx context.Context, id string, input model.UpdateLinkInput) (*model.Link, error) {
	return r.linkResult(r.links.Update(ctx, actor(ctx), id, updateInput(input)))
}

func (r *mutationResolver) DeleteLink(ctx context.Context, id string) (*model.Link, error) {
	return r.linkResult(r.links.Delete(ctx, actor(ctx), id))
}

func (r *mutationResolver) BulkCreateLinks(ctx context.Context, items []model.CreateLinkInput) ([]model.Link, error) {
	ins := make([]links.Input, len(items))
	for i, in := range items {
		ins[i] = createInput(in)
	}
	created, err := r.links.BulkCreate(ctx, actor(ctx), ins)
	if err != nil {
		return nil, err
	}
	out := make([]model.Link, len(created))
	for i, l := range created {
		out[i] = r.toLink(l)
	}
	return out, nil
}

// QRSVG draws the link's QR code (the service reads the link again, with the caller's
// scopes).
func (r *linkResolver) QRSVG(ctx context.Context, obj *model.Link) (string, error) {
	return r.links.QRSVG(ctx, actor(ctx), obj.ID, nil)
}

func (r *Resolver) linkResult(l domain.Link, err error) (*model.Link, error) {
	if err != nil {
		return nil, err
	}
	return ptr(r.toLink(l)), nil
}

// toLink converts a link for output; it never holds the password (only whether there is
// one).
func (r *Resolver) toLink(l domain.Link) model.Link {
	o := r.links.Object(l)
	out := model.Link{ID: o.ID, Slug: o.Slug, ShortURL: o.ShortURL, URL: o.URL, Title: o.Title, Tags: o.Tags,
		ExpiresAt: l.ExpiresAt, ExpiredURL: o.ExpiredURL, PasswordProtected: o.PasswordProtected,
		RedirectStatus: o.RedirectStatus, Metadata: o.Metadata, ExternalID: o.ExternalID, Utm: &o.UTM, IosURL: o.IOSURL,
		AndroidURL: o.AndroidURL, Archived: o.Archived, Clicks: int(o.Clicks), LastClickedAt: l.LastClickedAt,
		CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
	if o.MaxClicks != nil {
		out.MaxClicks = ptr(int(*o.MaxClicks))
	}
	return out
}

// createInput decodes a new link's fields; absent ones stay nil (the service's defaults).
func createInput(in model.CreateLinkInput) links.Input {
	out := links.Input{URL: &in.URL, Slug: in.Slug, Title: in.Title, ExpiresAt: in.ExpiresAt, ExpiredURL: in.ExpiredURL,
		Password: in.Password, RedirectStatus: in.RedirectStatus, Metadata: in.Metadata, ExternalID: in.ExternalID,
		UTM: utmInput(in.Utm), IOSURL: in.IosURL, AndroidURL: in.AndroidURL, Archived: in.Archived}
	if in.Tags != nil {
		out.Tags = &in.Tags
	}
	if in.MaxClicks != nil {
		out.MaxClicks = ptr(int64(*in.MaxClicks))
	}
	return out
}

// updateInput decodes a link's changes: absent fields stay nil (kept), and the fields given
// as null are named in Remove, for the service to apply the same rules as REST's PATCH.
func updateInput(in model.UpdateLinkInput) links.Input {
	out := links.Input{Remove: map[string]bool{}}
	out.URL = nulled(out.Remove, "url", in.URL)
	out.Slug = nulled(out.Remove, "slug", in.Slug)
	out.Title = nulled(out.Remove, "title", in.Title)
	out.Archived = nulled(out.Remove, "archived", in.Archived)
	out.UTM = utmInput(nulled(out.Remove, "utm", in.Utm))
	out.ExpiresAt = nulled(out.Remove, "expires_at", in.ExpiresAt)
	out.ExpiredURL = nulled(out.Remove, "expired_url", in.ExpiredURL)
	out.Password = nulled(out.Remove, "password", in.Password)
	out.ExternalID = nulled(out.Remove, "external_id", in.ExternalID)
	out.IOSURL = nulled(out.Remove, "ios_url", in.IosURL)
	out.AndroidURL = nulled(out.Remove, "android_url", in.AndroidURL)
	out.RedirectStatus = nulled(out.Remove, "redirect_status", in.RedirectStatus)
	if n := nulled(out.Remove, "max_clicks", in.MaxClicks); n != nil {
		out.MaxClicks = ptr(int64(*n))
	}
	if tags, set := in.Tags.ValueOK(); set {
		if tags == nil {
			out.Remove["tags"] = true
		} else {
			out.Tags = &tags
		}
	}
	if m, set := in.Metadata.ValueOK(); set {
		if m == nil {
			out.Remove["metadata"] = true
		} else {
			out.Metadata = m
		}
	}
	return out
}

// nulled returns a field's value (nil when absent or null) and names it in remove when it
// was given as null.
func nulled[T any](remove map[string]bool, name string, o graphql.Omittable[*T]) *T {
	v, set := o.ValueOK()
	if set && v == nil {
		remove[name] = true
	}
	return v
}

func utmInput(u *model.LinkUtmInput) *domain.UTM {
	if u == nil {
		return nil
	}
	return &domain.UTM{Source: deref(u.Source), Medium: deref(u.Medium), Campaign: deref(u.Campaign), Term: deref(u.Term),
		Content: deref(u.Content)}
}
