package links

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mileusna/useragent"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// maxReferrer bounds the stored referrer URL, maxAgentField each name taken from a user
// agent (browser, version, OS).
const (
	maxReferrer   = 512
	maxAgentField = 100
)

// previewers are link-preview fetchers: they fetch a link to show a card, not to visit it.
var previewers = []string{"facebookexternalhit", "facebot", "twitterbot", "slackbot", "slack-imgproxy", "linkedinbot",
	"whatsapp", "telegrambot", "discordbot", "skypeuripreview", "pinterest", "redditbot", "vkshare", "iframely",
	"embedly", "mastodon", "bluesky", "cardyb", "snapchat", "viber", "line/", "kakaotalk", "microsoftpreview",
	"teams", "outlook", "google-pagerenderer", "applebot", "bitlybot", "quora link preview"}

// crawlers are words in the user agents of crawlers and scripted clients the parser misses.
// curl is left out on purpose: a developer trying a link counts.
var crawlers = []string{"bot", "crawl", "spider", "slurp", "headless", "scrapy", "python-requests", "python-urllib",
	"python/", "aiohttp", "httpx", "go-http-client", "okhttp", "java/", "libwww", "httpclient", "phantomjs", "lighthouse",
	"preview", "wget", "axios", "postmanruntime", "insomnia", "node-fetch", "undici", "got (", "node-superagent",
	"ruby", "faraday", "http.rb", "guzzlehttp", "php/", "restsharp", "reqwest", "dart:io", "powershell", "httpie",
	// Google's fetchers without "bot" in their names (Search Console's URL inspection among them).
	"google-inspectiontool", "googleother", "google-read-aloud", "google-site-verification", "feedfetcher",
	"mediapartners-google", "apis-google"}

// agent is what a click keeps of a user agent, parsed once per distinct string.
type agent struct {
	browser, version, os string
	device               string
	ios, android         bool
	// bot is why a GET with this agent is not a person's ("" when it is).
	bot string
}

// agents caches parsed user agents: real traffic repeats a few thousand strings, and parsing
// one (and looking for bot words) costs more than the rest of a redirect.
type agents struct {
	mu sync.RWMutex
	m  map[string]agent
}

const maxAgents = 4096

func (c *agents) get(ua string) agent {
	c.mu.RLock()
	a, ok := c.m[ua]
	c.mu.RUnlock()
	if ok {
		return a
	}
	a = parseAgent(ua)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxAgents {
		c.m = make(map[string]agent, 256) // rare: start over rather than track recency per hit
	}
	c.m[ua] = a
	c.mu.Unlock()
	return a
}

func parseAgent(s string) agent {
	ua := useragent.Parse(s)
	a := agent{browser: domain.StorableText(ua.Name, maxAgentField), version: domain.StorableText(ua.Version, maxAgentField),
		os: domain.StorableText(ua.OS, maxAgentField), ios: ua.IsIOS(), android: ua.IsAndroid(), device: domain.DeviceUnknown,
		bot: agentBotReason(s, ua)}
	if platformName(s, ua.Name) {
		a.browser, a.version = "", ""
	}
	switch {
	case a.bot != "":
		a.device = domain.DeviceBot
	case ua.Tablet:
		a.device = domain.DeviceTablet
	case ua.Mobile:
		a.device = domain.DeviceMobile
	case ua.Desktop:
		a.device = domain.DeviceDesktop
	}
	return a
}

// platformName tells that the parser, finding no browser, named one from the agent's
// platform comment ("Intel Mac OS X 10_15_7", "Win64", "iPhone") or the whole agent: that
// is an operating system or a device, never a browser.
func platformName(agent, name string) bool {
	if name == "" {
		return false
	}
	if strings.ContainsAny(name, "();") {
		return true
	}
	for rest := agent; ; {
		_, after, ok := strings.Cut(rest, "(")
		if !ok {
			return false
		}
		comment, next, _ := strings.Cut(after, ")")
		for _, tok := range strings.Split(comment, ";") {
			if strings.TrimSpace(tok) == name {
				return true
			}
		}
		rest = next
	}
}

