package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service/links"
)

// linkPath is the {id} of a link: its id or ext_<external_id>.
type linkPath struct {
	ID string "json:\"-\" path:\"id\" doc:\"The link's id (`lnk_…`), or `ext_` followed by your external_id.\" example:\"lnk_01jr8d0c3b5n7q9s1u3w5y7a9c\""
}

// externalPath is the {external_id} of PUT /links/ext_{external_id}.
type externalPath struct {
	PathExternalID string `json:"-" path:"external_id" doc:"Your own id for the link (unique in the workspace)." example:"post-1234"`
}

// linksQuery is the input of GET /links.
type linksQuery struct {
	Search        string     `json:"-" query:"search" maxLength:"200" example:"launch" doc:"Only links whose slug, URL or title contains this (any case)."`
	Tag           string     `json:"-" query:"tag" maxLength:"50" example:"newsletter" doc:"Only links with this tag."`
	Archived      *bool      `json:"-" query:"archived" example:"false" doc:"Only archived (true) or only active (false) links; absent: both."`
	CreatedAfter  *time.Time `json:"-" query:"created_after" example:"2025-04-01T00:00:00Z" doc:"Only links created at or after this time (RFC 3339)."`
	CreatedBefore *time.Time `json:"-" query:"created_before" example:"2025-05-01T00:00:00Z" doc:"Only links created before this time (RFC 3339)."`
	Sort          string     `json:"-" query:"sort" enum:"created,clicks" example:"clicks" doc:"created (newest first, the default) or clicks (most clicked first)."`
	listQuery
}

// LinkFields are a link's settable fields, shared by create, update and the bulk calls.
type LinkFields struct {
	Slug           *string       "json:\"slug,omitempty\" nullable:\"false\" minLength:\"3\" maxLength:\"64\" pattern:\"^[A-Za-z0-9_-]+$\" example:\"launch\" doc:\"The path after /l/: 3 to 64 of `A-Z a-z 0-9 _ -`, case-sensitive. Generated (7 characters) when left out.\""
	Title          *string       `json:"title,omitempty" maxLength:"200" example:"Launch post" doc:"A name for the link."`
	Tags           *[]string     `json:"tags,omitempty" maxItems:"20" example:"[\"launch\"]" doc:"Up to 20 tags of up to 50 characters."`
	ExpiresAt      *string       `json:"expires_at,omitempty" format:"date-time" example:"2030-01-01T00:00:00Z" doc:"After this time (RFC 3339) the link sends visitors to expired_url, or shows an expired page (410). Empty removes it."`
	ExpiredURL     *string       `json:"expired_url,omitempty" maxLength:"2048" example:"https://example.com/offer-ended" doc:"Where an expired or exhausted link sends visitors (empty: the expired page)."`
	MaxClicks      *int64        `json:"max_clicks,omitempty" minimum:"0" example:"1000" doc:"How many counted clicks the link redirects, exactly (bots do not count); then it is exhausted like an expired link. 0 removes the limit."`
	Password       *string       `json:"password,omitempty" maxLength:"128" example:"open sesame" doc:"Visitors must enter this first (write-only; the link shows password_protected). Empty removes it."`
	RedirectStatus *int          `json:"redirect_status,omitempty" enum:"301,302,307,308" example:"302" doc:"The redirect's status code: 301, 302, 307 or 308 (default 302)."`
	Metadata       *objectOrNull `json:"metadata,omitempty" example:"{\"campaign\":\"q4\"}" doc:"Your own JSON object (up to 4 KB), echoed in link events."`
	ExternalID     *string       `json:"external_id,omitempty" maxLength:"128" example:"post-1234" doc:"Your own id for the link, unique in the workspace: GET /links/ext_{external_id} finds it."`
	UTM            *utmInput     `json:"utm,omitempty" doc:"utm_ parameters set on the target URL (replacing the old ones)."`
	IOSURL         *string       `json:"ios_url,omitempty" maxLength:"2048" example:"https://apps.apple.com/app/id1" doc:"Where visitors on iOS go instead."`
	AndroidURL     *string       `json:"android_url,omitempty" maxLength:"2048" example:"https://play.google.com/store/apps/details?id=x" doc:"Where visitors on Android go instead."`
	Archived       *bool         `json:"archived,omitempty" example:"false" doc:"Archived links are hidden from lists filtered with archived=false; they still redirect."`
}

