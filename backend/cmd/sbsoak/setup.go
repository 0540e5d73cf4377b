package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// setup signs up, opens the workspace, creates a full-access key, two sandbox instances
// that pair themselves, a short link, an automation endpoint, a webhook endpoint for every
// event type at the receiver and the live subscription. It returns the ids of the events
// already in the log once both the receiver and the subscription are seen to receive: the
// events after them are the ones both must receive.
func (s *soak) setup(srv *server, logf func(string, ...any)) (map[string]bool, error) {
	a := s.api
	email := fmt.Sprintf("soak-%d@example.com", time.Now().UnixNano())
	if err := a.mustGraphQL(false, `mutation($i: SignUpInput!) { signUp(input: $i) { user { id } } }`,
		map[string]any{"i": map[string]any{"email": email, "password": "correct horse battery staple", "name": "Soak"}}, nil); err != nil {
		return nil, err
	}
	if err := a.mustGraphQL(false, `mutation { ensureWorkspace { id } }`, nil, nil); err != nil {
		return nil, err
	}
	var created struct {
		CreateAPIKey struct {
			Secret string `json:"secret"`
		} `json:"createApiKey"`
	}
	if err := a.mustGraphQL(false, `mutation { createApiKey(input: {name: "soak", scopes: ["*"]}) { secret } }`, nil, &created); err != nil {
		return nil, err
	}
	a.key = created.CreateAPIKey.Secret

	for _, in := range []*instance{&s.x, &s.y} {
		name := "soak X"
		if in == &s.y {
			name = "soak Y"
		}
		if err := a.mustREST(http.MethodPost, "/api/v1/instances", map[string]any{"name": name, "connect": true, "messages_per_second": 200,
			"config": map[string]any{"auto_pair": true, "delivered_after_ms": 0, "read_after_ms": 0}}, in); err != nil {
			return nil, err
		}
	}
	for _, in := range []*instance{&s.x, &s.y} {
		deadline := time.Now().Add(20 * time.Second)
		for in.Status != "connected" || in.Address == nil {
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("instance %s did not connect (%s)", in.ID, in.Status)
			}
			time.Sleep(100 * time.Millisecond)
			if err := a.mustREST(http.MethodGet, "/api/v1/instances/"+in.ID, nil, in); err != nil {
				return nil, err
			}
		}
	}
	if err := a.mustREST(http.MethodPost, "/api/v1/links", map[string]any{"url": "https://example.com/soak",
		"slug": fmt.Sprintf("soak%d", time.Now().UnixNano()%1e6)}, &s.link); err != nil {
		return nil, err
	}
	var ep struct {
		URL string `json:"url"`
	}
	if err := a.mustREST(http.MethodPost, "/api/v1/automation/endpoints", map[string]any{"name": "soak"}, &ep); err != nil {
		return nil, err
	}
	u, err := url.Parse(ep.URL)
	if err != nil || !strings.HasPrefix(u.Path, "/hooks/") {
		return nil, fmt.Errorf("automation endpoint url %q", ep.URL)
	}
	s.hooksPath = u.Path

	var hook struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	if err := a.mustREST(http.MethodPost, "/api/v1/webhooks", map[string]any{"url": s.rc.URL + "/hook", "event_types": []string{"*"}}, &hook); err != nil {
		return nil, err
	}
	s.rc.setSecret(hook.Secret)
	s.hookID = hook.ID
	s.sub = newSubscriber(srv.base, a.key)
	ws, err := s.sub.dial()
	if err != nil {
		close(s.sub.done)
		return nil, fmt.Errorf("subscription: %w", err)
	}
	go s.sub.run(ws)

	// A marker event: once both have it, every later event must reach both.
	if err := a.mustREST(http.MethodPost, "/api/v1/links", map[string]any{"url": "https://example.com/marker"}, nil); err != nil {
		return nil, err
	}
	var last struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := a.mustREST(http.MethodGet, "/api/v1/events?type=link.created&limit=1", nil, &last); err != nil || len(last.Data) == 0 {
		return nil, fmt.Errorf("the marker's event: %v", err)
	}
	marker := last.Data[0].ID
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, hooks, _, _ := s.rc.snapshot()
		live, _, _, _, _ := s.sub.snapshot()
		if hooks[marker] > 0 && live[marker] > 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the marker event %s reached the webhook %d times and the subscription %d times in 20 s", marker, hooks[marker], live[marker])
		}
		time.Sleep(50 * time.Millisecond)
	}
	evs, err := s.listEvents()
	if err != nil {
		return nil, err
	}
	baseline := map[string]bool{}
	for _, e := range evs {
		baseline[e.ID] = true
	}
	logf("set up: instances %s ↔ %s, link /l/%s, %s, webhook %s, subscription; %d events before the traffic",
		s.x.ID, s.y.ID, s.link.Slug, "/hooks/{token}", hook.ID, len(baseline))
	return baseline, nil
}

