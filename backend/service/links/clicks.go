package links

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mileusna/useragent"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// maxReferrer bounds the stored referrer URL.
const maxReferrer = 512

// previewers are link-preview fetchers: they fetch a link to show a card, not to visit it.
var previewers = []string{"facebookexternalhit", "facebot", "twitterbot", "slackbot", "slack-imgproxy", "linkedinbot",
	"whatsapp", "telegrambot", "discordbot", "skypeuripreview", "pinterest", "redditbot", "vkshare", "iframely",
	"embedly", "mastodon", "bluesky", "cardyb", "snapchat", "viber", "line/", "kakaotalk", "microsoftpreview",
	"teams", "outlook", "google-pagerenderer", "applebot", "bitlybot", "quora link preview"}

// crawlers are words in the user agents of crawlers and scripted clients the parser misses.
var crawlers = []string{"bot", "crawl", "spider", "slurp", "headless", "scrapy", "python-requests", "python-urllib",
	"go-http-client", "okhttp", "java/", "libwww", "httpclient", "phantomjs", "lighthouse", "preview"}

// botReason tells why a visit is not a person's ("" when it is).
func botReason(method, agent string, ua useragent.UserAgent) string {
	if method == "HEAD" {
		return "head_request"
	}
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
func (l *Links) newClick(link domain.Link, v Visit, ua useragent.UserAgent, now time.Time) domain.Click {
	c := domain.Click{ID: domain.NewID(domain.PrefixClick), WorkspaceID: link.WorkspaceID, LinkID: link.ID, At: now,
		Browser: ua.Name, BrowserVersion: ua.Version, OS: ua.OS, QR: v.QR, Device: domain.DeviceUnknown}
	c.BotReason = botReason(v.Method, v.UserAgent, ua)
	c.Bot = c.BotReason != ""
	switch {
	case c.Bot:
		c.Device = domain.DeviceBot
	case ua.Tablet:
		c.Device = domain.DeviceTablet
	case ua.Mobile:
		c.Device = domain.DeviceMobile
	case ua.Desktop:
		c.Device = domain.DeviceDesktop
	}
	if v.Referrer != "" {
		ref := v.Referrer
		if len(ref) > maxReferrer {
			ref = ref[:maxReferrer]
		}
		c.Referrer = ref
		if u, err := url.Parse(v.Referrer); err == nil {
			c.ReferrerHost = strings.ToLower(u.Hostname())
		}
	}
	c.Country = l.cfg.GeoIP.Country(v.IP)
	c.Visitor = l.visitor(v.IP, now)
	return c
}

// visitor hashes an IP with a salt and the day, so one visitor counts once a day and no
// hash can be joined across days or turned back into the IP.
func (l *Links) visitor(ip string, now time.Time) string {
	l.hashOnce.Do(func() {
		if len(l.cfg.VisitorSalt) == 0 {
			l.cfg.VisitorSalt = make([]byte, 32)
			_, _ = rand.Read(l.cfg.VisitorSalt)
		}
	})
	m := hmac.New(sha256.New, l.cfg.VisitorSalt)
	m.Write([]byte(now.UTC().Format("2006-01-02") + "|" + ip))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// clickWriter buffers clicks and writes them in batches, with their counts and
// link.clicked events, in one transaction per batch.
type clickWriter struct {
	l       *Links
	ch      chan domain.Click
	dropped atomic.Int64
	// flushes asks the loop to write everything buffered and answer.
	flushes chan chan error
	stop    chan struct{}
	done    chan struct{}
	started atomic.Bool
	once    sync.Once
	pending []domain.Click // the loop's batch (the loop's alone once started)
}

func newClickWriter(l *Links) *clickWriter {
	return &clickWriter{l: l, ch: make(chan domain.Click, l.cfg.BufferSize), flushes: make(chan chan error),
		stop: make(chan struct{}), done: make(chan struct{})}
}

// add buffers a click; a full buffer drops it (counted) rather than make a visitor wait.
func (w *clickWriter) add(c domain.Click) {
	select {
	case w.ch <- c:
	default:
		w.dropped.Add(1)
	}
}

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
				w.write(context.Background())
			}
		case <-tick.C:
			w.write(context.Background())
		case reply := <-w.flushes:
			w.drain()
			reply <- w.write(context.Background())
		case <-w.stop:
			w.drain()
			w.write(context.Background())
			return
		}
	}
}

// drain moves every buffered click to the batch.
func (w *clickWriter) drain() {
	for {
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
			w.drain()
			_ = w.write(context.Background())
			return
		}
		close(w.stop)
		<-w.done
	})
}

// write stores the batch; on failure the batch is kept for the next try (up to the buffer
// size, the oldest dropped beyond it).
func (w *clickWriter) write(ctx context.Context) error {
	if len(w.pending) == 0 {
		return nil
	}
	err := w.l.writeClicks(ctx, w.pending)
	if err != nil {
		w.l.log.Error("writing clicks", "clicks", len(w.pending), "err", err)
		if over := len(w.pending) - w.l.cfg.BufferSize; over > 0 {
			w.dropped.Add(int64(over))
			w.pending = append(w.pending[:0], w.pending[over:]...)
		}
		return err
	}
	w.pending = w.pending[:0]
	return nil
}

// writeClicks stores a batch of clicks: the rows, each link's count and last click, and a
// link.clicked event per counted click, in one transaction. Clicks of links deleted
// meanwhile are dropped with them.
func (l *Links) writeClicks(ctx context.Context, batch []domain.Click) error {
	ids := map[string]bool{}
	for _, c := range batch {
		ids[c.LinkID] = true
	}
	return l.st.Tx(ctx, func(tx *store.Tx) error {
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
		for _, c := range live {
			if c.Bot {
				continue
			}
			link := after[c.LinkID]
			if _, err := l.s.Record(ctx, tx, c.WorkspaceID, domain.EventLinkClicked, nil,
				domain.LinkClicked{Click: c.Object(), Link: l.Object(link.Link)}); err != nil {
				return err
			}
		}
		return nil
	})
}
