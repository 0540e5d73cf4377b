// Package events fans new events out to live subscribers in this process. Events reach the
// bus after their transaction commits (via the store's notifications, so on PostgreSQL every
// replica's bus sees every event).
package events

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// ErrSlowSubscriber is why a subscription ends when it fell too far behind.
var ErrSlowSubscriber = errors.New("subscriber too slow: buffer full")

// Bus is an in-memory publish/subscribe hub keyed by workspace. Publish never blocks: a
// subscriber whose buffer is full is dropped and told, rather than holding up everyone else.
type Bus struct {
	mu   sync.RWMutex
	subs map[string]map[*Subscription]struct{} // workspace id → subscriptions
	// dropped counts subscribers ended for being too slow (a metric).
	dropped atomic.Int64
}

// NewBus returns an empty bus.
func NewBus() *Bus { return &Bus{subs: map[string]map[*Subscription]struct{}{}} }

// Subscription receives a workspace's events on C until closed. Resync receives a signal
// when events may have been missed (the notification connection was lost and came back):
// the subscriber catches up from the event log.
type Subscription struct {
	C      <-chan domain.Event
	Resync <-chan struct{}

	resync chan struct{}

	c      chan domain.Event
	bus    *Bus
	ws     string
	filter domain.EventFilter
	once   sync.Once
	mu     sync.Mutex
	err    error
}

// Subscribe registers a subscriber to workspaceID's events matching filter, with a buffer of
// buf events.
func (b *Bus) Subscribe(workspaceID string, filter domain.EventFilter, buf int) *Subscription {
	c, r := make(chan domain.Event, buf), make(chan struct{}, 1)
	s := &Subscription{C: c, c: c, Resync: r, resync: r, bus: b, ws: workspaceID, filter: filter}
	b.mu.Lock()
	if b.subs[workspaceID] == nil {
		b.subs[workspaceID] = map[*Subscription]struct{}{}
	}
	b.subs[workspaceID][s] = struct{}{}
	b.mu.Unlock()
	return s
}

// Publish hands e to every matching subscriber of its workspace without blocking.
func (b *Bus) Publish(e domain.Event) {
	var slow []*Subscription
	b.mu.RLock()
	for s := range b.subs[e.WorkspaceID] {
		if !s.filter.Matches(e) {
			continue
		}
		select {
		case s.c <- e:
		default:
			slow = append(slow, s)
		}
	}
	b.mu.RUnlock()
	for _, s := range slow {
		b.dropped.Add(1)
		s.close(ErrSlowSubscriber)
	}
}

// Dropped counts the subscribers ended so far because their buffer was full.
func (b *Bus) Dropped() int64 { return b.dropped.Load() }

// Resync tells every subscriber that events may have been missed (see Subscription.Resync).
func (b *Bus) Resync() {
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, m := range b.subs {
		for s := range m {
			select {
			case s.resync <- struct{}{}:
			default: // one pending signal is enough
			}
		}
	}
}

// Idle tells that nobody is subscribed on this replica (so there is nothing to publish).
func (b *Bus) Idle() bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.subs) == 0
}

// Subscribers counts live subscriptions (for metrics and tests).
func (b *Bus) Subscribers() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := 0
	for _, m := range b.subs {
		n += len(m)
	}
	return n
}

// Close ends the subscription; C is closed.
func (s *Subscription) Close() { s.close(nil) }

// Err says why C was closed: nil when closed by the subscriber, ErrSlowSubscriber when dropped.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Subscription) close(err error) {
	s.once.Do(func() {
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		s.bus.mu.Lock()
		delete(s.bus.subs[s.ws], s)
		if len(s.bus.subs[s.ws]) == 0 {
			delete(s.bus.subs, s.ws)
		}
		close(s.c)
		s.bus.mu.Unlock()
	})
}
