package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/makiuchi-d/gozxing"
	qrreader "github.com/makiuchi-d/gozxing/qrcode"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

const (
	chromeUA  = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	iphoneUA  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
	slackUA   = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
	googleBot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
)

func init() {
	// The QR responses are images: their bodies are checked as files.
	openapi3filter.RegisterBodyDecoder("image/png", openapi3filter.FileBodyDecoder)
	openapi3filter.RegisterBodyDecoder("image/svg+xml", openapi3filter.FileBodyDecoder)
}

// visit requests a short link as a browser would, without following the redirect.
// headers are name, value pairs; form, when set, is posted as a form.
func (e *env) visit(t *testing.T, method, path, ua string, form url.Values, headers ...string) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, e.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("User-Agent", ua)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// flushClicks writes the buffered clicks now (the writer does every 250 ms).
func (e *env) flushClicks(t *testing.T) {
	t.Helper()
	if err := e.links.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestLinksCRUD(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)

		created := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/launch", "slug": "Launch",
			"title": "Launch post", "tags": []string{"launch", "q4", "launch"}, "password": "open sesame",
			"metadata": map[string]any{"campaign": "q4"}, "utm": map[string]any{"source": "news"}}).want(t, http.StatusCreated).json(t)
		if created["short_url"] != baseURL+"/l/Launch" || created["redirect_status"] != float64(302) ||
			created["password_protected"] != true || len(created["tags"].([]any)) != 2 || created["clicks"] != float64(0) {
			t.Fatalf("created %v", created)
		}
		if _, ok := created["password"]; ok {
			t.Fatal("the password must never be returned")
		}
		id := created["id"].(string)

		// Idempotency-Key: the same call replays the first answer, creating nothing more.
		first := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/once"}, "Idempotency-Key", "link-once").
			want(t, http.StatusCreated)
		replay := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/once"}, "Idempotency-Key", "link-once").
			want(t, http.StatusCreated)
		if replay.Header.Get("Idempotent-Replayed") != "true" || replay.json(t)["id"] != first.json(t)["id"] {
			t.Fatalf("replay %v", replay.Header)
		}
		e.do("DELETE", "/api/v1/links/"+first.json(t)["id"].(string), secret, nil).want(t, 200)

		// A generated slug: 7 characters without look-alikes.
		gen := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/b"}).want(t, http.StatusCreated).json(t)
		if s := gen["slug"].(string); len(s) != 7 || strings.ContainsAny(s, "0Oo1lI") {
			t.Fatalf("generated slug %q", s)
		}

		// Refusals name the field and store nothing.
		for _, c := range []struct {
			body        map[string]any
			status      int
			code, param string
		}{
			{map[string]any{"url": "https://example.com", "slug": "Launch"}, 409, "slug_taken", "slug"},
			{map[string]any{"url": "https://example.com", "slug": "launch"}, 201, "", ""}, // case-sensitive
			{map[string]any{"url": "https://example.com", "slug": "API"}, 400, "slug_reserved", "slug"},
			{map[string]any{"url": "https://example.com", "slug": "a/b"}, 400, "validation_failed", "slug"},
			{map[string]any{"url": "https://example.com", "slug": "ab"}, 400, "validation_failed", "slug"},
			{map[string]any{"url": "javascript:alert(1)"}, 400, "validation_failed", "url"},
			{map[string]any{"url": "data:text/html,<b>x</b>"}, 400, "validation_failed", "url"},
			{map[string]any{"url": "ftp://example.com/x"}, 400, "validation_failed", "url"},
			{map[string]any{"url": "https://example.com/" + strings.Repeat("x", 2048)}, 400, "validation_failed", "url"},
			{map[string]any{"url": "https://example.com", "redirect_status": 303}, 400, "validation_failed", "redirect_status"},
			{map[string]any{"url": "https://example.com", "max_clicks": -1}, 400, "validation_failed", "max_clicks"},
			{map[string]any{"url": "https://example.com", "expires_at": "2001-01-01T00:00:00Z"}, 400, "validation_failed", "expires_at"},
			{map[string]any{"url": "https://example.com", "expires_at": "tomorrow"}, 400, "validation_failed", "expires_at"},
			{map[string]any{"url": "https://example.com", "ios_url": "itms://x"}, 400, "validation_failed", "ios_url"},
		} {
			res := e.do("POST", "/api/v1/links", secret, c.body)
			if c.status == 201 {
				res.want(t, 201)
				continue
			}
			if got := res.wantError(t, c.status, c.code); got["param"] != c.param {
				t.Errorf("%v: param %v, want %s", c.body, got["param"], c.param)
			}
		}
		list := e.do("GET", "/api/v1/links?limit=100", secret, nil).want(t, 200).json(t)
		if n := len(list["data"].([]any)); n != 3 {
			t.Fatalf("%d links after the refusals, want 3", n)
		}

		// By id and by external id; PUT ext_ creates (201), then updates (200).
		e.do("GET", "/api/v1/links/"+id, secret, nil).want(t, 200)
		up := e.do("PUT", "/api/v1/links/ext_post-1", secret, map[string]any{"url": "https://example.com/post-1"}).want(t, 201).json(t)
		if up["external_id"] != "post-1" {
			t.Fatalf("upsert %v", up)
		}
		again := e.do("PUT", "/api/v1/links/ext_post-1", secret, map[string]any{"title": "Post 1"}).want(t, 200).json(t)
		if again["id"] != up["id"] || again["title"] != "Post 1" || again["url"] != "https://example.com/post-1" {
			t.Fatalf("second upsert %v", again)
		}
		e.do("GET", "/api/v1/links/ext_post-1", secret, nil).want(t, 200)
		e.do("PUT", "/api/v1/links/ext_post-2", secret, map[string]any{"title": "no url"}).wantError(t, 400, "validation_failed")
		// null in a PUT removes the field, as in PATCH; the path's external id cannot be removed.
		cleared := e.do("PUT", "/api/v1/links/ext_post-1", secret, map[string]any{"title": nil, "tags": nil}).want(t, 200).json(t)
		if cleared["title"] != "" || len(cleared["tags"].([]any)) != 0 || cleared["url"] != "https://example.com/post-1" {
			t.Fatalf("PUT with null title: %v", cleared)
		}
		for field, want := range map[string]string{"url": "url", "slug": "slug", "external_id": "external_id"} {
			bad := e.do("PUT", "/api/v1/links/ext_post-1", secret, map[string]any{field: nil}).wantError(t, 400, "validation_failed")
			if bad["param"] != want {
				t.Fatalf("PUT %s null: %v", field, bad)
			}
		}
		createdByPut := e.do("PUT", "/api/v1/links/ext_post-3", secret, map[string]any{"url": "https://example.com/post-3", "title": nil}).
			want(t, 201).json(t)
		if createdByPut["title"] != "" || createdByPut["external_id"] != "post-3" {
			t.Fatalf("PUT creating with null title: %v", createdByPut)
		}

		// Update: fields left out are kept; clearing with empty values.
		patched := e.do("PATCH", "/api/v1/links/"+id, secret, map[string]any{"url": "https://example.com/v2", "password": ""}).
			want(t, 200).json(t)
		if patched["url"] != "https://example.com/v2" || patched["password_protected"] != false || patched["title"] != "Launch post" {
			t.Fatalf("patched %v", patched)
		}

		// Search, tag and sort; each list records link.listed with the query, not the links.
		found := e.do("GET", "/api/v1/links?search=LAUNCH&tag=q4", secret, nil).want(t, 200).json(t)
		if data := found["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != id {
			t.Fatalf("search: %v", found)
		}
		e.do("GET", "/api/v1/links?sort=clicks&limit=1", secret, nil).want(t, 200)
		e.do("GET", "/api/v1/links?sort=name", secret, nil).wantError(t, 400, "validation_failed")
		events := e.do("GET", "/api/v1/events?type=link.listed&limit=1", secret, nil).want(t, 200).json(t)
		ev := events["data"].([]any)[0].(map[string]any)["data"].(map[string]any)
		if ev["count"] != float64(1) || ev["query"].(map[string]any)["sort"] != "clicks" {
			t.Fatalf("link.listed %v", ev)
		}

		// Delete: gone, and the slug stays taken for 30 days.
		e.do("DELETE", "/api/v1/links/"+id, secret, nil).want(t, 200)
		e.do("GET", "/api/v1/links/"+id, secret, nil).wantError(t, 404, "not_found")
		e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://elsewhere.example", "slug": "Launch"}).wantError(t, 409, "slug_taken")
		e.clock.Advance(31 * 24 * time.Hour)
		e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://elsewhere.example", "slug": "Launch"}).want(t, 201)
	})
}

