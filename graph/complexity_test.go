package graph_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/graph"
)

// aliased is a query of n aliases of field.
func aliased(n int, field string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " a%d: %s", i, field)
	}
	b.WriteString(" }")
	return b.String()
}

// The finding: 120 aliases of events(first: 100) passed the complexity limit and asked for
// 12,000 rows in one request. Lists now cost the rows they may return.
func TestComplexityCountsPageSize(t *testing.T) {
	eachDialect(t, graph.Options{}, func(t *testing.T, h *harness) {
		token, _ := h.owner(t)
		s := withSession(token)
		refused := map[string]string{
			"120 pages of 100 events":  aliased(120, "events(first: 100) { nodes { id } }"),
			"5 pages of 100 events":    aliased(5, "events(first: 100) { nodes { id } }"),
			"25 pages of 20 (default)": aliased(25, "events { nodes { id } }"),
			"120 pages of deliveries":  aliased(120, `webhookDeliveries(webhookId: "wh_x", first: 100) { nodes { id } }`),
			"120 webhook lists":        aliased(120, "webhooks { id }"),
			"5 pages of 100 messages":  aliased(5, `messages(instanceId: "inst_x", first: 100) { nodes { id } }`),
			"25 pages of chats":        aliased(25, `chats(instanceId: "inst_x") { nodes { id } }`),
			"25 pages of instances":    aliased(25, `instances { nodes { id } }`),
			"25 pages of groups":       aliased(25, `groups(instanceId: "inst_x") { nodes { id } }`),
			"25 pages of contacts":     aliased(25, `contacts(instanceId: "inst_x") { nodes { id } }`),
		}
		for name, q := range refused {
			resp, r := h.post(t, q, nil, s)
			if r.code(t) != "COMPLEXITY_LIMIT_EXCEEDED" || resp.StatusCode != http.StatusUnprocessableEntity {
				t.Errorf("%s: status %d, %+v", name, resp.StatusCode, r.Errors)
			}
		}

		// A full page of everything, as REST serves it, and four of them, pass.
		const page = `events(first: 100) { nodes { id type timestamp workspaceId data } hasMore nextCursor }`
		for name, q := range map[string]string{
			"a full page":               "{ " + page + " }",
			"4 pages of 100 events":     aliased(4, "events(first: 100) { nodes { id } }"),
			"the console's events page": `query($first: Int) { events(first: $first) { nodes { id type timestamp workspaceId data } hasMore nextCursor } }`,
			"every webhook":             `{ webhooks { id url description eventTypes instanceId enabled disabledReason createdAt updatedAt } }`,
		} {
			_, r := h.post(t, q, map[string]any{"first": 25}, s)
			if len(r.Errors) > 0 {
				t.Errorf("%s: %+v", name, r.Errors)
			}
		}
		// Above the service's maximum, first is refused by the service with its message,
		// not priced as a thousand rows.
		resp, r := h.post(t, `{ events(first: 1000) { nodes { id } } }`, nil, s)
		if r.code(t) != "INVALID" || r.Errors[0].Extensions["field"] != "first" {
			t.Errorf("first: 1000: status %d, %+v", resp.StatusCode, r.Errors)
		}
		if resp.StatusCode != http.StatusOK {
			t.Errorf("first: 1000: status %d", resp.StatusCode)
		}
	})
}

// Every operation refused before it runs is answered like a validation error: 422.
func TestLimitRefusalsAre422(t *testing.T) {
	h := newHarness(t, store.SQLite, graph.Options{DepthLimit: 2})
	for q, code := range map[string]string{
		`{ viewer { user { id } } }`:           "DEPTH_LIMIT_EXCEEDED",
		aliased(25, "events { nodes { id } }"): "COMPLEXITY_LIMIT_EXCEEDED",
		`{ __typename`:                         "GRAPHQL_PARSE_FAILED",
	} {
		resp, r := h.post(t, q, nil)
		if resp.StatusCode != http.StatusUnprocessableEntity || r.code(t) != code {
			t.Errorf("%.40s: status %d, %+v", q, resp.StatusCode, r.Errors)
		}
	}
}