// utmInput is the utm of a request.
type utmInput struct {
	Source   string `json:"source,omitempty" maxLength:"200" example:"newsletter" doc:"utm_source."`
	Medium   string `json:"medium,omitempty" maxLength:"200" example:"email" doc:"utm_medium."`
	Campaign string `json:"campaign,omitempty" maxLength:"200" example:"q4-launch" doc:"utm_campaign."`
	Term     string `json:"term,omitempty" maxLength:"200" example:"shoes" doc:"utm_term."`
	Content  string `json:"content,omitempty" maxLength:"200" example:"header-link" doc:"utm_content."`
}

// jsonObject is a body field that must hold a JSON object (a wrong type is refused by the
// decoder, naming the field, like any other).
type jsonObject json.RawMessage

func (o *jsonObject) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || (b[0] != '{' && string(b) != "null") {
		return &json.UnmarshalTypeError{Value: "non-object", Type: reflect.TypeFor[map[string]any]()}
	}
	*o = append((*o)[:0], b...)
	return nil
}

// objectOrNull is a JSON object field that may also be sent as null (metadata: null
// empties it), so the document must allow null too.
type objectOrNull jsonObject

func (o *objectOrNull) UnmarshalJSON(b []byte) error { return (*jsonObject)(o).UnmarshalJSON(b) }

// jsonSchema has a pointer receiver: the field is a pointer, and the document asks a nil one.
func (*objectOrNull) jsonSchema() obj {
	return obj{"type": []string{"object", "null"}, "additionalProperties": true}
}

func (f LinkFields) input(url *string) (links.Input, error) {
	in := links.Input{URL: url, Slug: f.Slug, Title: f.Title, Tags: f.Tags, ExpiredURL: f.ExpiredURL,
		MaxClicks: f.MaxClicks, Password: f.Password, RedirectStatus: f.RedirectStatus, ExternalID: f.ExternalID,
		IOSURL: f.IOSURL, AndroidURL: f.AndroidURL, Archived: f.Archived}
	if u := f.UTM; u != nil {
		in.UTM = &domain.UTM{Source: u.Source, Medium: u.Medium, Campaign: u.Campaign, Term: u.Term, Content: u.Content}
	}
	if f.Metadata != nil {
		in.Metadata = json.RawMessage(*f.Metadata)
	}
	if f.ExpiresAt != nil {
		var t time.Time // "" clears the expiry
		if *f.ExpiresAt != "" {
			var err error
			if t, err = time.Parse(time.RFC3339Nano, *f.ExpiresAt); err != nil {
				return in, domain.Invalid("expires_at", "expires_at must be an RFC 3339 time such as 2030-01-01T00:00:00Z")
			}
		}
		in.ExpiresAt = &t
	}
	return in, nil
}

// createLinkRequest is the body of POST /links.
type createLinkRequest struct {
	URL string `json:"url" required:"true" maxLength:"2048" example:"https://example.com/blog/launch" doc:"Where the link sends visitors: an http or https URL."`
	LinkFields
}

// updateLinkRequest is the body of PATCH /links/{id}: fields left out are kept.
type updateLinkRequest struct {
	linkPath
	URL *string `json:"url,omitempty" nullable:"false" maxLength:"2048" example:"https://example.com/blog/launch-v2" doc:"The new target."`
	LinkFields
}

// upsertLinkRequest is the body of PUT /links/ext_{external_id}.
type upsertLinkRequest struct {
	externalPath
	URL *string `json:"url,omitempty" nullable:"false" maxLength:"2048" example:"https://example.com/blog/launch" doc:"The target (required when the link is created)."`
	LinkFields
}