func TestLinksBulk(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeLinksRead, domain.ScopeLinksWrite)

		// All or none: one bad item refuses the call, naming it.
		bad := e.do("POST", "/api/v1/links/bulk", secret, map[string]any{"links": []any{
			map[string]any{"url": "https://example.com/1", "slug": "one"},
			map[string]any{"url": "javascript:void(0)"},
			map[string]any{"url": "https://example.com/3", "slug": "no way"},
		}}).wantError(t, 400, "validation_failed")
		if bad["param"] != "links[1].url" || !strings.Contains(bad["message"].(string), "1 more refused: links[2].slug") {
			t.Fatalf("bulk refusal %v", bad)
		}
		if n := len(e.do("GET", "/api/v1/links", secret, nil).json(t)["data"].([]any)); n != 0 {
			t.Fatalf("%d links stored by a refused bulk call", n)
		}
		ok := e.do("POST", "/api/v1/links/bulk", secret, map[string]any{"links": []any{
			map[string]any{"url": "https://example.com/1", "slug": "one"},
			map[string]any{"url": "https://example.com/2", "slug": "two"},
		}}).want(t, 201).json(t)
		data := ok["data"].([]any)
		if len(data) != 2 || data[1].(map[string]any)["slug"] != "two" {
			t.Fatalf("bulk create %v", ok)
		}
		one, two := data[0].(map[string]any)["id"].(string), data[1].(map[string]any)["id"].(string)
		e.do("PATCH", "/api/v1/links/bulk", secret, map[string]any{"links": []any{
			map[string]any{"id": one, "archived": true}, map[string]any{"id": "lnk_01jr8d0c3b5n7q9s1u3w5y7a9c", "archived": true},
		}}).wantError(t, 404, "not_found")
		e.do("PATCH", "/api/v1/links/bulk", secret, map[string]any{"links": []any{
			map[string]any{"id": one, "archived": true}, map[string]any{"id": two, "tags": []string{"x"}},
		}}).want(t, 200)
		archived := e.do("GET", "/api/v1/links?archived=true", secret, nil).want(t, 200).json(t)["data"].([]any)
		if len(archived) != 1 || archived[0].(map[string]any)["id"] != one {
			t.Fatalf("archived %v", archived)
		}
		e.do("DELETE", "/api/v1/links/bulk?ids="+one+","+two, secret, nil).want(t, 200)
		if n := len(e.do("GET", "/api/v1/links", secret, nil).json(t)["data"].([]any)); n != 0 {
			t.Fatalf("%d links after the bulk delete", n)
		}
		tooMany := make([]any, 101)
		for i := range tooMany {
			tooMany[i] = map[string]any{"url": "https://example.com"}
		}
		e.do("POST", "/api/v1/links/bulk", secret, map[string]any{"links": tooMany}).wantError(t, 400, "validation_failed")
	})
}

// A bulk call naming a link twice is refused naming the repeat, and changes nothing; the
// bulk delete's refusals name its one parameter, ids.
func TestLinksBulkRepeatedIDs(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	id := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com", "slug": "twice", "title": "T"}).
		want(t, 201).json(t)["id"].(string)
	other := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com", "slug": "other"}).
		want(t, 201).json(t)["id"].(string)

	bad := e.do("PATCH", "/api/v1/links/bulk", secret, map[string]any{"links": []any{
		map[string]any{"id": id, "title": "A"}, map[string]any{"id": id, "title": "B"},
	}}).wantError(t, 400, "validation_failed")
	if bad["param"] != "links[1].id" {
		t.Fatalf("repeated PATCH: %v", bad)
	}
	bad = e.do("DELETE", "/api/v1/links/bulk?ids="+id+","+id, secret, nil).wantError(t, 400, "validation_failed")
	if bad["param"] != "ids" || !strings.Contains(bad["message"].(string), id) {
		t.Fatalf("repeated DELETE: %v", bad)
	}
	// The same link named once by id and once by its external id is a repeat too.
	e.do("PATCH", "/api/v1/links/"+id, secret, map[string]any{"external_id": "crm-1"}).want(t, 200)
	bad = e.do("PATCH", "/api/v1/links/bulk", secret, map[string]any{"links": []any{
		map[string]any{"id": other, "title": "O"}, map[string]any{"id": id, "title": "A"}, map[string]any{"id": "ext_crm-1", "title": "B"},
	}}).wantError(t, 400, "validation_failed")
	if bad["param"] != "links[2].id" || !strings.Contains(bad["message"].(string), "links[1]") {
		t.Fatalf("PATCH by id and ext_: %v", bad)
	}
	bad = e.do("DELETE", "/api/v1/links/bulk?ids=ext_crm-1,"+id, secret, nil).wantError(t, 400, "validation_failed")
	if bad["param"] != "ids" || !strings.Contains(bad["message"].(string), "ids[1]") || !strings.Contains(bad["message"].(string), "ids[0]") {
		t.Fatalf("DELETE by ext_ and id: %v", bad)
	}
	if got := e.do("GET", "/api/v1/links/"+id, secret, nil).want(t, 200).json(t)["title"]; got != "T" {
		t.Fatalf("title %v after refused calls", got)
	}
	if got := e.do("GET", "/api/v1/links/"+other, secret, nil).want(t, 200).json(t)["title"]; got != "" && got != nil {
		t.Fatalf("other's title %v after a refused call", got)
	}
	if n := len(e.do("GET", "/api/v1/events?type=link.updated,link.deleted", secret, nil).want(t, 200).json(t)["data"].([]any)); n != 1 { // the external id's
		t.Fatalf("%d events recorded by refused calls", n)
	}

	// An unknown id in a bulk delete names ids (its only parameter) and the id's place.
	missing := "lnk_01jr8d0c3b5n7q9s1u3w5y7a9c"
	bad = e.do("DELETE", "/api/v1/links/bulk?ids="+other+","+missing, secret, nil).wantError(t, 404, "not_found")
	if bad["param"] != "ids" || !strings.Contains(bad["message"].(string), "ids[1]") {
		t.Fatalf("unknown DELETE: %v", bad)
	}
	e.do("GET", "/api/v1/links/"+other, secret, nil).want(t, 200)
	e.do("DELETE", "/api/v1/links/bulk?ids="+id+","+other, secret, nil).want(t, 200)
}

// PATCH with null removes an optional field (or sets it back to its default) and is
// refused for url and slug; a PATCH that changes nothing records no event and keeps
// updated_at.
func TestLinkPatchNull(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		created := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com", "slug": "nulls",
			"title": "T", "tags": []string{"a"}, "expires_at": "2099-01-01T00:00:00Z", "expired_url": "https://example.com/gone",
			"max_clicks": 5, "password": "pw", "redirect_status": 301, "metadata": map[string]any{"k": "v"}, "external_id": "ext-1",
			"utm": map[string]any{"source": "s"}, "ios_url": "https://example.com/ios", "android_url": "https://example.com/android",
			"archived": true}).want(t, 201).json(t)
		id := created["id"].(string)
		updates := func() int {
			return len(e.do("GET", "/api/v1/events?type=link.updated", secret, nil).want(t, 200).json(t)["data"].([]any))
		}

		// Changing nothing: no event, updated_at kept.
		e.clock.Advance(time.Minute)
		for _, body := range []string{`{}`, `{"title":"T","tags":["a"],"metadata":{"k":"v"},"max_clicks":5}`} {
			same := e.do("PATCH", "/api/v1/links/"+id, secret, body).want(t, 200).json(t)
			if same["updated_at"] != created["updated_at"] || same["title"] != "T" || updates() != 0 {
				t.Fatalf("%s: %v, %d events", body, same, updates())
			}
		}

		for _, f := range []string{"url", "slug"} {
			if bad := e.do("PATCH", "/api/v1/links/"+id, secret, `{"title":"X","`+f+`":null}`).wantError(t, 400, "validation_failed"); bad["param"] != f {
				t.Fatalf("%s null: %v", f, bad)
			}
		}
		bad := e.do("PATCH", "/api/v1/links/bulk", secret, `{"links":[{"id":"`+id+`","url":null}]}`).wantError(t, 400, "validation_failed")
		if bad["param"] != "links[0].url" || updates() != 0 {
			t.Fatalf("bulk url null: %v", bad)
		}

		cleared := e.do("PATCH", "/api/v1/links/"+id, secret, `{"title":null,"tags":null,"expires_at":null,"expired_url":null,
			"max_clicks":null,"password":null,"redirect_status":null,"metadata":null,"external_id":null,"utm":null,
			"ios_url":null,"android_url":null,"archived":null}`).want(t, 200).json(t)
		want := map[string]any{"title": "", "expires_at": nil, "expired_url": nil, "max_clicks": nil, "password_protected": false,
			"redirect_status": float64(302), "external_id": nil, "ios_url": nil, "android_url": nil, "archived": false,
			"url": "https://example.com", "slug": "nulls"}
		for k, v := range want {
			if cleared[k] != v {
				t.Errorf("%s = %#v after null, want %#v", k, cleared[k], v)
			}
		}
		if tags, _ := cleared["tags"].([]any); len(tags) != 0 || cleared["tags"] == nil {
			t.Errorf("tags %v after null", cleared["tags"])
		}
		if m, _ := cleared["metadata"].(map[string]any); len(m) != 0 {
			t.Errorf("metadata %v after null", cleared["metadata"])
		}
		if u, _ := cleared["utm"].(map[string]any); len(u) != 0 {
			t.Errorf("utm %v after null", cleared["utm"])
		}
		if updates() != 1 || cleared["updated_at"] == created["updated_at"] {
			t.Fatalf("clearing: %d events, updated_at %v", updates(), cleared["updated_at"])
		}
		// Nulls for fields already empty change nothing either.
		e.do("PATCH", "/api/v1/links/"+id, secret, `{"expired_url":null,"ios_url":null,"external_id":null,"max_clicks":null,"title":null}`).want(t, 200)
		if updates() != 1 {
			t.Fatalf("a PATCH of nulls over empty fields recorded an event (%d)", updates())
		}
		// Bulk PATCH clears with null too.
		e.do("PATCH", "/api/v1/links/"+id, secret, `{"title":"again"}`).want(t, 200)
		got := e.do("PATCH", "/api/v1/links/bulk", secret, `{"links":[{"id":"`+id+`","title":null}]}`).want(t, 200).json(t)
		if got["data"].([]any)[0].(map[string]any)["title"] != "" {
			t.Fatalf("bulk title null: %v", got)
		}
	})
}

