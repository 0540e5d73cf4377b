package automation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// actionBackoff is the retry schedule of a run that failed for a passing reason (the
// channel or the target did not answer): 5 s, 30 s, 2 min, 10 min, 1 h.
var actionBackoff = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour}

// Kind is the action job kind, for the composition root to register (workers 0: this
// replica runs none).
func (a *Automation) Kind(workers int) jobs.Kind {
	return jobs.Kind{Name: domain.JobAutomationAction, Workers: workers, Concurrency: 1 << 20, Jitter: 0.1,
		Backoff: func(n int) (time.Duration, bool) {
			if n > len(actionBackoff) {
				return 0, false
			}
			return actionBackoff[n-1], true
		}, Run: a.runAction}
}

// checkAction refuses an action that could never run: a missing field, an unknown
// instance, a template that reads what templates cannot, a target the SSRF policy refuses.
func (a *Automation) checkAction(ctx context.Context, ws string, tx *store.Tx, act domain.Action) error {
	need := func(field, v string) error {
		if v == "" {
			return domain.Invalid("action."+field, "action.%s is required for %s", field, act.Type)
		}
		return nil
	}
	tpl := func(field, v string) error {
		if err := checkTemplate(v); err != nil {
			return domain.Invalid("action."+field, "action.%s %s", field, err.Error())
		}
		return nil
	}
	var unused map[string]string
	switch act.Type {
	case domain.ActionSendMessage:
		if err := need("instance_id", act.InstanceID); err != nil {
			return err
		}
		if _, err := tx.Instance(ctx, ws, act.InstanceID); err != nil || !domain.HasPrefix(act.InstanceID, domain.PrefixInstance) {
			return domain.Invalid("action.instance_id", "action.instance_id must be an instance of this workspace")
		}
		if err := need("to", act.To); err != nil {
			return err
		}
		if act.Text == "" && act.MediaURL == "" {
			return domain.Invalid("action.text", "action.text (or action.media_url) is required for send_message")
		}
		unused = map[string]string{"url": act.URL, "slug": act.Slug, "title": act.Title, "target_url": act.TargetURL}
		for f, v := range map[string]string{"to": act.To, "text": act.Text, "media_url": act.MediaURL} {
			if err := tpl(f, v); err != nil {
				return err
			}
		}
	case domain.ActionCreateLink:
		if err := need("url", act.URL); err != nil {
			return err
		}
		unused = map[string]string{"instance_id": act.InstanceID, "to": act.To, "text": act.Text, "media_url": act.MediaURL,
			"target_url": act.TargetURL}
		for f, v := range map[string]string{"url": act.URL, "slug": act.Slug, "title": act.Title} {
			if err := tpl(f, v); err != nil {
				return err
			}
		}
		if len(act.Metadata) > 20 {
			return domain.Invalid("action.metadata", "action.metadata has at most 20 fields")
		}
		for k, v := range act.Metadata {
			if err := tpl("metadata."+k, v); err != nil {
				return err
			}
		}
	case domain.ActionForward:
		if err := need("target_url", act.TargetURL); err != nil {
			return err
		}
		if strings.Contains(act.TargetURL, "{{") {
			return domain.Invalid("action.target_url", "action.target_url is a fixed URL, not a template")
		}
		u, err := url.Parse(act.TargetURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(act.TargetURL) > 2048 {
			return domain.Invalid("action.target_url", "action.target_url must be an http or https URL")
		}
		if a.cfg.Policy != nil {
			if err := a.cfg.Policy.CheckURL(u); err != nil {
				return domain.Invalid("action.target_url", "action.target_url %s", err.Error())
			}
		}
		unused = map[string]string{"instance_id": act.InstanceID, "to": act.To, "text": act.Text, "media_url": act.MediaURL,
			"url": act.URL, "slug": act.Slug, "title": act.Title}
	default:
		return domain.Invalid("action.type", "action.type is send_message, create_link or forward")
	}
	for f, v := range unused {
		if v != "" {
			return domain.Invalid("action."+f, "action.%s does not apply to %s", f, act.Type)
		}
	}
	return nil
}

// errFailed is a run's failure that no retry can fix (a template reading a missing field,
// a send refused): the run fails at once.
type errFailed struct{ msg string }

func (e errFailed) Error() string { return e.msg }

// runAction runs one action: renders the templates with the call's payload, does the
// action, and records the run (and its event) with what happened.
func (a *Automation) runAction(ctx context.Context, j *jobs.Job) error {
	run, err := a.st.RunByID(ctx, j.ID)
	if err != nil {
		if domain.IsCode(err, domain.CodeNotFound) {
			return nil // the endpoint was deleted with its runs
		}
		return err
	}
	if run.Status != domain.RunQueued {
		// Recorded already: the replica that ran it died before the job's own outcome was
		// written. Running it again would do the action twice.
		return nil
	}
	p, err := a.st.Publisher(ctx, run.WorkspaceID, run.EndpointID)
	if err != nil {
		if domain.IsCode(err, domain.CodeNotFound) {
			return nil
		}
		return err
	}
	call, err := a.st.Call(ctx, p.ID, run.CallID)
	if err != nil {
		return err
	}
	start := time.Now()
	// A create_link or send_message run commits what it writes (the link; the message with
	// its send job) together with its own record: one commit instead of two, and a run
	// retried after a crash never makes the link or the message twice. A forward (an HTTP
	// call, which must not hold a transaction open) is done first and recorded after.
	if p.Action.Type != domain.ActionForward {
		var failed error
		var failedInput json.RawMessage
		err := a.st.Tx(ctx, func(tx *store.Tx) error {
			input, output, err := a.do(ctx, tx, p.Publisher, call)
			if err != nil {
				failed, failedInput = err, input
				return errUndo // nothing the action wrote is kept
			}
			r := run
			return a.recordRun(ctx, tx, &r, j, start, input, output, nil)
		})
		if !errors.Is(err, errUndo) {
			return err // done, or the database refused: the job runs again, nothing kept
		}
		return a.finishRun(ctx, run, j, start, failedInput, nil, failed)
	}
	input, output, err := a.do(ctx, nil, p.Publisher, call)
	return a.finishRun(ctx, run, j, start, input, output, err)
}

// errUndo rolls back a run's transaction when its action failed.
var errUndo = errors.New("action failed: undo its writes")

// finishRun records a run's outcome in a transaction of its own. It returns err when the
// run is to be retried (the job engine's backoff), nil when the run is over.
func (a *Automation) finishRun(ctx context.Context, run domain.Run, j *jobs.Job, start time.Time, input, output json.RawMessage, err error) error {
	var final bool
	werr := a.st.Tx(ctx, func(tx *store.Tx) error {
		r := run
		if err := a.recordRun(ctx, tx, &r, j, start, input, output, err); err != nil {
			return err
		}
		final = r.Status != domain.RunQueued
		return nil
	})
	if werr != nil {
		return werr
	}
	if final {
		return nil
	}
	return err
}

// recordRun saves what an attempt did and, once the run is over, its event.
func (a *Automation) recordRun(ctx context.Context, tx *store.Tx, run *domain.Run, j *jobs.Job, start time.Time, input, output json.RawMessage, actErr error) error {
	run.Attempts = j.Attempt
	run.DurationMS = time.Since(start).Milliseconds()
	run.Input, run.Output, run.Error = input, output, ""
	var failed errFailed
	switch {
	case actErr == nil:
		run.Status = domain.RunSucceeded
	case errors.As(actErr, &failed) || j.Attempt >= j.MaxAttempts:
		run.Status, run.Error = domain.RunFailed, actErr.Error()
	default: // passing: retried
		run.Status, run.Error = domain.RunQueued, actErr.Error()
	}
	run.UpdatedAt = a.s.Clock().Now()
	if err := tx.SaveRun(ctx, *run); err != nil {
		return err
	}
	if run.Status == domain.RunQueued {
		return nil
	}
	typ := domain.EventAutomationActionSucceeded
	if run.Status == domain.RunFailed {
		typ = domain.EventAutomationActionFailed
	}
	_, err := a.s.Record(ctx, tx, run.WorkspaceID, typ, nil, run.Object())
	return err
}

// do renders and performs an endpoint's action for a call; it returns the rendered input
// and the output. A create_link or send_message writes in tx (the run's transaction); a
// forward gets a nil tx.
func (a *Automation) do(ctx context.Context, tx *store.Tx, p domain.Publisher, call domain.Published) (json.RawMessage, json.RawMessage, error) {
	payload, err := decodeAny(call.Payload)
	if err != nil {
		return nil, nil, errFailed{"the stored payload is not JSON"}
	}
	sc := scope{payload: payload, endpoint: map[string]string{"endpoint.id": p.ID, "endpoint.name": p.Name}}
	act := *p.Action
	var renderErr error
	r := func(s string) string {
		if renderErr != nil || s == "" {
			return s
		}
		out, err := render(s, sc)
		if err != nil {
			renderErr = err
		}
		return out
	}
	actor := service.Actor{KeyID: p.ID, WorkspaceID: p.WorkspaceID,
		Scopes: []domain.Scope{domain.ScopeMessagesSend, domain.ScopeLinksWrite}}
	switch act.Type {
	case domain.ActionSendMessage:
		in := map[string]string{"instance_id": act.InstanceID, "to": r(act.To), "text": r(act.Text), "media_url": r(act.MediaURL)}
		input, _ := domain.Encode(in)
		if renderErr != nil {
			return input, nil, errFailed{renderErr.Error()}
		}
		send := messaging.SendInput{To: in["to"], ContentInput: messaging.ContentInput{Text: in["text"]}}
		if in["media_url"] != "" {
			send.Type = domain.TypeImage
			send.Media = &domain.Media{URL: in["media_url"], Caption: in["text"]}
			send.Text = ""
		}
		m, err := a.msg.Messages.SendIn(ctx, tx, actor, act.InstanceID, send)
		if err != nil {
			return input, nil, actionError(err)
		}
		out, _ := domain.Encode(map[string]string{"message_id": m.ID, "status": m.Status})
		return input, out, nil
	case domain.ActionCreateLink:
		meta := map[string]string{}
		for k, v := range act.Metadata {
			meta[k] = r(v)
		}
		in := map[string]any{"url": r(act.URL), "slug": r(act.Slug), "title": r(act.Title), "metadata": meta}
		input, _ := domain.Encode(in)
		if renderErr != nil {
			return input, nil, errFailed{renderErr.Error()}
		}
		li := links.Input{URL: ptr(in["url"].(string))}
		if s := in["slug"].(string); s != "" {
			li.Slug = &s
		}
		if t := in["title"].(string); t != "" {
			li.Title = &t
		}
		if len(meta) > 0 {
			li.Metadata, _ = domain.Encode(meta)
		}
		link, err := a.links.CreateIn(ctx, tx, actor, li)
		if err != nil {
			return input, nil, actionError(err)
		}
		out, _ := domain.Encode(map[string]string{"link_id": link.ID, "short_url": a.links.Object(link).ShortURL})
		return input, out, nil
	case domain.ActionForward:
		input, _ := domain.Encode(map[string]string{"target_url": act.TargetURL})
		status, err := a.forward(ctx, act.TargetURL, call)
		out, _ := domain.Encode(map[string]int{"status": status})
		return input, out, err
	}
	return nil, nil, errFailed{"unknown action " + act.Type}
}

// actionError sorts a refusal: the service said no for good (bad input, not found,
// conflict) → the run fails; anything else (unavailable) → retried.
func actionError(err error) error {
	e := domain.ErrorOf(err)
	switch e.Code {
	case domain.CodeInvalid, domain.CodeNotFound, domain.CodeConflict, domain.CodeForbidden:
		msg := e.Message
		if e.Param != "" {
			msg = e.Param + ": " + msg
		}
		return errFailed{msg}
	}
	return err
}

// forward posts the call's payload to the target, through the SSRF guard at dial time.
func (a *Automation) forward(ctx context.Context, target string, call domain.Published) (int, error) {
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{DialContext: dialer.DialContext, ResponseHeaderTimeout: 10 * time.Second, DisableKeepAlives: true}
	if a.cfg.Policy != nil {
		tr.DialContext = a.cfg.Policy.DialContext(dialer)
	}
	client := &http.Client{Transport: tr, Timeout: 15 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(call.Payload))
	if err != nil {
		return 0, errFailed{"the target URL is invalid"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Switchboard-Automation/1")
	req.Header.Set("Idempotency-Key", call.ID)
	res, err := client.Do(req)
	var refused *ssrf.BlockedError
	if errors.As(err, &refused) {
		// Says why, not which address: the run is the workspace's to read, the resolver ours.
		return 0, errFailed{fmt.Sprintf("the target's host resolves to a non-public address (%s)", refused.Why)}
	}
	if err != nil {
		return 0, fmt.Errorf("the target did not answer: %w", err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
		return res.StatusCode, nil
	case res.StatusCode == http.StatusRequestTimeout || res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500:
		return res.StatusCode, fmt.Errorf("the target answered %d", res.StatusCode)
	}
	return res.StatusCode, errFailed{fmt.Sprintf("the target answered %d", res.StatusCode)}
}

func ptr[T any](v T) *T { return &v }
