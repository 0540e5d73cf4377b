package links

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// A stop writes every buffered click, however many batches they make; when the database
// refuses them until the stop's bound, they are counted as dropped (and logged), not lost
// in silence.
func TestCloseWritesEveryBufferedClick(t *testing.T) {
	ctx := context.Background()
	svc, st := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	l := New(svc, Config{ShortBase: "http://sb.test/l"})
	link, ua := clickTarget(t, l, owner), browserAgent(l)
	n := maxWriteBatch + 500 // more than one batch
	l.Start()
	for range n {
		l.clk.add(l.newClick(link, Visit{Method: "GET", IP: "203.0.113.9"}, ua, time.Now()))
	}
	l.Close()
	got, err := l.Get(ctx, owner.Actor, link.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Clicks != int64(n) || l.DroppedClicks() != 0 || l.WrittenClicks() != int64(n) {
		t.Fatalf("after a stop the link counts %d clicks (%d written, %d dropped), want all %d", got.Clicks, l.WrittenClicks(), l.DroppedClicks(), n)
	}

	// The database gone: the stop retries until closeWait, then counts the clicks dropped.
	old := closeWait
	closeWait = 300 * time.Millisecond
	t.Cleanup(func() { closeWait = old })
	l2 := New(svc, Config{ShortBase: "http://sb.test/l"})
	l2.Start()
	for range 7 {
		l2.clk.add(l2.newClick(link, Visit{Method: "GET", IP: "203.0.113.9"}, ua, time.Now()))
	}
	st.Close()
	start := time.Now()
	l2.Close()
	if waited := time.Since(start); waited < 300*time.Millisecond || waited > 5*time.Second {
		t.Fatalf("the stop gave up after %v, want about closeWait", waited)
	}
	if l2.DroppedClicks() != 7 {
		t.Fatalf("%d clicks counted dropped, want 7", l2.DroppedClicks())
	}
}

// Clicks of a link deleted before they are written go with it: they are not counted as
// written (the metric switchboard_link_clicks_written_total), nor dropped.
func TestDeletedLinksClicksAreNotCountedWritten(t *testing.T) {
	ctx := context.Background()
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	l := New(svc, Config{ShortBase: "http://sb.test/l"})
	gone, kept, ua := clickTarget(t, l, owner), clickTarget(t, l, owner), browserAgent(l)
	for range 3 {
		l.clk.add(l.newClick(gone, Visit{Method: "GET", IP: "203.0.113.9"}, ua, time.Now()))
	}
	l.clk.add(l.newClick(kept, Visit{Method: "GET", IP: "203.0.113.9"}, ua, time.Now()))
	if _, err := l.Delete(ctx, owner.Actor, gone.ID); err != nil {
		t.Fatal(err)
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if w, d := l.WrittenClicks(), l.DroppedClicks(); w != 1 || d != 0 {
		t.Fatalf("%d clicks counted written and %d dropped, want 1 and 0", w, d)
	}
}

// clickTarget creates a link to click.
func clickTarget(t *testing.T, l *Links, owner servicetest.Owner) domain.Link {
	t.Helper()
	target := "https://example.com/"
	link, err := l.Create(context.Background(), owner.Actor, Input{URL: &target})
	if err != nil {
		t.Fatal(err)
	}
	return link
}

// browserAgent is a desktop browser's parsed agent: its clicks count.
func browserAgent(l *Links) agent {
	return l.agents.get("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36")
}