// bulkCreateRequest is the body of POST /links/bulk.
type bulkCreateRequest struct {
	Links []createLinkRequest `json:"links" required:"true" minItems:"1" maxItems:"100" doc:"1 to 100 links, created all or none."`
}

// bulkUpdateItem is one link of PATCH /links/bulk.
type bulkUpdateItem struct {
	ID  string  "json:\"id\" required:\"true\" example:\"lnk_01jr8d0c3b5n7q9s1u3w5y7a9c\" doc:\"The link's id (`lnk_…` or `ext_…`).\""
	URL *string `json:"url,omitempty" nullable:"false" maxLength:"2048" example:"https://example.com/blog/launch-v2" doc:"The new target."`
	LinkFields
}

// bulkUpdateRequest is the body of PATCH /links/bulk.
type bulkUpdateRequest struct {
	Links []bulkUpdateItem `json:"links" required:"true" minItems:"1" maxItems:"100" doc:"1 to 100 changes, applied all or none."`
}

// bulkDeleteQuery is the input of DELETE /links/bulk.
type bulkDeleteQuery struct {
	IDs []string "json:\"-\" query:\"ids\" required:\"true\" example:\"[\\\"lnk_01jr8d0c3b5n7q9s1u3w5y7a9c\\\"]\" minItems:\"1\" maxItems:\"100\" doc:\"1 to 100 link ids, deleted all or none: `ids=a&ids=b`, or comma-separated in one (`ids=a,b`).\""
}

// clicksQuery is the input of GET /links/{id}/clicks.
type clicksQuery struct {
	linkPath
	IncludeBots *bool `json:"-" query:"include_bots" example:"false" doc:"Include clicks flagged as bots (crawlers, link previews, HEAD requests)."`
	listQuery
}

// statsQuery is the input of GET /links/{id}/stats.
type statsQuery struct {
	linkPath
	From        *time.Time `json:"-" query:"from" example:"2025-04-01T00:00:00Z" doc:"Start of the range (default: 30 days, or 24 hours by hour, before to)."`
	To          *time.Time `json:"-" query:"to" example:"2025-05-01T00:00:00Z" doc:"End of the range, excluded (default: now)."`
	Interval    string     `json:"-" query:"interval" enum:"day,hour" example:"day" doc:"The time series' step (default day)."`
	Timezone    string     "json:\"-\" query:\"timezone\" maxLength:\"64\" example:\"Europe/Berlin\" doc:\"An IANA time zone name (default `UTC`): the series steps through its days (from local midnight to local midnight, 23 or 25 hours across a DST change) or hours, and the default range ends with its current day or hour. Times in the answer carry its offset.\""
	IncludeBots *bool      `json:"-" query:"include_bots" example:"false" doc:"Count clicks flagged as bots too."`
}

// qrQuery is the input of GET /links/{id}/qr.png.
type qrQuery struct {
	linkPath
	Size *int `json:"-" query:"size" minimum:"64" maximum:"2048" example:"512" doc:"Width and height in pixels, exactly: 64 to 2048 (default 512). Modules are whole pixels, centred; spare pixels widen the white border."`
}

type qrSVGQuery struct {
	linkPath
	Size *int `json:"-" query:"size" minimum:"64" maximum:"2048" example:"512" doc:"The width and height it opens at, in pixels: 64 to 2048 (default 512). It scales to any size without loss."`
}

// linkBatch is a bulk call's answer: the links in the order given.
type linkBatch struct {
	Object string              `json:"object" const:"list"`
	Data   []domain.LinkObject `json:"data" doc:"The links, in the order of the request."`
}

// file is a response that is not JSON (a QR code image).
type file struct {
	contentType string
	body        []byte
}

// pngFile and svgFile are the QR responses (their types tell the document the media type).
type (
	pngFile struct{ file }
	svgFile struct{ file }
)