// botReason tells why a visit is not a person's ("" when it is).
func botReason(method string, a agent) string {
	if method == "HEAD" {
		return "head_request"
	}
	return a.bot
}

func agentBotReason(agent string, ua useragent.UserAgent) string {
	if strings.TrimSpace(agent) == "" {
		return "empty_user_agent"
	}
	low := strings.ToLower(agent)
	for _, p := range previewers {
		if strings.Contains(low, p) {
			return "link_preview"
		}
	}
	if ua.Bot {
		return "crawler"
	}
	for _, c := range crawlers {
		if strings.Contains(low, c) {
			return "crawler"
		}
	}
	return ""
}

// newClick describes a visit: parsed agent, bot flag, referrer, country and the day's
// visitor hash (never the IP).
func (l *Links) newClick(link domain.Link, v Visit, a agent, now time.Time) domain.Click {
	c := domain.Click{ID: domain.NewID(domain.PrefixClick), WorkspaceID: link.WorkspaceID, LinkID: link.ID, At: now,
		Browser: a.browser, BrowserVersion: a.version, OS: a.os, QR: v.QR, Device: a.device}
	c.BotReason = botReason(v.Method, a)
	if c.Bot = c.BotReason != ""; c.Bot {
		c.Device = domain.DeviceBot
	}
	if ref := domain.StorableText(v.Referrer, maxReferrer); ref != "" {
		c.Referrer = ref
		if u, err := url.Parse(domain.StorableText(v.Referrer, 0)); err == nil {
			c.ReferrerHost = domain.StorableText(strings.ToLower(u.Hostname()), 255)
		}
	}
	c.Country = l.cfg.GeoIP.Country(v.IP)
	c.Visitor = l.visitor(v.IP, now)
	return c
}

// visitorKey is the day's key of visitor hashes: HMAC(salt, day), made once a day.
type visitorKey struct {
	day string
	key []byte
}

// visitor hashes an IP with the day's key, so one visitor counts once a day and no hash can
// be joined across days or turned back into the IP.
func (l *Links) visitor(ip string, now time.Time) string {
	l.hashOnce.Do(func() {
		if len(l.cfg.VisitorSalt) == 0 {
			l.cfg.VisitorSalt = make([]byte, 32)
			_, _ = rand.Read(l.cfg.VisitorSalt)
		}
	})
	day := now.UTC().Format("2006-01-02")
	k := l.dayKey.Load()
	if k == nil || k.day != day {
		m := hmac.New(sha256.New, l.cfg.VisitorSalt)
		m.Write([]byte(day))
		k = &visitorKey{day: day, key: m.Sum(nil)}
		l.dayKey.Store(k)
	}
	h := sha256.New()
	h.Write(k.key)
	h.Write([]byte(ip))
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:16])
}

// clickedData encodes domain.LinkClicked with its link already encoded (once for all the
// clicks of a batch): json.Marshal would check and copy the link's JSON again for every click.
func clickedData(c domain.Click, link json.RawMessage) (json.RawMessage, error) {
	click, err := domain.Encode(c.Object())
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(click)+len(link)+20)
	out = append(out, `{"click":`...)
	out = append(out, click...)
	out = append(out, `,"link":`...)
	out = append(out, link...)
	return append(out, '}'), nil
}

// clickWriter buffers clicks and writes them in batches, with their counts and
// link.clicked events, in one transaction per batch.
type clickWriter struct {
	l       *Links
	ch      chan domain.Click
	dropped atomic.Int64
	written atomic.Int64
	warned  atomic.Int64 // unix nanoseconds of the last warning about drops
	// flushes asks the loop to write everything buffered and answer.
	flushes chan chan error
	stop    chan struct{}
	done    chan struct{}
	started atomic.Bool
	once    sync.Once
	pending []domain.Click // the loop's batch (the loop's alone once started)
	// failed is set when writing pending failed: the next try first leaves out the clicks
	// its transaction stored after all (a commit whose answer was lost).
	failed bool
}

