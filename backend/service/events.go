package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Events records the event log and serves it: lists, look-ups and live subscriptions.
type Events struct {
	s    *Service
	live liveStreams
}

// maxNotifyPayload keeps pg_notify payloads under PostgreSQL's 8000-byte limit; larger
// events travel by id and are read back from the table.
const maxNotifyPayload = 7000

// SubscriptionBuffer is how many events a live subscriber may fall behind before it is
// dropped (and told) rather than slowing down everyone else.
const SubscriptionBuffer = 256

// replayLimit bounds how many missed events one subscription replays.
const replayLimit = 1000

// MaxLiveStreamsPerWorkspace caps a workspace's live streams open at once on one replica.
// Each holds a bus subscription with a SubscriptionBuffer-event buffer and two goroutines,
// about 40 KB: with no cap one connection opened 20,000 and took 775 MB. 200 bounds a
// workspace to about 8 MB here while leaving room for every member's console tabs (one
// stream each) and a few integrations.
const MaxLiveStreamsPerWorkspace = 200

// liveStreams counts each workspace's live streams on this replica.
type liveStreams struct {
	mu sync.Mutex
	n  map[string]int // workspace id → streams open
}

// acquire takes one of the workspace's stream slots, refused when all are taken; release
// gives it back (at most once, however often it is called).
func (l *liveStreams) acquire(wsID string) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[wsID] >= MaxLiveStreamsPerWorkspace {
		return nil, errTooManyLiveStreams
	}
	if l.n == nil {
		l.n = map[string]int{}
	}
	l.n[wsID]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.n[wsID]--; l.n[wsID] <= 0 {
				delete(l.n, wsID)
			}
		})
	}, nil
}

// record appends an event in tx, runs the event sinks (webhook enqueueing) in the same tx,
// and announces it to every replica once the transaction commits.
func (s *Service) record(ctx context.Context, tx *store.Tx, workspaceID, typ string, instanceID *string, data any) (domain.Event, error) {
	es, err := s.recordAll(ctx, tx, []EventRecord{{WorkspaceID: workspaceID, Type: typ, InstanceID: instanceID, Data: data}})
	if err != nil {
		return domain.Event{}, err
	}
	return es[0], nil
}

// EventRecord is one event to record with RecordAll.
type EventRecord struct {
	// ID, when set, is the event's id (made beforehand, so that what it records can carry
	// it); else a new one.
	ID          string
	WorkspaceID string
	Type        string
	InstanceID  *string
	// Data is encoded to JSON, unless it is a json.RawMessage: that is taken as it is
	// (compact JSON its maker encoded, e.g. parts encoded once for many events).
	Data any
}

// RecordAll records events like Record, with one statement for all of them (a batch of
// changes committed together).
func (s *Service) RecordAll(ctx context.Context, tx *store.Tx, rs []EventRecord) ([]domain.Event, error) {
	return s.recordAll(ctx, tx, rs)
}

func (s *Service) recordAll(ctx context.Context, tx *store.Tx, rs []EventRecord) ([]domain.Event, error) {
	es := make([]domain.Event, len(rs))
	now := s.cfg.Clock.Now()
	for i, r := range rs {
		raw, ok := r.Data.(json.RawMessage)
		if !ok {
			var err error
			if raw, err = domain.Encode(r.Data); err != nil {
				return nil, domain.Internal(err)
			}
		}
		id := r.ID
		if id == "" {
			id = domain.NewID(domain.PrefixEvent)
		}
		e := domain.Event{ID: id, Type: r.Type, WorkspaceID: r.WorkspaceID, InstanceID: r.InstanceID, Data: raw, Timestamp: now}
		// Every event must fit a webhook payload, so it is refused here, at the source, with
		// the change that caused it (the envelope adds well under 1 KB to the data).
		if len(raw) > domain.MaxEventPayload-1024 {
			body, err := e.MarshalJSON()
			if err != nil {
				return nil, domain.Internal(err)
			}
			if err := CheckEventSize(len(body)); err != nil {
				return nil, err
			}
		}
		es[i] = e
	}
	if len(es) == 1 {
		if err := tx.InsertEvent(ctx, es[0]); err != nil {
			return nil, err
		}
	} else if err := tx.InsertEvents(ctx, es); err != nil {
		return nil, err
	}
	s.sinksMu.RLock()
	sinks := s.sinks
	s.sinksMu.RUnlock()
	for _, e := range es {
		for _, sink := range sinks {
			if err := sink(ctx, tx, e); err != nil {
				return nil, err
			}
		}
	}
	announceEvents(tx, es)
	return es, nil
}