func (a *api) objects(ls []domain.Link) linkBatch {
	out := linkBatch{Object: "list", Data: make([]domain.LinkObject, len(ls))}
	for i, l := range ls {
		out.Data[i] = a.opts.Links.Object(l)
	}
	return out
}

func (a *api) createLink(r *http.Request, in createLinkRequest) (domain.LinkObject, error) {
	li, err := in.input(&in.URL)
	if err != nil {
		return domain.LinkObject{}, err
	}
	l, err := a.opts.Links.Create(r.Context(), actor(r), li)
	return a.opts.Links.Object(l), err
}

func (a *api) listLinks(r *http.Request, q linksQuery) (list[domain.LinkObject], error) {
	f := domain.LinkFilter{Search: q.Search, Tag: q.Tag, Archived: q.Archived, Since: q.CreatedAfter, Until: q.CreatedBefore, Sort: q.Sort}
	page, err := a.opts.Links.List(r.Context(), actor(r), f, q.params())
	return listOf(mapPage(page, a.opts.Links.Object)), err
}

func (a *api) getLink(r *http.Request, p linkPath) (domain.LinkObject, error) {
	l, err := a.opts.Links.Get(r.Context(), actor(r), p.ID)
	return a.opts.Links.Object(l), err
}

func (a *api) updateLink(r *http.Request, in updateLinkRequest, body []byte) (domain.LinkObject, error) {
	li, err := in.input(in.URL)
	if err != nil {
		return domain.LinkObject{}, err
	}
	li.Remove = nullFields(body) // the service applies PATCH's null rules
	l, err := a.opts.Links.Update(r.Context(), actor(r), in.ID, li)
	return a.opts.Links.Object(l), err
}

// callWithNulls serves a PATCH like callWithBody, the handler also getting the raw body:
// only there is a field sent as null told from one left out.
func callWithNulls[In, Out any](h func(*http.Request, In, []byte) (Out, error)) endpoint {
	e := callWithBody(func(*http.Request, In) (Out, error) { panic("unused") })
	e.handler = func(a *api, rt route) http.HandlerFunc {
		read := inputReader[In](rt, reflect.TypeFor[In](), true)
		return func(w http.ResponseWriter, r *http.Request) {
			body, err := rereadable(r)
			if err != nil {
				a.error(w, r, err)
				return
			}
			in, err := read(r)
			if err != nil {
				a.error(w, r, err)
				return
			}
			out, err := h(r, in, body)
			a.reply(w, r, rt.status, out, err)
		}
	}
	return e
}

