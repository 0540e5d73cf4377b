package graph

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/graph/model"
)

// This file holds the messaging surface's resolvers: instances, messages, chats, groups and
// contacts. Each decodes its input, calls one method of messaging.Messaging and converts the
// result with the same null rules as REST's objects (domain.*Object).

// ---- instances ----

func (r *queryResolver) Channels(context.Context) ([]domain.ChannelObject, error) {
	return r.msg.Channels(), nil
}

func (r *channelConfigFieldResolver) Default(_ context.Context, f *domain.ChannelConfigField) (json.RawMessage, error) {
	if f.Default == nil {
		return nil, nil
	}
	return domain.RawJSON(f.Default), nil
}

func (r *mutationResolver) RotateInstanceCallbackToken(ctx context.Context, id string) (*model.Instance, error) {
	return instanceResult(r.msg.Instances.RotateCallbackToken(ctx, actor(ctx), id))
}

func (r *queryResolver) Instances(ctx context.Context, first *int, after *string) (*model.InstanceConnection, error) {
	page, err := r.msg.Instances.List(ctx, actor(ctx), domain.ListParams{Limit: first, After: deref(after)})
	if err != nil {
		return nil, httpx.RenameParam(err, "limit", "first")
	}
	conn := &model.InstanceConnection{Nodes: make([]model.Instance, len(page.Data)), HasMore: page.HasMore,
		NextCursor: optional(page.NextCursor)}
	for i, in := range page.Data {
		conn.Nodes[i] = toInstance(in)
	}
	return conn, nil
}

func (r *queryResolver) Instance(ctx context.Context, id string) (*model.Instance, error) {
	return instanceResult(r.msg.Instances.Get(ctx, actor(ctx), id))
}

func (r *queryResolver) InstancePairing(ctx context.Context, id string) (*model.Pairing, error) {
	p, err := r.msg.Instances.Pairing(ctx, actor(ctx), id)
	if err != nil {
		return nil, err
	}
	return &model.Pairing{InstanceID: p.InstanceID, PairingCode: p.PairingCode, QRCode: p.QRCode, QRPayload: p.QRPayload,
		ExpiresAt: time.Time(p.ExpiresAt)}, nil
}

func (r *mutationResolver) CreateInstance(ctx context.Context, input model.CreateInstanceInput) (*model.Instance, error) {
	cfg, err := decodeObject[any](input.Config, "config")
	if err != nil {
		return nil, err
	}
	return instanceResult(r.msg.Instances.Create(ctx, actor(ctx), messaging.CreateInstanceInput{Name: input.Name,
		Channel: deref(input.Channel), Config: cfg, MessagesPerSecond: input.MessagesPerSecond, Connect: deref(input.Connect)}))
}

// UpdateInstance changes the given fields; the fields given as null are named in Remove, for
// the service to apply the same rules as REST's PATCH.
func (r *mutationResolver) UpdateInstance(ctx context.Context, id string, input model.UpdateInstanceInput) (*model.Instance, error) {
	cfg, err := decodeObject[any](input.Config.Value(), "config")
	if err != nil {
		return nil, err
	}
	return instanceResult(r.msg.Instances.Update(ctx, actor(ctx), id, messaging.UpdateInstanceInput{Name: input.Name.Value(),
		Config: cfg, MessagesPerSecond: input.MessagesPerSecond.Value(), Remove: nullFields(ctx, "input")}))
}

func (r *mutationResolver) DeleteInstance(ctx context.Context, id string) (*model.Instance, error) {
	return instanceResult(r.msg.Instances.Delete(ctx, actor(ctx), id))
}

func (r *mutationResolver) ConnectInstance(ctx context.Context, id string) (*model.Instance, error) {
	return instanceResult(r.msg.Instances.Connect(ctx, actor(ctx), id))
}

func (r *mutationResolver) DisconnectInstance(ctx context.Context, id string) (*model.Instance, error) {
	return instanceResult(r.msg.Instances.Disconnect(ctx, actor(ctx), id))
}

func (r *mutationResolver) RestartInstance(ctx context.Context, id string) (*model.Instance, error) {
	return instanceResult(r.msg.Instances.Restart(ctx, actor(ctx), id))
}

