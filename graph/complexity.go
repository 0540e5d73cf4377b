package graph

import (
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/graph/generated"
)

// complexityRoot prices list fields by the rows they may return, so that the complexity
// limit bounds rows read and sent, not only fields written in the query. gqlgen's default
// prices every field 1 + its selection, whatever its page size: 120 aliases of
// events(first: 100) passed the limit of 500 and asked for 12,000 rows in one request.
//
// A list costs 1 + its selection (counted once, as any field) + one per row it may return:
// first for a paginated field (the service's default page when absent; above the
// service's maximum it counts as the maximum, and the service refuses it with a clear
// message), the per-workspace cap for webhooks. The selection is not multiplied by the rows:
// a row's fields are read from the one row the store returned, and multiplying would price
// a single full page of 100 events (which REST serves) at 801, over the default limit.
// With the default limit of 500, a request reads at most about four full pages.
func complexityRoot() generated.ComplexityRoot {
	var c generated.ComplexityRoot
	c.Query.Events = func(child int, _ []string, first *int, _ *string) int {
		return 1 + child + pageRows(first)
	}
	c.Query.WebhookDeliveries = func(child int, _ string, first *int, _ *string) int {
		return 1 + child + pageRows(first)
	}
	c.Query.Webhooks = func(child int) int {
		return 1 + child + service.MaxWebhooksPerWorkspace
	}
	return c
}

// pageRows is how many rows a page of first may hold.
func pageRows(first *int) int {
	if first == nil {
		return service.DefaultPageLimit
	}
	return min(max(*first, 0), service.MaxPageLimit)
}
