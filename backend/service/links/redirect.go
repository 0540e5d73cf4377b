package links

import (
	"context"
	"hash/fnv"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
	"golang.org/x/net/idna"
)

// The redirect resolves slugs from memory: a slug is read from the database once, then
// served from the cache until a change of the link (on any replica) drops it, or cacheTTL
// passes (a bound on staleness should a notification be missed).
const (
	cacheTTL     = time.Minute
	cacheEntries = 100_000
)

// cached is what the redirect needs of a link (found false: no live link has the slug).
type cached struct {
	found    bool
	link     store.StoredLink
	target   string // url with the utm parameters
	ios      string
	android  string
	loadedAt time.Time
	// exhausted is set once a reservation found max_clicks reached.
	exhausted bool
}

type slugCache struct {
	mu sync.RWMutex
	m  map[string]*cached
	// gen counts invalidations: a link loaded while one happened may be its state before
	// the change, so it is not kept (put), or a visit could serve the old target for up to
	// cacheTTL after the change.
	gen uint64
}

func newSlugCache() *slugCache { return &slugCache{m: map[string]*cached{}} }

// get returns the slug's entry and whether it is fresh (a stale one, past cacheTTL, is
// returned too: it serves while the database cannot be read), and the generation a load
// must present to put.
func (c *slugCache) get(slug string, now time.Time) (*cached, uint64, bool) {
	c.mu.RLock()
	e, ok := c.m[slug]
	gen := c.gen
	c.mu.RUnlock()
	return e, gen, ok && now.Sub(e.loadedAt) <= cacheTTL
}

// put keeps e, loaded at generation gen, unless an invalidation came since.
func (c *slugCache) put(slug string, e *cached, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if len(c.m) >= cacheEntries {
		clear(c.m) // rare: a full cache starts over rather than tracking recency on every hit
	}
	c.m[slug] = e
}

// clear makes every entry stale (invalidations may have been missed): each is read again
// at its next visit, and serves only while that read finds the database unavailable.
func (c *slugCache) clear() {
	c.mu.Lock()
	for slug, e := range c.m {
		stale := *e
		stale.loadedAt = time.Time{}
		c.m[slug] = &stale
	}
	c.gen++
	c.mu.Unlock()
}

func (c *slugCache) drop(slug string) {
	c.mu.Lock()
	delete(c.m, slug)
	c.gen++
	c.mu.Unlock()
}

func (c *slugCache) markExhausted(slug string) {
	c.mu.Lock()
	if e, ok := c.m[slug]; ok {
		copy := *e
		copy.exhausted = true
		c.m[slug] = &copy
	}
	c.mu.Unlock()
}

// staleRetry is how soon a stale entry kept through a failed read is read again.
const staleRetry = 5 * time.Second

// resolve returns the cache entry of a slug, loading it on a miss. An entry past cacheTTL
// whose reload finds the database unavailable goes on serving (it was right when the
// database last answered, and changes since would have dropped it): a database outage does
// not take down the links already visited.
func (l *Links) resolve(ctx context.Context, slug string, now time.Time) (*cached, error) {
	old, gen, fresh := l.cache.get(slug, now)
	if fresh {
		return old, nil
	}
	e := &cached{loadedAt: now}
	sl, err := l.st.LinkBySlug(ctx, slug)
	switch {
	case err == nil:
		e.found, e.link = true, sl
		e.target, e.ios, e.android = location(withUTM(sl.URL, sl.UTM)), location(withUTM(sl.IOSURL, sl.UTM)), location(withUTM(sl.AndroidURL, sl.UTM))
	case old != nil && domain.IsCode(err, domain.CodeUnavailable):
		kept := *old
		kept.loadedAt = now.Add(staleRetry - cacheTTL)
		l.cache.put(slug, &kept, gen)
		return &kept, nil
	case !domain.IsCode(err, domain.CodeNotFound):
		return nil, err
	}
	l.cache.put(slug, e, gen)
	return e, nil
}

