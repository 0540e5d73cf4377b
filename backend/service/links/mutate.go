package links

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// SlugHold is how long a deleted link's slug, or a renamed link's old one, stays taken, so
// a shared link never starts pointing somewhere new.
const SlugHold = 30 * 24 * time.Hour

// Create makes a link (url required; a slug is generated when none is given).
func (l *Links) Create(ctx context.Context, a service.Actor, in Input) (domain.Link, error) {
	var out domain.Link
	err := l.st.Tx(ctx, func(tx *store.Tx) error {
		var err error
		out, err = l.CreateIn(ctx, tx, a, in)
		return err
	})
	return out, err
}

// CreateIn is Create in the caller's transaction (an automation run's create_link, which
// commits the link with the run's record).
func (l *Links) CreateIn(ctx context.Context, tx *store.Tx, a service.Actor, in Input) (domain.Link, error) {
	var out domain.Link
	err := l.s.MutateIn(tx, a, domain.ScopeLinksWrite, func(c service.Change) error {
		var err error
		out, err = l.create(ctx, c, in, "")
		return err
	})
	return out, err
}

// create checks and inserts one link in c's transaction; param prefixes field names.
func (l *Links) create(ctx context.Context, c service.Change, in Input, param string) (domain.Link, error) {
	if in.URL == nil {
		return domain.Link{}, domain.Invalid(param+"url", "url is required")
	}
	sl := store.StoredLink{Link: domain.Link{ID: domain.NewID(domain.PrefixLink), WorkspaceID: c.WorkspaceID,
		RedirectStatus: DefaultRedirectStatus, Tags: []string{}, CreatedAt: c.Now, UpdatedAt: c.Now}}
	if err := l.apply(&sl, in, c.Now, param, l.s.HashSecret); err != nil {
		return domain.Link{}, err
	}
	if err := l.insert(ctx, c, &sl, in.Slug == nil, param); err != nil {
		return domain.Link{}, err
	}
	return sl.Link, l.record(ctx, c, domain.EventLinkCreated, sl.Link)
}

// insert stores a new link: a slug held by a link deleted more than SlugHold ago is freed
// first; a generated slug that collides is drawn again.
func (l *Links) insert(ctx context.Context, c service.Change, sl *store.StoredLink, generate bool, param string) error {
	if sl.ExternalID != "" {
		if _, err := c.Tx.LinkByExternalID(ctx, c.WorkspaceID, sl.ExternalID); err == nil {
			return errExternalIDTaken(param + "external_id")
		} else if !domain.IsCode(err, domain.CodeNotFound) {
			return err
		}
	}
	for try := 0; ; try++ {
		if generate {
			sl.Slug = newSlug()
		}
		holder, held, err := c.Tx.SlugHolder(ctx, sl.Slug)
		if err != nil {
			return err
		}
		if held && holder.DeletedAt != nil && c.Now.Sub(*holder.DeletedAt) >= SlugHold {
			if err := c.Tx.PurgeLink(ctx, holder.ID); err != nil {
				return err
			}
			held = false
		}
		if !held {
			inserted, err := c.Tx.InsertLink(ctx, *sl)
			if err != nil {
				return err
			}
			if inserted {
				// A cached "no such slug" must not outlive the new link (by more than the
				// cache's TTL, should the announcement be lost with its replica).
				l.s.InvalidateAfterCommit(c.Tx, "link", sl.Slug)
				return nil
			}
			// Refused by a link committed meanwhile: by its external id (checked above, before
			// a concurrent create committed), or by its slug.
			if sl.ExternalID != "" {
				if _, err := c.Tx.LinkByExternalID(ctx, c.WorkspaceID, sl.ExternalID); err == nil {
					return errExternalIDTaken(param + "external_id")
				} else if !domain.IsCode(err, domain.CodeNotFound) {
					return err
				}
			}
		}
		if !generate || try == 5 {
			return errSlugTaken(param + "slug")
		}
	}
}