func (r *mutationResolver) PairSandboxInstance(ctx context.Context, id string, pairingCode *string) (*model.Instance, error) {
	in, err := r.msg.Instances.Pair(ctx, actor(ctx), id, deref(pairingCode))
	if err != nil {
		return nil, httpx.RenameParam(err, "pairing_code", "pairingCode")
	}
	return ptr(toInstance(in)), nil
}

func instanceResult(in domain.Instance, err error) (*model.Instance, error) {
	if err != nil {
		return nil, err
	}
	return ptr(toInstance(in)), nil
}

// toInstance converts an instance for output; its config carries no secret values.
func toInstance(in domain.Instance) model.Instance {
	o := in.Object()
	return model.Instance{ID: o.ID, Name: o.Name, Channel: o.Channel, Status: o.Status, StatusReason: o.StatusReason,
		Address: o.Address, Config: domain.RawJSON(o.Config), MessagesPerSecond: o.MessagesPerSecond, CallbackURL: o.CallbackURL,
		ConnectedAt: in.ConnectedAt, CreatedAt: in.CreatedAt, UpdatedAt: in.UpdatedAt}
}

// ---- messages ----

func (r *queryResolver) Messages(ctx context.Context, instanceID string, filter *model.MessageFilter, first *int, after *string) (*model.MessageConnection, error) {
	var f domain.MessageFilter
	if filter != nil {
		f = domain.MessageFilter{Direction: deref(filter.Direction), Status: deref(filter.Status), ChatID: deref(filter.ChatID),
			Address: deref(filter.Address), ThreadID: deref(filter.ThreadID), Since: filter.Since, Until: filter.Until}
	}
	page, err := r.msg.Messages.List(ctx, actor(ctx), instanceID, f, domain.ListParams{Limit: first, After: deref(after)})
	if err != nil {
		return nil, httpx.RenameParam(err, "limit", "first")
	}
	conn := &model.MessageConnection{Nodes: make([]model.Message, len(page.Data)), HasMore: page.HasMore,
		NextCursor: optional(page.NextCursor)}
	for i, m := range page.Data {
		conn.Nodes[i] = toMessage(m, page.InstanceAddress)
	}
	return conn, nil
}

func (r *queryResolver) Message(ctx context.Context, instanceID string, id string) (*model.Message, error) {
	return messageResult(r.msg.Messages.Get(ctx, actor(ctx), instanceID, id))
}

func (r *mutationResolver) SendMessage(ctx context.Context, instanceID string, input model.SendMessageInput) (*model.Message, error) {
	m, err := r.msg.Messages.Send(ctx, actor(ctx), instanceID, messaging.SendInput{To: input.To,
		ContentInput: contentInput(input.Type, input.Text, input.Media, input.Location, input.Contact, input.Poll, input.Reaction, input.Template),
		ReplyTo:      deref(input.ReplyTo), ThreadID: deref(input.ThreadID)})
	if err != nil {
		return nil, err
	}
	// A message is queued only on a connected instance, whose address is its from.
	return ptr(toMessage(m, m.Sender)), nil
}

func (r *mutationResolver) InjectSandboxMessage(ctx context.Context, instanceID string, input model.InjectMessageInput) (*model.Message, error) {
	return messageResult(r.msg.Messages.Inject(ctx, actor(ctx), instanceID, messaging.InjectInput{From: input.From,
		FromName: deref(input.FromName), Group: deref(input.Group),
		ContentInput: contentInput(input.Type, input.Text, input.Media, input.Location, input.Contact, input.Poll, input.Reaction, nil),
		ReplyTo:      deref(input.ReplyTo)}))
}

func (r *mutationResolver) SendTyping(ctx context.Context, instanceID string, to string, state *string, threadID *string) (string, error) {
	return r.msg.Messages.Typing(ctx, actor(ctx), instanceID, messaging.TypingInput{To: to, State: deref(state), ThreadID: deref(threadID)})
}

