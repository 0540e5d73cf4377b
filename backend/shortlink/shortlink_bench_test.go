package shortlink_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/shortlink"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// chrome is a desktop browser's User-Agent: a counted click, not a bot.
const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// BenchmarkRedirect splits the cost of a short-link visit, in process, one visit at a time
// (so ns/op is close to CPU per visit; scripts/bench-links.sh measures the binary under
// load). Per database:
//
//   - bare: the handler of sbbaseline -redirect (the same 302 and headers), the floor;
//   - visit: GET /l/{slug} through shortlink.Handler with the slug cached, the click
//     buffered; the buffered clicks are written with the timer stopped;
//   - visit+write: the same with every click written, a batch of 500 (the writer's batch
//     size) at a time, inside the timer: the whole cost of a counted click;
//   - bot+write: the same for a visit without a User-Agent, a bot's: its click is stored
//     but records no link.clicked event, which isolates what the events cost.
//
// Profile with: go test -run '^$' -bench Redirect -cpuprofile cpu.out ./shortlink/
func BenchmarkRedirect(b *testing.B) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		b.Run(string(d), func(b *testing.B) {
			svc, _ := servicetest.New(b, d, service.Config{})
			owner := servicetest.NewOwner(b, svc)
			l := links.New(svc, links.Config{ShortBase: "http://sb.test/l"})
			b.Cleanup(l.Close)
			target, slug := "https://example.com/landing?ref=bench", "bench"
			if _, err := l.Create(context.Background(), owner.Actor, links.Input{URL: &target, Slug: &slug}); err != nil {
				b.Fatal(err)
			}
			h := shortlink.Handler(l, "/l/", slog.New(slog.NewTextHandler(io.Discard, nil)))
			req := httptest.NewRequest(http.MethodGet, "/l/bench", nil)
			req.Header.Set("User-Agent", chrome)
			req.RemoteAddr = "203.0.113.7:40000"
			bot := httptest.NewRequest(http.MethodGet, "/l/bench", nil)
			bot.RemoteAddr = req.RemoteAddr
			serveReq := func(b *testing.B, h http.Handler, req *http.Request) {
				w := &discard{h: http.Header{}}
				h.ServeHTTP(w, req)
				if w.status != http.StatusFound || w.h.Get("Location") != target {
					b.Fatalf("answer %d to %q", w.status, w.h.Get("Location"))
				}
			}
			serve := func(b *testing.B, h http.Handler) { serveReq(b, h, req) }
			flush := func(b *testing.B) {
				if err := l.Flush(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			serve(b, h) // the slug in the cache
			flush(b)

			b.Run("bare", func(b *testing.B) {
				bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					h := w.Header()
					h.Set("Cache-Control", "private, max-age=0")
					h.Set("X-Robots-Tag", "noindex")
					h.Set("Location", target)
					w.WriteHeader(http.StatusFound)
				})
				b.ReportAllocs()
				for b.Loop() {
					serve(b, bare)
				}
			})
			b.Run("visit", func(b *testing.B) {
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					serve(b, h)
					if n++; n%10_000 == 0 { // well below the buffer's 65,536: nothing dropped
						b.StopTimer()
						flush(b)
						b.StartTimer()
					}
				}
				b.StopTimer()
				flush(b)
			})
			b.Run("visit+write", func(b *testing.B) {
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					serve(b, h)
					if n++; n%500 == 0 {
						flush(b)
					}
				}
				flush(b)
			})
			b.Run("bot+write", func(b *testing.B) {
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					serveReq(b, h, bot)
					if n++; n%500 == 0 {
						flush(b)
					}
				}
				flush(b)
			})
			if got := l.DroppedClicks(); got != 0 {
				b.Fatalf("%d clicks dropped", got)
			}
		})
	}
}

// discard is a ResponseWriter that keeps the status and headers and drops the body.
type discard struct {
	h      http.Header
	status int
}

func (w *discard) Header() http.Header         { return w.h }
func (w *discard) Write(p []byte) (int, error) { return len(p), nil }
func (w *discard) WriteHeader(status int)      { w.status = status }
