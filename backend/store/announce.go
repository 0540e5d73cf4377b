package store

import (
	"context"
	"sync"
	"time"

	"github.com/lib/pq"
)

// Announcements are notifications sent right after a transaction commits, outside it, in
// batches: job wake-ups and new events, sent by every busy transaction. PostgreSQL runs
// the commits of transactions that NOTIFY one at a time (under a global lock, with the
// WAL flush inside it), so a NOTIFY in each request's transaction caps writes at one commit
// per disk flush. Announcing after commit lets commits proceed together; the price is that
// a replica dying in the instant between its commit and the announcement leaves that work
// to the job poll (every second) and that event to the log (the events API, webhooks and
// subscription replay still have it). Cache invalidations (a revoked key) keep Tx.Notify:
// they are rare and must never be lost.

// announcer batches announcements onto one connection.
type announcer struct {
	mu      sync.Mutex
	pending []announcement
	// wakes go before pending: a job wake-up must not wait behind a burst of events.
	wakes   []announcement
	wake    chan struct{}
	done    chan struct{} // closed by Close
	stopped chan struct{} // closed when the loop has sent everything
	once    sync.Once
}

type announcement struct{ channel, payload string }

// maxAnnounceBatch bounds one statement's notifications.
const maxAnnounceBatch = 500

// Announce sends payload on channel to every replica once the transaction has committed
// (never if it rolls back), batched with other announcements. See announce.go for what
// that trades.
func (t *Tx) Announce(channel, payload string) {
	t.after = append(t.after, func() { t.s.announce(channel, payload, false) })
}

// AnnounceWake is Announce for a wake-up (of job workers): sent ahead of pending events.
func (t *Tx) AnnounceWake(channel, payload string) {
	t.after = append(t.after, func() { t.s.announce(channel, payload, true) })
}

func (s *Store) announce(channel, payload string, wake bool) {
	if s.dialect != Postgres {
		s.deliver(channel, payload)
		return
	}
	a := &s.announcer
	a.once.Do(func() {
		a.wake, a.done, a.stopped = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
		go s.announceLoop()
	})
	a.mu.Lock()
	if wake {
		a.wakes = append(a.wakes, announcement{channel, payload})
	} else {
		a.pending = append(a.pending, announcement{channel, payload})
	}
	a.mu.Unlock()
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// announceLoop sends what is pending in one statement per batch, in order, dropping
// duplicates within a batch (many sends wake the same job kind).
func (s *Store) announceLoop() {
	a := &s.announcer
	defer close(a.stopped)
	for {
		select {
		case <-a.wake:
		case <-a.done:
			s.flushAnnouncements()
			return
		}
		s.flushAnnouncements()
	}
}

func (s *Store) flushAnnouncements() {
	a := &s.announcer
	for {
		a.mu.Lock()
		batch := a.wakes // few (deduplicated below), and always first
		a.wakes = nil
		n := min(len(a.pending), max(maxAnnounceBatch-len(batch), 0))
		batch = append(batch, a.pending[:n]...)
		a.pending = a.pending[n:]
		a.mu.Unlock()
		if len(batch) == 0 {
			return
		}
		channels, payloads := make([]string, 0, len(batch)), make([]string, 0, len(batch))
		seen := make(map[announcement]bool, len(batch))
		for _, n := range batch {
			if !seen[n] {
				seen[n] = true
				channels, payloads = append(channels, n.channel), append(payloads, n.payload)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		// A failed batch is dropped: its jobs are found by the poll, its events are in the log.
		_, _ = s.db.ExecContext(ctx, `SELECT pg_notify(c, p) FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS x(c, p, n) ORDER BY n`,
			pq.Array(channels), pq.Array(payloads))
		cancel()
	}
}

// closeAnnouncer sends what is pending and stops the loop (none starts afterwards).
func (s *Store) closeAnnouncer() {
	a := &s.announcer
	a.once.Do(func() {})
	if a.done != nil {
		close(a.done)
		<-a.stopped
	}
}
