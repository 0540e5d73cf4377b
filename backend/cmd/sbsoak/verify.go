package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// check is one comparison of what was accepted with what arrived.
type check struct {
	name     string
	expected int
	received int
	lost     int
	dup      int
	extra    int // arrived but never accepted / not in the log
	note     string
	examples []string
}

// ambiguous counts mutations answered with a failure that were committed all the same.
type ambiguous struct {
	name      string
	failed    int
	committed int
}

type verification struct {
	logEvents, expectedEvents int
	checks                    []check
	ambiguous                 []ambiguous
	badSignatures             []string
	churnDeliveries           int
	resumes, reconnects       int
	streamEnds, connErrs      []string
	waited                    time.Duration
	deliveryLog               map[string]int // the endpoint's deliveries by status
	deliveryLogOdd            []string       // some that did not succeed
}

// verify compares the event log with the receiver and the subscription, and every
// accepted send, click and publication with what the server stored.
func (s *soak) verify(baseline map[string]bool, within time.Duration) (*verification, error) {
	v := &verification{}
	evs, err := s.listEvents()
	if err != nil {
		return nil, err
	}
	byID := make(map[string]logEvent, len(evs))
	for _, e := range evs {
		byID[e.ID] = e
	}
	expected := func() []string {
		var ids []string
		for id := range byID {
			if !baseline[id] {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		return ids
	}
	// Wait for the last deliveries, and look up events delivered that the listing missed
	// (recorded while it ran).
	t0 := time.Now()
	for {
		_, hooks, _, _ := s.rc.snapshot()
		live, _, _, _, _ := s.sub.snapshot()
		missing := 0
		for _, id := range expected() {
			if hooks[id] == 0 || live[id] == 0 {
				missing++
			}
		}
		for _, m := range []map[string]int{hooks, live} {
			for id := range m {
				if _, ok := byID[id]; ok || baseline[id] {
					continue
				}
				var e logEvent
				if err := s.api.mustREST(http.MethodGet, "/api/v1/events/"+id, nil, &e); err == nil {
					byID[id] = e
					missing++ // look again: it may not have reached the other one yet
				}
			}
		}
		if missing == 0 || time.Since(t0) > within {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	v.waited = time.Since(t0)
	s.sub.stop()
	exp := expected()
	v.logEvents, v.expectedEvents = len(byID), len(exp)

	requests, hooks, bad, churn := s.rc.snapshot()
	v.badSignatures, v.churnDeliveries = bad, churn
	live, resumes, reconnects, ends, connErrs := s.sub.snapshot()
	v.resumes, v.reconnects, v.streamEnds, v.connErrs = resumes, reconnects, ends, connErrs
	v.checks = append(v.checks,
		compareEvents("webhook deliveries (unique webhook-id)", exp, hooks, byID, baseline,
			fmt.Sprintf("%d requests, %d rejected signatures", requests, len(bad))),
		compareEvents("subscription events", exp, live, byID, baseline,
			fmt.Sprintf("%d resumes after the server ended the stream, %d reconnects", resumes, reconnects)))

	// The endpoint's delivery log: every delivery received should be recorded as succeeded.
	if v.deliveryLog, v.deliveryLogOdd, err = s.deliveryStatuses(); err != nil {
		return nil, err
	}

	// Sends: each accepted message delivered (or read), and on the other instance once.
	s.mu.Lock()
	sendsOK := make(map[string]sendInfo, len(s.sendsOK))
	for k, x := range s.sendsOK {
		sendsOK[k] = x
	}
	failedTexts := map[string]bool{}
	for _, t := range s.sendsFailed {
		failedTexts[t] = true
	}
	s.mu.Unlock()
	outbound := map[string]message{}
	inbound := map[string]int{} // by the outbound message's id
	committedFailed := 0
	for _, in := range []instance{s.x, s.y} {
		ms, err := s.listMessages(in.ID)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			switch m.Direction {
			case "outbound":
				outbound[m.ID] = m
				if m.Text != nil && failedTexts[*m.Text] {
					committedFailed++
				}
			case "inbound":
				if m.ProviderMessageID != nil {
					inbound[*m.ProviderMessageID]++
				}
			}
		}
	}
	sc := check{name: "sends (202 → delivered/read, received once)", expected: len(sendsOK)}
	notDelivered := map[string]int{}
	for id := range sendsOK {
		m, ok := outbound[id]
		switch {
		case !ok:
			sc.lost++
			sc.examples = append(sc.examples, id+" not stored")
		case m.Status != "delivered" && m.Status != "read":
			sc.lost++
			notDelivered[m.Status]++
			if len(sc.examples) < 5 {
				sc.examples = append(sc.examples, id+" "+m.Status)
			}
		case inbound[id] == 0:
			sc.lost++
			if len(sc.examples) < 5 {
				sc.examples = append(sc.examples, id+" never received")
			}
		default:
			sc.received++
			if inbound[id] > 1 {
				sc.dup++
			}
		}
	}
	if len(notDelivered) > 0 {
		sc.note = fmt.Sprintf("not delivered: %v", notDelivered)
	}
	v.checks = append(v.checks, sc)
	v.ambiguous = append(v.ambiguous, ambiguous{"sends", len(failedTexts), committedFailed})

	// Clicks: every 302 counted.
	var l struct {
		Clicks int `json:"clicks"`
	}
	if err := s.api.mustREST(http.MethodGet, "/api/v1/links/"+s.link.ID, nil, &l); err != nil {
		return nil, err
	}
	clickEvents := 0
	for _, e := range byID {
		if e.Type == "link.clicked" && bytes.Contains(e.Data, []byte(s.link.ID)) {
			clickEvents++
		}
	}
	s.mu.Lock()
	served := int(s.redirects302)
	s.mu.Unlock()
	cc := check{name: "redirects (302 → clicks counted)", expected: served, received: min(l.Clicks, served),
		lost: max(served-l.Clicks, 0), extra: max(l.Clicks-served, 0),
		note: fmt.Sprintf("link clicks %d, link.clicked events %d", l.Clicks, clickEvents)}
	v.checks = append(v.checks, cc)

	// Publications: every 202's id an automation.published event, each payload once.
	s.mu.Lock()
	pubsOK := make(map[string]int64, len(s.pubsOK))
	for k, x := range s.pubsOK {
		pubsOK[k] = x
	}
	pubsFailed := make(map[int64]bool, len(s.pubsFailed))
	for k := range s.pubsFailed {
		pubsFailed[k] = true
	}
	churnFailed, keysFailed := s.churnFailed, s.keysFailed
	s.mu.Unlock()
	seqs := map[int64]int{}
	webhookURLs, keyNames := map[string]bool{}, map[string]bool{}
	for _, e := range byID {
		switch e.Type {
		case "automation.published":
			var d struct {
				Payload struct {
					Seq int64 `json:"seq"`
				} `json:"payload"`
			}
			if json.Unmarshal(e.Data, &d) == nil && d.Payload.Seq != 0 {
				seqs[d.Payload.Seq]++
			}
		case "webhook.created":
			var d struct {
				URL string `json:"url"`
			}
			_ = json.Unmarshal(e.Data, &d)
			webhookURLs[d.URL] = true
		case "api_key.created":
			var d struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(e.Data, &d)
			keyNames[d.Name] = true
		}
	}
	pc := check{name: "publications (202 → automation.published)", expected: len(pubsOK)}
	for id, seq := range pubsOK {
		e, ok := byID[id]
		switch {
		case !ok || e.Type != "automation.published":
			pc.lost++
			if len(pc.examples) < 5 {
				pc.examples = append(pc.examples, fmt.Sprintf("%s (seq %d)", id, seq))
			}
		default:
			pc.received++
			if seqs[seq] > 1 {
				pc.dup++
			}
		}
	}
	v.checks = append(v.checks, pc)
	n := 0
	for seq := range pubsFailed {
		if seqs[seq] > 0 {
			n++
		}
	}
	v.ambiguous = append(v.ambiguous, ambiguous{"publications", len(pubsFailed), n})
	n = 0
	for u := range churnFailed {
		if webhookURLs[u] {
			n++
		}
	}
	v.ambiguous = append(v.ambiguous, ambiguous{"webhook creations (GraphQL)", len(churnFailed), n})
	n = 0
	for k := range keysFailed {
		if keyNames[k] {
			n++
		}
	}
	v.ambiguous = append(v.ambiguous, ambiguous{"API key creations (GraphQL)", len(keysFailed), n})
	return v, nil
}

// compareEvents compares the expected event ids with the ones that arrived (by count).
func compareEvents(name string, expected []string, got map[string]int, log map[string]logEvent, baseline map[string]bool, note string) check {
	c := check{name: name, expected: len(expected), note: note}
	lostTypes := map[string]int{}
	for _, id := range expected {
		switch n := got[id]; {
		case n == 0:
			c.lost++
			lostTypes[log[id].Type]++
			if len(c.examples) < 5 {
				c.examples = append(c.examples, id+" "+log[id].Type)
			}
		default:
			c.received++
			if n > 1 {
				c.dup++
				if len(c.examples) < 5 {
					c.examples = append(c.examples, fmt.Sprintf("%s %s ×%d", id, log[id].Type, n))
				}
			}
		}
	}
	for id := range got {
		if _, ok := log[id]; !ok && !baseline[id] {
			c.extra++
		}
	}
	if len(lostTypes) > 0 {
		var parts []string
		for t, n := range lostTypes {
			parts = append(parts, fmt.Sprintf("%s %d", t, n))
		}
		sort.Strings(parts)
		c.note += "; lost by type: " + strings.Join(parts, ", ")
	}
	return c
}
