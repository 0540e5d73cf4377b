package rest_test

import (
	"database/sql"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

var newHook = map[string]any{
	"url":         "https://hooks.example.com/switchboard",
	"description": "Order system",
	"event_types": []string{"api_key.created", "api_key.revoked"},
}

func TestWebhooksJourney(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeWebhooksRead, domain.ScopeWebhooksWrite, domain.ScopeInstancesWrite)

		created := e.do("POST", "/api/v1/webhooks", secret, newHook).want(t, http.StatusCreated).json(t)
		id, _ := created["id"].(string)
		if !strings.HasPrefix(id, "wh_") || !strings.HasPrefix(created["secret"].(string), "whsec_") ||
			created["enabled"] != true || created["instance_id"] != nil || created["disabled_reason"] != nil {
			t.Fatalf("created: %v", created)
		}

		// The secret is shown once: never in a read.
		got := e.do("GET", "/api/v1/webhooks/"+id, secret, nil).want(t, http.StatusOK).json(t)
		if _, ok := got["secret"]; ok {
			t.Error("GET shows the signing secret")
		}
		delete(created, "secret")
		if mustJSON(got) != mustJSON(created) {
			t.Errorf("get %v\ncreate %v", got, created)
		}
		list := e.do("GET", "/api/v1/webhooks", secret, nil).want(t, http.StatusOK).json(t)
		if data := list["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != id || list["has_more"] != false {
			t.Errorf("list: %v", list)
		}

		// PATCH changes what is sent and keeps the rest.
		inst := e.do("POST", "/api/v1/instances", secret, map[string]any{"name": "Support"}).want(t, http.StatusCreated).json(t)["id"]
		upd := e.do("PATCH", "/api/v1/webhooks/"+id, secret, map[string]any{"event_types": []string{"api_key.revoked"}, "instance_id": inst}).
			want(t, http.StatusOK).json(t)
		if upd["url"] != newHook["url"] || upd["instance_id"] != inst || upd["event_types"].([]any)[0] != "api_key.revoked" {
			t.Errorf("patched: %v", upd)
		}
		upd = e.do("PATCH", "/api/v1/webhooks/"+id, secret, `{"instance_id": null, "enabled": false}`).want(t, http.StatusOK).json(t)
		if upd["instance_id"] != nil || upd["enabled"] != false || upd["disabled_reason"] == nil {
			t.Errorf("instance_id null removes the filter; enabled false disables: %v", upd)
		}
		// A disabled endpoint takes no test.
		e.do("POST", "/api/v1/webhooks/"+id+"/test", secret, nil).wantError(t, http.StatusConflict, "webhook_disabled")
		e.do("PATCH", "/api/v1/webhooks/"+id, secret, map[string]any{"enabled": true}).want(t, http.StatusOK)

		// Rotation returns a new secret; the old one signs for 24 hours more.
		rot := e.do("POST", "/api/v1/webhooks/"+id+"/rotate-secret", secret, nil).want(t, http.StatusOK).json(t)
		if rot["secret"] == nil || rot["secret"] == created["secret"] ||
			rot["previous_secret_expires_at"] != e.clock.Now().Add(24*time.Hour).Format(domain.TimeFormat) {
			t.Errorf("rotated: %v", rot)
		}

		// Test deliveries: the default event, a chosen one, and an unknown type.
		first := e.do("POST", "/api/v1/webhooks/"+id+"/test", secret, nil).want(t, http.StatusAccepted).json(t)
		if first["event_type"] != "webhook.test" || first["status"] != "pending" || first["webhook_id"] != id {
			t.Errorf("test delivery: %v", first)
		}
		chosen := e.do("POST", "/api/v1/webhooks/"+id+"/test", secret, map[string]any{"event_type": "api_key.revoked"}).
			want(t, http.StatusAccepted).json(t)
		if chosen["event_type"] != "api_key.revoked" {
			t.Errorf("test delivery of a chosen type: %v", chosen)
		}
		bad := e.do("POST", "/api/v1/webhooks/"+id+"/test", secret, map[string]any{"event_type": "no.such"}).
			wantError(t, http.StatusBadRequest, "validation_failed")
		if bad["param"] != "event_type" {
			t.Errorf("param %v", bad["param"])
		}

		// Deliveries: listed newest first, paged, fetched and retried.
		dl := e.do("GET", "/api/v1/webhooks/"+id+"/deliveries", secret, nil).want(t, http.StatusOK).json(t)
		data := dl["data"].([]any)
		if len(data) != 2 || data[0].(map[string]any)["id"] != chosen["id"] {
			t.Fatalf("deliveries: %v", dl)
		}
		page := e.do("GET", "/api/v1/webhooks/"+id+"/deliveries?limit=1", secret, nil).want(t, http.StatusOK).json(t)
		if page["has_more"] != true || page["next_cursor"] != chosen["id"] {
			t.Errorf("first page: %v", page)
		}
		page = e.do("GET", "/api/v1/webhooks/"+id+"/deliveries?limit=1&after="+page["next_cursor"].(string), secret, nil).
			want(t, http.StatusOK).json(t)
		if d := page["data"].([]any); len(d) != 1 || d[0].(map[string]any)["id"] != first["id"] || page["has_more"] != false {
			t.Errorf("second page: %v", page)
		}
		e.do("GET", "/api/v1/webhooks/"+id+"/deliveries?after=garbage", secret, nil).wantError(t, http.StatusBadRequest, "validation_failed")
		did := first["id"].(string)
		one := e.do("GET", "/api/v1/webhooks/"+id+"/deliveries/"+did, secret, nil).want(t, http.StatusOK).json(t)
		if one["id"] != did {
			t.Errorf("delivery: %v", one)
		}
		retried := e.do("POST", "/api/v1/webhooks/"+id+"/deliveries/"+did+"/retry", secret, nil).want(t, http.StatusAccepted).json(t)
		if retried["id"] != did || retried["status"] != "pending" {
			t.Errorf("retried: %v", retried)
		}
		e.do("GET", "/api/v1/webhooks/"+id+"/deliveries/whd_01jr8d2m6p8r0t2v4x6z8b0d2f", secret, nil).wantError(t, http.StatusNotFound, "not_found")
		e.do("POST", "/api/v1/webhooks/"+id+"/deliveries/whd_01jr8d2m6p8r0t2v4x6z8b0d2f/retry", secret, nil).wantError(t, http.StatusNotFound, "not_found")

		// Every change is an event.
		_, events := e.owner.NewKey(t, e.svc, domain.ScopeEventsRead)
		log := e.do("GET", "/api/v1/events?type=webhook.created,webhook.updated,webhook.secret_rotated,webhook.deleted", events, nil).
			want(t, http.StatusOK).json(t)
		if n := len(log["data"].([]any)); n != 5 { // created, 3 updates, rotated
			t.Errorf("%d webhook events, want 5", n)
		}

		del := e.do("DELETE", "/api/v1/webhooks/"+id, secret, nil).want(t, http.StatusOK).json(t)
		if del["id"] != id || del["deleted"] != true || del["object"] != "webhook" {
			t.Errorf("deleted: %v", del)
		}
		e.do("GET", "/api/v1/webhooks/"+id, secret, nil).wantError(t, http.StatusNotFound, "not_found")
		e.do("DELETE", "/api/v1/webhooks/"+id, secret, nil).wantError(t, http.StatusNotFound, "not_found")
	})
}

