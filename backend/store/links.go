package store

import (
	"cmp"
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lib/pq"
	"modernc.org/sqlite"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// This file stores the short-link surface: links and their clicks. A deleted link keeps its
// row (deleted_at) to hold its slug; every read but SlugHolder skips such rows.

type linkRow struct {
	ID             string     `db:"id"`
	WorkspaceID    string     `db:"workspace_id"`
	Slug           string     `db:"slug"`
	URL            string     `db:"url"`
	Title          string     `db:"title"`
	Tags           string     `db:"tags"`
	ExpiresAt      *time.Time `db:"expires_at"`
	ExpiredURL     string     `db:"expired_url"`
	MaxClicks      *int64     `db:"max_clicks"`
	PasswordHash   string     `db:"password_hash"`
	RedirectStatus int        `db:"redirect_status"`
	Metadata       string     `db:"metadata"`
	ExternalID     *string    `db:"external_id"`
	UTM            string     `db:"utm"`
	IOSURL         string     `db:"ios_url"`
	AndroidURL     string     `db:"android_url"`
	Archived       bool       `db:"archived"`
	Clicks         int64      `db:"clicks"`
	LastClickedAt  *time.Time `db:"last_clicked_at"`
	DeletedAt      *time.Time `db:"deleted_at"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
}

const linkCols = `id, workspace_id, slug, url, title, tags, expires_at, expired_url, max_clicks, password_hash,
	redirect_status, metadata, external_id, utm, ios_url, android_url, archived, clicks, last_clicked_at, deleted_at,
	created_at, updated_at`

// StoredLink is a link with its password hash and deletion time.
type StoredLink struct {
	domain.Link
	PasswordHash string
	DeletedAt    *time.Time
}

func (r linkRow) link() (StoredLink, error) {
	l := domain.Link{ID: r.ID, WorkspaceID: r.WorkspaceID, Slug: r.Slug, URL: r.URL, Title: r.Title,
		ExpiresAt: utcPtr(r.ExpiresAt), ExpiredURL: r.ExpiredURL, MaxClicks: r.MaxClicks, HasPassword: r.PasswordHash != "",
		RedirectStatus: r.RedirectStatus, Metadata: json.RawMessage(r.Metadata), IOSURL: r.IOSURL, AndroidURL: r.AndroidURL,
		Archived: r.Archived, Clicks: r.Clicks, LastClickedAt: utcPtr(r.LastClickedAt), CreatedAt: r.CreatedAt.UTC(),
		UpdatedAt: r.UpdatedAt.UTC()}
	if r.ExternalID != nil {
		l.ExternalID = *r.ExternalID
	}
	if err := json.Unmarshal([]byte(r.Tags), &l.Tags); err != nil {
		return StoredLink{}, domain.Internal(err)
	}
	if err := json.Unmarshal([]byte(r.UTM), &l.UTM); err != nil {
		return StoredLink{}, domain.Internal(err)
	}
	return StoredLink{Link: l, PasswordHash: r.PasswordHash, DeletedAt: utcPtr(r.DeletedAt)}, nil
}

func linksOf(rows []linkRow) ([]StoredLink, error) {
	out := make([]StoredLink, 0, len(rows))
	for _, r := range rows {
		l, err := r.link()
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// linkArgs are the columns after id and workspace_id, in linkCols order.
func linkArgs(l StoredLink) []any {
	tags, _ := json.Marshal(l.Tags)
	if l.Tags == nil {
		tags = []byte("[]")
	}
	utm, _ := json.Marshal(l.UTM)
	meta := string(l.Metadata)
	if meta == "" {
		meta = "{}"
	}
	var ext *string
	if l.ExternalID != "" {
		ext = &l.ExternalID
	}
	return []any{l.Slug, l.URL, l.Title, string(tags), utcPtr(l.ExpiresAt), l.ExpiredURL, l.MaxClicks, l.PasswordHash,
		l.RedirectStatus, meta, ext, string(utm), l.IOSURL, l.AndroidURL, l.Archived, l.Clicks, utcPtr(l.LastClickedAt),
		utcPtr(l.DeletedAt), l.CreatedAt.UTC(), l.UpdatedAt.UTC()}
}

// InsertLink stores a new link; a slug or external id taken meanwhile makes inserted false.
func (t *Tx) InsertLink(ctx context.Context, l StoredLink) (inserted bool, err error) {
	res, err := t.exec(ctx, `INSERT INTO links (`+linkCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, append([]any{l.ID, l.WorkspaceID}, linkArgs(l)...)...)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// SaveLink writes a link's fields back (clicks and last_clicked_at are the click writer's).
func (t *Tx) SaveLink(ctx context.Context, l StoredLink) error {
	a := linkArgs(l)
	return t.execOne(ctx, "link", `UPDATE links SET slug = ?, url = ?, title = ?, tags = ?, expires_at = ?, expired_url = ?,
		max_clicks = ?, password_hash = ?, redirect_status = ?, metadata = ?, external_id = ?, utm = ?, ios_url = ?,
		android_url = ?, archived = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL`,
		append(append([]any{}, a[:15]...), a[19], l.ID)...)
}

// Link finds a link of a workspace.
func (q q) Link(ctx context.Context, workspaceID, id string) (StoredLink, error) {
	return q.oneLink(ctx, `workspace_id = ? AND id = ?`, workspaceID, id)
}

// LinkByExternalID finds a link of a workspace by the caller's own id for it.
func (q q) LinkByExternalID(ctx context.Context, workspaceID, externalID string) (StoredLink, error) {
	return q.oneLink(ctx, `workspace_id = ? AND external_id = ?`, workspaceID, externalID)
}

// LinkBySlug finds the live link of a slug, in any workspace (the redirect's lookup).
func (q q) LinkBySlug(ctx context.Context, slug string) (StoredLink, error) {
	return q.oneLink(ctx, `slug = ?`, slug)
}

// LockLink finds a link of a workspace and locks its row for the transaction.
func (t *Tx) LockLink(ctx context.Context, workspaceID, id string) (StoredLink, error) {
	return t.oneLink(ctx, `workspace_id = ? AND id = ?`+t.forUpdate(), workspaceID, id)
}

func (q q) oneLink(ctx context.Context, where string, args ...any) (StoredLink, error) {
	var r linkRow
	if err := q.get(ctx, &r, `SELECT `+linkCols+` FROM links WHERE deleted_at IS NULL AND `+where, args...); err != nil {
		return StoredLink{}, notFoundAs(err, "link")
	}
	return r.link()
}

// SlugHolder returns the link that holds a slug, live or deleted (found false when none).
func (q q) SlugHolder(ctx context.Context, slug string) (StoredLink, bool, error) {
	var rows []linkRow
	if err := q.sel(ctx, &rows, `SELECT `+linkCols+` FROM links WHERE slug = ?`, slug); err != nil || len(rows) == 0 {
		return StoredLink{}, false, err
	}
	l, err := rows[0].link()
	return l, err == nil, err
}

// PurgeLink removes a deleted link's row (its hold on the slug has lapsed).
func (t *Tx) PurgeLink(ctx context.Context, id string) error {
	_, err := t.exec(ctx, `DELETE FROM links WHERE id = ? AND deleted_at IS NOT NULL`, id)
	return err
}

// DeleteLink deletes a link and its clicks (raw and rolled up); the row stays, holding the slug, with its
// external id released.
func (t *Tx) DeleteLink(ctx context.Context, id string, now time.Time) error {
	if err := t.execOne(ctx, "link", `UPDATE links SET deleted_at = ?, external_id = NULL, updated_at = ?
		WHERE id = ? AND deleted_at IS NULL`, now.UTC(), now.UTC(), id); err != nil {
		return err
	}
	for _, table := range []string{"link_clicks", "link_click_rollups", "link_visitor_rollups"} {
		if _, err := t.exec(ctx, `DELETE FROM `+table+` WHERE link_id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

// LinkOfWorkspace reports whether id is a link of the workspace, deleted ones included.
func (q q) LinkOfWorkspace(ctx context.Context, workspaceID, id string) (bool, error) {
	var n int
	err := q.get(ctx, &n, `SELECT COUNT(*) FROM links WHERE workspace_id = ? AND id = ?`, workspaceID, id)
	return n > 0, err
}

// Links lists a workspace's live links, newest first or most clicked first, up to limit,
// after the link with id before (a cursor).
func (q q) Links(ctx context.Context, workspaceID string, f domain.LinkFilter, before string, limit int) ([]StoredLink, error) {
	where, args := []string{"workspace_id = ?", "deleted_at IS NULL"}, []any{workspaceID}
	add := func(cond string, v ...any) { where, args = append(where, cond), append(args, v...) }
	if f.Search != "" {
		// Any case, in any script: SQLite's lower() and LIKE fold ASCII letters only.
		lower := "lower"
		if q.s.dialect != Postgres {
			lower = sqliteLower
		}
		fold := func(col string) string {
			expr := lower + "(" + col + ")"
			for _, r := range searchFolds {
				expr = "replace(" + expr + ", '" + r[0] + "', '" + r[1] + "')"
			}
			return expr
		}
		like := "%" + likeEscape(foldSearch(f.Search)) + "%"
		add(`(`+fold("slug")+` LIKE ? ESCAPE '\' OR `+fold("url")+` LIKE ? ESCAPE '\' OR `+fold("title")+` LIKE ? ESCAPE '\')`,
			like, like, like)
	}
	if f.Tag != "" {
		// Tags are exact (case included), as they are kept: LIKE would ignore the case of
		// ASCII letters on SQLite only.
		tag, _ := json.Marshal(f.Tag)
		find := "strpos(tags, ?) > 0"
		if q.s.dialect != Postgres {
			find = "instr(tags, ?) > 0"
		}
		add(find, string(tag))
	}
	if f.Archived != nil {
		add("archived = ?", *f.Archived)
	}
	if f.Since != nil {
		add("created_at >= ?", f.Since.UTC())
	}
	if f.Until != nil {
		add("created_at < ?", f.Until.UTC())
	}
	order := "id DESC"
	if f.Sort == "clicks" {
		order = "clicks DESC, id DESC"
		if before != "" {
			cursor := `(SELECT clicks FROM links WHERE workspace_id = ? AND id = ?)`
			add(`(clicks < `+cursor+` OR (clicks = `+cursor+` AND id < ?))`, workspaceID, before, workspaceID, before, before)
		}
	} else if before != "" {
		add("id < ?", before)
	}
	var rows []linkRow
	err := q.sel(ctx, &rows, `SELECT `+linkCols+` FROM links WHERE `+strings.Join(where, " AND ")+` ORDER BY `+order+` LIMIT ?`,
		append(args, limit)...)
	if err != nil {
		return nil, err
	}
	return linksOf(rows)
}

// searchFolds are what lower-casing leaves apart but a reader takes as the same letters:
// the Greek final sigma and σ, and German ß and ss ("STRASSE" finds "Straße").
var searchFolds = [][2]string{{"ς", "σ"}, {"ß", "ss"}}

// foldSearch lower-cases a search term and folds it as searchFolds fold the columns.
func foldSearch(s string) string {
	s = strings.ToLower(s)
	for _, r := range searchFolds {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}

// sqliteLower is SQLite's lower() for all of Unicode (the built-in one lowers ASCII letters
// only), as PostgreSQL's lower() is in a UTF-8 database.
const sqliteLower = "sb_lower"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(sqliteLower, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return strings.ToLower(v), nil
		case []byte:
			return strings.ToLower(string(v)), nil
		default:
			return v, nil
		}
	})
}

// likeEscape escapes LIKE's wildcards in s (the escape character is a backslash).
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// LinksByID reads live links by id.
func (q q) LinksByID(ctx context.Context, ids []string) (map[string]StoredLink, error) {
	out := make(map[string]StoredLink, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []linkRow
	if err := q.sel(ctx, &rows, `SELECT `+linkCols+` FROM links WHERE deleted_at IS NULL AND id IN (?`+
		strings.Repeat(", ?", len(ids)-1)+`)`, anys(ids)...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		l, err := r.link()
		if err != nil {
			return nil, err
		}
		out[l.ID] = l
	}
	return out, nil
}

// ReserveClick counts one click of a link with max_clicks, unless that would pass the
// limit: the one write the redirect waits for, because exactness across replicas needs it.
func (q q) ReserveClick(ctx context.Context, id string, at time.Time) (bool, error) {
	res, err := q.exec(ctx, `UPDATE links SET clicks = clicks + 1, last_clicked_at = ?
		WHERE id = ? AND deleted_at IS NULL AND (max_clicks IS NULL OR clicks < max_clicks)`, at.UTC(), id)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// clickCols are link_clicks' columns in clickArgs order.
const clickCols = `id, workspace_id, link_id, at, referrer, referrer_host, browser, browser_version, os, device, country,
	bot, bot_reason, qr, visitor`

type clickRow struct {
	ID             string    `db:"id"`
	WorkspaceID    string    `db:"workspace_id"`
	LinkID         string    `db:"link_id"`
	At             time.Time `db:"at"`
	Referrer       string    `db:"referrer"`
	ReferrerHost   string    `db:"referrer_host"`
	Browser        string    `db:"browser"`
	BrowserVersion string    `db:"browser_version"`
	OS             string    `db:"os"`
	Device         string    `db:"device"`
	Country        string    `db:"country"`
	Bot            bool      `db:"bot"`
	BotReason      string    `db:"bot_reason"`
	QR             bool      `db:"qr"`
	Visitor        string    `db:"visitor"`
}

func (r clickRow) click() domain.Click {
	return domain.Click{ID: r.ID, WorkspaceID: r.WorkspaceID, LinkID: r.LinkID, At: r.At.UTC(), Referrer: r.Referrer,
		ReferrerHost: r.ReferrerHost, Browser: r.Browser, BrowserVersion: r.BrowserVersion, OS: r.OS, Device: r.Device,
		Country: r.Country, Bot: r.Bot, BotReason: r.BotReason, QR: r.QR, Visitor: r.Visitor}
}

// InsertClicks stores clicks: with COPY on PostgreSQL from copyMin clicks (a click already
// stored is then a conflict error), else in multi-row statements (insertRows) that skip
// clicks already stored.
func (t *Tx) InsertClicks(ctx context.Context, cs []domain.Click) error {
	args := func(c domain.Click) []any {
		return []any{c.ID, c.WorkspaceID, c.LinkID, c.At.UTC(), c.Referrer, c.ReferrerHost, c.Browser,
			c.BrowserVersion, c.OS, c.Device, c.Country, c.Bot, c.BotReason, c.QR, c.Visitor}
	}
	if t.usesCopy(len(cs)) {
		return t.copyRows(ctx, "link_clicks", clickCols, len(cs), func(i int) []any { return args(cs[i]) })
	}
	return t.insertRows(ctx, "link_clicks", clickCols, 15, " ON CONFLICT DO NOTHING", len(cs), func(i int) []any { return args(cs[i]) })
}

// StoredClicks reports which of the clicks ids are stored already (a batch retried after a
// failure whose transaction may have committed after all).
func (q q) StoredClicks(ctx context.Context, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		var found []string
		if err := q.sel(ctx, &found, `SELECT id FROM link_clicks WHERE id IN (?`+strings.Repeat(", ?", len(chunk)-1)+`)`,
			anys(chunk)...); err != nil {
			return nil, err
		}
		for _, id := range found {
			out[id] = true
		}
	}
	return out, nil
}

// AddLinkClicks adds n counted clicks to a link and moves its last click time forward.
func (t *Tx) AddLinkClicks(ctx context.Context, id string, n int64, last time.Time) error {
	_, err := t.exec(ctx, `UPDATE links SET clicks = clicks + ?,
		last_clicked_at = CASE WHEN last_clicked_at IS NULL OR last_clicked_at < ? THEN ? ELSE last_clicked_at END
		WHERE id = ?`, n, last.UTC(), last.UTC(), id)
	return err
}

// Clicks lists a link's clicks, newest first, up to limit, after the click with id before.
func (q q) Clicks(ctx context.Context, linkID string, bots bool, before string, limit int) ([]domain.Click, error) {
	where, args := "link_id = ?", []any{linkID}
	if !bots {
		where += " AND bot = ?"
		args = append(args, false)
	}
	if before != "" {
		where += " AND id < ?"
		args = append(args, before)
	}
	var rows []clickRow
	if err := q.sel(ctx, &rows, `SELECT `+clickCols+` FROM link_clicks WHERE `+where+` ORDER BY id DESC LIMIT ?`,
		append(args, limit)...); err != nil {
		return nil, err
	}
	out := make([]domain.Click, len(rows))
	for i, r := range rows {
		out[i] = r.click()
	}
	return out, nil
}

// ClickCount is the clicks and unique visitors of one value of a dimension.
type ClickCount struct {
	Value   string `db:"value"`
	Clicks  int64  `db:"clicks"`
	Uniques int64  `db:"uniques"`
}

// ClickCounts groups a link's clicks in [from, to) by a dimension: a column of link_clicks,
// or "total" (one row). Uniques count distinct visitors per UTC day (the visitor hash
// changes daily) and are counted for the total only (stats show none by dimension).
//
// Days whose raw clicks were pruned are counted from their rollups (retention.go), by the
// quarter hour (by the hour for days rolled up before rollups were kept by the quarter): a
// range that starts or ends inside one of them counts it whole if it starts inside the
// range. Their uniques are kept per day and per hour, so a total over whole UTC days is
// exact; a total over part of a pruned day adds that part's hourly uniques (a visitor seen
// in two of its hours counts twice).
func (q q) ClickCounts(ctx context.Context, linkID string, from, to time.Time, bots bool, by string) ([]ClickCount, error) {
	switch by {
	case "referrer_host", "country", "device", "browser", "os", "total":
	default:
		return nil, domain.Internal(errors.New("no click dimension " + by))
	}
	from, to = from.UTC(), to.UTC()
	mark, err := q.clicksRolledUpTo(ctx, linkID)
	if err != nil && !domain.IsCode(err, domain.CodeNotFound) {
		return nil, err
	}
	rawFrom := from
	if mark != nil && mark.After(rawFrom) {
		rawFrom = *mark
	}
	var rows []ClickCount
	if to.After(rawFrom) {
		if rows, err = q.rawClickCounts(ctx, linkID, rawFrom, to, bots, by); err != nil {
			return nil, err
		}
	}
	if mark == nil || !mark.After(from) {
		return rows, nil
	}
	rolled, err := q.rolledClickCounts(ctx, linkID, from, minTime(to, *mark), bots, by)
	if err != nil {
		return nil, err
	}
	return mergeCounts(rows, rolled, by), nil
}

func (q q) rawClickCounts(ctx context.Context, linkID string, from, to time.Time, bots bool, by string) ([]ClickCount, error) {
	where, args := "link_id = ? AND at >= ? AND at < ?", []any{linkID, from, to}
	if !bots {
		where += " AND bot = ?"
		args = append(args, false)
	}
	var rows []ClickCount
	if by == "total" { // one row, not grouped (PostgreSQL refuses to group by a constant)
		err := q.sel(ctx, &rows, `SELECT '' AS value, COUNT(*) AS clicks, COUNT(DISTINCT `+q.period("at", "day")+` || visitor) AS uniques
			FROM link_clicks WHERE `+where, args...)
		return rows, err
	}
	// Without uniques, which cost a sort of every click.
	err := q.sel(ctx, &rows, `SELECT `+by+` AS value, COUNT(*) AS clicks FROM link_clicks WHERE `+where+
		` GROUP BY `+by+` ORDER BY clicks DESC, value LIMIT 1000`, args...)
	return rows, err
}

// rolledClickCounts is ClickCounts over the rollups of pruned days, [from, to).
func (q q) rolledClickCounts(ctx context.Context, linkID string, from, to time.Time, bots bool, by string) ([]ClickCount, error) {
	where, args := "link_id = ? AND hour >= ? AND hour < ?", []any{linkID, from, to}
	if !bots {
		where += " AND bot = ?"
		args = append(args, false)
	}
	var rows []ClickCount
	if by != "total" {
		err := q.sel(ctx, &rows, `SELECT `+by+` AS value, SUM(clicks) AS clicks FROM link_click_rollups WHERE `+where+
			` GROUP BY `+by, args...)
		return rows, err
	}
	var clicks int64
	if err := q.get(ctx, &clicks, `SELECT COALESCE(SUM(clicks), 0) FROM link_click_rollups WHERE `+where, args...); err != nil {
		return nil, err
	}
	v, err := q.rolledVisitors(ctx, linkID, [][2]time.Time{{from, to}}, bots)
	if err != nil {
		return nil, err
	}
	return []ClickCount{{Clicks: clicks, Uniques: v.visitorsIn(from, to)}}, nil
}

// rolledVisitors are the distinct visitors the rollups kept of a link's pruned UTC days
// and hours: enough to count the visitors of spans.
type rolledVisitors struct {
	days  map[time.Time]int64
	hours []periodVisitors // by start
}

type periodVisitors struct {
	Start    time.Time `db:"start"`
	Visitors int64     `db:"visitors"`
}

// rolledVisitors reads what visitorsIn needs to count the visitors of each of spans (in
// order, not overlapping): the visitors of the UTC days the spans hold whole, and of the
// hours of the days they hold part of.
func (q q) rolledVisitors(ctx context.Context, linkID string, spans [][2]time.Time, bots bool) (rolledVisitors, error) {
	v := rolledVisitors{days: map[time.Time]int64{}}
	if len(spans) == 0 {
		return v, nil
	}
	visitors := "humans"
	if bots {
		visitors = "everyone"
	}
	from, to := spans[0][0].UTC(), spans[len(spans)-1][1].UTC()
	var days []periodVisitors
	if err := q.sel(ctx, &days, `SELECT start, `+visitors+` AS visitors FROM link_visitor_rollups
		WHERE link_id = ? AND period = ? AND start >= ? AND start < ?`, linkID, "day", from, to); err != nil {
		return v, err
	}
	for _, d := range days {
		v.days[d.Start.UTC()] = d.Visitors
	}
	// The hours of the days held in part: their own spans when a few (a range's edges), the
	// whole range when many (a series of hours, or of days in another zone than UTC).
	var partial [][2]time.Time
	for _, sp := range spans {
		for d := sp[0].UTC().Truncate(24 * time.Hour); d.Before(sp[1]); d = d.Add(24 * time.Hour) {
			if lo, hi := maxTime(d, sp[0].UTC()), minTime(d.Add(24*time.Hour), sp[1].UTC()); hi.Sub(lo) < 24*time.Hour {
				partial = append(partial, [2]time.Time{lo, hi})
			}
		}
	}
	if len(partial) == 0 {
		return v, nil
	}
	if len(partial) > 4 {
		partial = [][2]time.Time{{from, to}}
	}
	where, args := make([]string, len(partial)), []any{linkID, "hour"}
	for i, p := range partial {
		where[i] = "(start >= ? AND start < ?)"
		args = append(args, p[0], p[1])
	}
	err := q.sel(ctx, &v.hours, `SELECT start, `+visitors+` AS visitors FROM link_visitor_rollups
		WHERE link_id = ? AND period = ? AND (`+strings.Join(where, " OR ")+`) ORDER BY start`, args...)
	for i := range v.hours {
		v.hours[i].Start = v.hours[i].Start.UTC()
	}
	return v, err
}

// visitorsIn counts the visitors of [from, to): a whole UTC day inside it by the day's
// visitors, the hours of a day it holds part of by theirs (an hour that starts inside it
// counts, so a visitor seen in two of them counts twice).
func (v rolledVisitors) visitorsIn(from, to time.Time) int64 {
	from, to = from.UTC(), to.UTC()
	var n int64
	for d := from.Truncate(24 * time.Hour); d.Before(to); d = d.Add(24 * time.Hour) {
		end := d.Add(24 * time.Hour)
		if !d.Before(from) && !end.After(to) {
			n += v.days[d]
			continue
		}
		lo, hi := maxTime(d, from), minTime(end, to)
		i, _ := slices.BinarySearchFunc(v.hours, lo, func(h periodVisitors, t time.Time) int { return h.Start.Compare(t) })
		for ; i < len(v.hours) && v.hours[i].Start.Before(hi); i++ {
			n += v.hours[i].Visitors
		}
	}
	return n
}

// SeriesCount is the clicks and unique visitors of one step of a time series.
type SeriesCount struct {
	Clicks  int64 `db:"clicks"`
	Uniques int64 `db:"uniques"`
}

// ClickSeries counts a link's clicks in consecutive steps: step i is [bounds[i],
// bounds[i+1]). The bounds may be any instants (a caller's local days or hours, 23 or 25
// hours long across a DST change, or starting half past a UTC hour): raw clicks are counted
// by their exact time. Each step's uniques are its distinct visitors per UTC day (the visitor
// hash changes daily), so a step across two UTC days may count a visitor twice.
//
// Pruned days are counted from their rollups as ClickCounts counts them: a rollup quarter
// hour (an hour, for days rolled up before rollups were kept by the quarter) counts in the
// step it starts in, which is exact for steps that start on a quarter hour (every zone's
// days and hours do); a step's uniques add the day's visitors for a whole UTC day inside
// it and the hours' visitors for part of one.
func (q q) ClickSeries(ctx context.Context, linkID string, bounds []time.Time, bots bool) ([]SeriesCount, error) {
	if len(bounds) < 2 {
		return nil, nil
	}
	out := make([]SeriesCount, len(bounds)-1)
	from, to := bounds[0].UTC(), bounds[len(bounds)-1].UTC()
	mark, err := q.clicksRolledUpTo(ctx, linkID)
	if err != nil && !domain.IsCode(err, domain.CodeNotFound) {
		return nil, err
	}
	rawFrom := from
	if mark != nil && mark.After(rawFrom) {
		rawFrom = *mark
	}
	if to.After(rawFrom) {
		err := q.stepCounts(ctx, "link_clicks", "at", `COUNT(*) AS clicks, COUNT(DISTINCT `+q.period("at", "day")+` || visitor) AS uniques`,
			linkID, bounds, rawFrom, to, bots, out)
		if err != nil {
			return nil, err
		}
	}
	if mark == nil || !mark.After(from) {
		return out, nil
	}
	rolledTo := minTime(to, *mark)
	if err := q.stepCounts(ctx, "link_click_rollups", "hour", `SUM(clicks) AS clicks, 0 AS uniques`,
		linkID, bounds, from, rolledTo, bots, out); err != nil {
		return nil, err
	}
	var spans [][2]time.Time
	for i := range out {
		if lo, hi := maxTime(bounds[i].UTC(), from), minTime(bounds[i+1].UTC(), rolledTo); lo.Before(hi) {
			spans = append(spans, [2]time.Time{lo, hi})
		}
	}
	v, err := q.rolledVisitors(ctx, linkID, spans, bots)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if lo, hi := maxTime(bounds[i].UTC(), from), minTime(bounds[i+1].UTC(), rolledTo); lo.Before(hi) {
			out[i].Uniques += v.visitorsIn(lo, hi)
		}
	}
	return out, nil
}

// stepCounts adds to out[i] the aggregates (clicks, uniques) of a link's rows of table
// whose time column col is in [from, to), by the step of bounds it is in. Which step a row
// is in is found without date arithmetic in SQL, so any zone's days count exactly and alike
// on both databases, reading the rows once through the (link_id, time) index: PostgreSQL
// looks the time up in the sorted bounds (width_bucket); SQLite scans the index once per
// step (a join of the steps with the rows, steps first).
func (q q) stepCounts(ctx context.Context, table, col, aggregates, linkID string, bounds []time.Time, from, to time.Time,
	bots bool, out []SeriesCount) error {
	var query string
	var args []any
	if q.s.dialect == Postgres {
		starts := make([]string, len(bounds)-1)
		for i, b := range bounds[:len(bounds)-1] {
			starts[i] = b.UTC().Format(time.RFC3339Nano)
		}
		query = `SELECT width_bucket(` + col + `, CAST(? AS TIMESTAMPTZ[])) - 1 AS i, ` + aggregates + ` FROM ` + table +
			` WHERE link_id = ? AND ` + col + ` >= ? AND ` + col + ` < ?`
		args = []any{pq.Array(starts), linkID, from.UTC(), to.UTC()}
	} else {
		var steps strings.Builder
		for i := range len(bounds) - 1 {
			lo, hi := maxTime(bounds[i].UTC(), from.UTC()), minTime(bounds[i+1].UTC(), to.UTC())
			if !lo.Before(hi) {
				continue
			}
			if len(args) > 0 {
				steps.WriteString(", ")
			}
			steps.WriteString("(" + strconv.Itoa(i) + ", ?, ?)")
			args = append(args, lo, hi)
		}
		if len(args) == 0 {
			return nil
		}
		// CROSS JOIN has SQLite take the steps first (not the rows, then every step for each).
		query = `WITH steps(step, step_from, step_to) AS (VALUES ` + steps.String() + `) SELECT step AS i, ` + aggregates +
			` FROM steps CROSS JOIN ` + table + ` WHERE link_id = ? AND ` + col + ` >= step_from AND ` + col + ` < step_to`
		args = append(args, linkID)
	}
	if !bots {
		query += " AND bot = ?"
		args = append(args, false)
	}
	var rows []struct {
		I int `db:"i"`
		SeriesCount
	}
	if err := q.sel(ctx, &rows, query+" GROUP BY 1", args...); err != nil {
		return err
	}
	for _, r := range rows {
		if r.I < 0 || r.I >= len(out) {
			return domain.Internal(fmt.Errorf("a click in step %d of %d", r.I, len(out)))
		}
		out[r.I].Clicks += r.Clicks
		out[r.I].Uniques += r.Uniques
	}
	return nil
}

// mergeCounts adds rolled-up counts to raw ones, value by value, ordered as ClickCounts
// orders them (most clicks first).
func mergeCounts(raw, rolled []ClickCount, by string) []ClickCount {
	if by == "total" {
		out := ClickCount{}
		for _, r := range append(raw, rolled...) {
			out.Clicks += r.Clicks
			out.Uniques += r.Uniques
		}
		return []ClickCount{out}
	}
	index := map[string]int{}
	var out []ClickCount
	for _, r := range append(raw, rolled...) {
		if i, ok := index[r.Value]; ok {
			out[i].Clicks += r.Clicks
			out[i].Uniques += r.Uniques
			continue
		}
		index[r.Value] = len(out)
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b ClickCount) int {
		if a.Clicks != b.Clicks {
			return cmp.Compare(b.Clicks, a.Clicks)
		}
		return strings.Compare(a.Value, b.Value)
	})
	if len(out) > 1000 {
		out = out[:1000]
	}
	return out
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// CountBotClicks counts a link's bot clicks in [from, to), pruned days from their rollups.
func (q q) CountBotClicks(ctx context.Context, linkID string, from, to time.Time) (int64, error) {
	from, to = from.UTC(), to.UTC()
	mark, err := q.clicksRolledUpTo(ctx, linkID)
	if err != nil && !domain.IsCode(err, domain.CodeNotFound) {
		return 0, err
	}
	rawFrom := from
	if mark != nil && mark.After(rawFrom) {
		rawFrom = *mark
	}
	var n, rolled int64
	if to.After(rawFrom) {
		if err := q.get(ctx, &n, `SELECT COUNT(*) FROM link_clicks WHERE link_id = ? AND at >= ? AND at < ? AND bot = ?`,
			linkID, rawFrom, to, true); err != nil {
			return 0, err
		}
	}
	if mark != nil && mark.After(from) {
		if err := q.get(ctx, &rolled, `SELECT COALESCE(SUM(clicks), 0) FROM link_click_rollups
			WHERE link_id = ? AND hour >= ? AND hour < ? AND bot = ?`, linkID, from, minTime(to, *mark), true); err != nil {
			return 0, err
		}
	}
	return n + rolled, nil
}
