package rest

import (
	"net/http"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
)

// contactPath is the {contact_id} of an instance's contact.
type contactPath struct {
	instancePath
	ContactID string "json:\"-\" path:\"contact_id\" doc:\"The contact's id (`ct_…`).\" example:\"ct_01jr8d0c3b5n7q9s1u3w5y7a9c\""
}

// contactsQuery is the input of GET /instances/{id}/contacts.
type contactsQuery struct {
	instancePath
	listQuery
}

// createContactRequest is the body of POST /instances/{id}/contacts.
type createContactRequest struct {
	instancePath
	Address    string            `json:"address" required:"true" maxLength:"128" example:"+15551234567" doc:"Their address on the channel (sandbox: a phone number in E.164 form)."`
	Name       *string           `json:"name,omitempty" maxLength:"200" example:"Ada Lovelace" doc:"Their name."`
	Labels     *[]string         `json:"labels,omitempty" maxItems:"20" example:"[\"vip\"]" doc:"Up to 20 labels of up to 50 characters."`
	Attributes map[string]string `json:"attributes,omitempty" example:"{\"plan\":\"pro\"}" doc:"Up to 50 custom attributes: names up to 50 bytes, values up to 500 characters."`
}

// updateContactRequest is the body of PATCH /instances/{id}/contacts/{contact_id}: fields
// left out are kept; labels and attributes, when given, replace the old ones.
type updateContactRequest struct {
	contactPath
	Name       *string            `json:"name,omitempty" maxLength:"200" example:"Ada King" doc:"Their name."`
	Labels     *[]string          `json:"labels,omitempty" maxItems:"20" example:"[\"vip\",\"beta\"]" doc:"The new labels (replacing the old)."`
	Attributes *map[string]string `json:"attributes,omitempty" example:"{\"plan\":\"team\"}" doc:"The new attributes (replacing the old), or null to remove them."`
}

// checkContactsRequest is the body of POST /instances/{id}/contacts/check.
type checkContactsRequest struct {
	instancePath
	Addresses []string `json:"addresses" required:"true" minItems:"1" maxItems:"100" example:"[\"+15551234567\",\"+15550001234\"]" doc:"1 to 100 addresses to check."`
}

// reachabilityList is the answer to POST /instances/{id}/contacts/check, in the order asked.
type reachabilityList struct {
	Object string                `json:"object" const:"list"`
	Data   []domain.Reachability `json:"data" doc:"One entry per address asked, in the same order."`
}

func contactInput(address string, name *string, labels *[]string, attrs map[string]string) messaging.ContactInput {
	in := messaging.ContactInput{Address: address, Name: name, Labels: labels}
	if attrs != nil {
		in.Attributes = &attrs
	}
	return in
}

func (a *api) createContact(r *http.Request, in createContactRequest) (domain.ContactObject, error) {
	c, err := a.opts.Messaging.Contacts.Create(r.Context(), actor(r), in.ID, contactInput(in.Address, in.Name, in.Labels, in.Attributes))
	return c.Object(), err
}

func (a *api) listContacts(r *http.Request, q contactsQuery) (list[domain.ContactObject], error) {
	page, err := a.opts.Messaging.Contacts.List(r.Context(), actor(r), q.ID, q.params())
	return listOf(mapPage(page, domain.Contact.Object)), err
}

func (a *api) getContact(r *http.Request, p contactPath) (domain.ContactObject, error) {
	c, err := a.opts.Messaging.Contacts.Get(r.Context(), actor(r), p.ID, p.ContactID)
	return c.Object(), err
}

func (a *api) updateContact(r *http.Request, in updateContactRequest, body []byte) (domain.ContactObject, error) {
	ci := contactInput("", in.Name, in.Labels, nil)
	ci.Attributes = in.Attributes
	ci.Remove = nullFields(body) // the service applies PATCH's null rules
	c, err := a.opts.Messaging.Contacts.Update(r.Context(), actor(r), in.ID, in.ContactID, ci)
	return c.Object(), err
}

func (a *api) deleteContact(r *http.Request, p contactPath) (deleted, error) {
	_, err := a.opts.Messaging.Contacts.Delete(r.Context(), actor(r), p.ID, p.ContactID)
	return deleted{Object: "contact", ID: p.ContactID, Deleted: true}, err
}

func (a *api) checkContacts(r *http.Request, in checkContactsRequest) (reachabilityList, error) {
	rs, err := a.opts.Messaging.Contacts.Check(r.Context(), actor(r), in.ID, in.Addresses)
	return reachabilityList{Object: "list", Data: rs}, err
}
