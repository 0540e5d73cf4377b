package messaging

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Groups manages an instance's group chats.
type Groups struct{ c *core }

// Limits of groups.
const (
	MaxSubjectLength     = 100
	MaxDescriptionLength = 2048
	MaxParticipants      = 256
)

// CreateGroupInput is a new group: its subject and the addresses to add.
type CreateGroupInput struct {
	Subject      string
	Description  string
	Participants []string
}

// UpdateGroupInput changes the subject and description when set.
type UpdateGroupInput struct {
	Subject, Description *string
	// Remove names the fields an update sent as null: a group cannot be without its
	// subject; null removes the description. REST's PATCH and GraphQL's updateGroup fill
	// it alike.
	Remove map[string]bool
}

// Create makes a group on the channel, owned by the instance.
func (s *Groups) Create(ctx context.Context, a service.Actor, instanceID string, in CreateGroupInput) (domain.Group, error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeGroupsWrite); err != nil {
		return domain.Group{}, err
	}
	subject, err := checkSubject(in.Subject)
	if err != nil {
		return domain.Group{}, err
	}
	if utf8.RuneCountInString(in.Description) > MaxDescriptionLength {
		return domain.Group{}, domain.Invalid("description", "description is longer than %d characters", MaxDescriptionLength)
	}
	if err := checkNoNUL("description", in.Description); err != nil {
		return domain.Group{}, err
	}
	if len(in.Participants) == 0 {
		return domain.Group{}, domain.Invalid("participants", "participants needs at least one address")
	}
	inst, d, v, err := s.c.ready(ctx, a, domain.ScopeGroupsWrite, instanceID, "creating groups",
		func(c channels.Capabilities) bool { return c.CreateGroups })
	if err != nil {
		return domain.Group{}, err
	}
	ps, err := checkParticipants(d, "participants", in.Participants, inst.Address)
	if err != nil {
		return domain.Group{}, err
	}
	if len(ps)+1 > MaxParticipants { // the instance is a member too
		return domain.Group{}, domain.Invalid("participants", "a group has at most %d participants, the instance included", MaxParticipants)
	}
	info := channels.GroupInfo{Subject: subject, Description: in.Description}
	for _, p := range ps {
		info.Participants = append(info.Participants, domain.Participant{Address: p, Role: domain.RoleMember})
	}
	info, err = d.CreateGroup(ctx, v, info)
	if err != nil {
		return domain.Group{}, driverError(err, "creating groups")
	}
	var out domain.Group
	err = s.c.s.Mutate(ctx, a, domain.ScopeGroupsWrite, func(c service.Change) error {
		out = domain.Group{ID: domain.NewID(domain.PrefixGroup), WorkspaceID: inst.WorkspaceID, InstanceID: inst.ID,
			Address: info.Address, Subject: info.Subject, Description: info.Description, Owner: info.Owner,
			Participants: info.Participants, CreatedAt: c.Now, UpdatedAt: c.Now}
		if err := c.Tx.SaveGroup(ctx, out); err != nil {
			return err
		}
		if _, err := c.Tx.EnsureChat(ctx, chatTarget{address: out.Address, group: &out}.chat(inst, c.Now)); err != nil {
			return err
		}
		return s.c.record(ctx, c.Tx, inst, domain.EventGroupCreated, out.Object())
	})
	return out, err
}

// List returns a page of an instance's groups, newest first.
func (s *Groups) List(ctx context.Context, a service.Actor, instanceID string, p domain.ListParams) (domain.Page[domain.Group], error) {
	page, _, err := listUnder(ctx, s.c, a, domain.ScopeGroupsRead, instanceID, domain.PrefixGroup, p,
		func(wsID string, inst store.StoredInstance, limit int) ([]domain.Group, error) {
			return s.c.st.Groups(ctx, wsID, inst.ID, p.After, limit)
		}, func(g domain.Group) string { return g.ID })
	return page, err
}

// Get returns one group of an instance.
func (s *Groups) Get(ctx context.Context, a service.Actor, instanceID, id string) (domain.Group, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeGroupsRead)
	if err != nil {
		return domain.Group{}, err
	}
	inst, err := s.c.load(ctx, wsID, instanceID)
	if err != nil {
		return domain.Group{}, err
	}
	return getGroup(ctx, s.c.st, wsID, inst.ID, id)
}

