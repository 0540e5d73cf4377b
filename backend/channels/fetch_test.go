package channels_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
)

// files is a media host: each path answers as its handler says, and hits counts requests.
func files(t *testing.T, routes map[string]http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	hits := new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if h, ok := routes[r.URL.Path]; ok && r.Method == http.MethodGet {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, hits
}

func serve(body []byte, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		_, _ = w.Write(body)
	}
}

func permanent(t *testing.T, err error, code string) *channels.SendError {
	t.Helper()
	var se *channels.SendError
	if !errors.As(err, &se) || !se.Permanent || se.Code != code {
		t.Fatalf("err = %#v, want a permanent SendError %s", err, code)
	}
	return se
}

func TestFetch(t *testing.T) {
	jpeg := bytes.Repeat([]byte("\xff\xd8\xff\xe0 jpeg "), 100)
	srv, _ := files(t, map[string]http.HandlerFunc{
		"/img/cat photo.jpg": serve(jpeg, "Content-Type", "image/jpeg; charset=binary"),
		"/dl":                serve([]byte("%PDF-1.7"), "Content-Type", "application/pdf", "Content-Disposition", `attachment; filename="../../etc/Invoice 7.pdf"`),
		"/dl-star":           serve([]byte("%PDF-1.7"), "Content-Disposition", `attachment; filename*=UTF-8''Rechnung%20%C3%BC.pdf`),
		"/notes.txt":         serve([]byte("hello"), "Content-Type", "application/octet-stream"),
		"/":                  serve([]byte("root"), "Content-Type", "text/plain"),
	})
	ctx := context.Background()
	cases := []struct {
		path, name, ctype string
		data              []byte
	}{
		{"/img/cat%20photo.jpg?sig=abc", "cat photo.jpg", "image/jpeg", jpeg},
		{"/dl", "Invoice 7.pdf", "application/pdf", []byte("%PDF-1.7")},
		{"/dl-star", "Rechnung ü.pdf", "application/pdf", []byte("%PDF-1.7")},
		{"/notes.txt", "notes.txt", "text/plain", []byte("hello")},
		{"/", "file", "text/plain", []byte("root")},
	}
	for _, tc := range cases {
		f, err := channels.Fetch(ctx, srv.Client(), srv.URL+tc.path, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if !bytes.Equal(f.Data, tc.data) || f.FileName != tc.name || !strings.HasPrefix(f.ContentType, tc.ctype) {
			t.Errorf("%s: %d bytes, name %q, type %q; want %d bytes, %q, %q", tc.path, len(f.Data), f.FileName,
				f.ContentType, len(tc.data), tc.name, tc.ctype)
		}
	}
}

func TestFetchRefusesLargeFiles(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 2048)
	srv, _ := files(t, map[string]http.HandlerFunc{
		"/declared": func(w http.ResponseWriter, r *http.Request) {
			// The size is declared and no byte follows until the client hangs up: Fetch
			// must refuse on the header alone.
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		},
		"/chunked": func(w http.ResponseWriter, _ *http.Request) {
			for i := 0; i < 4; i++ { // no Content-Length: counted while reading
				_, _ = w.Write(big[:512])
				if f, ok := w.(http.Flusher); ok {
					f.Flush()
				}
			}
		},
		"/exact": serve(big[:1024]),
	})
	ctx := context.Background()
	client := srv.Client()
	client.Timeout = 5 * time.Second
	for _, p := range []string{"/declared", "/chunked"} {
		_, err := channels.Fetch(ctx, client, srv.URL+p, 1024)
		se := permanent(t, err, channels.CodeMediaTooLarge)
		if !errors.Is(err, channels.ErrMediaTooLarge) || !strings.Contains(se.Message, "1024 bytes") {
			t.Errorf("%s: %v, want ErrMediaTooLarge naming the limit", p, err)
		}
	}
	if f, err := channels.Fetch(ctx, srv.Client(), srv.URL+"/exact", 1024); err != nil || len(f.Data) != 1024 {
		t.Errorf("a file of exactly the limit: %d bytes, %v", len(f.Data), err)
	}
}

func TestFetchRefusals(t *testing.T) {
	srv, hits := files(t, map[string]http.HandlerFunc{
		"/gone":  func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "gone", http.StatusGone) },
		"/empty": serve(nil),
		"/moved": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/empty", http.StatusFound) },
	})
	ctx := context.Background()
	_, err := channels.Fetch(ctx, srv.Client(), srv.URL+"/missing", 1<<20)
	if se := permanent(t, err, channels.CodeMediaUnreachable); se.Message != "fetching media.url answered 404 Not Found" {
		t.Errorf("message = %q", se.Message)
	}
	_, err = channels.Fetch(ctx, srv.Client(), srv.URL+"/gone", 1<<20)
	permanent(t, err, channels.CodeMediaUnreachable)
	_, err = channels.Fetch(ctx, srv.Client(), srv.URL+"/empty", 1<<20)
	permanent(t, err, channels.CodeMediaUnreachable)

	// A client that follows no redirects gets the redirect itself: unreachable.
	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	_, err = channels.Fetch(ctx, noRedirects, srv.URL+"/moved", 1<<20)
	if se := permanent(t, err, channels.CodeMediaUnreachable); !strings.Contains(se.Message, "302") {
		t.Errorf("message = %q", se.Message)
	}

	before := hits.Load()
	for _, u := range []string{"ftp://example.com/a.jpg", "file:///etc/passwd", "/relative.jpg", "http://", "::"} {
		_, err := channels.Fetch(ctx, srv.Client(), u, 1<<20)
		permanent(t, err, "invalid_request")
	}
	if hits.Load() != before {
		t.Error("an invalid URL was requested")
	}
}

func TestFetchNetworkErrorsAreRetried(t *testing.T) {
	srv, _ := files(t, nil)
	u := srv.URL + "/a.jpg?signature=SECRET"
	srv.Close()
	_, err := channels.Fetch(context.Background(), http.DefaultClient, u, 1<<20)
	var se *channels.SendError
	if err == nil || errors.As(err, &se) {
		t.Fatalf("err = %#v, want a plain (retried) error", err)
	}
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("the error shows the URL's query: %v", err)
	}
}

func TestFetchThroughTheSSRFGuard(t *testing.T) {
	srv, hits := files(t, map[string]http.HandlerFunc{"/a.jpg": serve([]byte("jpeg"))})
	guarded := channels.GuardedClient(ssrf.MustPolicy(), 5*time.Second)
	_, err := channels.Fetch(context.Background(), guarded, srv.URL+"/a.jpg", 1<<20)
	if se := permanent(t, err, channels.CodeMediaURLBlocked); se.Message != "media.url resolves to a non-public address" {
		t.Errorf("message = %q", se.Message)
	}
	if hits.Load() != 0 {
		t.Error("the blocked address was reached")
	}
	// localhost resolves to a loopback address: refused at dial time too.
	_, err = channels.Fetch(context.Background(), guarded, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)+"/a.jpg", 1<<20)
	permanent(t, err, channels.CodeMediaURLBlocked)

	// The operator's allow-list lets a private host through.
	allowed := channels.GuardedClient(ssrf.MustPolicy("127.0.0.1"), 5*time.Second)
	if f, err := channels.Fetch(context.Background(), allowed, srv.URL+"/a.jpg", 1<<20); err != nil || string(f.Data) != "jpeg" {
		t.Fatalf("allow-listed: %q %v", f.Data, err)
	}
}