// Another workspace's links are not found; a key without the scope is refused.
func TestLinksIsolationAndScopes(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	link := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com", "slug": "mine"}).want(t, 201).json(t)
	id := link["id"].(string)

	other := servicetest.NewOwner(t, e.svc)
	_, otherSecret := other.NewKey(t, e.svc, domain.ScopeAll)
	for _, p := range []string{"", "/clicks", "/stats", "/qr.png", "/qr.svg"} {
		e.do("GET", "/api/v1/links/"+id+p, otherSecret, nil).wantError(t, 404, "not_found")
	}
	e.do("PATCH", "/api/v1/links/"+id, otherSecret, map[string]any{"url": "https://evil.example"}).wantError(t, 404, "not_found")
	e.do("DELETE", "/api/v1/links/"+id, otherSecret, nil).wantError(t, 404, "not_found")
	if data := e.do("GET", "/api/v1/links", otherSecret, nil).json(t)["data"].([]any); len(data) != 0 {
		t.Fatalf("the other workspace lists %v", data)
	}

	_, readOnly := e.owner.NewKey(t, e.svc, domain.ScopeLinksRead)
	e.do("POST", "/api/v1/links", readOnly, map[string]any{"url": "https://example.com"}).wantError(t, 403, "insufficient_scope")
	e.do("PATCH", "/api/v1/links/"+id, readOnly, map[string]any{"title": "x"}).wantError(t, 403, "insufficient_scope")
	e.do("DELETE", "/api/v1/links/"+id, readOnly, nil).wantError(t, 403, "insufficient_scope")
	e.do("POST", "/api/v1/links/bulk", readOnly, map[string]any{"links": []any{map[string]any{"url": "https://example.com"}}}).
		wantError(t, 403, "insufficient_scope")
	_, noLinks := e.owner.NewKey(t, e.svc, domain.ScopeMessagesRead)
	for _, p := range []string{"/api/v1/links", "/api/v1/links/" + id, "/api/v1/links/" + id + "/clicks",
		"/api/v1/links/" + id + "/stats", "/api/v1/links/" + id + "/qr.png"} {
		e.do("GET", p, noLinks, nil).wantError(t, 403, "insufficient_scope")
	}
}

func TestRedirect(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		link := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/post?ref=x", "slug": "post",
			"utm": map[string]any{"source": "news", "medium": "email"}, "ios_url": "https://apps.apple.com/app/id1",
			"metadata": map[string]any{"campaign": "q4"}}).want(t, 201).json(t)
		id := link["id"].(string)

		res, _ := e.visit(t, "GET", "/l/post", chromeUA, nil, "Referer", "https://news.example.org/item/1")
		if res.StatusCode != 302 || res.Header.Get("Location") != "https://example.com/post?ref=x&utm_source=news&utm_medium=email" {
			t.Fatalf("redirect %d to %q", res.StatusCode, res.Header.Get("Location"))
		}
		if res.Header.Get("Cache-Control") != "private, max-age=0" || res.Header.Get("X-Robots-Tag") != "noindex" {
			t.Fatalf("headers %v", res.Header)
		}
		if res, _ := e.visit(t, "GET", "/l/post", iphoneUA, nil); res.Header.Get("Location") != "https://apps.apple.com/app/id1?utm_source=news&utm_medium=email" {
			t.Fatalf("iOS went to %q", res.Header.Get("Location"))
		}
		e.visit(t, "GET", "/l/post?qr=1", chromeUA, nil)
		// Bots are answered but flagged: HEAD, link previews, crawlers, no user agent.
		if res, _ := e.visit(t, "HEAD", "/l/post", chromeUA, nil); res.StatusCode != 302 {
			t.Fatalf("HEAD: %d", res.StatusCode)
		}
		e.visit(t, "GET", "/l/post", slackUA, nil)
		e.visit(t, "GET", "/l/post", googleBot, nil)
		e.visit(t, "GET", "/l/post", "", nil)
		if res, body := e.visit(t, "GET", "/l/nope", chromeUA, nil); res.StatusCode != 404 || !strings.Contains(body, "Link not found") {
			t.Fatalf("unknown slug: %d %s", res.StatusCode, body)
		}
		if res, _ := e.visit(t, "GET", "/l/POST", chromeUA, nil); res.StatusCode != 404 {
			t.Fatalf("slugs are case-sensitive: %d", res.StatusCode)
		}

		e.flushClicks(t)
		got := e.do("GET", "/api/v1/links/"+id, secret, nil).want(t, 200).json(t)
		if got["clicks"] != float64(3) || got["last_clicked_at"] == nil {
			t.Fatalf("3 people clicked, the link says %v (last %v)", got["clicks"], got["last_clicked_at"])
		}
		people := e.do("GET", "/api/v1/links/"+id+"/clicks", secret, nil).want(t, 200).json(t)["data"].([]any)
		all := e.do("GET", "/api/v1/links/"+id+"/clicks?include_bots=true", secret, nil).want(t, 200).json(t)["data"].([]any)
		if len(people) != 3 || len(all) != 7 {
			t.Fatalf("%d clicks, %d with bots; want 3 and 7", len(people), len(all))
		}
		reasons := map[string]int{}
		for _, c := range all {
			if r, _ := c.(map[string]any)["bot_reason"].(string); r != "" {
				reasons[r]++
			}
		}
		if reasons["head_request"] != 1 || reasons["link_preview"] != 1 || reasons["crawler"] != 1 || reasons["empty_user_agent"] != 1 {
			t.Fatalf("bot reasons %v", reasons)
		}
		first := people[len(people)-1].(map[string]any) // oldest: the Chrome visit with a referrer
		if first["browser"] != "Chrome" || first["os"] != "macOS" || first["device"] != "desktop" ||
			first["referrer_host"] != "news.example.org" || first["qr"] != false {
			t.Fatalf("first click %v", first)
		}
		if newest := people[0].(map[string]any); newest["qr"] != true {
			t.Fatalf("the QR visit %v", newest)
		}

		stats := e.do("GET", "/api/v1/links/"+id+"/stats", secret, nil).want(t, 200).json(t)
		if stats["clicks"] != float64(3) || stats["uniques"] != float64(1) || stats["bots"] != float64(4) ||
			len(stats["timeseries"].([]any)) < 30 {
			t.Fatalf("stats %v", stats)
		}
		devices := stats["devices"].([]any)
		if len(devices) != 2 { // desktop twice, mobile once
			t.Fatalf("devices %v", devices)
		}
		refs := stats["referrers"].([]any)
		if refs[0].(map[string]any)["value"] != "direct" || refs[0].(map[string]any)["clicks"] != float64(2) {
			t.Fatalf("referrers %v", refs)
		}
		hourly := e.do("GET", "/api/v1/links/"+id+"/stats?interval=hour", secret, nil).want(t, 200).json(t)
		var sum float64
		for _, b := range hourly["timeseries"].([]any) {
			sum += b.(map[string]any)["clicks"].(float64)
		}
		if sum != 3 {
			t.Fatalf("hourly series sums to %v", sum)
		}
		e.do("GET", "/api/v1/links/"+id+"/stats?interval=week", secret, nil).wantError(t, 400, "validation_failed")

		// Every person's click is a link.clicked event with the click and the link; bots are not.
		clicked := e.do("GET", "/api/v1/events?type=link.clicked", secret, nil).want(t, 200).json(t)["data"].([]any)
		if len(clicked) != 3 {
			t.Fatalf("%d link.clicked events, want 3", len(clicked))
		}
		data := clicked[0].(map[string]any)["data"].(map[string]any)
		if data["click"].(map[string]any)["link_id"] != id || data["link"].(map[string]any)["metadata"].(map[string]any)["campaign"] != "q4" {
			t.Fatalf("link.clicked data %v", data)
		}

		samplesMatchLive(t, e, secret, domain.EventLinkCreated, domain.EventLinkClicked)

		// A change applies to the very next visit.
		e.do("PATCH", "/api/v1/links/"+id, secret, map[string]any{"url": "https://example.com/new", "utm": map[string]any{},
			"redirect_status": 301}).want(t, 200)
		if res, _ := e.visit(t, "GET", "/l/post", chromeUA, nil); res.StatusCode != 301 || res.Header.Get("Location") != "https://example.com/new" {
			t.Fatalf("after the change: %d %q", res.StatusCode, res.Header.Get("Location"))
		}
		e.do("PATCH", "/api/v1/links/"+id, secret, map[string]any{"slug": "renamed"}).want(t, 200)
		if res, _ := e.visit(t, "GET", "/l/post", chromeUA, nil); res.StatusCode != 404 {
			t.Fatalf("the old slug after a rename: %d", res.StatusCode)
		}
		if res, _ := e.visit(t, "GET", "/l/renamed", chromeUA, nil); res.StatusCode != 301 {
			t.Fatalf("the new slug: %d", res.StatusCode)
		}
		// The old slug stays taken for 30 days, as a deleted link's: for this workspace, for
		// another, and for the link itself.
		other := servicetest.NewOwner(t, e.svc)
		_, otherSecret := other.NewKey(t, e.svc, domain.ScopeAll)
		e.do("POST", "/api/v1/links", otherSecret, map[string]any{"url": "https://evil.example/", "slug": "post"}).wantError(t, 409, "slug_taken")
		e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/x", "slug": "post"}).wantError(t, 409, "slug_taken")
		e.do("PATCH", "/api/v1/links/"+id, secret, map[string]any{"slug": "post"}).wantError(t, 409, "slug_taken")
		if n := len(e.do("GET", "/api/v1/links", secret, nil).want(t, 200).json(t)["data"].([]any)); n != 1 {
			t.Fatalf("%d links listed after a rename, want 1 (the hold is not a link)", n)
		}
		e.do("DELETE", "/api/v1/links/"+id, secret, nil).want(t, 200)
		if res, _ := e.visit(t, "GET", "/l/renamed", chromeUA, nil); res.StatusCode != 404 {
			t.Fatalf("a deleted link: %d", res.StatusCode)
		}
	})
}