func (r *mutationResolver) EditMessage(ctx context.Context, instanceID string, id string, text string) (*model.Message, error) {
	return messageResult(r.msg.Messages.Edit(ctx, actor(ctx), instanceID, id, text))
}

func (r *mutationResolver) DeleteMessage(ctx context.Context, instanceID string, id string) (*model.Message, error) {
	return messageResult(r.msg.Messages.Delete(ctx, actor(ctx), instanceID, id))
}

func messageResult(m domain.Message, instanceAddress string, err error) (*model.Message, error) {
	if err != nil {
		return nil, err
	}
	return ptr(toMessage(m, instanceAddress)), nil
}

// contentInput decodes a message's content; the service checks it.
func contentInput(typ, text *string, media *model.MediaInput, loc *model.LocationInput, card *model.ContactCardInput,
	poll *model.PollInput, reaction *model.ReactionInput, tpl *model.TemplateInput) messaging.ContentInput {
	in := messaging.ContentInput{Type: deref(typ), Text: deref(text)}
	if media != nil {
		in.Media = &domain.Media{URL: deref(media.URL), ProviderMediaID: deref(media.ProviderMediaID),
			Caption: deref(media.Caption), FileName: deref(media.FileName), MimeType: deref(media.MimeType)}
	}
	if tpl != nil {
		in.Template = &domain.Template{Name: tpl.Name, Language: tpl.Language, Components: tpl.Components}
	}
	if loc != nil {
		in.Location = &domain.Location{Latitude: loc.Latitude, Longitude: loc.Longitude, Name: deref(loc.Name),
			Address: deref(loc.Address)}
	}
	if card != nil {
		in.Contact = &messaging.ContactCardInput{Name: card.Name, Phones: card.Phones}
	}
	if poll != nil {
		in.Poll = &domain.Poll{Question: poll.Question, Options: poll.Options, MultipleAnswers: deref(poll.MultipleAnswers)}
	}
	if reaction != nil {
		in.Reaction = &domain.Reaction{MessageID: reaction.MessageID, Emoji: reaction.Emoji}
	}
	return in
}

func toTemplate(t *domain.Template) *model.Template {
	if t == nil {
		return nil
	}
	return &model.Template{Name: t.Name, Language: t.Language, Components: t.Components}
}