// maxNotifiedIDs bounds the ids one notification names (well within maxNotifyPayload).
const maxNotifiedIDs = 200

// announceEvents tells every replica about committed events. One event travels whole, so
// that a live dashboard gets it without a read; a batch (group commit: sends, inbound
// calls, clicks) travels as its ids, read back in one query only by replicas with a live
// subscriber: carrying thousands of payloads a second through PostgreSQL's notification
// queue to every replica cost about a tenth of /hooks' throughput.
func announceEvents(tx *store.Tx, es []domain.Event) {
	if len(es) == 1 {
		e := es[0]
		payload, err := domain.Encode(notifiedEvent{ID: e.ID, Type: e.Type, WorkspaceID: e.WorkspaceID, InstanceID: e.InstanceID,
			Timestamp: e.Timestamp, Data: e.Data})
		if err != nil || len(payload) > maxNotifyPayload {
			payload, _ = json.Marshal(notifiedEvent{ID: e.ID})
		}
		tx.Announce(channelEvents, string(payload))
		return
	}
	for start := 0; start < len(es); start += maxNotifiedIDs {
		chunk := es[start:min(start+maxNotifiedIDs, len(es))]
		ids := make([]string, len(chunk))
		for i, e := range chunk {
			ids[i] = e.ID
		}
		payload, _ := json.Marshal(notifiedEvent{IDs: ids})
		tx.Announce(channelEvents, string(payload))
	}
}

// Record lets sibling services (webhooks, later surfaces) record an event in their own tx.
func (s *Service) Record(ctx context.Context, tx *store.Tx, workspaceID, typ string, instanceID *string, data any) (domain.Event, error) {
	return s.record(ctx, tx, workspaceID, typ, instanceID, data)
}

// notifiedEvent is an event as sent between replicas (the internal fields included).
type notifiedEvent struct {
	ID          string          `json:"id"`
	Type        string          `json:"type,omitempty"`
	WorkspaceID string          `json:"workspace_id,omitempty"`
	InstanceID  *string         `json:"instance_id,omitempty"`
	Timestamp   time.Time       `json:"timestamp,omitzero"`
	Data        json.RawMessage `json:"data,omitempty"`
	// IDs, instead of all the above, names a batch of events to read back.
	IDs []string `json:"ids,omitempty"`
}

