package store

import (
	"context"
	"log/slog"
	"time"

	"github.com/lib/pq"
)

// Listen delivers PostgreSQL notifications to the handlers registered with Handle until ctx
// ends, reconnecting as needed. onReconnect runs after a lost connection is re-established
// (notifications sent meanwhile are lost; callers resynchronise from the tables). For SQLite
// it does nothing: notifications are delivered in process after commit.
func (s *Store) Listen(ctx context.Context, log *slog.Logger, onReconnect func()) error {
	if s.dialect != Postgres {
		return nil
	}
	l := pq.NewListener(s.url, 100*time.Millisecond, 2*time.Second, func(ev pq.ListenerEventType, err error) {
		switch ev {
		case pq.ListenerEventDisconnected:
			log.Warn("notification listener disconnected", "err", err)
		case pq.ListenerEventReconnected:
			s.reconnects.Add(1)
			log.Info("notification listener reconnected")
			if onReconnect != nil {
				onReconnect()
			}
		}
	})
	s.notifyMu.Lock()
	for ch := range s.handlers {
		if err := l.Listen(ch); err != nil {
			s.notifyMu.Unlock()
			l.Close()
			return err
		}
	}
	s.listener = l
	s.notifyMu.Unlock()
	go func() {
		defer func() {
			s.notifyMu.Lock()
			s.listener = nil
			s.notifyMu.Unlock()
			l.Close()
		}()
		ping := time.NewTicker(30 * time.Second)
		defer ping.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case n := <-l.Notify:
				if n != nil {
					s.deliver(n.Channel, n.Extra)
				}
			case <-ping.C:
				_ = l.Ping()
			}
		}
	}()
	return nil
}

// ListenerReconnects counts how often the notification listener lost its connection and
// re-established it (a metric).
func (s *Store) ListenerReconnects() int64 { return s.reconnects.Load() }
