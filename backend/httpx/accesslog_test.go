package httpx

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"
)

// The access log's direct JSON line is byte for byte what slog's JSON handler writes for the
// same record, and lines it cannot write plainly go through slog.
func TestAccessLineMatchesSlog(t *testing.T) {
	at := time.Date(2026, 11, 23, 19, 47, 34, 123456789, time.UTC)
	for _, l := range []accessLine{
		{at, "req_01m84ywc8jfvw2128rjr9d7dza", "GET", "/api/v1/models", 200, 312, 0.123},
		{at, "client-id.1:2", "POST", "/graphql", 429, 0, 0},
		{at.In(time.FixedZone("x", 3600)), "r", "DELETE", "/api/v1/webhooks/wh_1", 500, 1 << 20, 12345.678},
		{at, "r", "GET", "/api/v1/models/meta/llama-3.1-8b:free", 404, 10, 0.001},
		{at, "r", "GET", `/api/v1/"quoted"\path`, 404, 10, 1},       // needs escaping: slog writes it
		{at, "r", "GET", "/api/v1/caf\u00e9\u2028\x01", 404, 10, 1}, // non-ASCII and control bytes
		{at, "r", "GET", "/", 200, 1, 1e-7},                         // exponent format: slog writes it
	} {
		var want, got bytes.Buffer
		_ = slog.NewJSONHandler(&want, nil).Handle(context.Background(), l.record())
		logAccess(context.Background(), NewJSONHandler(&got, slog.LevelInfo), &l)
		if got.String() != want.String() {
			t.Errorf("line differs:\n got %s\nwant %s", got.String(), want.String())
		}
	}
	if !NewJSONHandler(&bytes.Buffer{}, slog.LevelInfo).writeAccess(&accessLine{at, "req_1", "GET", "/api/v1/models", 200, 1, 0.5}) {
		t.Fatal("a plain line was not written directly")
	}
}

// The cached per-second part of the access log's time gives exactly time.RFC3339Nano.
func TestAppendRFC3339Nano(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600)
	}
	base := time.Date(2026, 3, 29, 0, 59, 58, 0, time.UTC) // a DST change in Paris at 01:00 UTC
	for _, loc := range []*time.Location{time.UTC, time.Local, paris, time.FixedZone("x", -(9*3600 + 30*60))} {
		for _, d := range []time.Duration{0, 1, 10, 999, time.Microsecond, 120 * time.Millisecond,
			999999999, time.Second, time.Second + 5, 2*time.Second + 100, time.Hour + 1} {
			at := base.Add(d).In(loc)
			if got, want := string(appendRFC3339Nano(nil, at)), at.Format(time.RFC3339Nano); got != want {
				t.Errorf("%v: got %s, want %s", d, got, want)
			}
		}
	}
	if now := time.Now(); string(appendRFC3339Nano(nil, now)) != now.Format(time.RFC3339Nano) {
		t.Errorf("now: got %s, want %s", appendRFC3339Nano(nil, now), now.Format(time.RFC3339Nano))
	}
}

// The token of /hooks/{token} is a secret: the access log never shows it.
func TestAccessLogHidesHookTokens(t *testing.T) {
	if got := LoggedPath("/hooks/q3VbU1ZxN2w0Zk9hY2p4dFJ6bUtzVw"); got != "/hooks/{token}" {
		t.Fatalf("logged %q", got)
	}
	if got := LoggedPath("/api/v1/links"); got != "/api/v1/links" {
		t.Fatalf("logged %q", got)
	}
}