// logEvent is an event of the log, with the data the checks need.
type logEvent struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// listEvents pages through the whole event log of the workspace.
func (s *soak) listEvents() ([]logEvent, error) {
	var out []logEvent
	after := ""
	for {
		var page struct {
			Data       []logEvent `json:"data"`
			HasMore    bool       `json:"has_more"`
			NextCursor string     `json:"next_cursor"`
		}
		path := "/api/v1/events?limit=100"
		if after != "" {
			path += "&after=" + url.QueryEscape(after)
		}
		if err := s.api.mustREST(http.MethodGet, path, nil, &page); err != nil {
			return nil, err
		}
		for _, e := range page.Data {
			switch e.Type {
			case "automation.published", "webhook.created", "api_key.created", "link.clicked":
			default:
				e.Data = nil // not needed: keep the memory small
			}
			out = append(out, e)
		}
		if !page.HasMore {
			return out, nil
		}
		after = page.NextCursor
	}
}

type message struct {
	ID                string  `json:"id"`
	Direction         string  `json:"direction"`
	Text              *string `json:"text"`
	Status            string  `json:"status"`
	ProviderMessageID *string `json:"provider_message_id"`
}

func (s *soak) listMessages(instanceID string) ([]message, error) {
	var out []message
	after := ""
	for {
		var page struct {
			Data       []message `json:"data"`
			HasMore    bool      `json:"has_more"`
			NextCursor string    `json:"next_cursor"`
		}
		path := "/api/v1/instances/" + instanceID + "/messages?limit=100"
		if after != "" {
			path += "&after=" + url.QueryEscape(after)
		}
		if err := s.api.mustREST(http.MethodGet, path, nil, &page); err != nil {
			return nil, err
		}
		out = append(out, page.Data...)
		if !page.HasMore {
			return out, nil
		}
		after = page.NextCursor
	}
}

// deliveryStatuses counts the deliveries of the webhook endpoint by status.
func (s *soak) deliveryStatuses() (map[string]int, []string, error) {
	out := map[string]int{}
	var notDone []string
	after := ""
	for {
		var page struct {
			Data []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"data"`
			HasMore    bool   `json:"has_more"`
			NextCursor string `json:"next_cursor"`
		}
		path := "/api/v1/webhooks/" + s.hookID + "/deliveries?limit=100"
		if after != "" {
			path += "&after=" + url.QueryEscape(after)
		}
		if err := s.api.mustREST(http.MethodGet, path, nil, &page); err != nil {
			return nil, nil, err
		}
		for _, d := range page.Data {
			out[d.Status]++
			if d.Status != "succeeded" && len(notDone) < 5 {
				notDone = append(notDone, d.ID+" "+d.Status)
			}
		}
		if !page.HasMore {
			return out, notDone, nil
		}
		after = page.NextCursor
	}
}