func TestRedirectExpiryAndPassword(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	soon := e.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/a", "slug": "gone", "expires_at": soon}).want(t, 201)
	e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/b", "slug": "moved", "expires_at": soon,
		"expired_url": "https://example.com/ended"}).want(t, 201)
	e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/secret", "slug": "locked",
		"password": "open sesame", "title": "Plans"}).want(t, 201)

	if res, _ := e.visit(t, "GET", "/l/gone", chromeUA, nil); res.StatusCode != 302 {
		t.Fatalf("before expiry: %d", res.StatusCode)
	}
	e.clock.Advance(2 * time.Hour)
	if res, body := e.visit(t, "GET", "/l/gone", chromeUA, nil); res.StatusCode != 410 || !strings.Contains(body, "expired") {
		t.Fatalf("expired: %d %s", res.StatusCode, body)
	}
	if res, _ := e.visit(t, "GET", "/l/moved", chromeUA, nil); res.StatusCode != 302 || res.Header.Get("Location") != "https://example.com/ended" {
		t.Fatalf("expired with expired_url: %d %q", res.StatusCode, res.Header.Get("Location"))
	}

	res, body := e.visit(t, "GET", "/l/locked", chromeUA, nil)
	if res.StatusCode != 200 || !strings.Contains(body, `name="password"`) || !strings.Contains(body, "Plans") || res.Header.Get("Location") != "" {
		t.Fatalf("password page: %d %s", res.StatusCode, body)
	}
	// A wrong password: 303 back to the page (post/redirect/get), which then says so (401).
	wrong, _ := e.visit(t, "POST", "/l/locked", chromeUA, url.Values{"password": {"guess"}})
	if wrong.StatusCode != 303 || wrong.Header.Get("Location") != "/l/locked" || len(wrong.Cookies()) != 1 {
		t.Fatalf("wrong password: %d %q %v", wrong.StatusCode, wrong.Header.Get("Location"), wrong.Cookies())
	}
	cookie := wrong.Cookies()[0].Name + "=" + wrong.Cookies()[0].Value
	if res, body := e.visit(t, "GET", "/l/locked", chromeUA, nil, "Cookie", cookie); res.StatusCode != 401 || !strings.Contains(body, "Wrong password") ||
		!strings.Contains(body, `aria-invalid="true" aria-describedby="password-error"`) || !strings.Contains(body, `<p id="password-error" class="err" role="alert">`) {
		t.Fatalf("the page after a wrong password: %d %s", res.StatusCode, body)
	} else if len(res.Cookies()) != 1 || res.Cookies()[0].MaxAge >= 0 {
		t.Fatalf("the page does not clear its note: %v", res.Cookies())
	}
	if _, body := e.visit(t, "GET", "/l/locked", chromeUA, nil); strings.Contains(body, "Wrong password") {
		t.Fatal("the page says wrong password without a wrong try")
	}
	if res, _ := e.visit(t, "POST", "/l/locked", chromeUA, url.Values{"password": {"open sesame"}}); res.StatusCode != 303 ||
		res.Header.Get("Location") != "https://example.com/secret" {
		t.Fatalf("right password: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	// The form posts to the page's own URL, query included: it goes on to the target too.
	if res, _ := e.visit(t, "POST", "/l/locked?src=mail", chromeUA, url.Values{"password": {"open sesame"}}); res.StatusCode != 303 ||
		res.Header.Get("Location") != "https://example.com/secret?src=mail" {
		t.Fatalf("right password, with a query: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	// A form post is answered 303 wherever it goes, an expired link's expired_url included.
	if res, _ := e.visit(t, "POST", "/l/moved", chromeUA, url.Values{"password": {"x"}}); res.StatusCode != 303 ||
		res.Header.Get("Location") != "https://example.com/ended" {
		t.Fatalf("a form post to an expired link: %d %q", res.StatusCode, res.Header.Get("Location"))
	}

	// A password link whose clicks are used up says so at once: nobody is asked for a password
	// that can no longer open it.
	e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/once", "slug": "once",
		"password": "pw", "max_clicks": 1}).want(t, 201)
	if res, _ := e.visit(t, "POST", "/l/once", chromeUA, url.Values{"password": {"pw"}}); res.StatusCode != 303 {
		t.Fatalf("the one click: %d", res.StatusCode)
	}
	if res, body := e.visit(t, "GET", "/l/once", chromeUA, nil); res.StatusCode != 410 || strings.Contains(body, `name="password"`) {
		t.Fatalf("a used-up password link: %d %s", res.StatusCode, body)
	}
	if res, _ := e.visit(t, "POST", "/l/once", chromeUA, url.Values{"password": {"wrong"}}); res.StatusCode != 410 {
		t.Fatalf("a password posted to a used-up link: %d", res.StatusCode)
	}
	e.flushClicks(t)
	if n := e.do("GET", "/api/v1/links/ext_x", secret, nil); n.StatusCode != 404 {
		t.Fatalf("ext lookup of nothing: %d", n.StatusCode)
	}
}

// max_clicks is exact under concurrency: 500 visitors at once, exactly 100 reach the target.
func TestMaxClicksExactUnderConcurrency(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		link := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/drop", "slug": "drop",
			"max_clicks": 100}).want(t, 201).json(t)
		var mu sync.Mutex
		statuses := map[int]int{}
		var wg sync.WaitGroup
		gate := make(chan struct{})
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
		for range 500 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				req, _ := http.NewRequest("GET", e.srv.URL+"/l/drop", nil)
				req.Header.Set("User-Agent", chromeUA)
				res, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				mu.Lock()
				statuses[res.StatusCode]++
				mu.Unlock()
			}()
		}
		close(gate)
		wg.Wait()
		if statuses[302] != 100 || statuses[410] != 400 {
			t.Fatalf("statuses %v, want exactly 100 redirects and 400 expired", statuses)
		}
		e.flushClicks(t)
		got := e.do("GET", "/api/v1/links/"+link["id"].(string), secret, nil).want(t, 200).json(t)
		if got["clicks"] != float64(100) {
			t.Fatalf("clicks %v, want 100", got["clicks"])
		}
	})
}