func getGroup(ctx context.Context, st *store.Store, wsID, instanceID, id string) (domain.Group, error) {
	if !domain.HasPrefix(id, domain.PrefixGroup) {
		return domain.Group{}, domain.NotFound("group")
	}
	return st.Group(ctx, wsID, instanceID, id)
}

// Update changes a group's subject or description.
func (s *Groups) Update(ctx context.Context, a service.Actor, instanceID, id string, in UpdateGroupInput) (domain.Group, error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeGroupsWrite); err != nil {
		return domain.Group{}, err
	}
	if err := service.CannotRemove("", in.Remove, "subject"); err != nil {
		return domain.Group{}, err
	}
	if in.Remove["description"] {
		in.Description = new("")
	}
	if in.Subject != nil {
		subject, err := checkSubject(*in.Subject)
		if err != nil {
			return domain.Group{}, err
		}
		in.Subject = &subject
	}
	if in.Description != nil && utf8.RuneCountInString(*in.Description) > MaxDescriptionLength {
		return domain.Group{}, domain.Invalid("description", "description is longer than %d characters", MaxDescriptionLength)
	}
	if in.Description != nil {
		if err := checkNoNUL("description", *in.Description); err != nil {
			return domain.Group{}, err
		}
	}
	return s.change(ctx, a, instanceID, id, func(d channels.Driver, v channels.Instance, g *domain.Group) (string, eventData, error) {
		before := *g
		if in.Subject != nil {
			g.Subject = *in.Subject
		}
		if in.Description != nil {
			g.Description = *in.Description
		}
		if g.Subject == before.Subject && g.Description == before.Description {
			return "", nil, nil // nothing to change
		}
		if err := d.UpdateGroup(ctx, v, infoOf(*g)); err != nil {
			return "", nil, driverError(err, "changing groups")
		}
		return domain.EventGroupUpdated, nil, nil
	})
}

// ChangeParticipants adds and removes members.
func (s *Groups) ChangeParticipants(ctx context.Context, a service.Actor, instanceID, id string, add, remove []string) (domain.Group, error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeGroupsWrite); err != nil {
		return domain.Group{}, err
	}
	if len(add) == 0 && len(remove) == 0 {
		return domain.Group{}, domain.Invalid("participants", "participants needs at least one address")
	}
	return s.change(ctx, a, instanceID, id, func(d channels.Driver, v channels.Instance, g *domain.Group) (string, eventData, error) {
		param := "participants"
		add, err := checkParticipants(d, param, add, v.Address)
		if err != nil {
			return "", nil, err
		}
		remove, err := checkParticipants(d, param, remove, v.Address)
		if err != nil {
			return "", nil, err
		}
		// Adding someone who is a member already (or removed in the same call) changes
		// nothing, so it neither reaches the channel nor shows in the event as added.
		// Removals all go on: some channels know only part of a group's members (a
		// Telegram bot sees those who joined after it).
		add = newMembers(g.Participants, add, remove)
		if len(add) == 0 && len(remove) == 0 {
			return "", nil, nil
		}
		after := domain.ChangeParticipants(g.Participants, add, remove)
		if len(after) > MaxParticipants {
			return "", nil, domain.Invalid(param, "a group has at most %d participants", MaxParticipants)
		}
		if err := d.ChangeParticipants(ctx, v, infoOf(*g), add, remove); err != nil {
			return "", nil, driverError(err, "changing group participants")
		}
		g.Participants = after
		return domain.EventGroupParticipants, func(g domain.Group) any {
			return domain.GroupParticipantsChange{Group: g.Object(), Added: nonNil(add), Removed: nonNil(remove)}
		}, nil
	})
}

// newMembers is add without the group's members and the addresses being removed.
func newMembers(ps []domain.Participant, add, remove []string) []string {
	skip := make(map[string]bool, len(ps)+len(remove))
	for _, p := range ps {
		skip[p.Address] = true
	}
	for _, r := range remove {
		skip[r] = true
	}
	var out []string
	for _, a := range add {
		if !skip[a] {
			out = append(out, a)
		}
	}
	return out
}

