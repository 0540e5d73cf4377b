package messaging

import (
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
)

// eventTypes is the messaging surface's table of event types. Samples are built with the
// same Object methods as live data.
var eventTypes = []service.EventType{
	et(domain.EventInstanceCreated, "A channel instance was created.", func(now time.Time) any { return sampleInstance(now).Object() }),
	et(domain.EventInstanceUpdated, "An instance's name, config or pace changed.", func(now time.Time) any { return sampleInstance(now).Object() }),
	et(domain.EventInstanceDeleted, "An instance was deleted with its messages, chats, groups and contacts.", func(now time.Time) any {
		return sampleInstance(now).Object()
	}),
	et(domain.EventInstanceStatusChanged, "An instance's connection status changed (connecting, pairing, connected, disconnected, failed).", func(now time.Time) any {
		return domain.InstanceStatusChange{Instance: sampleInstance(now).Object(), From: domain.InstancePairing, To: domain.InstanceConnected}
	}),
	et(domain.EventMessageQueued, "A message was accepted and queued for sending.", sampleMessage(domain.MessageQueued)),
	et(domain.EventMessageSent, "The channel accepted a message.", sampleMessage(domain.MessageSent)),
	et(domain.EventMessageStatusUpdated, "A sent message was delivered or read, or a received one read when its chat was marked read (statuses only move forward).", sampleMessage(domain.MessageRead)),
	et(domain.EventMessageFailed, "A message could not be sent; error says why.", sampleMessage(domain.MessageFailed)),
	et(domain.EventMessageReceived, "A message arrived on an instance.", sampleMessage(domain.MessageReceived)),
	et(domain.EventMessageEdited, "A message's text was edited (by the instance or by its sender).", sampleMessage(domain.MessageDelivered)),
	et(domain.EventMessageDeleted, "A message was deleted for everyone.", sampleMessage(domain.MessageDelivered)),
	et(domain.EventChatUpdated, "A chat was read, archived or unarchived.", func(now time.Time) any {
		m := sampleMsg(now, domain.MessageReceived)
		return domain.Chat{ID: "chat_01jr8d0c3b5n7q9s1u3w5y7a9c", InstanceID: m.InstanceID, Address: m.ChatAddress,
			Kind: domain.ChatDirect, Name: "Ada", LastMessage: &m, LastMessageAt: &now, CreatedAt: now, UpdatedAt: now}.Object("+15550100001")
	}),
	et(domain.EventGroupCreated, "A group was created, or the instance was added to one.", func(now time.Time) any { return sampleGroup(now).Object() }),
	et(domain.EventGroupUpdated, "A group's subject or description changed.", func(now time.Time) any { return sampleGroup(now).Object() }),
	et(domain.EventGroupParticipants, "Members were added to or removed from a group.", func(now time.Time) any {
		return domain.GroupParticipantsChange{Group: sampleGroup(now).Object(), Added: []string{"+15550100003"}, Removed: []string{}}
	}),
	et(domain.EventGroupLeft, "The instance left a group, or was removed from it.", func(now time.Time) any {
		g := sampleGroup(now)
		g.Left = true
		return g.Object()
	}),
	et(domain.EventContactCreated, "A contact was created, by the API or because someone new wrote.", func(now time.Time) any { return sampleContact(now).Object() }),
	et(domain.EventContactUpdated, "A contact's name, labels or attributes changed.", func(now time.Time) any { return sampleContact(now).Object() }),
	et(domain.EventContactDeleted, "A contact was deleted.", func(now time.Time) any { return sampleContact(now).Object() }),
}

var _ = service.RegisterEventTypes(eventTypes...)

func et(typ, description string, sample func(time.Time) any) service.EventType {
	return service.EventType{Type: typ, Description: description, Sample: sample}
}

func sampleInstance(now time.Time) domain.Instance {
	return domain.Instance{ID: "inst_01jr8d0c3b5n7q9s1u3w5y7a9c", Name: "Support line", Channel: "sandbox",
		Status: domain.InstanceConnected, Address: "+15550100001",
		Config:            map[string]any{"auto_pair": false, "delivered_after_ms": 200, "read_after_ms": 1000, "echo": false},
		MessagesPerSecond: DefaultMessagesPerSecond, ConnectedAt: &now, CreatedAt: now, UpdatedAt: now}
}

func sampleMsg(now time.Time, status string) domain.Message {
	m := domain.Message{ID: "msg_01jr8d0c3b5n7q9s1u3w5y7a9c", InstanceID: "inst_01jr8d0c3b5n7q9s1u3w5y7a9c",
		ChatID: "chat_01jr8d0c3b5n7q9s1u3w5y7a9c", Direction: domain.Outbound, ChatAddress: "+15550100002",
		Sender: "+15550100001", Type: domain.TypeText, Content: domain.Content{Text: "Your order has shipped."},
		Status: status, CreatedAt: now, UpdatedAt: now}
	if status != domain.MessageQueued && status != domain.MessageFailed {
		m.ProviderMessageID, m.SentAt = m.ID, &now
	}
	switch status {
	case domain.MessageReceived:
		m.Direction, m.Sender, m.Content.Text = domain.Inbound, m.ChatAddress, "Where is my order?"
		m.ProviderMessageID = "wamid.HBgLMTU1NTAxMDAwMDIVAgASGBQzQTdF"
	case domain.MessageDelivered:
		m.DeliveredAt = &now
	case domain.MessageRead:
		m.DeliveredAt, m.ReadAt = &now, &now
	case domain.MessageFailed:
		m.FailedAt = &now
		m.Error = &domain.MessageError{Code: "recipient_unreachable", Message: "+15550100002 is not on the network"}
	}
	return m
}

func sampleMessage(status string) func(time.Time) any {
	return func(now time.Time) any { return sampleMsg(now, status).Object("+15550100001") }
}

func sampleGroup(now time.Time) domain.Group {
	return domain.Group{ID: "grp_01jr8d0c3b5n7q9s1u3w5y7a9c", InstanceID: "inst_01jr8d0c3b5n7q9s1u3w5y7a9c",
		Address: "sbxg_120363041234567890", Subject: "Launch team", Description: "Release coordination",
		Owner: "+15550100001", Participants: []domain.Participant{{Address: "+15550100001", Role: domain.RoleAdmin},
			{Address: "+15550100002", Role: domain.RoleMember}}, CreatedAt: now, UpdatedAt: now}
}

func sampleContact(now time.Time) domain.Contact {
	return domain.Contact{ID: "ct_01jr8d0c3b5n7q9s1u3w5y7a9c", InstanceID: "inst_01jr8d0c3b5n7q9s1u3w5y7a9c",
		Address: "+15550100002", Name: "Ada Lovelace", Labels: []string{"vip"},
		Attributes: map[string]string{"plan": "pro"}, CreatedAt: now, UpdatedAt: now}
}