func newClickWriter(l *Links) *clickWriter {
	return &clickWriter{l: l, ch: make(chan domain.Click, l.cfg.BufferSize), flushes: make(chan chan error),
		stop: make(chan struct{}), done: make(chan struct{})}
}

// clickWait is how long a visit waits for room in a full buffer before its click is
// dropped: clicks arriving faster than the database takes them slow the redirects down to
// its pace (back-pressure) rather than being lost, but a stalled database never holds a
// visitor for long.
const clickWait = 2 * time.Second

// add buffers a click. With the buffer full (the writer behind by BufferSize clicks) it
// waits up to clickWait for room, then drops the click (counted, and logged).
func (w *clickWriter) add(c domain.Click) {
	select {
	case w.ch <- c:
		return
	default:
	}
	t := time.NewTimer(clickWait)
	defer t.Stop()
	select {
	case w.ch <- c:
	case <-t.C:
		n := w.dropped.Add(1)
		now := time.Now().UnixNano()
		if last := w.warned.Load(); now-last > int64(10*time.Second) && w.warned.CompareAndSwap(last, now) {
			w.l.log.Warn("short-link clicks dropped: the click buffer is full (the database is far behind)",
				"dropped_total", n, "buffer", cap(w.ch))
		}
	}
}

// maxWriteBatch bounds one transaction of clicks; when the writer is behind it writes
// batches this large, which cost far less per click than small ones.
const maxWriteBatch = 4096

func (w *clickWriter) start() {
	if w.started.Swap(true) {
		return
	}
	go w.loop()
}

func (w *clickWriter) loop() {
	defer close(w.done)
	tick := time.NewTicker(w.l.cfg.FlushInterval)
	defer tick.Stop()
	for {
		select {
		case c := <-w.ch:
			w.pending = append(w.pending, c)
			if len(w.pending) >= w.l.cfg.FlushSize {
				w.drain()
				w.write(context.Background())
			}
		case <-tick.C:
			w.drain()
			w.write(context.Background())
		case reply := <-w.flushes:
			w.drain()
			reply <- w.write(context.Background())
		case <-w.stop:
			w.final()
			return
		}
	}
}

// drain moves buffered clicks to the batch, up to maxWriteBatch.
func (w *clickWriter) drain() {
	for len(w.pending) < maxWriteBatch {
		select {
		case c := <-w.ch:
			w.pending = append(w.pending, c)
		default:
			return
		}
	}
}

