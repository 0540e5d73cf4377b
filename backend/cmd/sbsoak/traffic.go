package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

type instance struct {
	ID      string  `json:"id"`
	Status  string  `json:"status"`
	Address *string `json:"address"`
}

// soak holds what the traffic set up, and what it learned.
type soak struct {
	api  *api
	rc   *hookReceiver
	sub  *subscriber
	x, y instance
	link struct {
		ID   string `json:"id"`
		Slug string `json:"slug"`
	}
	hooksPath string // /hooks/{token}
	hookID    string // the webhook endpoint at the receiver

	seq      atomic.Int64
	skipped  atomic.Int64 // requests not sent because too many were in flight
	inflight chan struct{}
	wg       sync.WaitGroup

	mu            sync.Mutex
	sendsOK       map[string]sendInfo // message id → what was sent
	sendsFailed   []string            // texts of sends answered 5xx or not answered
	pubsOK        map[string]int64    // call id → seq of the payload
	pubsFailed    map[int64]bool      // seqs answered 5xx or not answered
	redirects302  int64
	churnFailed   map[string]bool // urls of webhook creations answered with a failure
	keysFailed    map[string]bool // names of key creations answered with a failure
	churnPending  []string        // webhook ids to delete
	churnCreated  int
	churnDeleted  int
	keysCreated   int
	sendsAttempts int
	mutations     atomic.Int64
}

type sendInfo struct {
	text     string
	from, to string // instance ids
}

type surface struct {
	name   string
	weight float64
	fn     func() record
}

func (s *soak) surfaces() []surface {
	return []surface{
		{"models", 0.15, s.getModels},
		{"events", 0.15, s.getEvents},
		{"graphql", 0.10, s.gqlQuery},
		{"sends", 0.10, s.send},
		{"redirects", 0.25, s.redirect},
		{"hooks", 0.25, s.publish},
	}
}

// mutationSurface is the occasional GraphQL mutation (webhook create/delete, key create):
// a few a minute, so it does not count for recovery times.
const mutationSurface = "gql-mutations"

// run sends the traffic until ctx ends: each surface on its own fixed schedule.
func (s *soak) run(ctx context.Context, rate float64, mutationEvery time.Duration) {
	start := time.Now()
	var loops sync.WaitGroup
	for _, sf := range s.surfaces() {
		interval := time.Duration(float64(time.Second) / (rate * sf.weight))
		loops.Go(func() { s.schedule(ctx, start, interval, sf.fn) })
	}
	loops.Go(func() { s.schedule(ctx, start.Add(mutationEvery/2), mutationEvery, s.mutate) })
	loops.Wait()
	s.wg.Wait()
}

func (s *soak) schedule(ctx context.Context, start time.Time, interval time.Duration, fn func() record) {
	for due := start; ; due = due.Add(interval) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(due)):
		}
		select {
		case s.inflight <- struct{}{}:
		default:
			s.skipped.Add(1)
			continue
		}
		s.wg.Go(func() {
			defer func() { <-s.inflight }()
			s.api.rec.add(fn())
		})
	}
}

// timed runs one request and records it.
func timed(name string, f func() (answer, outcome, string)) record {
	r := record{surface: name, start: time.Now()}
	ans, out, code := f()
	r.end, r.status, r.out, r.code = time.Now(), ans.status, out, code
	return r
}

func (s *soak) getModels() record {
	return timed("models", func() (answer, outcome, string) {
		ans := s.api.rest(http.MethodGet, "/api/v1/models", nil)
		out, code := classify(ans, 0, nil)
		return ans, out, code
	})
}

func (s *soak) getEvents() record {
	return timed("events", func() (answer, outcome, string) {
		ans := s.api.rest(http.MethodGet, "/api/v1/events?limit=10", nil)
		out, code := classify(ans, 0, nil)
		return ans, out, code
	})
}

func (s *soak) gqlQuery() record {
	return timed("graphql", func() (answer, outcome, string) {
		ans, res := s.api.graphql(true, `{ webhooks { id } }`, nil)
		out, code := classify(ans, 0, &res)
		return ans, out, code
	})
}

func (s *soak) redirect() record {
	return timed("redirects", func() (answer, outcome, string) {
		ans := s.api.do(s.api.noFollow, http.MethodGet, "/l/"+s.link.Slug, nil, map[string]string{"User-Agent": chrome})
		out, code := classify(ans, http.StatusFound, nil)
		if ans.err == nil && ans.status != http.StatusFound && out == okAnswer {
			out = clientError // a 2xx is not a redirect
		}
		if ans.status == http.StatusFound {
			s.mu.Lock()
			s.redirects302++
			s.mu.Unlock()
		}
		return ans, out, code
	})
}