// Update changes a link's fields (by id or ext_<external_id>).
func (l *Links) Update(ctx context.Context, a service.Actor, id string, in Input) (domain.Link, error) {
	var out domain.Link
	err := l.s.Mutate(ctx, a, domain.ScopeLinksWrite, func(c service.Change) error {
		var err error
		out, err = l.update(ctx, c, id, in, "")
		return err
	})
	return out, err
}

func (l *Links) update(ctx context.Context, c service.Change, id string, in Input, param string) (domain.Link, error) {
	sl, err := l.find(ctx, c.Tx, c.WorkspaceID, id)
	if err != nil {
		return domain.Link{}, err
	}
	if sl, err = c.Tx.LockLink(ctx, c.WorkspaceID, sl.ID); err != nil {
		return domain.Link{}, err
	}
	old := sl
	if err := l.apply(&sl, in, c.Now, param, l.s.HashSecret); err != nil {
		return domain.Link{}, err
	}
	if sl.ExternalID != old.ExternalID && sl.ExternalID != "" {
		if other, err := c.Tx.LinkByExternalID(ctx, c.WorkspaceID, sl.ExternalID); err == nil && other.ID != sl.ID {
			return domain.Link{}, errExternalIDTaken(param + "external_id")
		}
	}
	if sl.Slug != old.Slug {
		if holder, held, err := c.Tx.SlugHolder(ctx, sl.Slug); err != nil {
			return domain.Link{}, err
		} else if held && holder.DeletedAt != nil && c.Now.Sub(*holder.DeletedAt) >= SlugHold {
			// The hold of a link deleted SlugHold ago has lapsed, as for a new link.
			if err := c.Tx.PurgeLink(ctx, holder.ID); err != nil {
				return domain.Link{}, err
			}
		} else if held {
			return domain.Link{}, errSlugTaken(param + "slug")
		}
	}
	if same(old, sl) {
		return old.Link, nil // nothing to save or announce: updated_at stays
	}
	sl.UpdatedAt = c.Now
	if err := c.Tx.SaveLink(ctx, sl); err != nil {
		if domain.IsCode(err, domain.CodeConflict) {
			return domain.Link{}, errSlugTaken(param + "slug")
		}
		return domain.Link{}, err
	}
	if sl.Slug != old.Slug {
		// The old slug stays taken for SlugHold, as a deleted link's does: a short URL already
		// shared or printed must not start sending its visitors to another link (another
		// workspace's). A deleted row holds it, as for a deletion.
		if _, err := c.Tx.InsertLink(ctx, store.StoredLink{Link: domain.Link{ID: domain.NewID(domain.PrefixLink),
			WorkspaceID: c.WorkspaceID, Slug: old.Slug, RedirectStatus: old.RedirectStatus, CreatedAt: c.Now, UpdatedAt: c.Now},
			DeletedAt: &c.Now}); err != nil {
			return domain.Link{}, err
		}
	}
	// The old slug and the new one: both caches must see the change.
	if err := l.s.Invalidate(ctx, c.Tx, "link", old.Slug); err != nil {
		return domain.Link{}, err
	}
	if sl.Slug != old.Slug {
		if err := l.s.Invalidate(ctx, c.Tx, "link", sl.Slug); err != nil {
			return domain.Link{}, err
		}
	}
	return sl.Link, l.record(ctx, c, domain.EventLinkUpdated, sl.Link)
}

// same tells that an update changed nothing a reader could see: metadata is compared as
// JSON (the database may reformat it), times as instants, no tags as an empty list.
func same(a, b store.StoredLink) bool {
	if !jsonEqual(a.Metadata, b.Metadata) || !slices.Equal(a.Tags, b.Tags) ||
		(a.ExpiresAt == nil) != (b.ExpiresAt == nil) || (a.ExpiresAt != nil && !a.ExpiresAt.Equal(*b.ExpiresAt)) {
		return false
	}
	a.Metadata, a.Tags, a.ExpiresAt = nil, nil, nil
	b.Metadata, b.Tags, b.ExpiresAt = nil, nil, nil
	return reflect.DeepEqual(a, b)
}

