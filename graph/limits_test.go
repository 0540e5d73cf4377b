package graph_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/graph"
)

// fragmentBomb is a document of levels fragments on typ, each spreading the previous one
// twice, and an operation spreading the last: about 40 bytes a level, 2^(levels-1) fields
// once expanded.
func fragmentBomb(levels int, typ, leaf, operation string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fragment F0 on %s { %s }\n", typ, leaf)
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "fragment F%d on %s { ...F%d ...F%d }\n", i, typ, i-1, i-1)
	}
	fmt.Fprintf(&b, "%s { ...F%d }\n", operation, levels-1)
	return b.String()
}

// The finding: an anonymous ~1 KB request of 25 doubling fragments cost seconds of CPU
// before the complexity limit refused it. Such documents are now refused before
// validation, in time linear in their size.
func TestDocumentLimitsRefuseFragmentBombs(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		for _, levels := range []int{25, 40} {
			bomb := fragmentBomb(levels, "Query", "__typename", "query")
			resp, r := h.post(t, bomb, nil)
			if resp.StatusCode != http.StatusUnprocessableEntity || r.code(t) != "INVALID" ||
				r.Errors[0].Extensions["reason"] != "query_too_complex" {
				t.Errorf("%d-level bomb over POST: status %d, %+v", levels, resp.StatusCode, r.Errors)
			}
			resp, r = h.get(t, bomb)
			if resp.StatusCode != http.StatusUnprocessableEntity || r.code(t) != "INVALID" {
				t.Errorf("%d-level bomb over GET: status %d, %+v", levels, resp.StatusCode, r.Errors)
			}
			// The GraphQL-over-HTTP media type answers 400 for a refused document.
			resp, r = h.post(t, bomb, nil, withHeader("Accept", "application/graphql-response+json"))
			if resp.StatusCode != http.StatusBadRequest || r.code(t) != "INVALID" {
				t.Errorf("%d-level bomb with the graphql-response media type: status %d, %+v", levels, resp.StatusCode, r.Errors)
			}
		}

		// Fragments that no operation uses are validated too, so they count.
		unused := strings.Replace(fragmentBomb(25, "Query", "__typename", "query"), "query { ...F24 }", "query { __typename }", 1)
		if _, r := h.post(t, unused, nil); r.code(t) != "INVALID" {
			t.Errorf("unused bomb: %+v", r.Errors)
		}

		// A fragment spreading itself is refused as validation would refuse it.
		if _, r := h.post(t, `query { ...A } fragment A on Query { ...B } fragment B on Query { __typename ...A }`, nil); r.code(t) != "GRAPHQL_VALIDATION_FAILED" {
			t.Errorf("fragment cycle: %+v", r.Errors)
		}

		// The console's queries, fragments and all, still work.
		token, _ := h.owner(t)
		const recentEvents = `fragment EventFields on Event { id type timestamp workspaceId data }
			query RecentEvents($types: [String!], $first: Int) {
				events(types: $types, first: $first) { nodes { ...EventFields } hasMore nextCursor }
			}`
		for range 2 { // the second time from the query cache
			resp, r := h.post(t, recentEvents, map[string]any{"first": 25}, withSession(token))
			var data struct {
				Events struct{ Nodes []struct{ ID string } }
			}
			r.decode(t, &data)
			if resp.StatusCode != http.StatusOK || len(data.Events.Nodes) == 0 {
				t.Fatalf("console query: status %d, %+v", resp.StatusCode, data)
			}
		}
		// A small fragment tree is fine.
		if _, r := h.post(t, fragmentBomb(5, "Query", "__typename", "query"), nil); len(r.Errors) > 0 {
			t.Fatalf("5-level fragment tree: %+v", r.Errors)
		}
	})
}