// send sends a message from one instance to the other, in turn.
func (s *soak) send() record {
	n := s.seq.Add(1)
	from, to := s.x, s.y
	if n%2 == 1 {
		from, to = s.y, s.x
	}
	text := fmt.Sprintf("soak %d", n)
	return timed("sends", func() (answer, outcome, string) {
		ans := s.api.rest(http.MethodPost, "/api/v1/instances/"+from.ID+"/messages", map[string]any{"to": *to.Address, "text": text})
		out, code := classify(ans, 0, nil)
		var m struct {
			ID string `json:"id"`
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.sendsAttempts++
		switch {
		case out == okAnswer && jsonInto(ans.body, &m) == nil && m.ID != "":
			s.sendsOK[m.ID] = sendInfo{text: text, from: from.ID, to: to.ID}
		case out == okAnswer:
			out, code = clientError, "no id in the answer"
		case out != clientError:
			s.sendsFailed = append(s.sendsFailed, text)
		}
		return ans, out, code
	})
}

// publish posts one call to the automation endpoint.
func (s *soak) publish() record {
	n := s.seq.Add(1)
	return timed("hooks", func() (answer, outcome, string) {
		ans := s.api.do(s.api.http, http.MethodPost, s.hooksPath, map[string]any{"seq": n, "note": "soak"}, nil)
		out, code := classify(ans, 0, nil)
		var c struct {
			ID string `json:"id"`
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		switch {
		case out == okAnswer && ans.status == http.StatusAccepted && jsonInto(ans.body, &c) == nil && c.ID != "":
			s.pubsOK[c.ID] = n
		case out == okAnswer:
			out, code = clientError, fmt.Sprintf("%d without an id", ans.status)
		case out != clientError:
			s.pubsFailed[n] = true
		}
		return ans, out, code
	})
}

// mutate is the occasional GraphQL mutation, in turn: a webhook endpoint created, the
// oldest created deleted, an API key created through the console session.
func (s *soak) mutate() record {
	n := s.seq.Add(1)
	k := s.mutations.Add(1) - 1
	s.mu.Lock()
	var del string
	if len(s.churnPending) > 0 {
		del = s.churnPending[0]
	}
	s.mu.Unlock()
	switch {
	case k%3 == 2:
		name := fmt.Sprintf("soak-key-%d", n)
		return timed(mutationSurface, func() (answer, outcome, string) {
			ans, res := s.api.graphql(false, `mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { apiKey { id } } }`,
				map[string]any{"i": map[string]any{"name": name, "scopes": []string{"models:read"}}})
			out, code := classify(ans, 0, &res)
			s.mu.Lock()
			defer s.mu.Unlock()
			if out == okAnswer {
				s.keysCreated++
			} else if out != clientError {
				s.keysFailed[name] = true
			}
			return ans, out, code
		})
	case k%3 == 1 && del != "":
		return timed(mutationSurface, func() (answer, outcome, string) {
			ans, res := s.api.graphql(true, `mutation($id: ID!) { deleteWebhook(id: $id) }`, map[string]any{"id": del})
			out, code := classify(ans, 0, &res)
			if out == okAnswer {
				s.mu.Lock()
				s.churnPending = s.churnPending[1:]
				s.churnDeleted++
				s.mu.Unlock()
			}
			return ans, out, code
		})
	}
	url := fmt.Sprintf("%s/churn/%d", s.rc.URL, n)
	return timed(mutationSurface, func() (answer, outcome, string) {
		// link.deleted: an event the traffic never causes, so the endpoint receives nothing
		ans, res := s.api.graphql(true, `mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { webhook { id } } }`,
			map[string]any{"i": map[string]any{"url": url, "eventTypes": []string{"link.deleted"}}})
		out, code := classify(ans, 0, &res)
		var d struct {
			CreateWebhook struct {
				Webhook struct {
					ID string `json:"id"`
				} `json:"webhook"`
			} `json:"createWebhook"`
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		switch {
		case out == okAnswer && jsonInto(res.Data, &d) == nil && d.CreateWebhook.Webhook.ID != "":
			s.churnPending = append(s.churnPending, d.CreateWebhook.Webhook.ID)
			s.churnCreated++
		case out != clientError:
			s.churnFailed[url] = true
		}
		return ans, out, code
	})
}
