// Package web serves the console, a single-page app built by Vite into dist/ and embedded in
// the binary, under /user/ with a fallback to index.html for client-side routes.
package web

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed all:dist
var dist embed.FS

// Handler serves the console mounted at /user/.
func Handler() http.Handler {
	root, _ := fs.Sub(dist, "dist")
	files := http.FileServerFS(root)
	index, indexErr := fs.ReadFile(root, "index.html")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		rel := strings.TrimPrefix(path.Clean(r.URL.Path), "/user")
		rel = strings.TrimPrefix(rel, "/")
		setSecurityHeaders(w)
		if rel != "" && rel != "index.html" {
			if st, err := fs.Stat(root, rel); err == nil && !st.IsDir() {
				if strings.HasPrefix(rel, "assets/") { // content-hashed names: cache forever
					w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
				}
				r2 := r.Clone(r.Context())
				r2.URL.Path = "/" + rel
				files.ServeHTTP(w, r2)
				return
			}
			if strings.HasPrefix(rel, "assets/") || path.Ext(rel) != "" {
				http.NotFound(w, r)
				return
			}
		}
		if indexErr != nil {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("The console is not built into this binary. Run `make build` (it builds frontend/ first).\n"))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(index)
	})
}

// contentSecurityPolicy lets the console load and connect only to its own origin.
//
// connect-src is 'self' alone: the console's fetches (/graphql, /api/v1) and its one WebSocket
// (graphql-transport-ws on /graphql) all go to the origin that served the page. CSP Level 3
// defines 'self' to match the ws:/wss: form of that origin too, and the browsers the console
// supports implement it (Chrome and Edge since 71, Firefox, Safari since 16). Older browsers
// (CSP2) treat same-host ws:/wss: as another origin and would block the socket: only live
// updates stop there, every page still works over HTTP. We accept that rather than add ws:/wss:
// sources: a bare scheme allows any host, and a host taken from the request's Host header would
// put client input into a security header. The Vite dev server does not send this header.
const contentSecurityPolicy = "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"

func setSecurityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
}
