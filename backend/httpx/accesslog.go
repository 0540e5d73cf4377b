package httpx

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// JSONHandler is log/slog's JSON handler (same output; options: the level only) that also
// lets AccessLog write its one line per request itself, byte for byte what slog would write,
// without slog's generic attribute path (an allocation for the sixth attribute, a type switch
// and an escaping scan per value, and json.Marshal for the duration). The binary logs through
// it; any other handler gets the same lines through slog.
type JSONHandler struct {
	*slog.JSONHandler
	w io.Writer // shared with the slog handler; writes are whole lines, serialized
}

// NewJSONHandler returns a JSON handler writing to w at level and above.
func NewJSONHandler(w io.Writer, level slog.Leveler) *JSONHandler {
	if _, ok := w.(*LogWriter); !ok {
		w = &lockedWriter{w: w} // the access log writes beside slog's own (locked) writes
	}
	return &JSONHandler{JSONHandler: slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}), w: w}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// accessLine is one access-log line: the record AccessLog logs.
type accessLine struct {
	time                    time.Time
	requestID, method, path string
	status, bytes           int
	durationMS              float64
}

// attrs are the line's attributes, in order, for handlers other than JSONHandler.
func (l *accessLine) record() slog.Record {
	r := slog.NewRecord(l.time, slog.LevelInfo, "request", 0)
	r.AddAttrs(
		slog.String("request_id", l.requestID),
		slog.String("method", l.method),
		slog.String("path", l.path),
		slog.Int("status", l.status),
		slog.Int("bytes", l.bytes),
		slog.Float64("duration_ms", l.durationMS),
	)
	return r
}

// writeAccess writes l as slog's JSON handler would. It reports false, writing nothing,
// when a value needs escaping or an unusual number format (then the caller uses slog).
func (h *JSONHandler) writeAccess(l *accessLine) bool {
	if !plainJSON(l.requestID) || !plainJSON(l.method) || !plainJSON(l.path) ||
		l.time.Year() < 0 || l.time.Year() >= 10000 ||
		!(l.durationMS == 0 || (l.durationMS >= 1e-6 && l.durationMS < 1e21)) {
		return false
	}
	bp := lineBuffers.Get().(*[]byte)
	b := (*bp)[:0]
	b = append(b, `{"time":"`...)
	b = l.time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"request","request_id":"`...)
	b = append(b, l.requestID...)
	b = append(b, `","method":"`...)
	b = append(b, l.method...)
	b = append(b, `","path":"`...)
	b = append(b, l.path...)
	b = append(b, `","status":`...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(l.bytes), 10)
	b = append(b, `,"duration_ms":`...)
	// encoding/json's format for floats in [1e-6, 1e21), which is what slog uses.
	b = strconv.AppendFloat(b, l.durationMS, 'f', -1, 64)
	b = append(b, "}\n"...)
	_, _ = h.w.Write(b)
	if cap(b) <= 4<<10 {
		*bp = b
		lineBuffers.Put(bp)
	}
	return true
}

// plainJSON reports whether s is written into a JSON string as is (printable ASCII without
// '"' or '\').
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// logAccess writes the line through h: directly for a JSONHandler, else as a slog record.
func logAccess(ctx context.Context, h slog.Handler, l *accessLine) {
	if jh, ok := h.(*JSONHandler); ok && jh.writeAccess(l) {
		return
	}
	_ = h.Handle(ctx, l.record())
}
