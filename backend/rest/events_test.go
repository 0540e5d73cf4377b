package rest_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

func TestEvents(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		ctx := context.Background()
		// The owner's workspace.created, then six api_key.created and one api_key.revoked.
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeEventsRead)
		for i := 0; i < 4; i++ {
			e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)
		}
		revoked, _ := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)
		if _, err := e.svc.Keys.Revoke(ctx, e.owner.Actor, revoked.ID); err != nil {
			t.Fatal(err)
		}

		all := e.do("GET", "/api/v1/events", secret, nil).want(t, http.StatusOK).json(t)
		data := all["data"].([]any)
		if len(data) != 8 || all["has_more"] != false || all["next_cursor"] != nil || all["object"] != "list" {
			t.Fatalf("list: %v", all)
		}
		newest := data[0].(map[string]any)
		if newest["type"] != "api_key.revoked" || newest["workspace_id"] != e.owner.Workspace.ID ||
			newest["data"].(map[string]any)["id"] != revoked.ID {
			t.Errorf("newest event %v", newest)
		}

		// Cursor pagination walks every event once, newest first.
		var seen []string
		after := ""
		for page := 0; page < 10; page++ {
			q := "/api/v1/events?limit=3"
			if after != "" {
				q += "&after=" + after
			}
			got := e.do("GET", q, secret, nil).want(t, http.StatusOK).json(t)
			for _, ev := range got["data"].([]any) {
				seen = append(seen, ev.(map[string]any)["id"].(string))
			}
			if got["has_more"] == false {
				if got["next_cursor"] != nil {
					t.Errorf("last page with a cursor: %v", got["next_cursor"])
				}
				break
			}
			after = got["next_cursor"].(string)
		}
		if len(seen) != 8 {
			t.Fatalf("paged through %d events, want 8: %v", len(seen), seen)
		}
		for i := range seen {
			if seen[i] != data[i].(map[string]any)["id"] {
				t.Fatalf("pages disagree with the full list at %d", i)
			}
		}

		// Filters: types repeated or comma-separated, and time.
		count := func(query string) int {
			t.Helper()
			return len(e.do("GET", "/api/v1/events?"+query, secret, nil).want(t, http.StatusOK).json(t)["data"].([]any))
		}
		if n := count("type=api_key.revoked"); n != 1 {
			t.Errorf("type=api_key.revoked: %d", n)
		}
		if n := count("type=api_key.revoked,workspace.created"); n != 2 {
			t.Errorf("comma-separated types: %d", n)
		}
		if n := count("type=api_key.revoked&type=api_key.created"); n != 7 {
			t.Errorf("repeated types: %d", n)
		}
		now := e.clock.Now()
		if n := count("since=" + url.QueryEscape(now.Add(-time.Minute).Format(time.RFC3339))); n != 8 {
			t.Errorf("since a minute ago: %d", n)
		}
		if n := count("since=" + url.QueryEscape(now.Add(time.Minute).Format(time.RFC3339))); n != 0 {
			t.Errorf("since a minute ahead: %d", n)
		}
		if n := count("until=" + url.QueryEscape(now.Add(-time.Minute).Format(time.RFC3339))); n != 0 {
			t.Errorf("until a minute ago: %d", n)
		}

		// One event by id: the same envelope as in the list.
		one := e.do("GET", "/api/v1/events/"+newest["id"].(string), secret, nil).want(t, http.StatusOK).json(t)
		if mustJSON(one) != mustJSON(newest) {
			t.Errorf("get %v\nlist %v", one, newest)
		}
		e.do("GET", "/api/v1/events/evt_01jr8c4a9fz3x1w7v5t3r1p9n7", secret, nil).wantError(t, http.StatusNotFound, "not_found")
		e.do("GET", "/api/v1/events/not-an-id", secret, nil).wantError(t, http.StatusNotFound, "not_found")
	})
}

func TestEventsBadInput(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeEventsRead)
		cases := []struct{ query, param string }{
			{"limit=0", "limit"},
			{"limit=101", "limit"},
			{"limit=ten", "limit"},
			{"limit=-1", "limit"},
			{"type=no.such_type", "type"},
			{"type=api_key.created,no.such_type", "type"},
			{"since=yesterday", "since"},
			{"until=2025-13-01T00:00:00Z", "until"},
			{"since=2025-04-02T00:00:00Z&until=2025-04-01T00:00:00Z", "until"},
			{"types=api_key.created", "types"}, // GraphQL's argument name: never read as "no filter"
			{"limit=5&instance_id=inst_01jc0000000000000000000001", "instance_id"},
			{"limit=5&limit=50", "limit"}, // one value: which would count is a guess
		}
		for _, c := range cases {
			got := e.do("GET", "/api/v1/events?"+c.query, secret, nil).wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != c.param || got["type"] != "invalid_request_error" {
				t.Errorf("?%s: param %v, want %s (%v)", c.query, got["param"], c.param, got["message"])
			}
		}
		// A list parameter may be given again (or comma-separated).
		e.do("GET", "/api/v1/events?type=api_key.created&type=api_key.revoked", secret, nil).want(t, http.StatusOK)
		// An operation without parameters refuses them too.
		if got := e.do("GET", "/api/v1/me?expand=workspace", secret, nil).wantError(t, http.StatusBadRequest, "validation_failed"); got["param"] != "expand" {
			t.Errorf("/me?expand: %v", got)
		}
	})
}