// deliver publishes a committed event to this replica's live subscribers.
func (ev *Events) deliver(payload string) {
	// With no live subscriber on this replica there is no one to publish to: skip decoding
	// (a burst of events, thousands of clicks a second, would otherwise keep this replica's
	// listener busy and delay the job wake-ups behind them). A subscriber that arrives later
	// replays what it missed from the log.
	if ev.s.bus.Idle() {
		return
	}
	var n notifiedEvent
	if err := json.Unmarshal([]byte(payload), &n); err != nil {
		ev.s.log.Error("bad event notification", "err", err)
		return
	}
	if n.Type != "" {
		ev.s.bus.Publish(domain.Event{ID: n.ID, Type: n.Type, WorkspaceID: n.WorkspaceID, InstanceID: n.InstanceID,
			Timestamp: n.Timestamp.UTC(), Data: n.Data})
		return
	}
	// Named by id (a batch, or one event too large to inline): read back.
	ids := n.IDs
	if len(ids) == 0 {
		ids = []string{n.ID}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	es, err := ev.s.store.EventsByIDs(ctx, ids)
	if err != nil {
		// Live subscribers here catch up from the log instead (as after a lost listener
		// connection), retrying while the database refuses.
		ev.s.log.Warn("load notified events; live subscribers catch up from the log", "err", err,
			"event_ids", len(ids), "first_event_id", ids[0])
		ev.s.bus.Resync()
		return
	}
	for _, e := range es {
		ev.s.bus.Publish(e)
	}
}

// List returns the workspace's events, newest first. A cursor older than the events'
// retention is refused (410 cursor_expired).
func (ev *Events) List(ctx context.Context, a Actor, f domain.EventFilter, p domain.ListParams) (domain.Page[domain.Event], error) {
	wsID, err := requireWorkspace(a, domain.ScopeEventsRead)
	if err != nil {
		return domain.Page[domain.Event]{}, err
	}
	if err := validateEventFilter(f); err != nil {
		return domain.Page[domain.Event]{}, err
	}
	limit, err := pageLimit(p)
	if err != nil {
		return domain.Page[domain.Event]{}, err
	}
	if err := CheckCursor(p.After, domain.PrefixEvent); err != nil {
		return domain.Page[domain.Event]{}, err
	}
	// A cursor into events already pruned is 410 cursor_expired, not an empty page.
	if err := ev.s.store.CheckCursor(ctx, store.TableEvents, p.After); err != nil {
		return domain.Page[domain.Event]{}, err
	}
	rows, err := ev.s.store.Events(ctx, wsID, f, p.After, limit)
	if err != nil {
		return domain.Page[domain.Event]{}, err
	}
	return pageOf(rows, limit, func(e domain.Event) string { return e.ID }), nil
}

// Get returns one event of the workspace.
func (ev *Events) Get(ctx context.Context, a Actor, id string) (domain.Event, error) {
	wsID, err := requireWorkspace(a, domain.ScopeEventsRead)
	if err != nil {
		return domain.Event{}, err
	}
	return ev.s.store.Event(ctx, wsID, id)
}

// Stream is a live subscription: events arrive on C until it closes; Err then says why
// (nil when the subscriber's context ended).
type Stream struct {
	C <-chan domain.Event

	mu  sync.Mutex
	err error
}

// Err is why the stream closed: errSlowSubscriber, errMissedEvents, errCredentialRevoked,
// errCredentialExpired, or nil.
func (s *Stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Stream) fail(err error) {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
}

// Why a stream ends before its subscriber leaves.
var (
	errSlowSubscriber = &domain.Error{Code: domain.CodeUnavailable, Reason: "slow_subscriber",
		Message: "this subscription fell too far behind and was dropped; subscribe again with after: <last event id> to resume"}
	errMissedEvents = &domain.Error{Code: domain.CodeUnavailable, Reason: "events_missed",
		Message: "this subscription may have missed events while the server reconnected to the database; subscribe again with after: <last event id> to resume"}
	errCredentialRevoked = &domain.Error{Code: domain.CodeUnauthenticated, Reason: "credential_revoked",
		Message: "the API key of this subscription was revoked, or its session signed out"}
	errCredentialExpired = &domain.Error{Code: domain.CodeUnauthenticated, Reason: "credential_expired",
		Message: "the API key of this subscription expired, or its session did; subscribe again with a valid one"}
)

// errTooManyLiveStreams refuses a stream beyond MaxLiveStreamsPerWorkspace; one that ends
// frees a slot, so the client may try again later.
var errTooManyLiveStreams = &domain.Error{Code: domain.CodeRateLimited, Reason: "live_stream_limit_reached",
	Message: fmt.Sprintf("this workspace already has %d live subscriptions open; end one before opening another", MaxLiveStreamsPerWorkspace)}

// credentialRecheck is how soon a stream checks its credential again when the check at
// its expiry could not be made (the database unavailable), or found it still valid: a
// session used elsewhere meanwhile, or a clock behind the timer's.
const credentialRecheck = time.Second

// expiryTimer fires once a credential valid until t has expired by the service's clock (a
// millisecond after, as that clock counts whole milliseconds), and not before floor; never
// when t is zero (a key without expiry).
func (ev *Events) expiryTimer(t time.Time, floor time.Duration) <-chan time.Time {
	if t.IsZero() {
		return nil
	}
	return time.After(max(t.Sub(ev.s.cfg.Clock.Now())+time.Millisecond, floor))
}

// Subscribe streams the workspace's new events matching f. With after (an event id), the
// events since it are replayed first, so a reconnecting dashboard loses nothing. The
// stream closes when ctx ends, when the subscriber falls too far behind, or when the key or
// session it was opened with is revoked or expires. A workspace has at most
// MaxLiveStreamsPerWorkspace streams open at once on each replica.
func (ev *Events) Subscribe(ctx context.Context, a Actor, f domain.EventFilter, after string) (*Stream, error) {
	wsID, err := requireWorkspace(a, domain.ScopeEventsRead)
	if err != nil {
		return nil, err
	}
	if err := validateEventFilter(f); err != nil {
		return nil, err
	}
	if after != "" && !domain.HasPrefix(after, domain.PrefixEvent) {
		return nil, domain.Invalid("after", "after must be an event id (evt_...)")
	}
	// A filter naming no instance of the workspace would stream nothing, silently.
	if f.InstanceID != "" {
		if _, err := ev.s.store.Instance(ctx, wsID, f.InstanceID); domain.IsCode(err, domain.CodeNotFound) {
			return nil, domain.Invalid("instance_id", "instance_id must be an instance of this workspace")
		} else if err != nil {
			return nil, err
		}
	}
	release, err := ev.live.acquire(wsID)
	if err != nil {
		return nil, err
	}
	// Subscribe before reading the replay, so nothing falls between the two; duplicates
	// are dropped by id below.
	sub := ev.s.bus.Subscribe(wsID, f, SubscriptionBuffer)
	var replay []domain.Event
	if after != "" {
		if replay, err = ev.s.store.EventsAfter(ctx, wsID, f, after, replayLimit); err != nil {
			sub.Close()
			release()
			return nil, err
		}
	}
	// The subscription ends when the credential it was opened with is revoked or expires;
	// one revoked or expired before this call (on a connection authenticated earlier)
	// refuses it.
	revoked, unwatch := ev.s.revocations.watch(a.KeyID + a.SessionID)
	until, err := ev.s.credentialActive(ctx, a)
	if err != nil {
		unwatch()
		sub.Close()
		release()
		return nil, err
	}
	out := make(chan domain.Event, 16)
	stream := &Stream{C: out}
	go func() {
		defer release()
		defer close(out)
		defer sub.Close()
		defer unwatch()
		expired := ev.expiryTimer(until, 0)
		sent := newSentLog(after, time.Now())
		send := func(e domain.Event) bool {
			if (after != "" && e.ID <= after) || sent.has(e.ID) { // replayed already, or older than asked for
				return true
			}
			select {
			case out <- e:
				sent.add(e.ID)
				return true
			case <-ctx.Done():
				return false
			}
		}
		for _, e := range replay {
			if !send(e) {
				return
			}
		}
		var pending string         // the floor of a catch-up not done yet
		var retry <-chan time.Time // when to try it (again)
		var held []domain.Event    // live events that arrived while a catch-up was pending
		tries := 0
		for {
			select {
			case <-ctx.Done():
				return
			case <-revoked:
				stream.fail(errCredentialRevoked)
				return
			case <-expired:
				// Check again rather than trust the time read at the start: a session's idle
				// expiry moves on while it is used elsewhere.
				until, err := ev.s.credentialActive(ctx, a)
				if ended := credentialEnded(err); ended != nil {
					stream.fail(ended)
					return
				}
				if err != nil {
					expired = time.After(credentialRecheck)
					continue
				}
				expired = ev.expiryTimer(until, credentialRecheck)
			case <-sub.Resync:
				// Notifications may have been lost: a revocation (check the credential
				// again) and events (read them from the log, from where delivery may have
				// stopped; a catch-up still pending keeps its older floor).
				if _, err := ev.s.credentialActive(ctx, a); credentialEnded(err) != nil {
					stream.fail(credentialEnded(err))
					return
				}
				if pending == "" {
					pending = sent.floor()
				}
				retry, tries = time.After(0), 0
			case <-retry:
				missed, err := ev.catchUp(ctx, wsID, f, pending)
				if err != nil {
					// The database may be restarting again: try for a while before
					// telling the subscriber to resume by itself.
					if tries++; tries >= catchUpTries {
						ev.s.log.Warn("live subscriber could not catch up", "workspace_id", wsID, "err", err)
						stream.fail(errMissedEvents)
						return
					}
					retry = time.After(time.Duration(tries) * 500 * time.Millisecond)
					continue
				}
				// What arrived live meanwhile goes out with what was missed, in id order: an
				// event sent before the ones missed ahead of it would be out of order.
				missed = append(missed, held...)
				slices.SortFunc(missed, func(a, b domain.Event) int { return strings.Compare(a.ID, b.ID) })
				pending, retry, held = "", nil, nil
				for _, e := range missed {
					if !send(e) {
						return
					}
				}
			case e, ok := <-sub.C:
				if !ok {
					if err := sub.Err(); err != nil {
						ev.s.log.Warn("live subscriber dropped", "workspace_id", wsID, "err", err)
						stream.fail(errSlowSubscriber)
					}
					return
				}
				if pending != "" {
					// A catch-up is under way: hold the event until it is done.
					if len(held) >= maxHeldEvents {
						stream.fail(errMissedEvents)
						return
					}
					held = append(held, e)
					continue
				}
				if !send(e) {
					return
				}
			}
		}
	}()
	return stream, nil
}

// maxHeldEvents bounds the live events a stream holds while it catches up; beyond it the
// stream ends with errMissedEvents and the subscriber resumes by itself.
const maxHeldEvents = 10_000

// catchUpMargin is how far before the last event a stream delivered it reads the log again
// after a resync: an event committed late (its transaction slower than a later one) has an
// id older than events already delivered.
const catchUpMargin = 10 * time.Second

// catchUpPages bounds a catch-up; a stream that missed more ends with errMissedEvents.
const catchUpPages = 10

// catchUpTries bounds the attempts of a catch-up the database keeps refusing (about 45 s
// of backing off), after which the stream ends with errMissedEvents.
const catchUpTries = 13

// catchUp reads the workspace's events matching f with ids above floor, oldest first.
func (ev *Events) catchUp(ctx context.Context, wsID string, f domain.EventFilter, floor string) ([]domain.Event, error) {
	var all []domain.Event
	for range catchUpPages {
		page, err := ev.s.store.EventsAfter(ctx, wsID, f, floor, replayLimit)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if len(page) < replayLimit {
			return all, nil
		}
		floor = page[len(page)-1].ID
	}
	return nil, errors.New("more events missed than a catch-up reads")
}

// sentLog is what a stream delivered lately: the ids (to drop duplicates when a catch-up
// overlaps live events) and the floor a catch-up reads from.
type sentLog struct {
	ids     map[string]struct{}
	newest  string // the newest id delivered, or the stream's start
	lowest  string // a catch-up never reads below this: after, or the stream's start
	pruneAt int    // the size at which ids below the floor are forgotten
}

func newSentLog(after string, start time.Time) *sentLog {
	l := &sentLog{ids: map[string]struct{}{}, newest: domain.FirstIDAt(domain.PrefixEvent, start), pruneAt: 4 * replayLimit}
	if after != "" {
		l.newest = max(l.newest, after)
		l.lowest = after
	} else {
		l.lowest = l.newest // a live stream starts now: older events are not its to catch up
	}
	return l
}

func (l *sentLog) has(id string) bool { _, ok := l.ids[id]; return ok }

func (l *sentLog) add(id string) {
	l.ids[id] = struct{}{}
	if id > l.newest {
		l.newest = id
	}
	if len(l.ids) >= l.pruneAt { // forget what lies below any future floor
		f := l.floor()
		for k := range l.ids {
			if k < f {
				delete(l.ids, k)
			}
		}
		l.pruneAt = max(2*len(l.ids), 4*replayLimit)
	}
}

// floor is where a catch-up reads from: catchUpMargin before the newest delivered event.
func (l *sentLog) floor() string {
	t, ok := domain.IDTime(l.newest, domain.PrefixEvent)
	if !ok {
		return l.newest
	}
	return max(l.lowest, domain.FirstIDAt(domain.PrefixEvent, t.Add(-catchUpMargin)))
}

func validateEventFilter(f domain.EventFilter) error {
	if len(f.Types) > 50 {
		return domain.Invalid("types", "at most 50 types")
	}
	for _, t := range f.Types {
		if t != "*" && !knownEventType(t) {
			return domain.Invalid("types", "unknown event type %q; the event types catalog lists them", truncate(t, 64))
		}
	}
	if f.Since != nil && f.Until != nil && !f.Until.After(*f.Since) {
		return domain.Invalid("until", "until must be after since")
	}
	return nil
}

// Limits of list pages.
const (
	DefaultPageLimit = 20
	MaxPageLimit     = 100
)

func pageLimit(p domain.ListParams) (int, error) {
	switch {
	case p.Limit == nil:
		return DefaultPageLimit, nil
	case *p.Limit < 1 || *p.Limit > MaxPageLimit:
		return 0, domain.Invalid("limit", "limit must be between 1 and %d", MaxPageLimit)
	}
	return *p.Limit, nil
}

// pageOf turns limit+1 rows into a page whose cursor is the last row's id.
func pageOf[T any](rows []T, limit int, id func(T) string) domain.Page[T] {
	page := domain.Page[T]{Data: rows}
	if len(rows) > limit {
		page.Data = rows[:limit]
		page.HasMore = true
		page.NextCursor = id(rows[limit-1])
	}
	if page.Data == nil {
		page.Data = []T{}
	}
	return page
}