// flush writes what is buffered now.
func (w *clickWriter) flush(ctx context.Context) error {
	if !w.started.Load() {
		w.drain()
		return w.write(ctx)
	}
	reply := make(chan error, 1)
	select {
	case w.flushes <- reply:
		return <-reply
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close stops the loop after writing every buffered click.
func (w *clickWriter) close() {
	w.once.Do(func() {
		if !w.started.Load() {
			w.final()
			return
		}
		close(w.stop)
		<-w.done
	})
}

// closeWait bounds how long a stop keeps trying to write the buffered clicks when the
// database refuses them (within the server's 20 s shutdown). A variable for tests.
var closeWait = 10 * time.Second

// final writes every buffered click at a stop, batch after batch, retrying a refused
// batch until closeWait has passed; what is still unwritten then is counted as dropped
// and logged as an error, never lost in silence.
func (w *clickWriter) final() {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	for {
		w.drain()
		if len(w.pending) == 0 {
			return
		}
		if w.write(ctx) == nil {
			continue
		}
		select {
		case <-ctx.Done():
			lost := len(w.pending) + len(w.ch)
			w.dropped.Add(int64(lost))
			w.l.log.Error("short-link clicks lost at shutdown: the database did not take them", "clicks", lost,
				"waited", closeWait.String())
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// write stores the batch; on failure the batch is kept for the next try (up to the buffer
// size, the oldest dropped beyond it).
func (w *clickWriter) write(ctx context.Context) error {
	if len(w.pending) == 0 {
		return nil
	}
	stored, err := w.l.writeClicks(ctx, w.pending, w.failed)
	w.failed = err != nil
	if err != nil {
		w.l.log.Error("writing clicks", "clicks", len(w.pending), "err", err)
		if over := len(w.pending) - w.l.cfg.BufferSize; over > 0 {
			w.dropped.Add(int64(over))
			w.pending = append(w.pending[:0], w.pending[over:]...)
		}
		return err
	}
	w.written.Add(int64(stored))
	w.pending = w.pending[:0]
	return nil
}

// writeClicks stores a batch of clicks: the rows, each link's count and last click, and a
// link.clicked event per counted click, in one transaction. Clicks of links deleted
// meanwhile are dropped with them. retry says an earlier try of the batch failed: clicks it
// stored after all (its commit's answer lost) are left out, so none is counted twice.
// It answers how many of the batch's clicks are stored (those of deleted links are not).
func (l *Links) writeClicks(ctx context.Context, batch []domain.Click, retry bool) (int, error) {
	ids := map[string]bool{}
	for _, c := range batch {
		ids[c.LinkID] = true
	}
	stored := 0
	err := l.st.Tx(ctx, func(tx *store.Tx) error {
		stored = len(batch)
		if retry {
			clickIDs := make([]string, len(batch))
			for i, c := range batch {
				clickIDs[i] = c.ID
			}
			stored, err := tx.StoredClicks(ctx, clickIDs)
			if err != nil {
				return err
			}
			if len(stored) > 0 {
				batch = slices.DeleteFunc(slices.Clone(batch), func(c domain.Click) bool { return stored[c.ID] })
			}
		}
		idList := make([]string, 0, len(ids))
		for id := range ids {
			idList = append(idList, id)
		}
		type count struct {
			n    int64
			last time.Time
		}
		counts := map[string]*count{}
		live := make([]domain.Click, 0, len(batch))
		existing, err := tx.LinksByID(ctx, idList)
		if err != nil {
			return err
		}
		for _, c := range batch {
			if _, ok := existing[c.LinkID]; !ok {
				stored--
				continue
			}
			live = append(live, c)
			if c.Bot || c.Counted {
				continue
			}
			n := counts[c.LinkID]
			if n == nil {
				n = &count{}
				counts[c.LinkID] = n
			}
			n.n++
			if c.At.After(n.last) {
				n.last = c.At
			}
		}
		if err := tx.InsertClicks(ctx, live); err != nil {
			return err
		}
		for id, n := range counts {
			if err := tx.AddLinkClicks(ctx, id, n.n, n.last); err != nil {
				return err
			}
		}
		after, err := tx.LinksByID(ctx, idList)
		if err != nil {
			return err
		}
		// Each link is encoded once for all its clicks' events.
		encoded := make(map[string]json.RawMessage, len(after))
		var events []service.EventRecord
		for _, c := range live {
			if c.Bot {
				continue
			}
			raw, ok := encoded[c.LinkID]
			if !ok {
				if raw, err = domain.Encode(l.Object(after[c.LinkID].Link)); err != nil {
					return domain.Internal(err)
				}
				encoded[c.LinkID] = raw
			}
			data, err := clickedData(c, raw)
			if err != nil {
				return domain.Internal(err)
			}
			events = append(events, service.EventRecord{WorkspaceID: c.WorkspaceID, Type: domain.EventLinkClicked, Data: data})
		}
		if len(events) == 0 {
			return nil
		}
		_, err = l.s.RecordAll(ctx, tx, events)
		return err
	})
	return stored, err
}