// toMessage converts a message for output; instanceAddress is its instance's own address.
func toMessage(m domain.Message, instanceAddress string) model.Message {
	o := m.Object(instanceAddress)
	return model.Message{ID: o.ID, InstanceID: o.InstanceID, ChatID: o.ChatID, Direction: o.Direction, From: o.From, To: o.To,
		Type: o.Type, Text: o.Text, Media: o.Media, Location: o.Location, Contact: o.Contact, Poll: o.Poll,
		Reaction: o.Reaction, Template: toTemplate(o.Template), ReplyTo: o.ReplyTo, ThreadID: o.ThreadID, Status: o.Status, Error: o.Error, ProviderMessageID: o.ProviderMessageID,
		EditedAt: m.EditedAt, DeletedAt: m.DeletedAt, SentAt: m.SentAt, DeliveredAt: m.DeliveredAt, ReadAt: m.ReadAt,
		FailedAt: m.FailedAt, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
}

// ---- chats ----

func (r *queryResolver) Chats(ctx context.Context, instanceID string, archived *bool, sort *model.ChatSort, first *int, after *string) (*model.ChatConnection, error) {
	f := domain.ChatFilter{Archived: archived}
	if sort != nil {
		f.Sort = strings.ToLower(string(*sort)) // LAST_MESSAGE → last_message, as REST's sort
	}
	page, err := r.msg.Chats.List(ctx, actor(ctx), instanceID, f, domain.ListParams{Limit: first, After: deref(after)})
	if err != nil {
		return nil, httpx.RenameParam(err, "limit", "first")
	}
	conn := &model.ChatConnection{Nodes: make([]model.Chat, len(page.Data)), HasMore: page.HasMore,
		NextCursor: optional(page.NextCursor)}
	for i, c := range page.Data {
		conn.Nodes[i] = toChat(c, page.InstanceAddress)
	}
	return conn, nil
}

func (r *queryResolver) Chat(ctx context.Context, instanceID string, id string) (*model.Chat, error) {
	return chatResult(r.msg.Chats.Get(ctx, actor(ctx), instanceID, id))
}

func (r *mutationResolver) MarkChatRead(ctx context.Context, instanceID string, chatID string) (*model.Chat, error) {
	return chatResult(r.msg.Chats.MarkRead(ctx, actor(ctx), instanceID, chatID))
}

func (r *mutationResolver) ArchiveChat(ctx context.Context, instanceID string, chatID string, archived bool) (*model.Chat, error) {
	return chatResult(r.msg.Chats.SetArchived(ctx, actor(ctx), instanceID, chatID, &archived))
}

func chatResult(c domain.Chat, instanceAddress string, err error) (*model.Chat, error) {
	if err != nil {
		return nil, err
	}
	return ptr(toChat(c, instanceAddress)), nil
}

func toChat(c domain.Chat, instanceAddress string) model.Chat {
	o := c.Object(instanceAddress)
	out := model.Chat{ID: o.ID, InstanceID: o.InstanceID, Address: o.Address, Type: o.Type, Name: o.Name,
		UnreadCount: o.UnreadCount, Archived: o.Archived, LastMessageAt: c.LastMessageAt, CreatedAt: c.CreatedAt,
		UpdatedAt: c.UpdatedAt}
	if c.LastMessage != nil {
		out.LastMessage = ptr(toMessage(*c.LastMessage, instanceAddress))
	}
	return out
}

// ---- groups ----

func (r *queryResolver) Groups(ctx context.Context, instanceID string, first *int, after *string) (*model.GroupConnection, error) {
	page, err := r.msg.Groups.List(ctx, actor(ctx), instanceID, domain.ListParams{Limit: first, After: deref(after)})
	if err != nil {
		return nil, httpx.RenameParam(err, "limit", "first")
	}
	conn := &model.GroupConnection{Nodes: make([]model.Group, len(page.Data)), HasMore: page.HasMore,
		NextCursor: optional(page.NextCursor)}
	for i, g := range page.Data {
		conn.Nodes[i] = toGroup(g)
	}
	return conn, nil
}

func (r *queryResolver) Group(ctx context.Context, instanceID string, id string) (*model.Group, error) {
	return groupResult(r.msg.Groups.Get(ctx, actor(ctx), instanceID, id))
}

func (r *mutationResolver) CreateGroup(ctx context.Context, instanceID string, input model.CreateGroupInput) (*model.Group, error) {
	return groupResult(r.msg.Groups.Create(ctx, actor(ctx), instanceID, messaging.CreateGroupInput{Subject: input.Subject,
		Description: deref(input.Description), Participants: input.Participants}))
}

// UpdateGroup changes the given fields; the fields given as null follow the service's
// rules, as in REST's PATCH.
func (r *mutationResolver) UpdateGroup(ctx context.Context, instanceID string, id string, input model.UpdateGroupInput) (*model.Group, error) {
	return groupResult(r.msg.Groups.Update(ctx, actor(ctx), instanceID, id, messaging.UpdateGroupInput{
		Subject: input.Subject.Value(), Description: input.Description.Value(), Remove: nullFields(ctx, "input")}))
}

func (r *mutationResolver) ChangeGroupParticipants(ctx context.Context, instanceID string, id string, add []string, remove []string) (*model.Group, error) {
	return groupResult(r.msg.Groups.ChangeParticipants(ctx, actor(ctx), instanceID, id, add, remove))
}

func (r *mutationResolver) LeaveGroup(ctx context.Context, instanceID string, id string) (*model.Group, error) {
	return groupResult(r.msg.Groups.Leave(ctx, actor(ctx), instanceID, id))
}

func groupResult(g domain.Group, err error) (*model.Group, error) {
	if err != nil {
		return nil, err
	}
	return ptr(toGroup(g)), nil
}

func toGroup(g domain.Group) model.Group {
	o := g.Object()
	return model.Group{ID: o.ID, InstanceID: o.InstanceID, Address: o.Address, Subject: o.Subject, Description: o.Description,
		Owner: o.Owner, Participants: o.Participants, Left: o.Left, CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt}
}

// ---- contacts ----

func (r *queryResolver) Contacts(ctx context.Context, instanceID string, first *int, after *string) (*model.ContactConnection, error) {
	page, err := r.msg.Contacts.List(ctx, actor(ctx), instanceID, domain.ListParams{Limit: first, After: deref(after)})
	if err != nil {
		return nil, httpx.RenameParam(err, "limit", "first")
	}
	conn := &model.ContactConnection{Nodes: make([]model.Contact, len(page.Data)), HasMore: page.HasMore,
		NextCursor: optional(page.NextCursor)}
	for i, c := range page.Data {
		conn.Nodes[i] = toContact(c)
	}
	return conn, nil
}

func (r *queryResolver) Contact(ctx context.Context, instanceID string, id string) (*model.Contact, error) {
	return contactResult(r.msg.Contacts.Get(ctx, actor(ctx), instanceID, id))
}

func (r *mutationResolver) CreateContact(ctx context.Context, instanceID string, input model.CreateContactInput) (*model.Contact, error) {
	in, err := contactInput(input.Name, input.Labels, input.Attributes)
	if err != nil {
		return nil, err
	}
	in.Address = input.Address
	return contactResult(r.msg.Contacts.Create(ctx, actor(ctx), instanceID, in))
}

// UpdateContact changes the given fields; the fields given as null follow the service's
// rules, as in REST's PATCH.
func (r *mutationResolver) UpdateContact(ctx context.Context, instanceID string, id string, input model.UpdateContactInput) (*model.Contact, error) {
	in, err := contactInput(input.Name.Value(), input.Labels.Value(), input.Attributes.Value())
	if err != nil {
		return nil, err
	}
	in.Remove = nullFields(ctx, "input")
	return contactResult(r.msg.Contacts.Update(ctx, actor(ctx), instanceID, id, in))
}

func (r *mutationResolver) DeleteContact(ctx context.Context, instanceID string, id string) (*model.Contact, error) {
	return contactResult(r.msg.Contacts.Delete(ctx, actor(ctx), instanceID, id))
}

func (r *mutationResolver) CheckContacts(ctx context.Context, instanceID string, addresses []string) ([]domain.Reachability, error) {
	return r.msg.Contacts.Check(ctx, actor(ctx), instanceID, addresses)
}

// contactInput decodes the changeable fields of a contact (absent ones stay nil).
func contactInput(name *string, labels []string, attributes json.RawMessage) (messaging.ContactInput, error) {
	in := messaging.ContactInput{Name: name}
	if labels != nil {
		in.Labels = &labels
	}
	attrs, err := decodeObject[string](attributes, "attributes")
	if err != nil {
		return in, err
	}
	if attrs != nil {
		in.Attributes = &attrs
	}
	return in, nil
}

func contactResult(c domain.Contact, err error) (*model.Contact, error) {
	if err != nil {
		return nil, err
	}
	return ptr(toContact(c)), nil
}

func toContact(c domain.Contact) model.Contact {
	o := c.Object()
	return model.Contact{ID: o.ID, InstanceID: o.InstanceID, Address: o.Address, Name: o.Name, Labels: o.Labels,
		Attributes: domain.RawJSON(o.Attributes), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// ---- decoding ----

// decodeObject decodes a JSON input that must be an object of V values (nil when absent or
// null).
func decodeObject[V any](raw json.RawMessage, param string) (map[string]V, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var zero V
	what := "values"
	if _, ok := any(zero).(string); ok {
		what = "string values"
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, domain.Invalid(param, "%s must be an object of %s", param, what)
	}
	out := make(map[string]V, len(fields))
	for _, k := range slices.Sorted(maps.Keys(fields)) { // the first wrong one by name, every time
		var v V
		if err := json.Unmarshal(fields[k], &v); err != nil {
			if what == "string values" {
				return nil, domain.Invalid(param+"."+k, "%s.%s must be a string", param, k)
			}
			return nil, domain.Invalid(param+"."+k, "%s.%s is not a valid value", param, k)
		}
		out[k] = v
	}
	return out, nil
}
