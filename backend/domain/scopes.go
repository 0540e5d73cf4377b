package domain

// Scope is a permission an API key carries. "*" grants every scope.
type Scope string

const (
	ScopeAll             Scope = "*"
	ScopeModelsRead      Scope = "models:read"
	ScopeInstancesRead   Scope = "instances:read"
	ScopeInstancesWrite  Scope = "instances:write"
	ScopeMessagesRead    Scope = "messages:read"
	ScopeMessagesSend    Scope = "messages:send"
	ScopeGroupsRead      Scope = "groups:read"
	ScopeGroupsWrite     Scope = "groups:write"
	ScopeContactsRead    Scope = "contacts:read"
	ScopeContactsWrite   Scope = "contacts:write"
	ScopeWebhooksRead    Scope = "webhooks:read"
	ScopeWebhooksWrite   Scope = "webhooks:write"
	ScopeLinksRead       Scope = "links:read"
	ScopeLinksWrite      Scope = "links:write"
	ScopeAutomationRead  Scope = "automation:read"
	ScopeAutomationWrite Scope = "automation:write"
	ScopeEventsRead      Scope = "events:read"
)

// ScopeInfo describes a scope for the console.
type ScopeInfo struct {
	Scope       Scope
	Description string
}

// Scopes lists every scope but "*", in display order.
var Scopes = []ScopeInfo{
	{ScopeModelsRead, "List the models the workspace can use"},
	{ScopeInstancesRead, "Read channel instances and their status"},
	{ScopeInstancesWrite, "Create, connect (the pairing QR code included), disconnect and delete channel instances"},
	{ScopeMessagesRead, "Read sent and received messages"},
	{ScopeMessagesSend, "Send messages"},
	{ScopeGroupsRead, "Read groups and their participants"},
	{ScopeGroupsWrite, "Create and change groups"},
	{ScopeContactsRead, "Read contacts"},
	{ScopeContactsWrite, "Create and change contacts"},
	{ScopeWebhooksRead, "Read webhook endpoints and their deliveries"},
	{ScopeWebhooksWrite, "Create, change, test and delete webhook endpoints"},
	{ScopeLinksRead, "Read short links, clicks and stats"},
	{ScopeLinksWrite, "Create, change and delete short links"},
	{ScopeAutomationRead, "Read inbound publishing endpoints and subscriptions"},
	{ScopeAutomationWrite, "Create and delete inbound publishing endpoints and subscriptions"},
	{ScopeEventsRead, "Read the event log and subscribe to live events"},
}

// ScopePreset is a named set of scopes offered by the console.
type ScopePreset struct {
	ID          string
	Name        string
	Description string
	Scopes      []Scope
}

// ScopePresets are the console's presets.
var ScopePresets = []ScopePreset{
	{"full_access", "Full access", "Every scope, including ones added later", []Scope{ScopeAll}},
	{"read_only", "Read only", "Read everything, change nothing", []Scope{
		ScopeModelsRead, ScopeInstancesRead, ScopeMessagesRead, ScopeGroupsRead, ScopeContactsRead,
		ScopeWebhooksRead, ScopeLinksRead, ScopeAutomationRead, ScopeEventsRead}},
	{"messaging", "Messaging", "Instances, messages, groups, contacts and their webhooks", []Scope{
		ScopeInstancesRead, ScopeInstancesWrite, ScopeMessagesRead, ScopeMessagesSend,
		ScopeGroupsRead, ScopeGroupsWrite, ScopeContactsRead, ScopeContactsWrite,
		ScopeWebhooksRead, ScopeWebhooksWrite, ScopeEventsRead}},
	{"short_links", "Short links", "Short links, their stats and webhooks", []Scope{
		ScopeLinksRead, ScopeLinksWrite, ScopeWebhooksRead, ScopeWebhooksWrite, ScopeEventsRead}},
	{"automation", "Automation", "Inbound publishing endpoints, subscriptions and webhooks", []Scope{
		ScopeAutomationRead, ScopeAutomationWrite, ScopeWebhooksRead, ScopeWebhooksWrite, ScopeEventsRead}},
}

// ValidScope reports whether s is a known scope or "*".
func ValidScope(s Scope) bool {
	if s == ScopeAll {
		return true
	}
	for _, info := range Scopes {
		if info.Scope == s {
			return true
		}
	}
	return false
}

// HasScope reports whether granted includes need (directly or by "*").
func HasScope(granted []Scope, need Scope) bool {
	for _, g := range granted {
		if g == need || g == ScopeAll {
			return true
		}
	}
	return false
}
