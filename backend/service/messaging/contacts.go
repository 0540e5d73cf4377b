package messaging

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Contacts manages an instance's contacts (created by hand, or when someone writes).
type Contacts struct{ c *core }

// Limits of contacts.
const (
	MaxContactNameLength = 200
	MaxLabels            = 20
	MaxLabelLength       = 50
	MaxAttributes        = 50
	MaxAttributeKey      = 50
	MaxAttributeValue    = 500
	MaxCheckAddresses    = 100
)

// ContactInput is a contact's fields. On update, nil fields are kept; labels and
// attributes, when given, replace the old ones.
type ContactInput struct {
	Address    string
	Name       *string
	Labels     *[]string
	Attributes *map[string]string
	// Remove names the fields an update sent as null: null removes the name, the labels
	// or the attributes (a contact can be without each). REST's PATCH and GraphQL's
	// updateContact fill it alike.
	Remove map[string]bool
}

// Create adds a contact; an address the instance already has is 409 contact_exists.
func (s *Contacts) Create(ctx context.Context, a service.Actor, instanceID string, in ContactInput) (domain.Contact, error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeContactsWrite); err != nil {
		return domain.Contact{}, err
	}
	if err := checkAddressInput("address", in.Address); err != nil {
		return domain.Contact{}, err
	}
	var out domain.Contact
	err := s.c.s.Mutate(ctx, a, domain.ScopeContactsWrite, func(c service.Change) error {
		inst, err := loadIn(ctx, c.Tx, c.WorkspaceID, instanceID)
		if err != nil {
			return err
		}
		d, err := s.c.driver(inst)
		if err != nil {
			return err
		}
		if err := d.ValidateAddress(in.Address); err != nil {
			return domain.Invalid("address", "address %s", err.Error())
		}
		out = domain.Contact{ID: domain.NewID(domain.PrefixContact), WorkspaceID: inst.WorkspaceID, InstanceID: inst.ID,
			Address: in.Address, CreatedAt: c.Now, UpdatedAt: c.Now}
		if err := applyContact(&out, in); err != nil {
			return err
		}
		created, err := c.Tx.InsertContact(ctx, out)
		if err != nil {
			return err
		}
		if !created {
			return &domain.Error{Code: domain.CodeConflict, Reason: "contact_exists", Param: "address",
				Message: "this instance already has a contact with that address"}
		}
		return s.c.record(ctx, c.Tx, inst, domain.EventContactCreated, out.Object())
	})
	return out, err
}

// applyContact checks and applies the fields that are set.
func applyContact(c *domain.Contact, in ContactInput) error {
	if in.Name != nil {
		name := strings.TrimSpace(*in.Name)
		if utf8.RuneCountInString(name) > MaxContactNameLength {
			return domain.Invalid("name", "name is longer than %d characters", MaxContactNameLength)
		}
		if err := checkNoNUL("name", name); err != nil {
			return err
		}
		c.Name = name
	}
	if in.Labels != nil {
		labels := *in.Labels
		if len(labels) > MaxLabels {
			return domain.Invalid("labels", "at most %d labels", MaxLabels)
		}
		seen := map[string]bool{}
		c.Labels = []string{}
		for _, l := range labels {
			l = strings.TrimSpace(l)
			if l == "" || utf8.RuneCountInString(l) > MaxLabelLength {
				return domain.Invalid("labels", "each label is 1 to %d characters", MaxLabelLength)
			}
			if !seen[l] {
				seen[l] = true
				c.Labels = append(c.Labels, l)
			}
		}
	}
	if in.Attributes != nil {
		attrs := *in.Attributes
		if len(attrs) > MaxAttributes {
			return domain.Invalid("attributes", "at most %d attributes", MaxAttributes)
		}
		for k, v := range attrs {
			if k == "" || len(k) > MaxAttributeKey {
				return domain.Invalid("attributes", "attribute names are 1 to %d bytes", MaxAttributeKey)
			}
			if utf8.RuneCountInString(v) > MaxAttributeValue {
				return domain.Invalid("attributes."+k, "attribute values are at most %d characters", MaxAttributeValue)
			}
		}
		c.Attributes = attrs
	}
	return nil
}

// List returns a page of an instance's contacts, newest first.
func (s *Contacts) List(ctx context.Context, a service.Actor, instanceID string, p domain.ListParams) (domain.Page[domain.Contact], error) {
	page, _, err := listUnder(ctx, s.c, a, domain.ScopeContactsRead, instanceID, domain.PrefixContact, p,
		func(wsID string, inst store.StoredInstance, limit int) ([]domain.Contact, error) {
			return s.c.st.Contacts(ctx, wsID, inst.ID, p.After, limit)
		}, func(c domain.Contact) string { return c.ID })
	return page, err
}

