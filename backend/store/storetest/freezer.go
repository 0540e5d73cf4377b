package storetest

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Freezer is a TCP proxy in front of a real PostgreSQL that can stop passing bytes on while
// keeping its connections open: what a stopped (SIGSTOP) server or a network partition looks
// like to the client, whose kernel goes on seeing the connection alive.
type Freezer struct {
	ln     net.Listener
	target string
	// Frozen stops passing bytes on (they are held, and passed on once it is cleared).
	Frozen atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
}

// NewFreezer proxies to target (host:port) until t ends; Addr is where to connect instead.
func NewFreezer(t testing.TB, target string) *Freezer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &Freezer{ln: ln, target: target}
	go f.accept()
	t.Cleanup(func() {
		ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
	})
	return f
}

// Addr is the proxy's address (host:port).
func (f *Freezer) Addr() string { return f.ln.Addr().String() }

func (f *Freezer) accept() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", f.target)
		if err != nil {
			c.Close()
			continue
		}
		f.mu.Lock()
		f.conns = append(f.conns, c, up)
		f.mu.Unlock()
		go f.pipe(up, c)
		go f.pipe(c, up)
	}
}

// pipe copies src to dst, holding what it read while frozen.
func (f *Freezer) pipe(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for f.Frozen.Load() {
			time.Sleep(5 * time.Millisecond)
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				src.Close()
			}
			return
		}
	}
}