// rereadable reads r's body (after the content type check decode would make first, so the
// answers stay decode's) and puts it back for decode.
func rereadable(r *http.Request) ([]byte, error) {
	if err := requireJSON(r); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, decodeError(err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

// upsertLink answers 200 for an update and 201 for a creation. Fields sent as null follow
// PATCH's rules (the service's), on a creation too: there null is the field's default.
func (a *api) upsertLink(w http.ResponseWriter, r *http.Request, in upsertLinkRequest, body []byte) {
	li, err := in.input(in.URL)
	if err != nil {
		a.error(w, r, err)
		return
	}
	li.Remove = nullFields(body)
	l, created, err := a.opts.Links.Upsert(r.Context(), actor(r), in.PathExternalID, li)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	a.reply(w, r, status, a.opts.Links.Object(l), err)
}

func (a *api) deleteLink(r *http.Request, p linkPath) (deleted, error) {
	l, err := a.opts.Links.Delete(r.Context(), actor(r), p.ID)
	return deleted{Object: "link", ID: l.ID, Deleted: true}, err
}

func (a *api) bulkCreateLinks(r *http.Request, in bulkCreateRequest) (linkBatch, error) {
	ins := make([]links.Input, len(in.Links))
	for i := range in.Links {
		li, err := in.Links[i].input(&in.Links[i].URL)
		if err != nil {
			return linkBatch{}, atBulkItem(err, i)
		}
		ins[i] = li
	}
	ls, err := a.opts.Links.BulkCreate(r.Context(), actor(r), ins)
	return a.objects(ls), err
}

func (a *api) bulkUpdateLinks(r *http.Request, in bulkUpdateRequest, body []byte) (linkBatch, error) {
	var sent struct{ Links []json.RawMessage }
	_ = json.Unmarshal(body, &sent) // the body decoded strictly already
	ins := make([]links.BulkUpdate, len(in.Links))
	for i, it := range in.Links {
		li, err := it.input(it.URL)
		if err != nil {
			return linkBatch{}, atBulkItem(err, i)
		}
		if i < len(sent.Links) {
			li.Remove = nullFields(sent.Links[i])
		}
		ins[i] = links.BulkUpdate{ID: it.ID, Input: li}
	}
	ls, err := a.opts.Links.BulkUpdate(r.Context(), actor(r), ins)
	return a.objects(ls), err
}

// atBulkItem names the item of a bulk body a field error is about.
func atBulkItem(err error, i int) error {
	var de *domain.Error
	if errors.As(err, &de) && de.Param != "" {
		e := *de
		e.Param = fmt.Sprintf("links[%d].%s", i, de.Param)
		return &e
	}
	return err
}

func (a *api) bulkDeleteLinks(r *http.Request, q bulkDeleteQuery) (linkBatch, error) {
	ls, err := a.opts.Links.BulkDelete(r.Context(), actor(r), q.IDs)
	return a.objects(ls), err
}

func (a *api) linkClicks(r *http.Request, q clicksQuery) (list[domain.ClickObject], error) {
	page, err := a.opts.Links.Clicks(r.Context(), actor(r), q.ID, q.IncludeBots != nil && *q.IncludeBots, q.params())
	return listOf(mapPage(page, domain.Click.Object)), err
}

func (a *api) linkStats(r *http.Request, q statsQuery) (domain.LinkStats, error) {
	return a.opts.Links.Stats(r.Context(), actor(r), q.ID, links.StatsQuery{From: q.From, To: q.To, Interval: q.Interval,
		Timezone: q.Timezone, IncludeBots: q.IncludeBots != nil && *q.IncludeBots})
}

func (a *api) linkQRPNG(r *http.Request, q qrQuery) (pngFile, error) {
	png, err := a.opts.Links.QRPNG(r.Context(), actor(r), q.ID, q.Size)
	return pngFile{file{"image/png", png}}, err
}

func (a *api) linkQRSVG(r *http.Request, q qrSVGQuery) (svgFile, error) {
	svg, err := a.opts.Links.QRSVG(r.Context(), actor(r), q.ID, q.Size)
	return svgFile{file{"image/svg+xml", []byte(svg)}}, err
}

// callWithWriter serves a handler that writes its own answer (a status that depends on the
// outcome), its input read like callWithNulls's: the handler also gets the raw body.
func callWithWriter[In, Out any](h func(http.ResponseWriter, *http.Request, In, []byte)) endpoint {
	e := callWithBody(func(*http.Request, In) (Out, error) { panic("unused") })
	e.handler = func(a *api, rt route) http.HandlerFunc {
		read := inputReader[In](rt, reflect.TypeFor[In](), true)
		return func(w http.ResponseWriter, r *http.Request) {
			body, err := rereadable(r)
			if err != nil {
				a.error(w, r, err)
				return
			}
			in, err := read(r)
			if err != nil {
				a.error(w, r, err)
				return
			}
			h(w, r, in, body)
		}
	}
	return e
}

// linkRoutes are the short-link operations of the route table.
func (a *api) linkRoutes() []route {
	return []route{
		{
			method: "POST", path: "/api/v1/links", operationID: "createLink", serve: callWithBody(a.createLink),
			tag: "Links", scope: "links:write", status: http.StatusCreated,
			summary: "Create a link",
			returns: "The link, with its short_url.",
			description: "Creates a short link. Without a `slug` one of 7 characters is generated (no look-alike characters). " +
				"A slug in use, or held by a link deleted less than 30 days ago, is 409 `slug_taken`; reserved words (`api`, `l`, …) " +
				"are 400 `slug_reserved`. Honours `Idempotency-Key`.",
			bodyExample: createLinkRequest{URL: "https://example.com/blog/launch", LinkFields: LinkFields{Slug: ptr("launch"),
				Tags: &[]string{"launch"}, UTM: &utmInput{Source: "newsletter", Medium: "email"}}},
		},
		{
			method: "GET", path: "/api/v1/links", operationID: "listLinks", serve: callWith(a.listLinks),
			tag: "Links", scope: "links:read",
			summary:     "List links",
			returns:     "A page of links.",
			description: "The workspace's links, newest first or most clicked first, with search and filters. Records a `link.listed` event (the query and the count).",
		},
		{
			method: "POST", path: "/api/v1/links/bulk", operationID: "bulkCreateLinks", serve: callWithBody(a.bulkCreateLinks),
			tag: "Links", scope: "links:write", status: http.StatusCreated,
			summary: "Create links in bulk",
			returns: "The links, in the order given.",
			description: "Creates 1 to 100 links in one transaction: all or none. A refusal names the item, as in " +
				"`param: links[3].url`.",
			bodyExample: bulkCreateRequest{Links: []createLinkRequest{{URL: "https://example.com/a"}, {URL: "https://example.com/b",
				LinkFields: LinkFields{Slug: ptr("bee")}}}},
		},
		{
			method: "PATCH", path: "/api/v1/links/bulk", operationID: "bulkUpdateLinks", serve: callWithNulls(a.bulkUpdateLinks),
			tag: "Links", scope: "links:write",
			errors:  []int{404, 409},
			summary: "Update links in bulk",
			returns: "The links, in the order given.",
			description: "Changes 1 to 100 links in one transaction: all or none. A refusal names the item; a link given twice " +
				"is refused (`param: links[1].id`). `null` removes a field as in `PATCH /links/{id}`.",
			bodyExample: bulkUpdateRequest{Links: []bulkUpdateItem{{ID: "lnk_01jr8d0c3b5n7q9s1u3w5y7a9c", LinkFields: LinkFields{Archived: ptr(true)}}}},
		},
		{
			method: "DELETE", path: "/api/v1/links/bulk", operationID: "bulkDeleteLinks", serve: callWith(a.bulkDeleteLinks),
			tag: "Links", scope: "links:write",
			errors:  []int{404},
			summary: "Delete links in bulk",
			returns: "The deleted links.",
			description: "Deletes 1 to 100 links (`?ids=lnk_a,lnk_b`) in one transaction: all or none. Refusals name `ids` " +
				"(the message says which one); an id given twice is refused.",
		},
		{
			method: "PUT", path: "/api/v1/links/ext_{external_id}", operationID: "upsertLink", serve: callWithWriter[upsertLinkRequest, domain.LinkObject](a.upsertLink),
			tag: "Links", scope: "links:write", createdToo: true, errors: []int{409},
			summary: "Create or update a link by external id",
			returns: "The link (200 updated, 201 created).",
			description: "Creates the link with this `external_id`, or updates it when it exists: the way to sync links from your " +
				"own system without keeping our ids. `url` is required to create. Fields left out are kept; a field sent as " +
				"`null` is removed or set back to its default, as in `PATCH` (null `url`, `slug` or `external_id` is refused).",
			bodyExample: upsertLinkRequest{URL: ptr("https://example.com/blog/launch"), LinkFields: LinkFields{Title: ptr("Launch post")}},
		},
		{
			method: "GET", path: "/api/v1/links/{id}", operationID: "getLink", serve: callWith(a.getLink),
			tag: "Links", scope: "links:read",
			summary:     "Get a link",
			returns:     "The link.",
			description: "One link, by id or by `ext_<external_id>`.",
		},
		{
			method: "PATCH", path: "/api/v1/links/{id}", operationID: "updateLink", serve: callWithNulls(a.updateLink),
			tag: "Links", scope: "links:write", errors: []int{409},
			summary: "Update a link",
			returns: "The link.",
			description: "Changes a link's fields; fields left out are kept, `null` removes an optional one (`url` and `slug` " +
				"cannot be null). A new slug frees the old one at once (visitors of the old one get 404), and every replica's " +
				"redirect sees the change immediately. A change that changes nothing records no event and keeps `updated_at`.",
			bodyExample: updateLinkRequest{URL: ptr("https://example.com/blog/launch-v2")},
		},
		{
			method: "DELETE", path: "/api/v1/links/{id}", operationID: "deleteLink", serve: callWith(a.deleteLink),
			tag: "Links", scope: "links:write",
			summary:     "Delete a link",
			returns:     "The deleted link's id.",
			description: "Deletes a link and its clicks. Its slug stays taken for 30 days, so a shared link never points somewhere new.",
		},
		{
			method: "GET", path: "/api/v1/links/{id}/clicks", operationID: "listLinkClicks", serve: callWith(a.linkClicks),
			tag: "Links", scope: "links:read", errors: []int{410},
			summary: "List a link's clicks",
			returns: "A page of clicks, newest first.",
			description: "Each click: time, referrer, browser, OS, device, country (when a GeoIP database is configured), bot flag " +
				"with its reason, and whether it came through the QR code. IPs are never stored. Clicks are written in batches " +
				"every 250 ms.",
		},
		{
			method: "GET", path: "/api/v1/links/{id}/stats", operationID: "getLinkStats", serve: callWith(a.linkStats),
			tag: "Links", scope: "links:read",
			summary: "Get a link's stats",
			returns: "Totals, a time series and breakdowns.",
			description: "Clicks and unique visitors (per day) in a range, by day or hour (every step listed, zeros included), " +
				"with the top countries, devices, browsers, operating systems and referrers. Bots are left out unless asked. " +
				"Days and hours are those of `timezone` (default UTC); an unknown zone is `400 validation_failed` with " +
				"`param: \"timezone\"`.",
		},
		{
			method: "GET", path: "/api/v1/links/{id}/qr.png", operationID: "getLinkQRPNG", serve: fileOf(a.linkQRPNG),
			tag: "Links", scope: "links:read",
			summary:     "Get a link's QR code (PNG)",
			returns:     "A PNG image.",
			description: "The QR code of the link's short URL. Visits through it are marked `qr: true`.",
		},
		{
			method: "GET", path: "/api/v1/links/{id}/qr.svg", operationID: "getLinkQRSVG", serve: fileOf(a.linkQRSVG),
			tag: "Links", scope: "links:read",
			summary: "Get a link's QR code (SVG)",
			returns: "An SVG image.",
			description: "The QR code of the link's short URL as SVG, for print: it scales without loss; `size` (as for the PNG) " +
				"is the width and height it opens at. Visits through it are marked `qr: true`.",
		},
	}
}

// mediaTyper is a response that is a file of a media type, not JSON.
type mediaTyper interface{ mediaType() string }

func (pngFile) mediaType() string { return "image/png" }
func (svgFile) mediaType() string { return "image/svg+xml" }

// filer is a non-JSON response.
type filer interface{ data() file }

func (f file) data() file { return f }

// fileOf serves a handler that answers a file (its own content type) instead of JSON.
func fileOf[In any, Out filer](h func(*http.Request, In) (Out, error)) endpoint {
	e := callWith(h)
	e.handler = func(a *api, rt route) http.HandlerFunc {
		read := inputReader[In](rt, reflect.TypeFor[In](), false)
		return func(w http.ResponseWriter, r *http.Request) {
			in, err := read(r)
			if err != nil {
				a.error(w, r, err)
				return
			}
			out, err := h(r, in)
			if err != nil {
				a.error(w, r, err)
				return
			}
			f := out.data()
			w.Header().Set("Content-Type", f.contentType)
			w.Header().Set("Cache-Control", "private, max-age=300")
			_, _ = w.Write(f.body)
		}
	}
	return e
}