// Get returns one contact of an instance.
func (s *Contacts) Get(ctx context.Context, a service.Actor, instanceID, id string) (domain.Contact, error) {
	wsID, err := service.RequireWorkspace(a, domain.ScopeContactsRead)
	if err != nil {
		return domain.Contact{}, err
	}
	inst, err := s.c.load(ctx, wsID, instanceID)
	if err != nil {
		return domain.Contact{}, err
	}
	if !domain.HasPrefix(id, domain.PrefixContact) {
		return domain.Contact{}, domain.NotFound("contact")
	}
	return s.c.st.Contact(ctx, wsID, inst.ID, id)
}

// Update changes a contact's name, labels or attributes (its address stays).
func (s *Contacts) Update(ctx context.Context, a service.Actor, instanceID, id string, in ContactInput) (domain.Contact, error) {
	if in.Remove["name"] {
		in.Name = new("")
	}
	if in.Remove["labels"] {
		in.Labels = &[]string{}
	}
	if in.Remove["attributes"] {
		in.Attributes = &map[string]string{}
	}
	return s.mutate(ctx, a, instanceID, id, domain.EventContactUpdated, func(tx *store.Tx, ct *domain.Contact) (bool, error) {
		before := *ct
		if err := applyContact(ct, in); err != nil {
			return false, err
		}
		if ct.Name == before.Name && slices.Equal(ct.Labels, before.Labels) && maps.Equal(ct.Attributes, before.Attributes) {
			return false, nil // the same values: nothing saved, no contact.updated
		}
		return true, tx.SaveContact(ctx, *ct)
	})
}

// Delete removes a contact (it is created again if the address writes again).
func (s *Contacts) Delete(ctx context.Context, a service.Actor, instanceID, id string) (domain.Contact, error) {
	return s.mutate(ctx, a, instanceID, id, domain.EventContactDeleted, func(tx *store.Tx, ct *domain.Contact) (bool, error) {
		return true, tx.DeleteContact(ctx, ct.WorkspaceID, ct.InstanceID, ct.ID)
	})
}

// mutate loads a contact in a transaction, lets fn change it, and records typ when fn
// reports a change.
func (s *Contacts) mutate(ctx context.Context, a service.Actor, instanceID, id, typ string, fn func(*store.Tx, *domain.Contact) (bool, error)) (domain.Contact, error) {
	var out domain.Contact
	err := s.c.s.Mutate(ctx, a, domain.ScopeContactsWrite, func(c service.Change) error {
		inst, err := loadIn(ctx, c.Tx, c.WorkspaceID, instanceID)
		if err != nil {
			return err
		}
		if !domain.HasPrefix(id, domain.PrefixContact) {
			return domain.NotFound("contact")
		}
		if out, err = c.Tx.Contact(ctx, c.WorkspaceID, inst.ID, id); err != nil {
			return err
		}
		before := out
		out.UpdatedAt = c.Now
		changed, err := fn(c.Tx, &out)
		if err != nil {
			return err
		}
		if !changed {
			out = before
			return nil
		}
		return s.c.record(ctx, c.Tx, inst, typ, out.Object())
	})
	return out, err
}

// Check tells which addresses can be messaged on the instance's channel.
func (s *Contacts) Check(ctx context.Context, a service.Actor, instanceID string, addresses []string) ([]domain.Reachability, error) {
	if _, err := service.RequireWorkspace(a, domain.ScopeContactsRead); err != nil {
		return nil, err
	}
	if len(addresses) == 0 || len(addresses) > MaxCheckAddresses {
		return nil, domain.Invalid("addresses", "addresses needs 1 to %d addresses", MaxCheckAddresses)
	}
	for _, addr := range addresses {
		if err := checkAddressInput("addresses", addr); err != nil {
			return nil, err
		}
	}
	_, d, v, err := s.c.ready(ctx, a, domain.ScopeContactsRead, instanceID, "checking addresses",
		func(c channels.Capabilities) bool { return c.Check })
	if err != nil {
		return nil, err
	}
	// An address that is not one on this channel is refused as everywhere else, not answered
	// unreachable: a typo must not read as "this person is not on the channel".
	for i, addr := range addresses {
		if err := d.ValidateAddress(addr); err != nil {
			param := fmt.Sprintf("addresses[%d]", i)
			return nil, domain.Invalid(param, "%s %s", param, err.Error())
		}
	}
	ok, err := d.Check(ctx, v, addresses)
	if err != nil {
		return nil, driverError(err, "checking addresses")
	}
	out := make([]domain.Reachability, len(addresses))
	for i, addr := range addresses {
		out[i] = domain.Reachability{Address: addr, Reachable: i < len(ok) && ok[i]}
	}
	return out, nil
}