// withUTM sets the utm_ parameters on a target, replacing ones it has. The rest of the
// target is kept byte for byte: its other parameters in their order and encoding (a flag
// without a value, a ";", an escape a parser would refuse), and its fragment.
// location is target as a Location header carries it: an international host name in its
// ASCII form (bücher.example → xn--bcher-kva.example), the bytes of other non-ASCII
// characters percent-encoded (/ünï → /%C3%BCn%C3%AF), everything else as the link has it.
// Browsers do this themselves; stricter clients refuse raw UTF-8 in a header.
func location(target string) string {
	i := strings.IndexFunc(target, func(r rune) bool { return r >= utf8.RuneSelf })
	if i < 0 {
		return target
	}
	if scheme, rest, ok := strings.Cut(target, "://"); ok {
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		host, port := rest[:end], ""
		if j := strings.LastIndexByte(host, ':'); j >= 0 {
			host, port = host[:j], host[j:]
		}
		if a, err := idna.Lookup.ToASCII(host); err == nil && a != host {
			target = scheme + "://" + a + port + rest[end:]
			if i = strings.IndexFunc(target, func(r rune) bool { return r >= utf8.RuneSelf }); i < 0 {
				return target
			}
		}
	}
	const hex = "0123456789ABCDEF"
	b := []byte(target[:i])
	for j := i; j < len(target); j++ {
		if c := target[j]; c >= utf8.RuneSelf {
			b = append(b, '%', hex[c>>4], hex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}

func withUTM(target string, u domain.UTM) string {
	pairs := u.Pairs()
	if target == "" || len(pairs) == 0 {
		return target
	}
	rest, fragment, hasFragment := strings.Cut(target, "#")
	base, query, _ := strings.Cut(rest, "?")
	setting := map[string]bool{}
	for _, kv := range pairs {
		setting[kv[0]] = true
	}
	var parts []string
	for _, part := range strings.Split(query, "&") {
		name, _, _ := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if part != "" && !setting[name] {
			parts = append(parts, part)
		}
	}
	for _, kv := range pairs {
		parts = append(parts, kv[0]+"="+url.QueryEscape(kv[1]))
	}
	out := base + "?" + strings.Join(parts, "&")
	if hasFragment {
		out += "#" + fragment
	}
	return out
}

// Visit is one request for a short link, as the redirect handler read it.
type Visit struct {
	Slug      string
	Method    string // GET, HEAD or POST (a password form)
	Password  string // POST only
	UserAgent string
	Referrer  string
	IP        string
	QR        bool // came through the link's QR code
	// Query is the short URL's raw query (?ref=newsletter): its parameters go on to the
	// target, except qr and those the target already sets.
	Query string
}

// Outcome kinds of a visit.
const (
	Redirect     = iota // Status and Location
	NotFound            // no such link: a 404 page
	Gone                // expired or exhausted, without expired_url: a 410 page
	Password            // a password page (WrongPassword after a failed try)
	TooManyTries        // too many wrong passwords from this visitor: a 429 page, RetryAfter
)

// Wrong passwords are limited per visitor (IP) and link: passwordTries in passwordWindow,
// then the visitor waits for the window to end. (Each check is a costly hash, and the
// service runs only a few at once: see service.argon2Slots.)
const (
	passwordTries  = 5
	passwordWindow = time.Minute
)

// Outcome is what the redirect handler answers.
type Outcome struct {
	Kind          int
	Status        int
	Location      string
	WrongPassword bool
	Title         string
	RetryAfter    time.Duration // TooManyTries: until the visitor may try again
}

// Visit decides where a visitor goes and records the click (without waiting for its write;
// only a link with max_clicks waits, for the one write that keeps the limit exact).
func (l *Links) Visit(ctx context.Context, v Visit) (Outcome, error) {
	now := l.s.Clock().Now()
	e, err := l.resolve(ctx, v.Slug, now)
	if err != nil {
		return Outcome{}, err
	}
	if !e.found {
		return Outcome{Kind: NotFound}, nil
	}
	link := e.link
	gone := func() Outcome {
		if link.ExpiredURL != "" {
			status := 302
			if v.Method == "POST" {
				status = 303 // a form post's answer is always 303: the browser GETs it
			}
			return Outcome{Kind: Redirect, Status: status, Location: location(link.ExpiredURL)}
		}
		return Outcome{Kind: Gone}
	}
	if e.exhausted || (link.ExpiresAt != nil && !now.Before(*link.ExpiresAt)) {
		return gone(), nil
	}
	status := link.RedirectStatus
	if link.PasswordHash != "" {
		// A visitor is not asked for a password that can no longer open the link. The cache
		// knows a link is exhausted only once a visit here found it so: read its count (a
		// password page is not the fast path).
		if link.MaxClicks != nil {
			if fresh, err := l.st.LinkBySlug(ctx, v.Slug); err == nil && fresh.ID == link.ID &&
				fresh.MaxClicks != nil && fresh.Clicks >= *fresh.MaxClicks {
				l.cache.markExhausted(v.Slug)
				return gone(), nil
			}
		}
		key := link.ID + " " + v.IP
		if wait := l.tries.RetryAfter(key, passwordTries, passwordWindow); wait > 0 {
			return Outcome{Kind: TooManyTries, RetryAfter: wait, Title: link.Title}, nil
		}
		if v.Method != "POST" {
			return Outcome{Kind: Password, Title: link.Title}, nil
		}
		if !service.CheckSecret(link.PasswordHash, v.Password) {
			l.tries.Fail(key, passwordWindow)
			return Outcome{Kind: Password, WrongPassword: true, Title: link.Title}, nil
		}
		l.tries.Reset(key)
	}
	if v.Method == "POST" {
		// The answer to a form post: the browser GETs the target. A 307 or 308 would have it
		// post the form (the password) to the target, should the password have been removed
		// since the page was shown.
		status = 303
	}
	ua := l.agents.get(v.UserAgent)
	click := l.newClick(link.Link, v, ua, now)
	if link.MaxClicks != nil && !click.Bot {
		ok, err := l.reserve(ctx, v.Slug, link.ID, now)
		if err != nil {
			return Outcome{}, err
		}
		if !ok {
			return gone(), nil
		}
		click.Counted = true
	}
	l.clk.add(click)
	target := e.target
	if ua.ios && e.ios != "" {
		target = e.ios
	} else if ua.android && e.android != "" {
		target = e.android
	}
	if v.Query != "" {
		target = passQuery(target, v.Query)
	}
	return Outcome{Kind: Redirect, Status: status, Location: target}, nil
}

// passQuery adds the visitor's query parameters to target (before its fragment), as Dub and
// Bitly do: one short link can carry a campaign's or a referrer's parameters to the page.
// The link's own win: a parameter the target already has (its utm_ ones included) is
// not added again, so a visitor cannot rewrite the owner's attribution; qr is the short
// link's own. Parameters keep their encoding as sent.
func passQuery(target, query string) string {
	rest, fragment, hasFragment := strings.Cut(target, "#")
	_, own, _ := strings.Cut(rest, "?")
	has := map[string]bool{"qr": true}
	for _, part := range strings.Split(own, "&") {
		has[paramName(part)] = true
	}
	var add []string
	for _, part := range strings.Split(query, "&") {
		if name := paramName(part); name != "" && !has[name] {
			add = append(add, part)
			has[name] = true // a parameter given twice goes on once, as the first
		}
	}
	if len(add) == 0 {
		return target
	}
	sep := "?"
	if strings.Contains(rest, "?") {
		sep = "&"
		if strings.HasSuffix(rest, "?") || strings.HasSuffix(rest, "&") {
			sep = ""
		}
	}
	out := rest + sep + strings.Join(add, "&")
	if hasFragment {
		out += "#" + fragment
	}
	return location(out)
}

// paramName is the decoded name of one name=value part of a query.
func paramName(part string) string {
	name, _, _ := strings.Cut(part, "=")
	if n, err := url.QueryUnescape(name); err == nil {
		return n
	}
	return name
}

// reserve counts one click of a link with max_clicks, unless the limit is reached. The
// reservations of one link take turns in this process (its row lock makes them wait for each
// other anyway), and a turn that finds the link exhausted meanwhile answers from the cache:
// a crowd arriving at a link's last clicks costs one UPDATE per click up to the limit, not
// one per visitor; on SQLite, where every UPDATE waits for the one write lock, the crowd
// would otherwise queue for the database.
func (l *Links) reserve(ctx context.Context, slug, id string, now time.Time) (bool, error) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	mu := &l.reserving[h.Sum32()%uint32(len(l.reserving))]
	mu.Lock()
	defer mu.Unlock()
	if e, _, ok := l.cache.get(slug, now); ok && e.exhausted && e.link.ID == id {
		return false, nil
	}
	ok, err := l.st.ReserveClick(ctx, id, now)
	if err == nil && !ok {
		l.cache.markExhausted(slug)
	}
	return ok, err
}