func TestLinkQRCode(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	id := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com", "slug": "qrc"}).want(t, 201).json(t)["id"].(string)
	res := e.do("GET", "/api/v1/links/"+id+"/qr.png?size=256", secret, nil).want(t, 200)
	if res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("content type %q", res.Header.Get("Content-Type"))
	}
	img, err := png.Decode(bytes.NewReader(res.body))
	if err != nil || img.Bounds().Dx() != 256 || img.Bounds().Dy() != 256 {
		t.Fatalf("png: %v, %v", err, img.Bounds())
	}
	// A phone's scanner reads the short URL, marked as a QR visit.
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	scanned, err := qrreader.NewQRCodeReader().Decode(bmp, nil)
	if err != nil || scanned.GetText() != baseURL+"/l/qrc?qr=1" {
		t.Fatalf("scanned %v, %v", scanned, err)
	}
	svg := e.do("GET", "/api/v1/links/"+id+"/qr.svg", secret, nil).want(t, 200)
	if svg.Header.Get("Content-Type") != "image/svg+xml" || !bytes.Contains(svg.body, []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512" `)) {
		t.Fatalf("svg: %s", svg.body)
	}
	// A size: the width and height it opens at (a design tool's, a browser's without CSS).
	if svg := e.do("GET", "/api/v1/links/"+id+"/qr.svg?size=1000", secret, nil).want(t, 200); !bytes.Contains(svg.body, []byte(` width="1000" height="1000" `)) {
		t.Fatalf("svg of size 1000: %.200s", svg.body)
	}
	e.do("GET", "/api/v1/links/"+id+"/qr.png?size=9000", secret, nil).wantError(t, 400, "validation_failed")
	if got := e.do("GET", "/api/v1/links/"+id+"/qr.svg?size=40", secret, nil).wantError(t, 400, "validation_failed"); got["param"] != "size" {
		t.Fatalf("svg size=40: %v", got)
	}
}

// A QR PNG is exactly the size asked for (512 when left out) and scans at every size; a
// size given outside 64–2048, 0 included, is refused naming size.
func TestLinkQRCodeSize(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	id := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com", "slug": "qrsize"}).want(t, 201).json(t)["id"].(string)
	for query, want := range map[string]int{"?size=64": 64, "?size=100": 100, "?size=512": 512, "?size=2048": 2048, "": 512} {
		res := e.do("GET", "/api/v1/links/"+id+"/qr.png"+query, secret, nil).want(t, 200)
		img, err := png.Decode(bytes.NewReader(res.body))
		if err != nil || img.Bounds().Dx() != want || img.Bounds().Dy() != want {
			t.Fatalf("%q: %v, %v, want %d×%d", query, err, img.Bounds(), want, want)
		}
		bmp, err := gozxing.NewBinaryBitmapFromImage(img)
		if err != nil {
			t.Fatal(err)
		}
		if scanned, err := qrreader.NewQRCodeReader().Decode(bmp, nil); err != nil || scanned.GetText() != baseURL+"/l/qrsize?qr=1" {
			t.Fatalf("%q: scanned %v, %v", query, scanned, err)
		}
	}
	for _, size := range []string{"0", "63", "2049", "-1"} {
		if got := e.do("GET", "/api/v1/links/"+id+"/qr.png?size="+size, secret, nil).wantError(t, 400, "validation_failed"); got["param"] != "size" {
			t.Fatalf("size=%s: %v", size, got)
		}
	}
}

// Headers are bytes, not text: a visit whose Referer or User-Agent is not UTF-8 (or holds
// a NUL) is stored with the bad bytes replaced. On PostgreSQL such a row refused the whole
// batch, again at every retry: one visit stopped every click (and link.clicked) from being
// recorded.
func TestClickHeadersThatAreNotText(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		id := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com", "slug": "bytes"}).
			want(t, 201).json(t)["id"].(string)
		e.visit(t, "GET", "/l/bytes", chromeUA+" \xff\xfe", nil, "Referer", "https://news.ex\xffample.org/caf\xc3")
		// A referrer longer than what is kept is cut at a character, never inside one.
		e.visit(t, "GET", "/l/bytes", chromeUA, nil, "Referer", "https://example.org/"+strings.Repeat("é", 400))
		e.visit(t, "GET", "/l/bytes", iphoneUA, nil)
		e.flushClicks(t)
		got := e.do("GET", "/api/v1/links/"+id, secret, nil).want(t, 200).json(t)
		if got["clicks"] != float64(3) {
			t.Fatalf("clicks %v, want 3", got["clicks"])
		}
		clicks := e.do("GET", "/api/v1/links/"+id+"/clicks", secret, nil).want(t, 200).json(t)["data"].([]any)
		if len(clicks) != 3 {
			t.Fatalf("%d clicks listed", len(clicks))
		}
		for _, c := range clicks[1:] {
			ref, _ := c.(map[string]any)["referrer"].(string)
			if !utf8.ValidString(ref) || strings.ContainsRune(ref, 0) || len(ref) > 512 {
				t.Fatalf("referrer %q", ref)
			}
		}
		if ref := clicks[2].(map[string]any)["referrer"]; ref != "https://news.ex\uFFFDample.org/caf\uFFFD" {
			t.Fatalf("referrer %q", ref)
		}
	})
}