func TestWebhooksBadInput(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{MaxBodyBytes: 4096})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeWebhooksRead, domain.ScopeWebhooksWrite)
		with := func(k string, v any) map[string]any {
			m := map[string]any{}
			for kk, vv := range newHook {
				m[kk] = vv
			}
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
			return m
		}
		cases := []struct {
			name        string
			body        any
			contentType string
			status      int
			code, param string
		}{
			{"unknown field", with("colour", "blue"), "", 400, "validation_failed", "colour"},
			{"unknown nested-looking field", `{"url":"https://hooks.example.com/a","event_types":["*"],"secret":"whsec_mine"}`, "", 400, "validation_failed", "secret"},
			{"no url", with("url", nil), "", 400, "validation_failed", "url"},
			{"relative url", with("url", "/hooks"), "", 400, "validation_failed", "url"},
			{"loopback url", with("url", "http://127.0.0.1:9000/hook"), "", 400, "validation_failed", "url"},
			{"metadata url", with("url", "http://169.254.169.254/latest"), "", 400, "validation_failed", "url"},
			{"port out of range", with("url", "https://hooks.example.com:99999/a"), "", 400, "validation_failed", "url"},
			{"port zero", with("url", "https://hooks.example.com:0/a"), "", 400, "validation_failed", "url"},
			{"no event types", with("event_types", []string{}), "", 400, "validation_failed", "event_types"},
			{"unknown event type", with("event_types", []string{"link.exploded"}), "", 400, "validation_failed", "event_types"},
			{"event types of the wrong type", with("event_types", "api_key.created"), "", 400, "validation_failed", "event_types"},
			{"bad instance id", with("instance_id", "ws_nope"), "", 400, "validation_failed", "instance_id"},
			{"not JSON", `{"url": `, "", 400, "validation_failed", ""},
			{"two objects", mustJSON(newHook) + mustJSON(newHook), "", 400, "validation_failed", ""},
			{"an array", `[1,2]`, "", 400, "validation_failed", ""},
			{"empty body", "", "", 400, "validation_failed", ""},
			{"text/plain", newHook, "text/plain", 415, "unsupported_media_type", "Content-Type"},
			{"form", "url=https://hooks.example.com", "application/x-www-form-urlencoded", 415, "unsupported_media_type", "Content-Type"},
			{"no content type", newHook, "-", 415, "unsupported_media_type", "Content-Type"},
			{"too large", with("description", strings.Repeat("x", 5000)), "", 413, "payload_too_large", ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ct := "application/json"
				switch c.contentType {
				case "-":
					ct = ""
				case "":
				default:
					ct = c.contentType
				}
				res := e.do("POST", "/api/v1/webhooks", secret, c.body, "Content-Type", ct)
				got := res.wantError(t, c.status, c.code)
				want := any(c.param)
				if c.param == "" {
					want = nil
				}
				if got["param"] != want {
					t.Errorf("param %v, want %v (%v)", got["param"], want, got["message"])
				}
				if got["type"] != "invalid_request_error" {
					t.Errorf("type %v", got["type"])
				}
			})
		}
		// A body over the limit without a Content-Length (streamed) is refused too.
		req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/webhooks", strings.NewReader(mustJSON(with("description", strings.Repeat("y", 5000)))))
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+secret)
		res, err := e.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("streamed large body: %d", res.StatusCode)
		}

		// PATCH is as strict.
		id := e.do("POST", "/api/v1/webhooks", secret, newHook).want(t, http.StatusCreated).json(t)["id"].(string)
		got := e.do("PATCH", "/api/v1/webhooks/"+id, secret, map[string]any{"urll": "https://x.example.com"}).wantError(t, http.StatusBadRequest, "validation_failed")
		if got["param"] != "urll" {
			t.Errorf("param %v", got["param"])
		}
		e.do("PATCH", "/api/v1/webhooks/"+id, secret, map[string]any{"enabled": "yes"}).wantError(t, http.StatusBadRequest, "validation_failed")
		e.do("PATCH", "/api/v1/webhooks/"+id, secret, newHook, "Content-Type", "text/plain").wantError(t, http.StatusUnsupportedMediaType, "unsupported_media_type")
		e.do("GET", "/api/v1/webhooks?limit=500", secret, nil).wantError(t, http.StatusBadRequest, "validation_failed")

		// Nothing was stored by the refused requests.
		list := e.do("GET", "/api/v1/webhooks", secret, nil).want(t, http.StatusOK).json(t)
		if n := len(list["data"].([]any)); n != 1 {
			t.Errorf("%d endpoints stored, want only the valid one", n)
		}
		hook := e.do("GET", "/api/v1/webhooks/"+id, secret, nil).want(t, http.StatusOK).json(t)
		if hook["url"] != newHook["url"] || hook["enabled"] != true {
			t.Errorf("refused PATCHes changed the endpoint: %v", hook)
		}
	})
}

