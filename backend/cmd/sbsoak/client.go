package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"time"
)

// outcome classifies one answer.
type outcome int

const (
	okAnswer     outcome = iota // 2xx, or the 302 of a redirect, without GraphQL errors
	unavailable                 // an honest outage answer: 503 with Retry-After, or GraphQL UNAVAILABLE
	bad503                      // a 503 without Retry-After
	serverError                 // another 5xx, or GraphQL INTERNAL
	clientError                 // 4xx, or another GraphQL error
	transportErr                // no answer (refused, reset, timed out)
)

func (o outcome) String() string {
	return [...]string{"ok", "503 unavailable", "503 without Retry-After", "5xx/INTERNAL", "4xx", "no answer"}[o]
}

// record is one request of the traffic.
type record struct {
	surface    string
	start, end time.Time
	status     int
	out        outcome
	code       string // the error code of the answer, if any
}

// recorder keeps every request.
type recorder struct {
	mu   sync.Mutex
	recs []record
}

func (r *recorder) add(rec record) {
	r.mu.Lock()
	r.recs = append(r.recs, rec)
	r.mu.Unlock()
}

func (r *recorder) snapshot() []record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]record(nil), r.recs...)
}

// api talks to the server with the key.
type api struct {
	base     string
	key      string
	http     *http.Client // API calls
	noFollow *http.Client // redirects: a 302 is the answer
	session  *http.Client // the console session (cookies)
	rec      *recorder
}

func newAPI(base string, rec *recorder) *api {
	tr := &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 512, IdleConnTimeout: 90 * time.Second}
	jar, _ := cookiejar.New(nil)
	return &api{
		base: base,
		http: &http.Client{Transport: tr, Timeout: 20 * time.Second},
		noFollow: &http.Client{Transport: tr, Timeout: 20 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		session: &http.Client{Transport: tr, Timeout: 20 * time.Second, Jar: jar},
		rec:     rec,
	}
}

// answer is what came back.
type answer struct {
	status int
	body   []byte
	header http.Header
	err    error
}

// do sends one request. body, when not nil, is marshalled as JSON.
func (a *api) do(c *http.Client, method, path string, body any, header map[string]string) answer {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, a.base+path, rd)
	if err != nil {
		return answer{err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, body: raw, header: resp.Header, err: err}
}

func (a *api) rest(method, path string, body any) answer {
	return a.do(a.http, method, path, body, map[string]string{"Authorization": "Bearer " + a.key})
}

// mustREST is for set-up and checks (not recorded): it fails on anything but 2xx.
func (a *api) mustREST(method, path string, body, out any) error {
	var ans answer
	for attempt := 0; ; attempt++ {
		ans = a.rest(method, path, body)
		// the checks at the end may meet a busy server: retry what is honestly unavailable
		if (ans.err == nil && ans.status != http.StatusServiceUnavailable && ans.status != http.StatusTooManyRequests) || attempt == 20 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if ans.err != nil {
		return fmt.Errorf("%s %s: %w", method, path, ans.err)
	}
	if ans.status >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, ans.status, ans.body)
	}
	if out != nil {
		if err := json.Unmarshal(ans.body, out); err != nil {
			return fmt.Errorf("%s %s: %v in %s", method, path, err, ans.body)
		}
	}
	return nil
}

type gqlError struct {
	Message    string `json:"message"`
	Extensions struct {
		Code string `json:"code"`
	} `json:"extensions"`
}

type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
}

// graphql runs an operation with the key (or the session when key is false).
func (a *api) graphql(withKey bool, query string, vars map[string]any) (answer, gqlResponse) {
	h := map[string]string{}
	c := a.session
	if withKey {
		h["Authorization"] = "Bearer " + a.key
		c = a.http
	}
	ans := a.do(c, http.MethodPost, "/graphql", map[string]any{"query": query, "variables": vars}, h)
	var res gqlResponse
	if ans.err == nil {
		_ = json.Unmarshal(ans.body, &res)
	}
	return ans, res
}

// mustGraphQL is for set-up: it fails on any error and decodes data into out.
func (a *api) mustGraphQL(withKey bool, query string, vars map[string]any, out any) error {
	ans, res := a.graphql(withKey, query, vars)
	if ans.err != nil {
		return ans.err
	}
	if len(res.Errors) > 0 || ans.status != http.StatusOK {
		return fmt.Errorf("graphql: %d %s", ans.status, ans.body)
	}
	if out != nil {
		return json.Unmarshal(res.Data, out)
	}
	return nil
}

// classify turns an answer into an outcome (and the error code it carries). okStatus is
// the status that counts as success besides 2xx (302 for redirects), 0 for none.
func classify(ans answer, okStatus int, gql *gqlResponse) (outcome, string) {
	if ans.err != nil {
		return transportErr, shortErr(ans.err)
	}
	code := errorCode(ans.body)
	if gql != nil && len(gql.Errors) > 0 {
		c := gql.Errors[0].Extensions.Code
		switch {
		case c == "UNAVAILABLE":
			return unavailable, c
		case c == "INTERNAL" || ans.status >= 500:
			return serverError, c
		default:
			return clientError, c
		}
	}
	switch {
	case ans.status >= 200 && ans.status < 300, okStatus != 0 && ans.status == okStatus:
		return okAnswer, ""
	case ans.status == http.StatusServiceUnavailable:
		if ans.header.Get("Retry-After") == "" {
			return bad503, code
		}
		return unavailable, code
	case ans.status >= 500:
		return serverError, code
	default:
		return clientError, code
	}
}

// errorCode is error.code of the REST envelope, if any.
func errorCode(body []byte) string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error.Code
}

func shortErr(err error) string {
	s := err.Error()
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}