// utm parameters are added to the target without touching the rest of it: its parameters
// keep their order and their encoding (a flag without a value, a ";" separator, an escape
// Go's parser refuses), only utm_ parameters the link sets are replaced, and the fragment
// stays last. Parsing and re-encoding the query lost every parameter of "?a=1;b=2".
func TestRedirectKeepsTheTargetsQuery(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	utm := map[string]any{"source": "news letter", "campaign": "q4"}
	for i, c := range []struct{ url, want string }{
		{"https://example.com/p?flag&b=2&a=1", "https://example.com/p?flag&b=2&a=1&utm_source=news+letter&utm_campaign=q4"},
		{"https://example.com/p?a=1;b=2", "https://example.com/p?a=1;b=2&utm_source=news+letter&utm_campaign=q4"},
		{"https://example.com/p?%zz=1&x=%2F", "https://example.com/p?%zz=1&x=%2F&utm_source=news+letter&utm_campaign=q4"},
		{"https://example.com/p?utm_source=old&utm_medium=kept&utm_source=old2&z=1",
			"https://example.com/p?utm_medium=kept&z=1&utm_source=news+letter&utm_campaign=q4"},
		{"https://example.com/p?utm%5Fsource=old", "https://example.com/p?utm_source=news+letter&utm_campaign=q4"},
		{"https://example.com/a%2Fb#top?x", "https://example.com/a%2Fb?utm_source=news+letter&utm_campaign=q4#top?x"},
		{"https://example.com/p?#frag", "https://example.com/p?utm_source=news+letter&utm_campaign=q4#frag"},
	} {
		slug := fmt.Sprintf("q-%d", i)
		e.do("POST", "/api/v1/links", secret, map[string]any{"url": c.url, "slug": slug, "utm": utm}).want(t, 201)
		if res, _ := e.visit(t, "GET", "/l/"+slug, chromeUA, nil); res.Header.Get("Location") != c.want {
			t.Errorf("%s: went to %q, want %q", c.url, res.Header.Get("Location"), c.want)
		}
	}
	// Without utm the target is untouched.
	e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/p?b=2&a=1;c", "slug": "plain"}).want(t, 201)
	if res, _ := e.visit(t, "GET", "/l/plain", chromeUA, nil); res.Header.Get("Location") != "https://example.com/p?b=2&a=1;c" {
		t.Errorf("without utm: %q", res.Header.Get("Location"))
	}
	// The visitor's query goes on to the target, but not over what the link sets (its own
	// parameters and utm_ ones) nor qr; a parameter given twice goes on once.
	e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/p?a=1#frag", "slug": "pass",
		"utm": map[string]any{"source": "news"}}).want(t, 201)
	for query, want := range map[string]string{
		"":               "https://example.com/p?a=1&utm_source=news#frag",
		"?ref=nl&x=%20y": "https://example.com/p?a=1&utm_source=news&ref=nl&x=%20y#frag",
		"?a=2&utm_source=evil&qr=1&ref=1&ref=2&b=": "https://example.com/p?a=1&utm_source=news&ref=1&b=#frag",
		"?q=日本": "https://example.com/p?a=1&utm_source=news&q=%E6%97%A5%E6%9C%AC#frag",
	} {
		if res, _ := e.visit(t, "GET", "/l/pass"+query, chromeUA, nil); res.Header.Get("Location") != want {
			t.Errorf("/l/pass%s: Location %q, want %q", query, res.Header.Get("Location"), want)
		}
	}
	if res, _ := e.visit(t, "GET", "/l/plain?ref=nl", chromeUA, nil); res.Header.Get("Location") != "https://example.com/p?b=2&a=1;c&ref=nl" {
		t.Errorf("a target with its own query: %q", res.Header.Get("Location"))
	}
	e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/bare", "slug": "bare"}).want(t, 201)
	if res, _ := e.visit(t, "GET", "/l/bare?ref=nl", chromeUA, nil); res.Header.Get("Location") != "https://example.com/bare?ref=nl" {
		t.Errorf("a target without a query: %q", res.Header.Get("Location"))
	}
	// A slash added after the slug (pasted links often gain one) reaches the link.
	if res, _ := e.visit(t, "GET", "/l/plain/", chromeUA, nil); res.StatusCode != 302 || res.Header.Get("Location") != "https://example.com/p?b=2&a=1;c" {
		t.Errorf("with a trailing slash: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	// Location is ASCII: an international host in its xn-- form, other characters'
	// bytes percent-encoded, what was already encoded left as it is.
	for slug, c := range map[string]struct{ url, want string }{
		"intl-path": {"https://example.com/ünïcode?q=日本&x=%C3%BC", "https://example.com/%C3%BCn%C3%AFcode?q=%E6%97%A5%E6%9C%AC&x=%C3%BC"},
		"intl-host": {"https://bücher.example:8443/straße", "https://xn--bcher-kva.example:8443/stra%C3%9Fe"},
	} {
		e.do("POST", "/api/v1/links", secret, map[string]any{"url": c.url, "slug": slug}).want(t, 201)
		if res, _ := e.visit(t, "GET", "/l/"+slug, chromeUA, nil); res.Header.Get("Location") != c.want {
			t.Errorf("%s: Location %q, want %q", c.url, res.Header.Get("Location"), c.want)
		}
	}
}

// A password link's click keeps the referrer the visitor came from: the password form
// carries it, since the browser's Referer on the form's post is the password page itself
// (every such click was recorded as coming from the short link). A post is answered 303
// even when the link no longer has a password (a 307 link would have the browser post the
// password on to the target).
func TestPasswordPageKeepsTheReferrer(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	id := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/plans", "slug": "locked",
		"password": "open sesame", "redirect_status": 307}).want(t, 201).json(t)["id"].(string)
	from := "https://news.example.org/item/1?a=1&b=\"2\""
	res, body := e.visit(t, "GET", "/l/locked?qr=1", chromeUA, nil, "Referer", from)
	hidden := regexp.MustCompile(`<input type="hidden" name="ref" value="([^"]*)">`)
	m := hidden.FindStringSubmatch(body)
	if res.StatusCode != 200 || m == nil || html.UnescapeString(m[1]) != from {
		t.Fatalf("password page %d does not carry the referrer: %s", res.StatusCode, body)
	}
	self := e.srv.URL + "/l/locked?qr=1" // what a browser sends as Referer with the form
	res, _ = e.visit(t, "POST", "/l/locked?qr=1", chromeUA, url.Values{"password": {"guess"}, "ref": {from}}, "Referer", self)
	if res.StatusCode != 303 || res.Header.Get("Location") != "/l/locked?qr=1" || len(res.Cookies()) != 1 {
		t.Fatalf("wrong password: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	// The page it goes back to is asked with itself as Referer: the referrer comes with the note.
	res, body = e.visit(t, "GET", "/l/locked?qr=1", chromeUA, nil, "Referer", self, "Cookie", res.Cookies()[0].Name+"="+res.Cookies()[0].Value)
	if m := hidden.FindStringSubmatch(body); res.StatusCode != 401 || m == nil || html.UnescapeString(m[1]) != from {
		t.Fatalf("wrong password page %d does not carry the referrer on: %s", res.StatusCode, body)
	}
	res, _ = e.visit(t, "POST", "/l/locked?qr=1", chromeUA, url.Values{"password": {"open sesame"}, "ref": {from}}, "Referer", self)
	if res.StatusCode != 303 || res.Header.Get("Location") != "https://example.com/plans" {
		t.Fatalf("right password: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	// A form without a referrer (the page was opened directly) is a direct visit.
	e.visit(t, "POST", "/l/locked", chromeUA, url.Values{"password": {"open sesame"}}, "Referer", e.srv.URL+"/l/locked")
	e.flushClicks(t)
	clicks := e.do("GET", "/api/v1/links/"+id+"/clicks", secret, nil).want(t, 200).json(t)["data"].([]any)
	if len(clicks) != 2 {
		t.Fatalf("%d clicks, want 2", len(clicks))
	}
	direct, came := clicks[0].(map[string]any), clicks[1].(map[string]any)
	if came["referrer"] != from || came["referrer_host"] != "news.example.org" || came["qr"] != true {
		t.Fatalf("click after the password: %v", came)
	}
	if direct["referrer"] != nil || direct["referrer_host"] != nil {
		t.Fatalf("direct click after the password: %v", direct)
	}

	// The password removed while a visitor had the page open: the form's post still gets 303.
	e.do("PATCH", "/api/v1/links/"+id, secret, map[string]any{"password": nil}).want(t, 200)
	res, _ = e.visit(t, "POST", "/l/locked", chromeUA, url.Values{"password": {"open sesame"}, "ref": {from}}, "Referer", self)
	if res.StatusCode != 303 || res.Header.Get("Location") != "https://example.com/plans" {
		t.Fatalf("a stale form's post: %d %q, want 303 (307 would post the password to the target)", res.StatusCode, res.Header.Get("Location"))
	}
	if res, _ := e.visit(t, "GET", "/l/locked", chromeUA, nil); res.StatusCode != 307 {
		t.Fatalf("a visit: %d, want the link's 307", res.StatusCode)
	}
}

// Concurrent calls with the same external_id: PUTs (an integration syncing its records,
// retrying) create the link once and update it otherwise; POSTs create it once and the
// others are 409 external_id_taken. On PostgreSQL the losers were 409 slug_taken naming
// slug, which none of them had sent.
func TestExternalIDUnderConcurrency(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		race := func(n int, call func() *response) map[string]int {
			var mu sync.Mutex
			var wg sync.WaitGroup
			got := map[string]int{}
			gate := make(chan struct{})
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-gate
					r := call()
					var body struct{ Error struct{ Code, Param string } }
					_ = json.Unmarshal(r.body, &body)
					mu.Lock()
					got[fmt.Sprintf("%d %s %s", r.StatusCode, body.Error.Code, body.Error.Param)]++
					mu.Unlock()
				}()
			}
			close(gate)
			wg.Wait()
			return got
		}
		put := race(12, func() *response {
			return e.do("PUT", "/api/v1/links/ext_crm-7", secret, map[string]any{"url": "https://example.com/7", "title": "Seven"})
		})
		if put["201  "] != 1 || put["200  "] != 11 {
			t.Fatalf("12 PUTs: %v, want one 201 and eleven 200", put)
		}
		post := race(8, func() *response {
			return e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/8", "external_id": "crm-8"})
		})
		if post["201  "] != 1 || post["409 external_id_taken external_id"] != 7 {
			t.Fatalf("8 POSTs: %v, want one 201 and seven 409 external_id_taken", post)
		}
		for _, q := range []string{"search=example.com/7", "search=example.com/8"} {
			if n := len(e.do("GET", "/api/v1/links?"+q, secret, nil).want(t, 200).json(t)["data"].([]any)); n != 1 {
				t.Fatalf("%s: %d links", q, n)
			}
		}
	})
}