func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// Upsert creates or updates the link with an external id (PUT /links/ext_{external_id}):
// created reports which.
func (l *Links) Upsert(ctx context.Context, a service.Actor, externalID string, in Input) (link domain.Link, created bool, err error) {
	if externalID == "" || len(externalID) > MaxExternalIDLength {
		return domain.Link{}, false, domain.Invalid("external_id", "external_id is 1 to %d characters", MaxExternalIDLength)
	}
	if in.Remove["external_id"] {
		return domain.Link{}, false, domain.Invalid("external_id", "external_id cannot be removed here: the path names it")
	}
	if in.ExternalID != nil && *in.ExternalID != externalID {
		return domain.Link{}, false, domain.Invalid("external_id", "external_id in the body differs from the one in the path")
	}
	in.ExternalID = &externalID
	err = l.s.Mutate(ctx, a, domain.ScopeLinksWrite, func(c service.Change) error {
		if _, err := c.Tx.LinkByExternalID(ctx, c.WorkspaceID, externalID); err == nil {
			link, err = l.update(ctx, c, ExternalPrefix+externalID, in, "")
			return err
		} else if !domain.IsCode(err, domain.CodeNotFound) {
			return err
		}
		created = true
		link, err = l.create(ctx, c, in, "")
		var de *domain.Error
		if errors.As(err, &de) && de.Reason == "external_id_taken" {
			// A concurrent PUT created it since: this one updates it.
			created = false
			link, err = l.update(ctx, c, ExternalPrefix+externalID, in, "")
		}
		return err
	})
	return link, created, err
}

// Delete deletes a link and its clicks; its slug stays taken for SlugHold.
func (l *Links) Delete(ctx context.Context, a service.Actor, id string) (domain.Link, error) {
	var out domain.Link
	err := l.s.Mutate(ctx, a, domain.ScopeLinksWrite, func(c service.Change) error {
		var err error
		out, err = l.delete(ctx, c, id)
		return err
	})
	return out, err
}

func (l *Links) delete(ctx context.Context, c service.Change, id string) (domain.Link, error) {
	sl, err := l.find(ctx, c.Tx, c.WorkspaceID, id)
	if err != nil {
		return domain.Link{}, err
	}
	if err := c.Tx.DeleteLink(ctx, sl.ID, c.Now); err != nil {
		return domain.Link{}, err
	}
	if err := l.s.Invalidate(ctx, c.Tx, "link", sl.Slug); err != nil {
		return domain.Link{}, err
	}
	return sl.Link, l.record(ctx, c, domain.EventLinkDeleted, sl.Link)
}

// BulkUpdate is one item of a bulk update: the link and its changes.
type BulkUpdate struct {
	ID string
	Input
}

// BulkCreate creates up to MaxBulk links, all or none: a refusal names the item
// ("links[3].url").
func (l *Links) BulkCreate(ctx context.Context, a service.Actor, ins []Input) ([]domain.Link, error) {
	return bulk(ctx, l, a, ins, "links", nil, func(c service.Change, in Input, item string) (domain.Link, error) {
		return l.create(ctx, c, in, item+".")
	})
}

// BulkUpdate changes up to MaxBulk links, all or none. A link given twice is refused: the
// second change would silently win over the first (and record a second event).
func (l *Links) BulkUpdate(ctx context.Context, a service.Actor, ins []BulkUpdate) ([]domain.Link, error) {
	ids := make([]string, len(ins))
	for i, in := range ins {
		ids[i] = in.ID
	}
	once := func(c service.Change) error {
		return l.eachOnce(ctx, c, ids, "changes", func(j int) string { return fmt.Sprintf("links[%d].id", j) },
			func(j int) string { return fmt.Sprintf("links[%d].id", j) })
	}
	return bulk(ctx, l, a, ins, "links", once, func(c service.Change, in BulkUpdate, item string) (domain.Link, error) {
		link, err := l.update(ctx, c, in.ID, in.Input, item+".")
		return link, notFoundAt(err, item+".id", item+".id")
	})
}

