// Package links holds the rules of the short-link surface: links (create, list, update,
// delete, bulk), the redirect decision with its in-memory slug cache, clicks (parsed, bot
// flagged, written in batches by a buffered writer) and their stats. REST, GraphQL and the
// redirect handler call the same methods.
package links

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Config is the surface's settings.
type Config struct {
	// ShortBase is the address slugs hang off in short_url: BaseURL+"/l", or the dedicated
	// short host's origin ("https://sho.rt").
	ShortBase string
	// RedirectBases are the other addresses that redirect slugs (BaseURL+"/l" when a short
	// host is set): no link may target one either.
	RedirectBases []string
	// BlockedHosts refuses links whose target host is one of these or under one of them.
	BlockedHosts []string
	// GeoIP, when set, names the country of a click (a MaxMind database, geo.go).
	GeoIP *GeoIP
	// FlushInterval is how often buffered clicks are written (default 250 ms), FlushSize
	// how many make a batch early (default 500), BufferSize how many may wait (default
	// 65536; beyond it a visit waits for room, up to clickWait, then its click is dropped
	// and counted).
	FlushInterval time.Duration
	FlushSize     int
	BufferSize    int
	// VisitorSalt keys the daily visitor hash (default: random per process start, which
	// only lowers unique counts across a restart within a day).
	VisitorSalt []byte
}

// Links is the surface's service.
type Links struct {
	s     *service.Service
	st    *store.Store
	cfg   Config
	log   *slog.Logger
	cache *slugCache
	clk   *clickWriter

	agents   agents
	hashOnce sync.Once
	dayKey   atomic.Pointer[visitorKey]
	// reserving makes the max_clicks reservations of one link take turns (redirect.go).
	reserving [64]sync.Mutex
	// tries counts wrong passwords per link and visitor (redirect.go).
	tries *service.Throttle
}

// New returns the short-link service over the platform service s. Start the click writer
// with Start and stop it (flushing) with Close.
func New(s *service.Service, cfg Config) *Links {
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = 250 * time.Millisecond
	}
	if cfg.FlushSize <= 0 {
		cfg.FlushSize = 500
	}
	if cfg.BufferSize <= 0 {
		cfg.BufferSize = 1 << 16
	}
	l := &Links{s: s, st: s.Store(), cfg: cfg, log: s.Logger(), cache: newSlugCache(), tries: service.NewThrottle(s.Clock())}
	l.clk = newClickWriter(l)
	// A link changed on any replica drops its slug from every replica's cache.
	s.OnInvalidate("link", l.cache.drop)
	s.OnResync(l.cache.clear)
	return l
}

// Start runs the click writer until Close.
func (l *Links) Start() { l.clk.start() }

// Close stops taking clicks and writes the buffered ones.
func (l *Links) Close() { l.clk.close() }

// Flush writes the clicks buffered so far (tests and shutdown).
func (l *Links) Flush(ctx context.Context) error { return l.clk.flush(ctx) }

// DroppedClicks counts clicks dropped because the buffer was full.
func (l *Links) DroppedClicks() int64 { return l.clk.dropped.Load() }

// WrittenClicks counts clicks written to the database.
func (l *Links) WrittenClicks() int64 { return l.clk.written.Load() }

// ShortBase is the address short_url values start with.
func (l *Links) ShortBase() string { return l.cfg.ShortBase }

// Object returns a link's public representation.
func (l *Links) Object(link domain.Link) domain.LinkObject { return link.Object(l.cfg.ShortBase) }

// Get returns a link by id, or by "ext_<external_id>".
func (l *Links) Get(ctx context.Context, a service.Actor, id string) (domain.Link, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeLinksRead)
	if err != nil {
		return domain.Link{}, err
	}
	sl, err := l.find(ctx, l.st, wsID, id)
	return sl.Link, err
}

// finder is a store or a transaction.
type finder interface {
	Link(ctx context.Context, workspaceID, id string) (store.StoredLink, error)
	LinkByExternalID(ctx context.Context, workspaceID, externalID string) (store.StoredLink, error)
}

// ExternalPrefix marks an id as the caller's own: ext_<external_id>.
const ExternalPrefix = "ext_"

func (l *Links) find(ctx context.Context, f finder, wsID, id string) (store.StoredLink, error) {
	if ext, ok := cutPrefix(id, ExternalPrefix); ok {
		if ext == "" {
			return store.StoredLink{}, domain.NotFound("link")
		}
		return f.LinkByExternalID(ctx, wsID, ext)
	}
	if !domain.HasPrefix(id, domain.PrefixLink) {
		return store.StoredLink{}, domain.NotFound("link")
	}
	return f.Link(ctx, wsID, id)
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

// List returns a page of the workspace's links and records link.listed (the query and the
// count, never the links).
func (l *Links) List(ctx context.Context, a service.Actor, f domain.LinkFilter, p domain.ListParams) (domain.Page[domain.Link], error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeLinksRead); err != nil {
		return domain.Page[domain.Link]{}, err
	}
	limit, err := service.PageLimit(p)
	if err != nil {
		return domain.Page[domain.Link]{}, err
	}
	if err := service.CheckCursor(p.After, domain.PrefixLink); err != nil {
		return domain.Page[domain.Link]{}, err
	}
	if err := checkFilter(f); err != nil {
		return domain.Page[domain.Link]{}, err
	}
	var page domain.Page[domain.Link]
	// The list is read and its event recorded in one transaction; link.listed is recorded
	// with the reader's key like any change (links:read suffices), for API keys' reads.
	err = l.s.Mutate(ctx, a, domain.ScopeLinksRead, func(c service.Change) error {
		// A cursor is a link of this list (a deleted one too): another workspace's link id
		// would page by a position that is not ours (with sort=clicks, by its click count).
		if p.After != "" {
			ok, err := c.Tx.LinkOfWorkspace(ctx, c.WorkspaceID, p.After)
			if err != nil {
				return err
			}
			if !ok {
				return domain.Invalid("after", "after must be the next_cursor of an earlier page of this list")
			}
		}
		rows, err := c.Tx.Links(ctx, c.WorkspaceID, f, p.After, limit+1)
		if err != nil {
			return err
		}
		page = service.PageOf(plain(rows), limit, func(l domain.Link) string { return l.ID })
		if !a.IsKey() {
			// The console's own views (a signed-in person browsing, searching as they type,
			// refreshing on each click) are not an integration reading the links: recorded,
			// they filled the log and every all-events webhook.
			return nil
		}
		_, err = l.s.Record(ctx, c.Tx, c.WorkspaceID, domain.EventLinkListed, nil,
			domain.LinkListed{Query: f.ListQuery(limit, p.After), Count: len(page.Data)})
		return err
	})
	return page, err
}

func plain(rows []store.StoredLink) []domain.Link {
	out := make([]domain.Link, len(rows))
	for i, r := range rows {
		out[i] = r.Link
	}
	return out
}

func checkFilter(f domain.LinkFilter) error {
	if len(f.Search) > 200 {
		return domain.Invalid("search", "search is at most 200 characters")
	}
	if len(f.Tag) > MaxTagLength {
		return domain.Invalid("tag", "tag is at most %d characters", MaxTagLength)
	}
	switch f.Sort {
	case "", "created", "clicks":
	default:
		return domain.Invalid("sort", "sort is created or clicks")
	}
	if f.Since != nil && f.Until != nil && !f.Until.After(*f.Since) {
		return domain.Invalid("created_before", "created_before must be after created_after")
	}
	return nil
}
