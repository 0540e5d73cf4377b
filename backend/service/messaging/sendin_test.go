package messaging_test

import (
	"errors"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// SendIn writes in the caller's transaction: rolled back, nothing of the send is left (no
// message, no message.queued event, nothing sent); committed, the message is sent once. An
// automation run relies on this to never send twice.
func TestSendInCommitsWithTheCallersTransaction(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.connected("A", nil)
		b := e.connected("B", nil)
		in := messaging.SendInput{To: b.Address, ContentInput: messaging.ContentInput{Text: "only once"}}

		undo := errors.New("undo")
		err := e.st.Tx(e.ctx, func(tx *store.Tx) error {
			m, err := e.m.Messages.SendIn(e.ctx, tx, e.a, a.ID, in)
			if err != nil || m.Status != domain.MessageQueued {
				t.Fatalf("SendIn: %v %+v", err, m)
			}
			return undo
		})
		if !errors.Is(err, undo) {
			t.Fatalf("Tx = %v", err)
		}
		if ms := e.messages(a.ID, domain.MessageFilter{}); len(ms) != 0 {
			t.Fatalf("a rolled-back send left %d messages", len(ms))
		}
		if evs := e.events(domain.EventMessageQueued); len(evs) != 0 {
			t.Fatalf("a rolled-back send left %d message.queued events", len(evs))
		}

		var sent domain.Message
		if err := e.st.Tx(e.ctx, func(tx *store.Tx) error {
			sent, err = e.m.Messages.SendIn(e.ctx, tx, e.a, a.ID, in)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		e.waitSent(a.ID, sent.ID)
		if got := e.inbound(b.ID, 1); len(got) != 1 || got[0].Content.Text != "only once" {
			t.Fatalf("B received %+v, want the one message", got)
		}
		if ms := e.messages(a.ID, domain.MessageFilter{}); len(ms) != 1 {
			t.Fatalf("A has %d messages, want the committed one", len(ms))
		}

		// The checks are Send's: a refused send writes nothing either way.
		_, err = e.m.Messages.SendIn(e.ctx, nil, e.a, a.ID, messaging.SendInput{To: b.Address})
		wantCode(t, err, domain.CodeInvalid, "", "text")
	})
}
