package httpx

import (
	"io"
	"sync"
	"time"
)

// LogWriter buffers log lines in memory and writes them to the underlying writer in batches,
// from a background goroutine, at least every FlushInterval: a request's access-log line then
// costs a copy into memory instead of a write system call. Nothing is dropped: when the
// buffer holds MaxBuffered bytes, the writer that would exceed it writes the batch itself
// (back-pressure) before returning. Close (or Flush) writes what is pending; the binary calls
// Close on shutdown, after the HTTP server has finished its requests.
//
// Each Write is kept whole (slog handlers write one line per call), so lines never interleave.
type LogWriter struct {
	w             io.Writer
	flushInterval time.Duration
	maxBuffered   int

	mu      sync.Mutex
	buf     []byte
	spare   []byte // the other buffer, reused after a flush
	writeMu sync.Mutex
	err     error // the first write error, reported to later callers
	done    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// Defaults of NewLogWriter.
const (
	DefaultLogFlushInterval = 50 * time.Millisecond
	DefaultLogMaxBuffered   = 1 << 20 // a writer past this writes the batch itself
)

// NewLogWriter starts a LogWriter in front of w.
func NewLogWriter(w io.Writer) *LogWriter {
	l := &LogWriter{w: w, flushInterval: DefaultLogFlushInterval, maxBuffered: DefaultLogMaxBuffered,
		buf: make([]byte, 0, 256<<10), spare: make([]byte, 0, 256<<10),
		done: make(chan struct{}), stopped: make(chan struct{})}
	go l.loop()
	return l
}

// Write buffers p (a copy). It blocks only when the buffer is full, to write it out.
func (l *LogWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	if l.err != nil {
		err := l.err
		l.mu.Unlock()
		return 0, err
	}
	l.buf = append(l.buf, p...)
	full := len(l.buf) >= l.maxBuffered
	l.mu.Unlock()
	if full {
		if err := l.Flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes every buffered line to the underlying writer now.
func (l *LogWriter) Flush() error {
	l.writeMu.Lock() // one batch at a time, in order
	defer l.writeMu.Unlock()
	l.mu.Lock()
	batch := l.buf
	l.buf = l.spare[:0]
	l.mu.Unlock()
	var err error
	if len(batch) > 0 {
		_, err = l.w.Write(batch)
	}
	l.mu.Lock()
	l.spare = batch[:0]
	if err != nil && l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
	return err
}

func (l *LogWriter) loop() {
	defer close(l.stopped)
	t := time.NewTicker(l.flushInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = l.Flush()
		case <-l.done:
			return
		}
	}
}

// Close stops the background flushes and writes what is pending. Writes after Close still
// work and are written through at once.
func (l *LogWriter) Close() error {
	l.once.Do(func() {
		close(l.done)
		<-l.stopped
		l.mu.Lock()
		l.maxBuffered = 0 // from now on every Write flushes itself
		l.mu.Unlock()
	})
	return l.Flush()
}