func TestWebhooksScopesAndWorkspaces(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, full := e.owner.NewKey(t, e.svc, domain.ScopeWebhooksRead, domain.ScopeWebhooksWrite)
		_, readOnly := e.owner.NewKey(t, e.svc, domain.ScopeWebhooksRead)
		_, none := e.owner.NewKey(t, e.svc, domain.ScopeModelsRead)
		id := e.do("POST", "/api/v1/webhooks", full, newHook).want(t, http.StatusCreated).json(t)["id"].(string)
		did := e.do("POST", "/api/v1/webhooks/"+id+"/test", full, nil).want(t, http.StatusAccepted).json(t)["id"].(string)

		type call struct {
			method, path string
			body         any
			write        bool
		}
		calls := []call{
			{"GET", "/api/v1/webhooks", nil, false},
			{"POST", "/api/v1/webhooks", newHook, true},
			{"GET", "/api/v1/webhooks/" + id, nil, false},
			{"PATCH", "/api/v1/webhooks/" + id, map[string]any{"description": "changed"}, true},
			{"DELETE", "/api/v1/webhooks/" + id, nil, true},
			{"POST", "/api/v1/webhooks/" + id + "/rotate-secret", nil, true},
			{"POST", "/api/v1/webhooks/" + id + "/test", nil, true},
			{"GET", "/api/v1/webhooks/" + id + "/deliveries", nil, false},
			{"GET", "/api/v1/webhooks/" + id + "/deliveries/" + did, nil, false},
			{"POST", "/api/v1/webhooks/" + id + "/deliveries/" + did + "/retry", nil, true},
		}
		for _, c := range calls {
			scope := "webhooks:read"
			if c.write {
				scope = "webhooks:write"
				got := e.do(c.method, c.path, readOnly, c.body).wantError(t, http.StatusForbidden, "insufficient_scope")
				if !strings.Contains(got["message"].(string), scope) {
					t.Errorf("%s %s: message %q does not name %s", c.method, c.path, got["message"], scope)
				}
			}
			got := e.do(c.method, c.path, none, c.body).wantError(t, http.StatusForbidden, "insufficient_scope")
			if !strings.Contains(got["message"].(string), scope) {
				t.Errorf("%s %s: message %q does not name %s", c.method, c.path, got["message"], scope)
			}
		}

		// Another workspace's key, with every scope, finds nothing.
		other := servicetest.NewOwner(t, e.svc)
		_, theirs := other.NewKey(t, e.svc, domain.ScopeAll)
		for _, c := range calls {
			if !strings.Contains(c.path, id) {
				continue
			}
			e.do(c.method, c.path, theirs, c.body).wantError(t, http.StatusNotFound, "not_found")
		}
		if n := len(e.do("GET", "/api/v1/webhooks", theirs, nil).want(t, http.StatusOK).json(t)["data"].([]any)); n != 0 {
			t.Errorf("workspace B lists %d of A's endpoints", n)
		}
		hook := e.do("GET", "/api/v1/webhooks/"+id, full, nil).want(t, http.StatusOK).json(t)
		if hook["description"] != newHook["description"] {
			t.Errorf("another workspace changed the endpoint: %v", hook)
		}
	})
}

