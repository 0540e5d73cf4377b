// Package shortlink serves short-link visits: GET /l/{slug} (and /{slug} on a dedicated
// short host). It reads the request, asks the links service where the visitor goes, and
// writes the redirect or a small page. No rule lives here.
package shortlink

import (
	"html/template"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/service/links"
)

// maxForm bounds a password form post.
const maxForm = 4 << 10

// Handler serves visits of the slug that follows prefix in the path ("/l/" or "/").
func Handler(l *links.Links, prefix string, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slug, ok := strings.CutPrefix(r.URL.Path, prefix)
		slug = strings.TrimSuffix(slug, "/") // a slash added when the link was pasted: /l/launch/
		h := w.Header()
		// Never cached by browsers or shared caches: every visit must reach us to count,
		// and a changed target must apply at once. Short links are not for search engines.
		h.Set("Cache-Control", "private, max-age=0")
		h.Set("X-Robots-Tag", "noindex")
		if !ok || slug == "" || strings.Contains(slug, "/") {
			page(w, http.StatusNotFound, notFound, nil)
			return
		}
		v := links.Visit{Slug: slug, Method: r.Method, UserAgent: r.UserAgent(), Referrer: r.Referer(),
			IP: httpx.ClientIP(r), QR: r.URL.Query().Get("qr") == "1", Query: r.URL.RawQuery}
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodPost:
			r.Body = http.MaxBytesReader(w, r.Body, maxForm)
			if err := r.ParseForm(); err != nil {
				page(w, http.StatusBadRequest, badForm, nil)
				return
			}
			v.Password = r.PostForm.Get("password")
			// The form's Referer is its own page: the visit's referrer is the one the page
			// was first asked with, which the form carries.
			v.Referrer = r.PostForm.Get("ref")
		default:
			h.Set("Allow", "GET, HEAD, POST")
			page(w, http.StatusMethodNotAllowed, notAllowed, nil)
			return
		}
		out, err := l.Visit(r.Context(), v)
		if err != nil {
			log.Error("short link visit", "slug", slug, "err", err, "request_id", httpx.RequestIDFrom(r.Context()))
			h.Set("Retry-After", "1")
			page(w, http.StatusServiceUnavailable, unavailable, nil)
			return
		}
		switch out.Kind {
		case links.Redirect:
			h.Set("Location", out.Location)
			w.WriteHeader(out.Status)
		case links.NotFound:
			page(w, http.StatusNotFound, notFound, nil)
		case links.Gone:
			page(w, http.StatusGone, gone, nil)
		case links.Password:
			if out.WrongPassword {
				wrongPassword(w, r, v.Referrer)
				return
			}
			status, wrong, ref := http.StatusOK, false, v.Referrer
			if c, err := r.Cookie(wrongCookie); err == nil && r.Method == http.MethodGet {
				status, wrong = http.StatusUnauthorized, true
				if saved, err := url.QueryUnescape(c.Value); err == nil {
					ref = saved // the page's own URL is this GET's Referer: the visitor came from there
				}
				http.SetCookie(w, &http.Cookie{Name: wrongCookie, Path: r.URL.Path, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
			}
			page(w, status, password, map[string]any{"Wrong": wrong, "Title": out.Title, "Ref": ref})
		case links.TooManyTries:
			h.Set("Retry-After", strconv.Itoa(int(math.Ceil(out.RetryAfter.Seconds()))))
			page(w, http.StatusTooManyRequests, tooMany, nil)
		}
	})
}

var (
	layout = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
		`<meta name="robots" content="noindex"><title>{{template "title" .}}</title><style>` +
		`body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:15vh auto;padding:0 1rem;color:#1f2937}` +
		`h1{font-size:1.4rem}input,button{font:inherit;padding:.5rem;border:1px solid #9ca3af;border-radius:.375rem}` +
		`button{background:#1d4ed8;color:#fff;border-color:#1d4ed8;cursor:pointer}.err{color:#b91c1c}</style></head>` +
		`<body><main>{{template "body" .}}</main></body></html>`
	notFound    = mustPage(`{{define "title"}}Link not found{{end}}{{define "body"}}<h1>Link not found</h1><p>This short link does not exist. Check the address you were given.</p>{{end}}`)
	gone        = mustPage(`{{define "title"}}Link expired{{end}}{{define "body"}}<h1>This link has expired</h1><p>The link you followed is no longer active.</p>{{end}}`)
	badForm     = mustPage(`{{define "title"}}Bad request{{end}}{{define "body"}}<h1>Bad request</h1><p>The form could not be read.</p>{{end}}`)
	notAllowed  = mustPage(`{{define "title"}}Not allowed{{end}}{{define "body"}}<h1>Method not allowed</h1>{{end}}`)
	unavailable = mustPage(`{{define "title"}}Try again{{end}}{{define "body"}}<h1>Something went wrong</h1><p>Please try again in a moment.</p>{{end}}`)
	tooMany     = mustPage(`{{define "title"}}Too many tries{{end}}{{define "body"}}<h1>Too many tries</h1><p>Wait a little, then try the password again.</p>{{end}}`)
	password    = mustPage(`{{define "title"}}Password required{{end}}{{define "body"}}<h1>{{if .Title}}{{.Title}}{{else}}This link is protected{{end}}</h1>` +
		`<form method="post">{{if .Ref}}<input type="hidden" name="ref" value="{{.Ref}}">{{end}}<p><label for="password">Enter the password to continue</label></p>` +
		`<p><input id="password" name="password" type="password" autocomplete="current-password" required autofocus` +
		`{{if .Wrong}} aria-invalid="true" aria-describedby="password-error"{{end}}> <button type="submit">Continue</button></p>` +
		`{{if .Wrong}}<p id="password-error" class="err" role="alert">Wrong password. Try again.</p>{{end}}</form>{{end}}`)
)

// wrongCookie carries "that password was wrong" (and the referrer the form had) from a
// wrong password's post to the page it redirects to, for a minute.
const wrongCookie = "sb_wrong_password"

// wrongPassword answers a wrong password by post/redirect/get: a 303 back to the page, which
// then says the password was wrong (401). Had the post's own answer been that page, the
// browser's Back from the target, once the right password let the visitor through, would
// land on "Confirm Form Resubmission" instead of a page.
func wrongPassword(w http.ResponseWriter, r *http.Request, ref string) {
	http.SetCookie(w, &http.Cookie{Name: wrongCookie, Value: url.QueryEscape(ref), Path: r.URL.Path, MaxAge: 60,
		HttpOnly: true, SameSite: http.SameSiteLaxMode})
	w.Header().Set("Location", r.URL.RequestURI())
	w.WriteHeader(http.StatusSeeOther)
}

func mustPage(body string) *template.Template {
	return template.Must(template.Must(template.New("page").Parse(layout)).Parse(body))
}

func page(w http.ResponseWriter, status int, t *template.Template, data any) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// No form-action: browsers apply it to the redirect that answers the password form too,
	// and the link's target is another origin. The page's only form posts to itself.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.WriteHeader(status)
	_ = t.Execute(w, data)
}