// BulkDelete deletes up to MaxBulk links, all or none. Its only parameter is ?ids=, so its
// refusals name ids (the message says which one).
func (l *Links) BulkDelete(ctx context.Context, a service.Actor, ids []string) ([]domain.Link, error) {
	once := func(c service.Change) error {
		return l.eachOnce(ctx, c, ids, "deletes", func(int) string { return "ids" },
			func(j int) string { return fmt.Sprintf("ids[%d]", j) })
	}
	return bulk(ctx, l, a, ids, "ids", once, func(c service.Change, id string, item string) (domain.Link, error) {
		link, err := l.delete(ctx, c, id)
		return link, notFoundAt(err, "ids", item)
	})
}

// eachOnce refuses a bulk call naming one link twice, by the same id or once by id and once
// by ext_<external_id>: it compares the links the ids resolve to, before any change. An id
// naming no link is left for the change itself to refuse.
func (l *Links) eachOnce(ctx context.Context, c service.Change, ids []string, verb string, param, item func(int) string) error {
	seen := make(map[string]int, len(ids))
	for j, id := range ids {
		key := id
		if sl, err := l.find(ctx, c.Tx, c.WorkspaceID, id); err == nil {
			key = sl.ID
		} else if !domain.IsCode(err, domain.CodeNotFound) {
			return err
		}
		if i, dup := seen[key]; dup {
			return domain.Invalid(param(j), "%s names the same link as %s (%s): a bulk call %s each link once", item(j), item(i), key, verb)
		}
		seen[key] = j
	}
	return nil
}

// bulk runs fn for every item in one transaction: any refusal rolls all back. Every item
// is tried, so the refusal names the first refused item (param) and lists the others.
// list is the items' parameter ("links" or "ids"); check, when given, runs first in the
// transaction; fn gets each item's name ("links[3]").
func bulk[T any](ctx context.Context, l *Links, a service.Actor, items []T, list string, check func(service.Change) error, fn func(service.Change, T, string) (domain.Link, error)) ([]domain.Link, error) {
	if len(items) == 0 || len(items) > MaxBulk {
		return nil, domain.Invalid(list, "a bulk call takes 1 to %d links", MaxBulk)
	}
	var out []domain.Link
	err := l.s.Mutate(ctx, a, domain.ScopeLinksWrite, func(c service.Change) error {
		if check != nil {
			if err := check(c); err != nil {
				return err
			}
		}
		out = make([]domain.Link, 0, len(items))
		var first *domain.Error
		var others []string
		for i, it := range items {
			item := fmt.Sprintf("%s[%d]", list, i)
			link, err := fn(c, it, item)
			var de *domain.Error
			switch {
			case err == nil:
				out = append(out, link)
			case !errors.As(err, &de) || de.Code == domain.CodeInternal || de.Code == domain.CodeUnavailable:
				return err // the database failed: nothing more to try
			case first == nil:
				first = de
			case de.Param == list: // names the whole list (ids): say which item
				others = append(others, item)
			default:
				others = append(others, de.Param)
			}
		}
		if first == nil {
			return nil
		}
		e := *first
		if len(others) > 0 {
			e.Message += fmt.Sprintf(" (%d more refused: %s)", len(others), strings.Join(others, ", "))
		}
		return &e
	})
	return out, err
}

// notFoundAt names the bulk item a not-found refers to: param is the error's parameter,
// item the item's name in the message.
func notFoundAt(err error, param, item string) error {
	if domain.IsCode(err, domain.CodeNotFound) {
		return &domain.Error{Code: domain.CodeNotFound, Param: param, Message: "link not found (" + item + ")"}
	}
	return err
}

// record records a link event.
func (l *Links) record(ctx context.Context, c service.Change, typ string, link domain.Link) error {
	_, err := l.s.Record(ctx, c.Tx, c.WorkspaceID, typ, nil, l.Object(link))
	return err
}
