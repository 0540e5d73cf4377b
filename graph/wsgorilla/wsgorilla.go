// Package wsgorilla runs gqlgen's websocket transport on github.com/gorilla/websocket.
//
// gqlgen (from v0.17.92) no longer ships a gorilla adapter; it defines
// transport.WebsocketImplementation instead. This package implements it:
//
//	transport.Websocket{Implementation: wsgorilla.New(wsgorilla.Options{
//		CheckOrigin: wsgorilla.SameOriginOr("https://dash.example.com"),
//	})}
//
// It negotiates the GraphQL subprotocol the client prefers among those gqlgen supports,
// refuses cross-site upgrades, serializes writes (gorilla allows one writer at a time), and
// enforces the transport's read limit and read deadlines (for the graphql-transport-ws
// ping/pong keep-alive).
package wsgorilla

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
)

// DefaultWriteTimeout bounds one write to a client; a client that does not read is cut off
// after it rather than holding its connection's writer forever.
const DefaultWriteTimeout = 10 * time.Second

// Options configure the websocket upgrade. The zero value is usable: same-origin only,
// gorilla's default buffer sizes, DefaultWriteTimeout.
type Options struct {
	// CheckOrigin reports whether the upgrade request's Origin is acceptable. Nil means
	// SameOriginOr() (same origin, or no Origin header at all as sent by non-browser clients).
	CheckOrigin func(r *http.Request) bool
	// HandshakeTimeout bounds the upgrade handshake (0: none beyond the server's).
	HandshakeTimeout time.Duration
	// ReadBufferSize and WriteBufferSize are gorilla's I/O buffer sizes (0: 4096).
	ReadBufferSize, WriteBufferSize int
	// WriteTimeout bounds each message write (0: DefaultWriteTimeout).
	WriteTimeout time.Duration
}

// Implementation is a transport.WebsocketImplementation on gorilla/websocket.
type Implementation struct {
	opts Options
}

var _ transport.WebsocketImplementation = (*Implementation)(nil)

// New returns an Implementation with the given options.
func New(opts Options) *Implementation {
	if opts.CheckOrigin == nil {
		opts.CheckOrigin = SameOriginOr()
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	return &Implementation{opts: opts}
}

// ErrOriginNotAllowed is returned by Accept for a cross-site upgrade request.
var ErrOriginNotAllowed = errors.New("websocket: origin not allowed")

// Accept upgrades the request. On failure it writes nothing: gqlgen's transport writes the
// error response itself, and a second response would be a superfluous WriteHeader.
func (im *Implementation) Accept(w http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	if !im.opts.CheckOrigin(r) {
		return nil, ErrOriginNotAllowed
	}
	u := websocket.Upgrader{
		HandshakeTimeout: im.opts.HandshakeTimeout,
		ReadBufferSize:   im.opts.ReadBufferSize,
		WriteBufferSize:  im.opts.WriteBufferSize,
		// The origin was checked above, with the configured policy.
		CheckOrigin: func(*http.Request) bool { return true },
		// Write nothing on failure; the transport answers (see above).
		Error: func(http.ResponseWriter, *http.Request, int, error) {},
	}
	if p := selectSubprotocol(websocket.Subprotocols(r), opts.Subprotocols); p != "" {
		u.Subprotocols = []string{p}
	}
	conn, err := u.Upgrade(w, r, opts.ResponseHeader)
	if err != nil {
		return nil, err
	}
	c := &Conn{conn: conn, writeTimeout: im.opts.WriteTimeout}
	if conn.Subprotocol() == transportWS {
		c.active = map[string]bool{}
	}
	return c, nil
}

// transportWS is the graphql-transport-ws subprotocol, whose ids this adapter watches.
const transportWS = "graphql-transport-ws"

// selectSubprotocol returns the first protocol the client offers that the server supports:
// the client's order of preference decides, as RFC 6455 intends.
func selectSubprotocol(offered, supported []string) string {
	for _, p := range offered {
		if slices.Contains(supported, p) {
			return p
		}
	}
	return ""
}

// SameOriginOr returns an origin check that accepts requests without an Origin header
// (non-browser clients cannot be driven by another site), requests whose Origin has the
// same host as the request, and requests from one of the allowed origins, given as
// "scheme://host[:port]" (compared case-insensitively). Every other browser origin is refused,
// so a page on another site cannot open a socket that carries the user's session cookie.
func SameOriginOr(allowed ...string) func(r *http.Request) bool {
	allow := make([]string, 0, len(allowed))
	for _, a := range allowed {
		allow = append(allow, strings.ToLower(strings.TrimRight(a, "/")))
	}
	return func(r *http.Request) bool {
		origin := r.Header.Values("Origin")
		if len(origin) == 0 {
			return true
		}
		if len(origin) > 1 {
			return false
		}
		u, err := url.Parse(origin[0])
		if err != nil || u.Host == "" {
			return false // includes the opaque "null" origin
		}
		if strings.EqualFold(u.Host, r.Host) {
			return true
		}
		return slices.Contains(allow, strings.ToLower(u.Scheme+"://"+u.Host))
	}
}

// Conn is an accepted connection, a transport.WebsocketConn that also implements
// transport.WebsocketReadLimiter and transport.WebsocketReadDeadliner.
type Conn struct {
	conn         *websocket.Conn
	writeTimeout time.Duration

	wmu       sync.Mutex // gorilla allows one concurrent writer
	closeOnce sync.Once
	closeErr  error

	// active are the ids of the operations under way (graphql-transport-ws only, else nil):
	// a subscribe that reuses one closes the connection with 4409, as the protocol says.
	// gqlgen's transport would run both, the client then getting every event twice under
	// one id, and one complete unable to end both.
	amu    sync.Mutex
	active map[string]bool
}

// envelope is what the adapter reads of a protocol message.
type envelope struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

var (
	_ transport.WebsocketConn          = (*Conn)(nil)
	_ transport.WebsocketReadLimiter   = (*Conn)(nil)
	_ transport.WebsocketReadDeadliner = (*Conn)(nil)
)

// NextReader returns the next data message. A normal close by the peer is
// transport.ErrWebsocketClosed, as the transport expects.
func (c *Conn) NextReader() (int, io.Reader, error) {
	mt, r, err := c.conn.NextReader()
	if err != nil {
		if websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseNoStatusReceived, websocket.CloseGoingAway) {
			return mt, nil, transport.ErrWebsocketClosed
		}
		return mt, nil, err
	}
	if c.active == nil {
		return mt, r, nil
	}
	b, err := io.ReadAll(r) // bounded by the read limit
	if err != nil {
		return mt, nil, err
	}
	var m envelope
	if json.Unmarshal(b, &m) == nil && m.ID != "" {
		c.amu.Lock()
		dup := m.Type == "subscribe" && c.active[m.ID]
		switch m.Type {
		case "subscribe":
			c.active[m.ID] = true
		case "complete":
			delete(c.active, m.ID)
		}
		c.amu.Unlock()
		if dup {
			reason := "Subscriber for " + m.ID + " already exists"
			_ = c.WriteClose(4409, reason)
			_ = c.Close()
			return mt, nil, errors.New("websocket: " + reason)
		}
	}
	return mt, bytes.NewReader(b), nil
}