// Leave makes the instance leave a group; the group stays listed, marked left.
func (s *Groups) Leave(ctx context.Context, a service.Actor, instanceID, id string) (domain.Group, error) {
	return s.change(ctx, a, instanceID, id, func(d channels.Driver, v channels.Instance, g *domain.Group) (string, eventData, error) {
		if err := d.LeaveGroup(ctx, v, infoOf(*g)); err != nil {
			return "", nil, driverError(err, "leaving groups")
		}
		g.Left = true
		g.Participants = domain.ChangeParticipants(g.Participants, nil, []string{v.Address})
		return domain.EventGroupLeft, nil, nil
	})
}

// eventData makes an event's data of the group as stored (its updated_at set).
type eventData func(domain.Group) any

// change loads a group of a connected instance, lets fn change it through the channel, and
// stores it with fn's event (its data, or the group); fn's event type "" means no change.
func (s *Groups) change(ctx context.Context, a service.Actor, instanceID, id string,
	fn func(channels.Driver, channels.Instance, *domain.Group) (string, eventData, error)) (domain.Group, error) {
	inst, d, v, err := s.c.ready(ctx, a, domain.ScopeGroupsWrite, instanceID, "groups",
		func(c channels.Capabilities) bool { return c.Groups })
	if err != nil {
		return domain.Group{}, err
	}
	g, err := getGroup(ctx, s.c.st, inst.WorkspaceID, inst.ID, id)
	if err != nil {
		return domain.Group{}, err
	}
	if g.Left {
		return domain.Group{}, errGroupLeft
	}
	typ, data, err := fn(d, v, &g)
	if err != nil {
		return domain.Group{}, err
	}
	if typ == "" {
		return g, nil
	}
	err = s.c.s.Mutate(ctx, a, domain.ScopeGroupsWrite, func(c service.Change) error {
		g.UpdatedAt = c.Now
		if err := c.Tx.SaveGroup(ctx, g); err != nil {
			return err
		}
		if data == nil {
			return s.c.record(ctx, c.Tx, inst, typ, g.Object())
		}
		return s.c.record(ctx, c.Tx, inst, typ, data(g))
	})
	return g, err
}

// ready loads a connected instance whose channel can do what is asked, with its driver.
func (c *core) ready(ctx context.Context, a service.Actor, scope domain.Scope, instanceID, what string,
	can func(channels.Capabilities) bool) (store.StoredInstance, channels.Driver, channels.Instance, error) {
	wsID, err := service.RequireWorkspace(a, scope)
	if err != nil {
		return store.StoredInstance{}, nil, channels.Instance{}, err
	}
	inst, err := c.load(ctx, wsID, instanceID)
	if err != nil {
		return inst, nil, channels.Instance{}, err
	}
	d, err := c.driver(inst)
	if err != nil {
		return inst, nil, channels.Instance{}, err
	}
	if !can(d.Capabilities()) {
		return inst, nil, channels.Instance{}, unsupported(what)
	}
	if inst.Status != domain.InstanceConnected {
		return inst, nil, channels.Instance{}, errNotConnected
	}
	v, err := c.view(inst)
	return inst, d, v, err
}

func infoOf(g domain.Group) channels.GroupInfo {
	return channels.GroupInfo{Address: g.Address, Subject: g.Subject, Description: g.Description, Owner: g.Owner,
		Participants: g.Participants}
}

func checkSubject(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > MaxSubjectLength {
		return "", domain.Invalid("subject", "subject is required (at most %d characters)", MaxSubjectLength)
	}
	return s, checkNoNUL("subject", s)
}

// checkParticipants validates addresses, drops duplicates and the instance's own.
func checkParticipants(d channels.Driver, param string, addrs []string, own string) ([]string, error) {
	if len(addrs) > MaxParticipants {
		return nil, domain.Invalid(param, "at most %d participants at once", MaxParticipants)
	}
	seen := map[string]bool{}
	var out []string
	for _, a := range addrs {
		if err := d.ValidateAddress(a); err != nil {
			return nil, domain.Invalid(param, "%q: %s", a, err.Error())
		}
		if a != own && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out, nil
}