func TestIdempotency(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeWebhooksRead, domain.ScopeWebhooksWrite)
		_, sameWorkspace := e.owner.NewKey(t, e.svc, domain.ScopeAll)
		count := func() int {
			return len(e.do("GET", "/api/v1/webhooks", secret, nil).want(t, http.StatusOK).json(t)["data"].([]any))
		}

		first := e.do("POST", "/api/v1/webhooks", secret, newHook, "Idempotency-Key", "create-1").want(t, http.StatusCreated)
		if first.Header.Get("Idempotent-Replayed") != "" {
			t.Error("a first request is marked as a replay")
		}
		// Same key, same body: the first response again (secret included), nothing new stored.
		again := e.do("POST", "/api/v1/webhooks", secret, newHook, "Idempotency-Key", "create-1").want(t, http.StatusCreated)
		if again.Header.Get("Idempotent-Replayed") != "true" || string(again.body) != string(first.body) {
			t.Errorf("replay: %s %q\nfirst: %s", again.body, again.Header.Get("Idempotent-Replayed"), first.body)
		}
		// Keys belong to the workspace: another key of it replays too.
		e.do("POST", "/api/v1/webhooks", sameWorkspace, newHook, "Idempotency-Key", "create-1").want(t, http.StatusCreated)
		if n := count(); n != 1 {
			t.Fatalf("%d endpoints after replays, want 1", n)
		}

		// Same key, different body: a conflict.
		other := map[string]any{"url": "https://hooks.example.com/other", "event_types": []string{"*"}}
		got := e.do("POST", "/api/v1/webhooks", secret, other, "Idempotency-Key", "create-1").wantError(t, http.StatusConflict, "idempotency_conflict")
		if got["param"] != "Idempotency-Key" {
			t.Errorf("param %v", got["param"])
		}
		// ... and the same body on another path is a different request too.
		e.do("POST", "/api/v1/webhooks/"+first.json(t)["id"].(string)+"/test", secret, newHook, "Idempotency-Key", "create-1").
			wantError(t, http.StatusConflict, "idempotency_conflict")

		// Different keys are independent.
		two := e.do("POST", "/api/v1/webhooks", secret, newHook, "Idempotency-Key", "create-2").want(t, http.StatusCreated)
		if two.json(t)["id"] == first.json(t)["id"] {
			t.Error("a new key replayed another key's response")
		}
		e.do("POST", "/api/v1/webhooks", secret, newHook).want(t, http.StatusCreated) // no key: no idempotency
		if n := count(); n != 3 {
			t.Errorf("%d endpoints, want 3", n)
		}

		// Another workspace may use the same key string.
		stranger := servicetest.NewOwner(t, e.svc)
		_, theirs := stranger.NewKey(t, e.svc, domain.ScopeAll)
		theirFirst := e.do("POST", "/api/v1/webhooks", theirs, newHook, "Idempotency-Key", "create-1").want(t, http.StatusCreated)
		if theirFirst.Header.Get("Idempotent-Replayed") != "" || theirFirst.json(t)["id"] == first.json(t)["id"] {
			t.Error("another workspace got this workspace's replay")
		}

		// A client error is kept and replayed like any answer.
		bad := map[string]any{"url": "ftp://nope", "event_types": []string{"*"}}
		e.do("POST", "/api/v1/webhooks", secret, bad, "Idempotency-Key", "bad-1").wantError(t, http.StatusBadRequest, "validation_failed")
		res := e.do("POST", "/api/v1/webhooks", secret, bad, "Idempotency-Key", "bad-1")
		res.wantError(t, http.StatusBadRequest, "validation_failed")
		if res.Header.Get("Idempotent-Replayed") != "true" {
			t.Error("a 400 was not replayed")
		}

		e.do("POST", "/api/v1/webhooks", secret, newHook, "Idempotency-Key", strings.Repeat("k", 256)).
			wantError(t, http.StatusBadRequest, "validation_failed")
	})
}