// Each limit, just over and at its default.
func TestDocumentLimits(t *testing.T) {
	h := newHarness(t, store.SQLite, graph.Options{})
	repeat := func(n int, s string) string { return strings.Repeat(s, n) }
	aliases := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, " a%d: __typename", i)
		}
		return b.String()
	}
	cases := []struct {
		name, query, reason string
	}{
		{"bytes", "{ __typename }" + repeat(graph.DefaultMaxQueryBytes, " "), "query_too_large"},
		// Comments are tokens too: three for "{ __typename }", one a comment.
		{"tokens", "{ __typename }" + repeat(graph.DefaultMaxQueryTokens-2, "\n#"), "query_too_large"},
		{"fields", "{" + repeat(graph.DefaultMaxQueryFields+1, " __typename") + " }", "query_too_complex"},
		{"aliases", "{" + aliases(graph.DefaultMaxQueryAliases+1) + " }", "query_too_complex"},
		{"spreads", "query {" + repeat(graph.DefaultMaxQuerySpreads+1, " ...T") + " } fragment T on Query { __typename }", "query_too_complex"},
		{"bytes at the limit", "{ __typename }" + repeat(graph.DefaultMaxQueryBytes-len("{ __typename }"), " "), ""},
		{"tokens at the limit", "{ __typename }" + repeat(graph.DefaultMaxQueryTokens-3, "\n#"), ""},
		{"fields at the limit", "{" + repeat(graph.DefaultMaxQueryFields, " __typename") + " }", ""},
		{"aliases at the limit", "{" + aliases(graph.DefaultMaxQueryAliases) + " }", ""},
		{"spreads at the limit", "query {" + repeat(graph.DefaultMaxQuerySpreads, " ...T") + " } fragment T on Query { __typename }", ""},
	}
	// A high complexity limit, so that the documents at the limits run (1000 fields are
	// over the default complexity limit).
	roomy := newHarness(t, store.SQLite, graph.Options{ComplexityLimit: 10_000})
	for _, c := range cases {
		resp, r := h.post(t, c.query, nil)
		if c.reason == "" {
			resp, r = roomy.post(t, c.query, nil)
		}
		if c.reason == "" {
			if resp.StatusCode != http.StatusOK || len(r.Errors) > 0 {
				t.Errorf("%s: status %d, %+v", c.name, resp.StatusCode, r.Errors)
			}
			continue
		}
		if resp.StatusCode != http.StatusUnprocessableEntity || r.code(t) != "INVALID" || r.Errors[0].Extensions["reason"] != c.reason {
			t.Errorf("%s: status %d, %+v", c.name, resp.StatusCode, r.Errors)
		}
	}

	// Limits are options.
	h = newHarness(t, store.SQLite, graph.Options{DocumentLimits: graph.DocumentLimits{MaxFields: 2}})
	if _, r := h.post(t, `{ a: __typename b: __typename c: __typename }`, nil); r.code(t) != "INVALID" {
		t.Errorf("MaxFields 2: %+v", r.Errors)
	}
}

// Subscriptions go through the same executor over the websocket: a bomb is answered with
// an error message, and the connection stays usable.
func TestDocumentLimitsOverWebsocket(t *testing.T) {
	h := newHarness(t, store.SQLite, graph.Options{})
	token, _ := h.owner(t)
	_, key := h.createKey(t, token, "events:read")
	c := h.dialWS(t)
	c.init(t, map[string]any{"authorization": "Bearer " + key})

	c.subscribe(t, "bomb", fragmentBomb(40, "Subscription", "events { id }", "subscription"), nil)
	m := c.expect(t, "error")
	var errs []gqlError
	if err := json.Unmarshal(m.Payload, &errs); err != nil || m.ID != "bomb" || len(errs) != 1 ||
		errs[0].Extensions["code"] != "INVALID" || errs[0].Extensions["reason"] != "query_too_complex" {
		t.Fatalf("bomb subscription: %s %s", m.ID, m.Payload)
	}
	if m := c.expect(t, "complete"); m.ID != "bomb" { // gqlgen completes a refused operation
		t.Fatalf("complete for %q", m.ID)
	}

	after := h.lastEventID(t, token) // replayed from here, so no race with the subscription starting
	h.createKey(t, token)
	c.subscribe(t, "1", eventsSubscription, map[string]any{"after": after})
	if e := c.nextEvent(t, "1"); e.Type != "api_key.created" {
		t.Fatalf("event after the refused subscription: %+v", e)
	}
}

// BenchmarkDocumentLimits compares refusing fragment bombs through the real handler with
// parsing and serving a normal console query:
//
//	cd graph && go test -run '^$' -bench BenchmarkDocumentLimits -benchmem .
func BenchmarkDocumentLimits(b *testing.B) {
	svc, _ := servicetest.New(b, store.SQLite, service.Config{})
	h := graph.NewHandler(svc, graph.Options{})
	const console = `fragment EventFields on Event { id type timestamp workspaceId data }
		query RecentEvents($types: [String!], $first: Int) {
			events(types: $types, first: $first) { nodes { ...EventFields } hasMore nextCursor }
		}`
	serve := func(b *testing.B, query string, status int) {
		body, _ := json.Marshal(map[string]any{"query": query})
		b.SetBytes(int64(len(query)))
		for b.Loop() {
			req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(string(body)))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != status {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}
	}
	for _, levels := range []int{25, 40, 200} { // 200 levels: 8 KB, to see the cost grow with size
		b.Run(fmt.Sprintf("refuse-bomb-%d-levels", levels), func(b *testing.B) {
			serve(b, fragmentBomb(levels, "Query", "__typename", "query"), http.StatusUnprocessableEntity)
		})
	}
	b.Run("parse-console-query", func(b *testing.B) {
		b.SetBytes(int64(len(console)))
		for b.Loop() {
			if _, err := parser.ParseQuery(&ast.Source{Input: console}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Signed out, the console query is refused by its resolver (UNAUTHENTICATED, 200)
	// after parsing, validation and the limits: the whole path a normal request takes.
	b.Run("serve-console-query-cached", func(b *testing.B) { serve(b, console, http.StatusOK) })
	b.Run("serve-anonymous-typename", func(b *testing.B) { serve(b, `{ __typename }`, http.StatusOK) })
}
