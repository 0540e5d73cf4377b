package httpx

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
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
	b = appendRFC3339Nano(b, l.time)
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

// appendRFC3339Nano appends t as t.AppendFormat(b, time.RFC3339Nano) does. Every line starts
// with the time and most lines of a second share all of it but the fraction, so the date,
// clock and zone are formatted once per second (a zone changes its offset only on a whole
// second) and kept; only the fraction is formatted per line.
func appendRFC3339Nano(b []byte, t time.Time) []byte {
	sec := t.Unix()
	s := lastSecond.Load()
	if s == nil || s.unix != sec || s.loc != t.Location() {
		s = &formattedSecond{unix: sec, loc: t.Location(),
			clock: t.AppendFormat(nil, "2006-01-02T15:04:05"), zone: t.AppendFormat(nil, "Z07:00")}
		lastSecond.Store(s)
	}
	b = append(b, s.clock...)
	if ns := t.Nanosecond(); ns != 0 { // ".999999999": nine digits, trailing zeros dropped
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i > 0; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := len(frac)
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, s.zone...)
}

// formattedSecond is one second's formatted date and clock, and its zone, in one location.
type formattedSecond struct {
	unix        int64
	loc         *time.Location
	clock, zone []byte
}

var lastSecond atomic.Pointer[formattedSecond]