// A server error is not kept: retrying with the same key runs the request again.
func TestIdempotencyForgetsServerErrors(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeWebhooksRead, domain.ScopeWebhooksWrite)
		db := rawDB(t, e.store)

		exec(t, db, "ALTER TABLE webhooks RENAME TO webhooks_away")
		e.do("POST", "/api/v1/webhooks", secret, newHook, "Idempotency-Key", "flaky-1").wantError(t, http.StatusInternalServerError, "internal_error")
		exec(t, db, "ALTER TABLE webhooks_away RENAME TO webhooks")

		res := e.do("POST", "/api/v1/webhooks", secret, newHook, "Idempotency-Key", "flaky-1").want(t, http.StatusCreated)
		if res.Header.Get("Idempotent-Replayed") != "" {
			t.Error("the retry replayed something")
		}
		e.do("POST", "/api/v1/webhooks", secret, newHook, "Idempotency-Key", "flaky-1").want(t, http.StatusCreated)
	})
}

// rawDB opens a second connection to the test database, for breaking it on purpose.
func rawDB(t *testing.T, st *store.Store) *sql.DB {
	t.Helper()
	var db *sql.DB
	var err error
	if st.Dialect() == store.Postgres {
		db, err = sql.Open("postgres", st.URL())
	} else {
		path := strings.TrimPrefix(st.URL(), "sqlite://")
		db, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func exec(t *testing.T, db *sql.DB, query string) {
	t.Helper()
	if _, err := db.Exec(query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// PATCH null: url, which an endpoint cannot be without, is refused, naming it, and nothing
// changes (no webhook.updated either); a null description removes it.
func TestWebhookPatchNulls(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeWebhooksRead, domain.ScopeWebhooksWrite, domain.ScopeEventsRead)
		before := e.do("POST", "/api/v1/webhooks", secret, newHook).want(t, http.StatusCreated).json(t)
		id := before["id"].(string)
		delete(before, "secret")
		updates := func() int {
			l := e.do("GET", "/api/v1/events?type=webhook.updated", secret, nil).want(t, http.StatusOK).json(t)
			return len(l["data"].([]any))
		}
		got := e.do("PATCH", "/api/v1/webhooks/"+id, secret, `{"url": null, "description": "changed"}`).wantError(t, http.StatusBadRequest, "validation_failed")
		if got["param"] != "url" {
			t.Errorf("url null: param %v (%v)", got["param"], got["message"])
		}
		for _, name := range []string{"event_types", "enabled"} {
			got = e.do("PATCH", "/api/v1/webhooks/"+id, secret, `{"`+name+`": null}`).wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != name {
				t.Errorf("%s null: param %v (%v)", name, got["param"], got["message"])
			}
		}
		got = e.do("PATCH", "/api/v1/webhooks/"+id, secret, `{"url": 5}`).wantError(t, http.StatusBadRequest, "validation_failed")
		if got["param"] != "url" {
			t.Errorf("url of the wrong type: param %v", got["param"])
		}
		got = e.do("PATCH", "/api/v1/webhooks/"+id, secret, `{"URL": "https://x.example.com"}`).wantError(t, http.StatusBadRequest, "validation_failed")
		if got["param"] != "URL" {
			t.Errorf("a key of the wrong case: param %v", got["param"])
		}
		after := e.do("GET", "/api/v1/webhooks/"+id, secret, nil).want(t, http.StatusOK).json(t)
		if mustJSON(after) != mustJSON(before) || updates() != 0 {
			t.Errorf("refused PATCHes changed the endpoint (%d webhook.updated): %v", updates(), after)
		}

		upd := e.do("PATCH", "/api/v1/webhooks/"+id, secret, `{"description": null}`).want(t, http.StatusOK).json(t)
		if upd["description"] != "" || upd["url"] != newHook["url"] || upd["enabled"] != true {
			t.Errorf("description null: %v", upd)
		}
	})
}

// The instance filter must name an instance of the workspace: an unknown one, or another
// workspace's, would make an endpoint that never receives anything.
func TestWebhookInstanceFilterMustExist(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeWebhooksRead, domain.ScopeWebhooksWrite, domain.ScopeInstancesWrite)
		_, otherKey := servicetest.NewOwner(t, e.svc).NewKey(t, e.svc, domain.ScopeInstancesWrite)
		mine := e.do("POST", "/api/v1/instances", secret, map[string]any{"name": "Mine"}).want(t, http.StatusCreated).json(t)["id"].(string)
		theirs := e.do("POST", "/api/v1/instances", otherKey, map[string]any{"name": "Theirs"}).want(t, http.StatusCreated).json(t)["id"].(string)
		unknown := "inst_01jr8c4a9fz3x1w7v5t3r1p9n7"

		with := func(inst string) map[string]any {
			return map[string]any{"url": newHook["url"], "event_types": []string{"*"}, "instance_id": inst}
		}
		for _, inst := range []string{theirs, unknown} {
			got := e.do("POST", "/api/v1/webhooks", secret, with(inst)).wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != "instance_id" {
				t.Errorf("create with %s: param %v", inst, got["param"])
			}
		}
		hook := e.do("POST", "/api/v1/webhooks", secret, with(mine)).want(t, http.StatusCreated).json(t)
		id := hook["id"].(string)
		for _, inst := range []string{theirs, unknown} {
			got := e.do("PATCH", "/api/v1/webhooks/"+id, secret, map[string]any{"instance_id": inst}).wantError(t, http.StatusBadRequest, "validation_failed")
			if got["param"] != "instance_id" {
				t.Errorf("update to %s: param %v", inst, got["param"])
			}
		}
		if got := e.do("GET", "/api/v1/webhooks/"+id, secret, nil).want(t, http.StatusOK).json(t); got["instance_id"] != mine {
			t.Errorf("refused updates changed the filter: %v", got["instance_id"])
		}
		if list := e.do("GET", "/api/v1/webhooks", secret, nil).want(t, http.StatusOK).json(t); len(list["data"].([]any)) != 1 {
			t.Errorf("refused creations stored endpoints: %v", list["data"])
		}
	})
}