func TestEventTypes(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead) // any valid key
		got := e.do("GET", "/api/v1/event-types", secret, nil).want(t, http.StatusOK).json(t)
		types := map[string]map[string]any{}
		for _, item := range got["data"].([]any) {
			it := item.(map[string]any)
			types[it["type"].(string)] = it
		}
		for _, want := range []string{domain.EventWorkspaceCreated, domain.EventAPIKeyCreated, domain.EventAPIKeyRevoked} {
			it, ok := types[want]
			if !ok || it["description"] == "" || it["sample"] == nil {
				t.Errorf("event type %s: %v", want, it)
			}
		}

		// A sample has exactly the fields of a live event's data.
		_, events := e.owner.NewKey(t, e.svc, domain.ScopeEventsRead)
		live := e.do("GET", "/api/v1/events?type=api_key.created&limit=1", events, nil).want(t, http.StatusOK).json(t)
		liveData := live["data"].([]any)[0].(map[string]any)["data"].(map[string]any)
		sample := types[domain.EventAPIKeyCreated]["sample"].(map[string]any)
		for k := range liveData {
			if _, ok := sample[k]; !ok {
				t.Errorf("the sample of api_key.created lacks %q", k)
			}
		}
		for k := range sample {
			if _, ok := liveData[k]; !ok {
				t.Errorf("the sample of api_key.created has %q, which live events lack", k)
			}
		}
		e.do("GET", "/api/v1/event-types", "", nil).wantError(t, http.StatusUnauthorized, "missing_api_key")
	})
}

// samplesMatchLive checks, for each event type, that the catalog's sample has exactly the
// fields of the newest live event's data, one level down too (the shape a workflow tool
// maps fields from).
func samplesMatchLive(t *testing.T, e *env, secret string, types ...string) {
	t.Helper()
	catalog := map[string]any{}
	for _, item := range e.do("GET", "/api/v1/event-types", secret, nil).want(t, http.StatusOK).json(t)["data"].([]any) {
		it := item.(map[string]any)
		catalog[it["type"].(string)] = it["sample"]
	}
	var same func(path string, live, sample any)
	same = func(path string, live, sample any) {
		l, lok := live.(map[string]any)
		s, sok := sample.(map[string]any)
		if !lok || !sok {
			return
		}
		for k := range l {
			if _, ok := s[k]; !ok {
				t.Errorf("the sample lacks %s.%s", path, k)
			}
		}
		for k := range s {
			if _, ok := l[k]; !ok {
				t.Errorf("the sample has %s.%s, which live events lack", path, k)
			} else if strings.Count(path, ".") < 1 {
				same(path+"."+k, l[k], s[k])
			}
		}
	}
	for _, typ := range types {
		live := e.do("GET", "/api/v1/events?limit=1&type="+typ, secret, nil).want(t, http.StatusOK).json(t)["data"].([]any)
		if len(live) == 0 {
			t.Errorf("no live %s event to compare", typ)
			continue
		}
		same(typ, live[0].(map[string]any)["data"], catalog[typ])
	}
}

// A cursor into events the retention job has deleted is 410 cursor_expired (naming after),
// not a silent empty page; listing from the start still works.
func TestEventsCursorExpired(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeEventsRead)
		for range 3 {
			e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)
		}
		page := e.do("GET", "/api/v1/events?limit=1", secret, nil).want(t, http.StatusOK).json(t)
		cursor := page["next_cursor"].(string)
		e.do("GET", "/api/v1/events?limit=1&after="+cursor, secret, nil).want(t, http.StatusOK)
		if _, err := e.store.PruneEvents(context.Background(), time.Now().Add(100*365*24*time.Hour), 1000); err != nil {
			t.Fatal(err)
		}
		got := e.do("GET", "/api/v1/events?limit=1&after="+cursor, secret, nil).wantError(t, http.StatusGone, "cursor_expired")
		if got["param"] != "after" {
			t.Fatalf("param %v", got["param"])
		}
		e.do("GET", "/api/v1/events", secret, nil).want(t, http.StatusOK)
	})
}
