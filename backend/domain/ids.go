package domain

import (
	"crypto/rand"
	"encoding/binary"
	"strings"
	"sync"
	"time"
)

// ID prefixes: an id says what it names.
const (
	PrefixWorkspace = "ws_"
	PrefixUser      = "usr_"
	PrefixAPIKey    = "key_"
	PrefixSession   = "ses_"
	PrefixInstance  = "inst_"
	PrefixMessage   = "msg_"
	PrefixGroup     = "grp_"
	PrefixContact   = "ct_"
	PrefixWebhook   = "wh_"
	PrefixDelivery  = "whd_"
	PrefixLink      = "lnk_"
	PrefixClick     = "clk_"
	PrefixPublisher = "pub_"
	PrefixSubscript = "sub_"
	PrefixEvent     = "evt_"
	PrefixRequest   = "req_"
	PrefixJob       = "job_"
)

const crockford = "0123456789abcdefghjkmnpqrstvwxyz"

var idGen struct {
	sync.Mutex
	lastMS int64
	hi     uint16
	lo     uint64
}

// NewID returns prefix + a 26-character ULID-like string: 48 bits of milliseconds then 80
// random bits, lower-case Crockford base32. Within one process ids are strictly increasing
// (the random part is incremented inside a millisecond), so ids sort by creation time.
func NewID(prefix string) string {
	return newIDAt(prefix, time.Now())
}

func newIDAt(prefix string, t time.Time) string {
	ms := t.UnixMilli()
	idGen.Lock()
	if ms <= idGen.lastMS {
		ms = idGen.lastMS
		idGen.lo++
		if idGen.lo == 0 {
			idGen.hi++
		}
	} else {
		var b [10]byte
		_, _ = rand.Read(b[:])
		idGen.lastMS = ms
		idGen.hi = binary.BigEndian.Uint16(b[:2]) & 0x7fff // headroom for increments
		idGen.lo = binary.BigEndian.Uint64(b[2:])
	}
	hi, lo := idGen.hi, idGen.lo
	idGen.Unlock()

	// 128 bits: 48 ms | 16 hi | 64 lo, encoded as 26 base32 digits (130 bits, top 2 zero).
	var out [26]byte
	v1 := uint64(ms)<<16 | uint64(hi) // top 64 bits
	v0 := lo                          // bottom 64 bits
	for i := 25; i >= 0; i-- {
		out[i] = crockford[v0&31]
		v0 = v0>>5 | (v1&31)<<59
		v1 >>= 5
	}
	return prefix + string(out[:])
}

// HasPrefix reports whether id looks like an id of the given prefix.
func HasPrefix(id, prefix string) bool {
	return len(id) == len(prefix)+26 && id[:len(prefix)] == prefix
}

// FirstIDAt returns the smallest id of prefix that NewID could make at t: a bound for
// "every id made since t".
func FirstIDAt(prefix string, t time.Time) string {
	var out [26]byte
	v1 := uint64(t.UnixMilli()) << 16
	var v0 uint64
	for i := 25; i >= 0; i-- {
		out[i] = crockford[v0&31]
		v0 = v0>>5 | (v1&31)<<59
		v1 >>= 5
	}
	return prefix + string(out[:])
}

// IDTime reads the creation time (to the millisecond) from an id made by NewID.
func IDTime(id, prefix string) (time.Time, bool) {
	if !HasPrefix(id, prefix) {
		return time.Time{}, false
	}
	var v uint64
	for _, c := range id[len(prefix) : len(prefix)+10] { // 50 bits: the 48-bit milliseconds, top 2 zero
		d := strings.IndexRune(crockford, c)
		if d < 0 {
			return time.Time{}, false
		}
		v = v<<5 | uint64(d)
	}
	return time.UnixMilli(int64(v)).UTC(), true
}