// A slug in use is 409 slug_taken for every call that sets one (the OpenAPI document listed
// 409 for none of PATCH, bulk PATCH and PUT), and a deleted link's slug is free again after
// 30 days for a rename too (only a new link could take it; a PATCH stayed 409 for ever).
func TestSlugTakenOnUpdate(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		one := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/1", "slug": "one"}).want(t, 201).json(t)
		two := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/2", "slug": "two",
			"external_id": "two"}).want(t, 201).json(t)
		id := two["id"].(string)
		for _, c := range []struct {
			method, path string
			body         any
			param        string
		}{
			{"PATCH", "/api/v1/links/" + id, map[string]any{"slug": "one"}, "slug"},
			{"PUT", "/api/v1/links/ext_two", map[string]any{"slug": "one"}, "slug"},
			{"PATCH", "/api/v1/links/bulk", map[string]any{"links": []any{map[string]any{"id": id, "slug": "one"}}}, "links[0].slug"},
			{"PATCH", "/api/v1/links/" + id, map[string]any{"external_id": "x", "slug": "three"}, ""},
			{"PATCH", "/api/v1/links/" + one["id"].(string), map[string]any{"external_id": "x"}, "external_id"},
		} {
			r := e.do(c.method, c.path, secret, c.body)
			if c.param == "" {
				r.want(t, 200)
				continue
			}
			code := "slug_taken"
			if c.param == "external_id" {
				code = "external_id_taken"
			}
			if got := r.wantError(t, 409, code); got["param"] != c.param {
				t.Fatalf("%s %s: %v", c.method, c.path, got)
			}
		}

		e.do("DELETE", "/api/v1/links/"+one["id"].(string), secret, nil).want(t, 200)
		e.do("PATCH", "/api/v1/links/"+id, secret, map[string]any{"slug": "one"}).wantError(t, 409, "slug_taken")
		e.clock.Advance(30*24*time.Hour + time.Minute)
		if got := e.do("PATCH", "/api/v1/links/"+id, secret, map[string]any{"slug": "one"}).want(t, 200).json(t); got["slug"] != "one" {
			t.Fatalf("renamed: %v", got)
		}
		if res, _ := e.visit(t, "GET", "/l/one", chromeUA, nil); res.StatusCode != 302 || res.Header.Get("Location") != "https://example.com/2" {
			t.Fatalf("/l/one: %d %q", res.StatusCode, res.Header.Get("Location"))
		}
	})
}

// List filters answer the same on SQLite and PostgreSQL: a tag is matched exactly, case
// included (SQLite's LIKE ignored the case of ASCII letters, PostgreSQL's did not), and
// search ignores case in any script (SQLite's lower() folded ASCII letters only).
func TestLinkListFiltersAgreeOnBothDatabases(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		for _, l := range []map[string]any{
			{"url": "https://example.com/1", "slug": "big-launch", "tags": []string{"Launch"}},
			{"url": "https://example.com/2", "slug": "small-launch", "tags": []string{"launch", "Été"}},
			{"url": "https://example.com/3", "slug": "about", "title": "Über uns"},
			{"url": "https://example.com/CAFÉ", "slug": "Menu"},
			{"url": "https://example.com/4", "slug": "odyssey", "title": "ΟΔΥΣΣΕΥΣ"},
			{"url": "https://example.com/5", "slug": "street", "title": "Hauptstraße"},
		} {
			e.do("POST", "/api/v1/links", secret, l).want(t, 201)
		}
		for query, want := range map[string]string{
			"tag=Launch": "big-launch", "tag=launch": "small-launch", "tag=LAUNCH": "", "tag=%C3%89t%C3%A9": "small-launch",
			"tag=%C3%A9t%C3%A9": "", "tag=Laun": "",
			"search=%C3%BCber": "about", "search=%C3%9CBER": "about", "search=UBER": "",
			"search=caf%C3%A9": "Menu", "search=MENU": "Menu", "search=LAUNCH": "small-launch,big-launch",
			// Letters lower-casing leaves apart: final sigma and σ, ß and ss.
			"search=" + url.QueryEscape("οδυσσευς"): "odyssey", "search=" + url.QueryEscape("Οδυσσεύς"): "",
			"search=STRASSE": "street", "search=" + url.QueryEscape("straße"): "street",
		} {
			var got []string
			for _, l := range e.do("GET", "/api/v1/links?"+query, secret, nil).want(t, 200).json(t)["data"].([]any) {
				got = append(got, l.(map[string]any)["slug"].(string))
			}
			if strings.Join(got, ",") != want {
				t.Errorf("%s: %v, want %q", query, got, want)
			}
		}
	})
}

// A link cannot point at a short link of the service (url, expired_url, ios_url,
// android_url): one pointing at itself looped until the browser gave up, each turn a
// counted click and a link.clicked webhook (31 clicks for one curl -L). Nor at a URL with a
// user name or password, a phishing shape (https://bank.example@evil.example/).
func TestLinkTargetsThatLoopOrMisleadAreRefused(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	_, secret := e.owner.NewKey(t, e.svc, domain.ScopeAll)
	for _, c := range []struct {
		field, url string
	}{
		{"url", baseURL + "/l/loop"},
		{"url", "HTTP://Switchboard.TEST.:8080/l/other?x=1"},
		{"url", "https://switchboard.test:8080/l/loop"},
		{"expired_url", baseURL + "/l/loop"},
		{"ios_url", baseURL + "/l/x"},
		{"android_url", baseURL + "/l/%6coop"},
		{"url", "https://bank.example@evil.example/login"},
		{"expired_url", "https://user:secret@example.com/"},
		{"url", "https://evil.example:99999/"},
		{"ios_url", "https://example.com:0/"},
	} {
		body := map[string]any{"url": "https://example.com", "slug": "loop", c.field: c.url}
		if got := e.do("POST", "/api/v1/links", secret, body).wantError(t, 400, "validation_failed"); got["param"] != c.field {
			t.Fatalf("%s %s: %v", c.field, c.url, got)
		}
	}
	// The service's other pages, and other ports, are ordinary targets.
	for i, u := range []string{baseURL + "/user/api", baseURL + "/l/", "http://switchboard.test:9090/l/x", "https://example.com/l/x"} {
		e.do("POST", "/api/v1/links", secret, map[string]any{"url": u, "slug": fmt.Sprintf("ok-%d", i)}).want(t, 201)
	}
	link := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com", "slug": "later"}).want(t, 201).json(t)
	e.do("PATCH", "/api/v1/links/"+link["id"].(string), secret, map[string]any{"url": baseURL + "/l/later"}).
		wantError(t, 400, "validation_failed")
}

// statsSteps is a stats answer's time series as "start clicks/uniques" lines.
func statsSteps(stats map[string]any) []string {
	var out []string
	for _, b := range stats["timeseries"].([]any) {
		s := b.(map[string]any)
		out = append(out, fmt.Sprintf("%s %v/%v", s["start"], s["clicks"], s["uniques"]))
	}
	return out
}

