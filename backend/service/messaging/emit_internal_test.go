package messaging

import (
	"testing"

	"github.com/switchboard-dev/switchboard/backend/channels"
)

// Every event that happens in a chat is applied in order with the chat's others: a group's
// membership change carries the whole member list, so two applied out of order (the jobs'
// workers run in parallel) left the older list in place; an edit applied before its message
// was dropped as an edit of an unknown message. Receipts and session changes need no order.
func TestEventsOfAChatShareItsOrderingKey(t *testing.T) {
	const group = "120363000000000001@g.us"
	for name, c := range map[string]struct {
		ev   channels.Event
		chat string
	}{
		"message":    {channels.Event{Message: &channels.Inbound{ChatAddress: group}}, group},
		"membership": {channels.Event{Group: &channels.Group{Action: channels.GroupParticipants, Info: channels.GroupInfo{Address: group}}}, group},
		"edit":       {channels.Event{Edit: &channels.Edit{ChatAddress: group}}, group},
		"receipt":    {channels.Event{Receipt: &channels.Receipt{ProviderMessageID: "x"}}, ""},
		"status":     {channels.Event{Status: &channels.Status{Status: "connected"}}, ""},
	} {
		if got := eventChat(c.ev); got != c.chat {
			t.Errorf("%s: chat %q, want %q", name, got, c.chat)
		}
	}
}