// Recover sends again every failed delivery of a range, once, for an enabled endpoint; the
// range and the body are checked, and the scope and workspace rules are those of any write.
func TestWebhookRecover(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, rest.Options{})
		_, secret := e.owner.NewKey(t, e.svc, domain.ScopeWebhooksRead, domain.ScopeWebhooksWrite)
		id := e.do("POST", "/api/v1/webhooks", secret, newHook).want(t, http.StatusCreated).json(t)["id"].(string)
		for range 3 {
			e.do("POST", "/api/v1/webhooks/"+id+"/test", secret, nil).want(t, http.StatusAccepted)
		}
		// Disabling fails the queued deliveries; a disabled endpoint recovers nothing.
		e.do("PATCH", "/api/v1/webhooks/"+id, secret, map[string]any{"enabled": false}).want(t, http.StatusOK)
		since := e.clock.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		path := "/api/v1/webhooks/" + id + "/recover"
		e.do("POST", path, secret, map[string]any{"since": since}).wantError(t, http.StatusConflict, "webhook_disabled")
		e.do("PATCH", "/api/v1/webhooks/"+id, secret, map[string]any{"enabled": true}).want(t, http.StatusOK)
		statuses := func() map[string]int {
			got := map[string]int{}
			for _, x := range e.do("GET", "/api/v1/webhooks/"+id+"/deliveries", secret, nil).want(t, http.StatusOK).json(t)["data"].([]any) {
				got[x.(map[string]any)["status"].(string)]++
			}
			return got
		}
		if s := statuses(); s["failed"] != 3 {
			t.Fatalf("before: %v", s)
		}

		// A range before them finds none; one that holds them queues each once.
		early := e.clock.Now().Add(-2 * time.Hour).UTC()
		none := e.do("POST", path, secret, map[string]any{"since": early.Format(time.RFC3339), "until": early.Add(time.Minute).Format(time.RFC3339)}).
			want(t, http.StatusAccepted).json(t)
		if none["queued"] != float64(0) || none["has_more"] != false {
			t.Fatalf("an empty range: %v", none)
		}
		rec := e.do("POST", path, secret, map[string]any{"since": since}).want(t, http.StatusAccepted).json(t)
		if rec["object"] != "webhook_recovery" || rec["webhook_id"] != id || rec["queued"] != float64(3) || rec["has_more"] != false {
			t.Fatalf("recover: %v", rec)
		}
		if s := statuses(); s["pending"] != 3 {
			t.Fatalf("after: %v", s)
		}
		if again := e.do("POST", path, secret, map[string]any{"since": since}).want(t, http.StatusAccepted).json(t); again["queued"] != float64(0) {
			t.Fatalf("a second recover queued the pending ones again: %v", again)
		}

		// Bad input names its field and changes nothing.
		for _, c := range []struct {
			body  any
			param string
		}{
			{map[string]any{}, "since"},
			{map[string]any{"since": "yesterday"}, "since"},
			{map[string]any{"since": since, "until": "soon"}, "until"},
			{map[string]any{"since": e.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)}, "since"},
			{map[string]any{"since": since, "until": e.clock.Now().Add(-3 * time.Hour).UTC().Format(time.RFC3339)}, "since"},
		} {
			if got := e.do("POST", path, secret, c.body).wantError(t, http.StatusBadRequest, "validation_failed"); got["param"] != c.param {
				t.Errorf("%v: param %v, want %s", c.body, got["param"], c.param)
			}
		}

		_, readOnly := e.owner.NewKey(t, e.svc, domain.ScopeWebhooksRead)
		e.do("POST", path, readOnly, map[string]any{"since": since}).wantError(t, http.StatusForbidden, "insufficient_scope")
		other := servicetest.NewOwner(t, e.svc)
		_, theirs := other.NewKey(t, e.svc, domain.ScopeAll)
		e.do("POST", path, theirs, map[string]any{"since": since}).wantError(t, http.StatusNotFound, "not_found")
	})
}
