package messaging

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// sendConcurrency is how many of an instance's sends run at once (each chat still sends one
// at a time, in order), across every replica.
const sendConcurrency = 4

// sendSchedule is the wait before each retry of a send that failed for a reason that may
// pass (the channel did not answer, the instance is not connected); then it fails.
var sendSchedule = []time.Duration{time.Second, 5 * time.Second, 30 * time.Second, 2 * time.Minute,
	10 * time.Minute, 30 * time.Minute, time.Hour}

var sendBackoff = jobs.Schedule(sendSchedule...)

// Workers are how many jobs of each kind this replica runs at once (0: none, an API-only
// replica).
type Workers struct {
	Send, Events, Connect int
}

// DefaultWorkers are the workers of a replica that sends.
var DefaultWorkers = Workers{Send: 64, Events: 32, Connect: 8}

// Kinds returns the surface's job kinds, for the composition root to register.
func (m *Messaging) Kinds(w Workers) []jobs.Kind {
	c := m.c
	return []jobs.Kind{
		{Name: domain.JobMessageSend, Workers: w.Send, Concurrency: sendConcurrency, Backoff: sendBackoff,
			Jitter: 0.1, Paced: true, Load: c.loadSends, Run: c.runSend, Commit: c.commitSends},
		{Name: domain.JobChannelEvent, Workers: w.Events, Concurrency: 1 << 20, Backoff: eventBackoff, Run: c.runEvent},
		{Name: domain.JobInstanceConnect, Workers: w.Connect, Concurrency: 1 << 20,
			Backoff: func(n int) (time.Duration, bool) { return time.Duration(n) * time.Second, n < 3 }, Run: c.runConnect},
		// Deleting a deleted instance's files is rare and slow-paced: one worker, none on a
		// replica that runs no messaging jobs.
		{Name: domain.JobMediaDelete, Workers: min(w.Connect, 1), Concurrency: 1 << 20, Backoff: mediaDeleteBackoff,
			Run: c.runMediaDelete},
	}
}

// sendData is what sending one message needs, loaded for a batch at once.
type sendData struct {
	msg  domain.Message
	inst store.StoredInstance
	// reply and reactTo are the provider ids of the messages answered and reacted to.
	reply, reactTo string
}

func (c *core) loadSends(ctx context.Context, batch []*jobs.Job) error {
	ids := make([]string, len(batch))
	for i, j := range batch {
		ids[i] = j.ID
	}
	msgs, err := c.st.MessagesByID(ctx, ids)
	if err != nil {
		return err
	}
	var instIDs, refs []string
	for _, m := range msgs {
		instIDs = append(instIDs, m.InstanceID)
		if m.ReplyTo != nil {
			refs = append(refs, *m.ReplyTo)
		}
		if m.Content.Reaction != nil {
			refs = append(refs, m.Content.Reaction.MessageID)
		}
	}
	ins, err := c.st.InstancesByID(ctx, instIDs)
	if err != nil {
		return err
	}
	targets, err := c.st.MessagesByID(ctx, refs)
	if err != nil {
		return err
	}
	for _, j := range batch {
		m, ok := msgs[j.ID]
		if !ok {
			continue // deleted with its instance
		}
		d := &sendData{msg: m, inst: ins[m.InstanceID]}
		if m.ReplyTo != nil {
			d.reply = targets[*m.ReplyTo].ProviderMessageID
		}
		if m.Content.Reaction != nil {
			d.reactTo = targets[m.Content.Reaction.MessageID].ProviderMessageID
		}
		j.Data = d
	}
	return nil
}

// runSend hands one message to its channel. The message id goes along, so a send retried
// after a crash is recognised by channels that deduplicate (the sandbox does).
func (c *core) runSend(ctx context.Context, j *jobs.Job) error {
	d, _ := j.Data.(*sendData)
	if d == nil || d.msg.Status != domain.MessageQueued {
		return nil // gone, or already moved on (a receipt overtook the send)
	}
	if d.inst.Status != domain.InstanceConnected {
		return jobs.RetryAfter(errNotConnected, 5*time.Second)
	}
	drv, err := c.driver(d.inst)
	if err != nil {
		return jobs.Permanent(err)
	}
	v, err := c.view(d.inst)
	if err != nil {
		return jobs.Permanent(err)
	}
	out := channels.Outbound{MessageID: d.msg.ID, ChatAddress: d.msg.ChatAddress, Type: d.msg.Type,
		Content: d.msg.Content, ReplyTo: d.reply, ReactionTarget: d.reactTo, ThreadID: d.msg.ThreadID}
	if out.Group, out.Participants, err = c.groupMembers(ctx, d.inst.ID, d.msg.ChatAddress); errors.Is(err, errGroupLeft) {
		return jobs.Permanent(err) // left while the message was queued
	} else if err != nil {
		return err
	}
	sent, err := drv.Send(ctx, v, out)
	if err != nil {
		var se *channels.SendError
		var rl *channels.RateLimitedError
		switch {
		case errors.As(err, &se) && se.Permanent:
			return jobs.Permanent(err)
		case errors.As(err, &rl) && rl.RetryAfter > 0:
			return jobs.RetryAfter(err, rl.RetryAfter) // the provider says when
		}
		return err
	}
	j.Result = sent.ProviderMessageID
	return nil
}

// groupMembers tells whether an instance's chat address is a group's and, if so, its
// members' addresses: what a channel needs to reach a group message's copies (sends, edits,
// deletes). A group the instance has left is errGroupLeft: it reaches no one there any more.
func (c *core) groupMembers(ctx context.Context, instanceID, address string) (bool, []string, error) {
	g, err := c.st.GroupByAddress(ctx, instanceID, address)
	if domain.IsCode(err, domain.CodeNotFound) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	if g.Left {
		return true, nil, errGroupLeft
	}
	members := make([]string, len(g.Participants))
	for i, p := range g.Participants {
		members[i] = p.Address
	}
	return true, members, nil
}

// commitSends records the outcome of sends with their events, in the transaction that
// finishes their jobs.
func (c *core) commitSends(ctx context.Context, tx *store.Tx, done []jobs.Done) error {
	now := c.now()
	for _, dn := range done {
		d, _ := dn.Job.Data.(*sendData)
		if d == nil || dn.Outcome == jobs.Retrying {
			continue
		}
		m, err := tx.LockMessage(ctx, d.msg.ID)
		if domain.IsCode(err, domain.CodeNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if dn.Outcome == jobs.Failed {
			code, msg := "send_failed", "the channel did not accept the message"
			var se *channels.SendError
			switch {
			case errors.As(dn.Err, &se):
				code, msg = se.Code, se.Message
			case errors.Is(dn.Err, errNotConnected):
				code, msg = "instance_not_connected", "the instance was not connected"
			case errors.Is(dn.Err, errGroupLeft):
				code, msg = errGroupLeft.Reason, errGroupLeft.Message
			}
			if err := c.advance(ctx, tx, d.inst, &m, domain.MessageFailed, code, msg, now, now); err != nil {
				return err
			}
			continue
		}
		if id, _ := dn.Job.Result.(string); id != "" && m.ProviderMessageID == "" {
			m.ProviderMessageID = id
			if m.Status != domain.MessageQueued {
				if err := tx.SaveMessage(ctx, m); err != nil {
					return err
				}
				continue
			}
		}
		if err := c.advance(ctx, tx, d.inst, &m, domain.MessageSent, "", "", now, now); err != nil {
			return err
		}
	}
	return nil
}