// Stats in the caller's time zone: days run from local midnight to local midnight (25
// hours when Berlin leaves summer time, 23 when it enters it), hours are the zone's (half
// past the UTC hour in Kolkata), and every time in the answer carries the zone's offset.
// The totals and breakdowns of a range do not depend on the zone; uniques are per UTC day,
// so a local day across two UTC days counts the same visitor twice.
func TestLinkStatsTimezone(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeLinksRead, domain.ScopeLinksWrite)
		id := e.do("POST", "/api/v1/links", secret, map[string]any{"url": "https://example.com/tz", "slug": "zoned"}).
			want(t, http.StatusCreated).json(t)["id"].(string)
		// One visitor (the same address) clicks at known instants.
		for _, at := range []string{
			"2025-10-25T21:30:00Z", // Berlin 25 Oct 23:30 CEST
			"2025-10-25T22:30:00Z", // Berlin 26 Oct 00:30 CEST, UTC still 25 Oct
			"2025-10-26T00:30:00Z", // Berlin 02:30 CEST, the first 02:00 hour
			"2025-10-26T01:30:00Z", // Berlin 02:30 CET, the second
			"2025-10-26T22:59:00Z", // Berlin 26 Oct 23:59 CET
			"2025-10-26T23:00:00Z", // Berlin 27 Oct 00:00 CET
			"2025-10-27T18:29:00Z", // Kolkata 27 Oct 23:59 IST
			"2025-10-27T18:30:00Z", // Kolkata 28 Oct 00:00 IST
			"2025-10-27T18:45:00Z", // Kolkata 28 Oct 00:15 IST
			"2026-03-28T23:30:00Z", // Berlin 29 Mar 00:30 CET
			"2026-03-29T21:59:00Z", // Berlin 29 Mar 23:59 CEST, 23 hours later on the clock
			"2026-03-29T22:00:00Z", // Berlin 30 Mar 00:00 CEST
		} {
			when, err := time.Parse(time.RFC3339, at)
			if err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(when.Sub(e.clock.Now()))
			if res, _ := e.visit(t, "GET", "/l/zoned", chromeUA, nil); res.StatusCode != 302 {
				t.Fatalf("visit at %s: %d", at, res.StatusCode)
			}
		}
		e.flushClicks(t)
		e.clock.Advance(time.Date(2026, 3, 30, 0, 30, 0, 0, time.UTC).Sub(e.clock.Now())) // Berlin 02:30 CEST, Kolkata 06:00 IST
		stats := func(query string) map[string]any {
			t.Helper()
			return e.do("GET", "/api/v1/links/"+id+"/stats?"+query, secret, nil).want(t, 200).json(t)
		}
		check := func(query string, want ...string) map[string]any {
			t.Helper()
			s := stats(query)
			if got := statsSteps(s); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: series\n%s\nwant\n%s", query, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			return s
		}

		// Berlin's days around the end of summer time: 26 October is 25 hours long.
		berlin := check("interval=day&timezone=Europe/Berlin&from=2025-10-24T22:00:00Z&to=2025-10-28T23:00:00Z",
			"2025-10-25T00:00:00.000+02:00 1/1",
			"2025-10-26T00:00:00.000+02:00 4/2", // 00:30 CEST is still 25 October in UTC: a second unique
			"2025-10-27T00:00:00.000+01:00 4/2",
			"2025-10-28T00:00:00.000+01:00 0/0")
		if berlin["timezone"] != "Europe/Berlin" || berlin["from"] != "2025-10-25T00:00:00.000+02:00" ||
			berlin["to"] != "2025-10-29T00:00:00.000+01:00" || berlin["clicks"] != float64(9) || berlin["uniques"] != float64(3) {
			t.Errorf("Berlin: %v", berlin)
		}
		// The same range by UTC days: other days, the same totals and breakdowns.
		utc := check("interval=day&from=2025-10-24T22:00:00Z&to=2025-10-28T23:00:00Z",
			"2025-10-24T00:00:00.000Z 0/0",
			"2025-10-25T00:00:00.000Z 2/1",
			"2025-10-26T00:00:00.000Z 4/1",
			"2025-10-27T00:00:00.000Z 3/1",
			"2025-10-28T00:00:00.000Z 0/0")
		if utc["timezone"] != "UTC" || utc["from"] != "2025-10-24T22:00:00.000Z" {
			t.Errorf("UTC: %v", utc)
		}
		for _, k := range []string{"clicks", "uniques", "bots", "countries", "devices", "browsers", "os", "referrers"} {
			if !reflect.DeepEqual(utc[k], berlin[k]) {
				t.Errorf("%s: %v in UTC, %v in Berlin: a range's totals must not depend on the zone", k, utc[k], berlin[k])
			}
		}
		// Berlin's hours that night: 25 of them, 02:00 twice (summer time, then winter time).
		night := stats("interval=hour&timezone=Europe/Berlin&from=2025-10-25T22:00:00Z&to=2025-10-26T23:00:00Z")
		steps := statsSteps(night)
		if len(steps) != 25 || steps[0] != "2025-10-26T00:00:00.000+02:00 1/1" || steps[2] != "2025-10-26T02:00:00.000+02:00 1/1" ||
			steps[3] != "2025-10-26T02:00:00.000+01:00 1/1" || steps[4] != "2025-10-26T03:00:00.000+01:00 0/0" ||
			steps[24] != "2025-10-26T23:00:00.000+01:00 1/1" {
			t.Errorf("Berlin's hours of 26 October:\n%s", strings.Join(steps, "\n"))
		}
		// Kolkata's hours start half past the UTC hour, and its days at 18:30 UTC.
		check("interval=hour&timezone=Asia/Kolkata&from=2025-10-27T16:30:00Z&to=2025-10-27T20:30:00Z",
			"2025-10-27T22:00:00.000+05:30 0/0",
			"2025-10-27T23:00:00.000+05:30 1/1",
			"2025-10-28T00:00:00.000+05:30 2/1",
			"2025-10-28T01:00:00.000+05:30 0/0")
		check("interval=hour&from=2025-10-27T16:30:00Z&to=2025-10-27T20:30:00Z",
			"2025-10-27T16:00:00.000Z 0/0",
			"2025-10-27T17:00:00.000Z 0/0",
			"2025-10-27T18:00:00.000Z 3/1",
			"2025-10-27T19:00:00.000Z 0/0",
			"2025-10-27T20:00:00.000Z 0/0")
		check("interval=day&timezone=Asia/Kolkata&from=2025-10-26T18:30:00Z&to=2025-10-28T18:30:00Z",
			"2025-10-27T00:00:00.000+05:30 3/2", // 04:29 and 04:30 IST are 26 October in UTC
			"2025-10-28T00:00:00.000+05:30 2/1")
		// Berlin enters summer time: 29 March 2026 is 23 hours long.
		check("interval=day&timezone=Europe/Berlin&from=2026-03-27T23:00:00Z&to=2026-03-30T22:00:00Z",
			"2026-03-28T00:00:00.000+01:00 0/0",
			"2026-03-29T00:00:00.000+01:00 2/2",
			"2026-03-30T00:00:00.000+02:00 1/1")

		// The default range ends with the zone's current day (or hour): it is 30 March in
		// Berlin (02:30 CEST), 06:00 in Kolkata.
		def := stats("timezone=Europe/Berlin")
		steps = statsSteps(def)
		if def["from"] != "2026-03-01T00:00:00.000+01:00" || def["to"] != "2026-03-31T00:00:00.000+02:00" || len(steps) != 30 ||
			steps[28] != "2026-03-29T00:00:00.000+01:00 2/2" || steps[29] != "2026-03-30T00:00:00.000+02:00 1/1" {
			t.Errorf("Berlin's last 30 days: from %v to %v\n%s", def["from"], def["to"], strings.Join(steps, "\n"))
		}
		hours := stats("interval=hour&timezone=Asia/Kolkata")
		steps = statsSteps(hours)
		if hours["to"] != "2026-03-30T07:00:00.000+05:30" || len(steps) != 24 || steps[23] != "2026-03-30T06:00:00.000+05:30 0/0" ||
			steps[20] != "2026-03-30T03:00:00.000+05:30 2/1" { // 21:59 and 22:00 UTC
			t.Errorf("Kolkata's last 24 hours: to %v\n%s", hours["to"], strings.Join(steps, "\n"))
		}
		if u := statsSteps(stats("")); len(u) != 30 || u[29] != "2026-03-30T00:00:00.000Z 0/0" || u[28] != "2026-03-29T00:00:00.000Z 2/1" ||
			u[27] != "2026-03-28T00:00:00.000Z 1/1" {
			t.Errorf("UTC's last 30 days:\n%s", strings.Join(u, "\n"))
		}

		// A zone that is not an IANA name is refused, naming the parameter.
		for _, tz := range []string{"Mars/Olympus_Mons", "Local", "europe/berlin", "+05:30", "../../etc/passwd",
			"America/" + strings.Repeat("X", 60)} {
			got := e.do("GET", "/api/v1/links/"+id+"/stats?timezone="+url.QueryEscape(tz), secret, nil).wantError(t, 400, "validation_failed")
			if got["param"] != "timezone" {
				t.Errorf("timezone=%s: %v", tz, got)
			}
		}
	})
}

// The OpenAPI document lists the stats' timezone parameter beside interval.
func TestLinkStatsTimezoneDocumented(t *testing.T) {
	e := newEnv(t, store.SQLite, rest.Options{})
	op := e.doc.Paths.Find("/api/v1/links/{id}/stats").Get
	var names []string
	for _, p := range op.Parameters {
		names = append(names, p.Value.Name)
	}
	tz := op.Parameters.GetByInAndName("query", "timezone")
	if tz == nil || tz.Required || tz.Schema.Value.MaxLength == nil || *tz.Schema.Value.MaxLength != 64 ||
		!tz.Schema.Value.Type.Is("string") || tz.Example != "Europe/Berlin" || !strings.Contains(tz.Description, "IANA") {
		t.Fatalf("stats parameters %v; timezone %+v", names, tz)
	}
	start := e.doc.Components.Schemas["StatsBucket"].Value.Properties["start"].Value
	if start.Format != "date-time" || !strings.Contains(start.Description, "offset") {
		t.Fatalf("a step's start: %+v", start)
	}
	if e.doc.Components.Schemas["LinkStats"].Value.Properties["timezone"] == nil {
		t.Fatal("the stats do not echo their timezone")
	}
}
