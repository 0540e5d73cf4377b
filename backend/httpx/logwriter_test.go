package httpx_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/httpx"
)

type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Every line written from many goroutines arrives whole, once, in fewer writes than lines.
func TestLogWriterKeepsEveryLine(t *testing.T) {
	out := &lockedBuffer{}
	w := httpx.NewLogWriter(out)
	const goroutines, lines = 8, 5000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(w, "{\"g\":%d,\"i\":%d,\"pad\":%q}\n", g, i, strings.Repeat("x", i%200))
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != goroutines*lines {
		t.Fatalf("%d lines, want %d", len(got), goroutines*lines)
	}
	seen := map[string]bool{}
	for _, l := range got {
		if !strings.HasPrefix(l, "{") || !strings.HasSuffix(l, "}") || seen[l] {
			t.Fatalf("torn or repeated line %q", l)
		}
		seen[l] = true
	}
	if out.writes >= goroutines*lines/10 {
		t.Fatalf("%d writes for %d lines: not batched", out.writes, len(got))
	}
	// After Close, lines are written through at once.
	fmt.Fprintln(w, "late")
	if !strings.HasSuffix(out.String(), "late\n") {
		t.Fatal("a line written after Close was not written")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A failing destination is reported, never silently ignored.
func TestLogWriterReportsErrors(t *testing.T) {
	w := httpx.NewLogWriter(failingWriter{})
	_, _ = w.Write([]byte("line\n"))
	if err := w.Close(); err == nil {
		t.Fatal("Close hid the write error")
	}
	if _, err := w.Write([]byte("more\n")); err == nil {
		t.Fatal("Write after a failure reported success")
	}
}
