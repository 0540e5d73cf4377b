package graph

import (
	"time"

	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/graph/generated"
	"github.com/switchboard-dev/switchboard/graph/model"
)

// complexityRoot prices list fields by the rows they may return, so that the complexity
// limit bounds rows read and sent, not only fields written in the query. gqlgen's default
// prices every field 1 + its selection, whatever its page size: 120 aliases of
// events(first: 100) passed the limit of 500 and asked for 12,000 rows in one request.
//
// A list costs 1 + its selection (counted once, as any field) + one per row it may return:
// first for a paginated field (the service's default page when absent; above the
// service's maximum it counts as the maximum, and the service refuses it with a clear
// message), the per-workspace cap for webhooks and subscriptions, the addresses given to checkContacts. The selection is not multiplied by the rows:
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
	c.Query.AutomationSubscriptions = func(child int) int {
		return 1 + child + service.MaxSubscriptionsPerWorkspace
	}
	// Messaging lists are pages like events; checkContacts answers one row per address.
	c.Query.Instances = func(child int, first *int, _ *string) int {
		return 1 + child + pageRows(first)
	}
	c.Query.Messages = func(child int, _ string, _ *model.MessageFilter, first *int, _ *string) int {
		return 1 + child + pageRows(first)
	}
	c.Query.Chats = func(child int, _ string, _ *bool, _ *model.ChatSort, first *int, _ *string) int {
		return 1 + child + pageRows(first)
	}
	c.Query.Groups = func(child int, _ string, first *int, _ *string) int {
		return 1 + child + pageRows(first)
	}
	c.Query.Contacts = func(child int, _ string, first *int, _ *string) int {
		return 1 + child + pageRows(first)
	}
	c.Mutation.CheckContacts = func(child int, _ string, addresses []string) int {
		return 1 + child + min(len(addresses), messaging.MaxCheckAddresses)
	}
	// Short links: lists are pages; a bulk call writes one row per link; stats run seven
	// aggregate queries over the range's clicks, priced like a full page; a QR code reads
	// its link again and draws it, priced like a small page, so a list asking for every
	// link's QR code costs what it does.
	c.Query.Links = func(child int, _, _ *string, _ *bool, _, _ *time.Time, _ *model.LinkSort, first *int, _ *string) int {
		return 1 + child + pageRows(first)
	}
	c.Query.LinkClicks = func(child int, _ string, _ *bool, first *int, _ *string) int {
		return 1 + child + pageRows(first)
	}
	c.Query.LinkStats = func(child int, _ string, _, _ *time.Time, _ *model.StatsInterval, _ *string, _ *bool) int {
		return 1 + child + service.MaxPageLimit
	}
	c.Mutation.BulkCreateLinks = func(child int, items []model.CreateLinkInput) int {
		return 1 + child + min(len(items), links.MaxBulk)
	}
	c.Link.QRSVG = func(child int) int {
		return 1 + child + qrCost
	}
	// Automation endpoints: the endpoints, their calls and their runs are pages.
	c.Query.AutomationEndpoints = func(child int, first *int, _ *string) int {
		return 1 + child + pageRows(first)
	}
	c.Query.AutomationCalls = func(child int, _ string, first *int, _ *string) int {
		return 1 + child + pageRows(first)
	}
	c.Query.AutomationRuns = func(child int, _ string, first *int, _ *string) int {
		return 1 + child + pageRows(first)
	}
	return c
}

// qrCost is the price of drawing one link's QR code.
const qrCost = 10

// pageRows is how many rows a page of first may hold.
func pageRows(first *int) int {
	if first == nil {
		return service.DefaultPageLimit
	}
	return min(max(*first, 0), service.MaxPageLimit)
}
