package rest

import (
	"net/http"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
)

// groupPath is the {group_id} of an instance's group.
type groupPath struct {
	instancePath
	GroupID string "json:\"-\" path:\"group_id\" doc:\"The group's id (`grp_…`).\" example:\"grp_01jr8d0c3b5n7q9s1u3w5y7a9c\""
}

// groupsQuery is the input of GET /instances/{id}/groups.
type groupsQuery struct {
	instancePath
	listQuery
}

// createGroupRequest is the body of POST /instances/{id}/groups.
type createGroupRequest struct {
	instancePath
	Subject      string   `json:"subject" required:"true" maxLength:"100" example:"Launch team" doc:"The group's name."`
	Description  string   `json:"description,omitempty" maxLength:"2048" example:"Release coordination" doc:"What the group is about."`
	Participants []string `json:"participants" required:"true" minItems:"1" maxItems:"256" example:"[\"+15551234567\"]" doc:"Addresses to add as members (the instance is the group's admin)."`
}

// updateGroupRequest is the body of PATCH /instances/{id}/groups/{group_id}: fields left
// out are kept.
type updateGroupRequest struct {
	groupPath
	Subject     *string `json:"subject,omitempty" nullable:"false" maxLength:"100" example:"Launch team (v2)" doc:"The group's name."`
	Description *string `json:"description,omitempty" maxLength:"2048" example:"Release coordination for v2" doc:"What the group is about."`
}

// participantsRequest is the body of POST /instances/{id}/groups/{group_id}/participants.
type participantsRequest struct {
	groupPath
	Add    []string `json:"add,omitempty" maxItems:"256" example:"[\"+15551234568\"]" doc:"Addresses to add as members."`
	Remove []string `json:"remove,omitempty" maxItems:"256" example:"[]" doc:"Addresses to remove."`
}

func (a *api) createGroup(r *http.Request, in createGroupRequest) (domain.GroupObject, error) {
	g, err := a.opts.Messaging.Groups.Create(r.Context(), actor(r), in.ID, messaging.CreateGroupInput{Subject: in.Subject,
		Description: in.Description, Participants: in.Participants})
	return g.Object(), err
}

func (a *api) listGroups(r *http.Request, q groupsQuery) (list[domain.GroupObject], error) {
	page, err := a.opts.Messaging.Groups.List(r.Context(), actor(r), q.ID, q.params())
	return listOf(mapPage(page, domain.Group.Object)), err
}

func (a *api) getGroup(r *http.Request, p groupPath) (domain.GroupObject, error) {
	g, err := a.opts.Messaging.Groups.Get(r.Context(), actor(r), p.ID, p.GroupID)
	return g.Object(), err
}

func (a *api) updateGroup(r *http.Request, in updateGroupRequest, body []byte) (domain.GroupObject, error) {
	g, err := a.opts.Messaging.Groups.Update(r.Context(), actor(r), in.ID, in.GroupID, messaging.UpdateGroupInput{
		Subject: in.Subject, Description: in.Description,
		Remove: nullFields(body)}) // the service applies PATCH's null rules
	return g.Object(), err
}

func (a *api) changeParticipants(r *http.Request, in participantsRequest) (domain.GroupObject, error) {
	g, err := a.opts.Messaging.Groups.ChangeParticipants(r.Context(), actor(r), in.ID, in.GroupID, in.Add, in.Remove)
	return g.Object(), err
}

func (a *api) leaveGroup(r *http.Request, p groupPath) (domain.GroupObject, error) {
	g, err := a.opts.Messaging.Groups.Leave(r.Context(), actor(r), p.ID, p.GroupID)
	return g.Object(), err
}
