package graph_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/graph"
)

const viewerQuery = `{ viewer { user { id email name } workspace { id name } } }`

type viewerData struct {
	Viewer struct {
		User *struct {
			ID, Email, Name string
		}
		Workspace *struct{ ID, Name string }
	}
}

func TestSignUpSetsSessionCookie(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		email := newEmail()
		resp, r := h.post(t, `mutation($in: SignUpInput!) { signUp(input: $in) { user { id email name createdAt } } }`,
			map[string]any{"in": map[string]any{"email": email, "password": password, "name": "Ada Lovelace"}})
		var data struct {
			SignUp struct {
				User struct{ ID, Email, Name, CreatedAt string }
			}
		}
		r.decode(t, &data)
		u := data.SignUp.User
		if !strings.HasPrefix(u.ID, "usr_") || u.Email != email || u.Name != "Ada Lovelace" {
			t.Fatalf("user = %+v", u)
		}
		if len(u.CreatedAt) != len("2006-01-02T15:04:05.000Z") || !strings.HasSuffix(u.CreatedAt, "Z") {
			t.Errorf("createdAt %q is not RFC 3339 UTC with milliseconds", u.CreatedAt)
		}

		c := sessionCookie(t, resp)
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Value == "" {
			t.Errorf("cookie = %+v, want HttpOnly, SameSite=Lax, Path=/", c)
		}
		if c.Secure {
			t.Error("cookie is Secure on a plain-HTTP request without SecureCookies")
		}
		if strings.Contains(body(resp), c.Value) {
			t.Error("the session token appears in the response body")
		}

		// The cookie signs the user in; no workspace until the console opens it.
		_, r = h.post(t, viewerQuery, nil, withSession(c.Value))
		var v viewerData
		r.decode(t, &v)
		if v.Viewer.User == nil || v.Viewer.User.ID != u.ID || v.Viewer.Workspace != nil {
			t.Fatalf("viewer = %+v", v.Viewer)
		}

		// The same email cannot sign up twice.
		_, r = h.post(t, `mutation($in: SignUpInput!) { signUp(input: $in) { user { id } } }`,
			map[string]any{"in": map[string]any{"email": email, "password": password, "name": "Again"}})
		if r.code(t) != "CONFLICT" || r.Errors[0].Extensions["field"] != "email" {
			t.Errorf("duplicate sign-up: %+v", r.Errors)
		}
	})
}

func TestSecureCookie(t *testing.T) {
	eachDialect(t, graph.Options{SecureCookies: true}, func(t *testing.T, h *harness) {
		resp, r := h.post(t, `mutation($in: SignUpInput!) { signUp(input: $in) { user { id } } }`,
			map[string]any{"in": map[string]any{"email": newEmail(), "password": password, "name": "Ada"}})
		if len(r.Errors) > 0 {
			t.Fatal(r.Errors)
		}
		if c := sessionCookie(t, resp); !c.Secure {
			t.Errorf("cookie %+v is not Secure with SecureCookies", c)
		}
	})
}