// ended forgets the id of an operation the server has finished (complete, or error).
func (c *Conn) ended(v any) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return
	}
	id, typ := rv.FieldByName("ID"), rv.FieldByName("Type")
	if !id.IsValid() || !typ.IsValid() || id.Kind() != reflect.String || typ.Kind() != reflect.String {
		return
	}
	if t := typ.String(); t == "complete" || t == "error" {
		c.amu.Lock()
		delete(c.active, id.String())
		c.amu.Unlock()
	}
}

// WriteJSON writes v as one text message. Writes are serialized and bounded by the write
// timeout; after a failed write the connection is closed, so the transport's reader stops
// too and the operation's resources are released.
func (c *Conn) WriteJSON(v any) error {
	if c.active != nil {
		c.ended(v) // before the write: the client may reuse the id as soon as it reads it
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(c.writeTimeout))
	err := c.conn.WriteJSON(v)
	if err != nil {
		_ = c.Close()
	}
	return err
}

// WriteClose sends a close frame with the code and reason (cut to the 123 bytes a control
// frame allows). It does not wait for the peer's reply; the transport calls Close next.
func (c *Conn) WriteClose(code int, reason string) error {
	if len(reason) > 123 {
		reason = reason[:123]
	}
	msg := websocket.FormatCloseMessage(code, reason)
	// WriteControl may run concurrently with WriteJSON, but take the lock anyway so the
	// close frame is the last frame written.
	c.wmu.Lock()
	defer c.wmu.Unlock()
	err := c.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(c.writeTimeout))
	if errors.Is(err, websocket.ErrCloseSent) {
		return nil
	}
	return err
}

// Close closes the network connection. It is safe to call more than once and concurrently.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.conn.Close() })
	return c.closeErr
}

// Subprotocol is the negotiated subprotocol ("" when the client offered none we support).
func (c *Conn) Subprotocol() string { return c.conn.Subprotocol() }

// SetReadLimit sets the largest message the peer may send; a larger one closes the
// connection with status 1009.
func (c *Conn) SetReadLimit(limit int64) { c.conn.SetReadLimit(limit) }

// SetReadDeadline makes a read that has not finished by t fail (zero t: no deadline). The
// transport uses it to drop a client that stops answering pings.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.conn.SetReadDeadline(t) }