func TestSignInAndSignOut(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		email := newEmail()
		resp, r := h.post(t, `mutation($in: SignUpInput!) { signUp(input: $in) { user { id } } }`,
			map[string]any{"in": map[string]any{"email": email, "password": password, "name": "Ada"}})
		if len(r.Errors) > 0 {
			t.Fatal(r.Errors)
		}
		first := sessionCookie(t, resp).Value

		const signIn = `mutation($in: SignInInput!) { signIn(input: $in) { user { id email } } }`
		// Wrong password and unknown account fail alike, without a cookie.
		for _, in := range []map[string]any{
			{"email": email, "password": "wrong password!"},
			{"email": "nobody@example.com", "password": password},
		} {
			resp, r := h.post(t, signIn, map[string]any{"in": in})
			if r.code(t) != "UNAUTHENTICATED" {
				t.Fatalf("sign in with %v: %+v", in, r.Errors)
			}
			if len(resp.Cookies()) != 0 {
				t.Errorf("failed sign-in set %v", resp.Header.Values("Set-Cookie"))
			}
		}

		resp, r = h.post(t, signIn, map[string]any{"in": map[string]any{"email": email, "password": password}})
		var data struct {
			SignIn struct{ User struct{ ID, Email string } }
		}
		r.decode(t, &data)
		if data.SignIn.User.Email != email {
			t.Fatalf("signIn = %+v", data)
		}
		c := sessionCookie(t, resp)
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Value == first {
			t.Fatalf("sign-in cookie %+v: want a new HttpOnly, SameSite=Lax session", c)
		}

		// Sign out clears the cookie and ends the session server-side.
		resp, r = h.post(t, `mutation { signOut }`, nil, withSession(c.Value))
		var out struct{ SignOut bool }
		r.decode(t, &out)
		if cleared := sessionCookie(t, resp); !out.SignOut || cleared.MaxAge >= 0 || cleared.Value != "" {
			t.Fatalf("signOut = %v, cookie %+v", out.SignOut, cleared)
		}
		_, r = h.post(t, viewerQuery, nil, withSession(c.Value))
		var v viewerData
		r.decode(t, &v)
		if v.Viewer.User != nil {
			t.Error("the signed-out session still signs in")
		}
		// The other session is untouched.
		_, r = h.post(t, viewerQuery, nil, withSession(first))
		r.decode(t, &v)
		if v.Viewer.User == nil {
			t.Error("signing out one session ended another")
		}
	})
}

func TestSignedOutViewerAndStaleCookie(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		for _, opts := range [][]option{nil, {withSession("sbs_not-a-real-session")}} {
			_, r := h.post(t, viewerQuery, nil, opts...)
			var v viewerData
			r.decode(t, &v)
			if v.Viewer.User != nil || v.Viewer.Workspace != nil {
				t.Errorf("signed-out viewer = %+v", v.Viewer)
			}
		}
		// Anything that needs a caller says so.
		_, r := h.post(t, `mutation { ensureWorkspace { id } }`, nil)
		if r.code(t) != "UNAUTHENTICATED" {
			t.Errorf("ensureWorkspace signed out: %+v", r.Errors)
		}
	})
}

func TestEnsureWorkspaceIsIdempotent(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token := h.signUp(t)
		var ids []string
		for range 3 {
			_, r := h.post(t, `mutation { ensureWorkspace { id name createdAt } }`, nil, withSession(token))
			var data struct{ EnsureWorkspace struct{ ID, Name string } }
			r.decode(t, &data)
			if !strings.HasPrefix(data.EnsureWorkspace.ID, "ws_") || data.EnsureWorkspace.Name == "" {
				t.Fatalf("ensureWorkspace = %+v", data.EnsureWorkspace)
			}
			ids = append(ids, data.EnsureWorkspace.ID)
		}
		if ids[0] != ids[1] || ids[1] != ids[2] {
			t.Fatalf("ensureWorkspace returned different workspaces: %v", ids)
		}
		_, r := h.post(t, viewerQuery, nil, withSession(token))
		var v viewerData
		r.decode(t, &v)
		if v.Viewer.Workspace == nil || v.Viewer.Workspace.ID != ids[0] {
			t.Fatalf("viewer workspace = %+v, want %s", v.Viewer.Workspace, ids[0])
		}

		// Another user gets their own workspace.
		_, other := h.owner(t)
		if other == ids[0] {
			t.Fatal("two users share a workspace")
		}
	})
}

func TestSignInOverWebsocketRefused(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		c := h.dialWS(t, withSession(token))
		c.init(t, nil)
		c.subscribe(t, "1", `mutation { signOut }`, nil)
		m := c.expect(t, "next")
		if !strings.Contains(string(m.Payload), "http_required") {
			t.Fatalf("signOut over websocket: %s", m.Payload)
		}
	})
}
