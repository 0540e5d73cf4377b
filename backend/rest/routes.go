package rest

import (
	"net/http"
	"reflect"
)

// route is one operation of the API: how it is served and, from the same entry, how the
// OpenAPI document describes it (openapi.go builds the document from the route table; the
// schemas come from the Go types the handler decodes and returns, schema.go).
type route struct {
	method, path string
	operationID  string
	// handler is set by routes() from serve.
	handler http.HandlerFunc
	serve   endpoint
	// public routes take no key and no rate limit.
	public bool

	tag, summary, description string
	// scope is the scope a key needs ("" for any valid key), as the service checks it.
	scope string
	// status is the success status (default 200) and returns its description;
	// optionalBody lets the body be left out.
	status       int
	returns      string
	optionalBody bool
	// errors are statuses the operation can answer beyond the ones every operation of its
	// kind can (401, 403, 429, 500 with a key; 400, 413, 415 with a body; 400, 409, 413 for
	// POST; 400 with query parameters; 404 with path parameters).
	errors []int
	// createdToo documents 201 as a second success with the same body (an upsert).
	createdToo bool
	// bodyExample and example, when set, replace the examples made from the types' fields:
	// values of the request and response types.
	bodyExample, example any
}

// endpoint is a handler with the Go types of its input (nil: none; its path and query
// parameters, schema_params.go), its request body (nil: none) and its response.
type endpoint struct {
	input, body, response reflect.Type
	handler               func(a *api, rt route) http.HandlerFunc
}

// call serves a handler that takes no body: it returns the response object (written with
// the route's status) or an error (written as the error envelope).
func call[Out any](h func(*http.Request) (Out, error)) endpoint {
	return endpoint{response: reflect.TypeFor[Out](), handler: func(a *api, rt route) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if err := knownQuery(r, nil); err != nil {
				a.error(w, r, err)
				return
			}
			if rt.method != http.MethodGet && rt.method != http.MethodDelete {
				if err := decodeNone(r, nil); err != nil {
					a.error(w, r, err)
					return
				}
			}
			out, err := h(r)
			a.reply(w, r, rt.status, out, err)
		}
	}}
}

// callWith serves a handler whose input In holds the path and query parameters.
func callWith[In, Out any](h func(*http.Request, In) (Out, error)) endpoint {
	t := reflect.TypeFor[In]()
	return endpoint{input: t, response: reflect.TypeFor[Out](), handler: func(a *api, rt route) http.HandlerFunc {
		read := inputReader[In](rt, t, false)
		return func(w http.ResponseWriter, r *http.Request) {
			in, err := read(r)
			if err != nil {
				a.error(w, r, err)
				return
			}
			out, err := h(r, in)
			a.reply(w, r, rt.status, out, err)
		}
	}}
}

// callWithBody serves a handler whose input In holds the parameters and the JSON body, which
// decodes strictly: unknown fields and wrong types are 400 naming the field, a body that is
// not JSON 415 (json.go).
func callWithBody[In, Out any](h func(*http.Request, In) (Out, error)) endpoint {
	t := reflect.TypeFor[In]()
	return endpoint{input: t, body: t, response: reflect.TypeFor[Out](), handler: func(a *api, rt route) http.HandlerFunc {
		read := inputReader[In](rt, t, true)
		return func(w http.ResponseWriter, r *http.Request) {
			in, err := read(r)
			if err != nil {
				a.error(w, r, err)
				return
			}
			out, err := h(r, in)
			a.reply(w, r, rt.status, out, err)
		}
	}}
}

// inputReader returns what reads an operation's input In: the JSON body, when it has one
// (strictly, per decode), then the path and query parameters. Every way of serving an
// operation reads its input through it.
func inputReader[In any](rt route, t reflect.Type, body bool) func(*http.Request) (In, error) {
	decodeBody := decode
	if rt.optionalBody {
		decodeBody = decodeOptional
	}
	if !body && rt.method != http.MethodGet && rt.method != http.MethodDelete {
		decodeBody, body = decodeNone, true // no body: fields sent anyway are refused
	}
	params := paramFields(t)
	return func(r *http.Request) (In, error) {
		var in In
		if body {
			if err := decodeBody(r, &in); err != nil {
				return in, err
			}
		}
		return in, readParams(r, &in, params)
	}
}

// raw serves a plain handler that writes Out itself.
func raw[Out any](h http.HandlerFunc) endpoint {
	return endpoint{response: reflect.TypeFor[Out](), handler: func(*api, route) http.HandlerFunc { return h }}
}

func (a *api) reply(w http.ResponseWriter, r *http.Request, status int, out any, err error) {
	if err != nil {
		a.error(w, r, err)
		return
	}
	writeJSON(w, status, out)
}

// tags group the operations in the document and the console's API reference, in this order.
var tags = []struct{ name, description string }{
	{"Account", "The calling API key and its workspace."},
	{"Models", "The models the workspace can use, in OpenAI's shapes."},
	{"Events", "The workspace's event log: every change, as the same envelope webhooks deliver."},
	{"Instances", "Channel instances: one account on one channel (a sandbox number, later a Telegram bot or a WhatsApp number), its connection and pairing."},
	{"Messages", "Sending and receiving messages through an instance: text, media by URL, locations, contacts, polls, reactions, replies; edits and deletes."},
	{"Chats", "An instance's conversations, with one contact or in one group: unread counts, read receipts, archiving."},
	{"Groups", "Group chats of an instance: create, change subject and members, leave."},
	{"Contacts", "The people an instance talks with: created when someone writes, editable, with labels and attributes."},
	{"Links", "Short links: create and share them, redirect visitors at /l/{slug}, and track clicks with stats and QR codes."},
	{"Webhooks", "Endpoints that receive the workspace's events, signed per the Standard Webhooks specification, and their deliveries."},
	{"Automation", "Workflow tools (Zapier, n8n, Make): inbound publishing endpoints, and outbound subscriptions (REST hooks) that deliver events signed like webhooks."},
	{"Meta", "This description of the API."},
}

// routes is the route table: every /api/v1 operation and its documentation, in one place.
// Path variables use gorilla/mux syntax; {id:.+} lets model ids contain '/'. Descriptions
// are Markdown.
func (a *api) routes() []route {
	routes := []route{
		{
			method: "GET", path: "/api/v1/openapi.json", operationID: "getOpenAPI", serve: raw[openAPIDocument](a.getOpenAPI),
			public: true, tag: "Meta",
			summary:     "Get this OpenAPI document",
			returns:     "The OpenAPI document.",
			description: "The OpenAPI 3.1 description of every `/api/v1` operation. It needs no API key and is not rate limited.",
		},

		{
			method: "GET", path: "/api/v1/me", operationID: "getMe", serve: call(a.getMe),
			tag:     "Account",
			summary: "Get the calling API key",
			returns: "The calling key and its workspace.",
			description: "The API key the request was made with (never its secret) and its workspace. " +
				"Use it to test a connection: it answers for any valid key.",
		},

		{
			method: "GET", path: "/api/v1/models", operationID: "listModels", serve: raw[modelList](a.listModels),
			tag: "Models", scope: "models:read",
			summary: "List models",
			returns: "The model catalog.",
			description: "The models the workspace can use, in exactly OpenAI's list shape, so OpenAI SDKs work with " +
				"base URL `<server>/api/v1`. The catalog is set by the operator.",
		},
		{
			method: "GET", path: "/api/v1/models/{id:.+}", operationID: "getModel", serve: callWith(a.getModel),
			tag: "Models", scope: "models:read",
			summary:     "Get a model",
			returns:     "The model.",
			description: "One model of the catalog, in OpenAI's shape. Model ids may contain `/` and `:` (e.g. `meta/llama-3.1-8b:free`).",
		},

		{
			method: "GET", path: "/api/v1/events", operationID: "listEvents", serve: callWith(a.listEvents),
			tag: "Events", scope: "events:read", errors: []int{410},
			summary: "List events",
			returns: "A page of events.",
			description: "The workspace's events, newest first, in the envelope webhooks deliver. " +
				"Filter by type and time; page with `limit` and `after`.",
		},
		{
			method: "GET", path: "/api/v1/events/{id}", operationID: "getEvent", serve: callWith(a.getEvent),
			tag: "Events", scope: "events:read",
			summary:     "Get an event",
			returns:     "The event.",
			description: "One event of the workspace, in the envelope webhooks deliver.",
		},
		{
			method: "GET", path: "/api/v1/event-types", operationID: "listEventTypes", serve: call(a.listEventTypes),
			tag:     "Events",
			summary: "List event types",
			returns: "Every event type.",
			description: "Every event type with a description and a sample of its `data`, shaped exactly like the live one " +
				"(for building integrations and workflow-tool triggers).",
		},

		{
			method: "GET", path: "/api/v1/channels", operationID: "listChannels", serve: call(a.listChannels),
			tag:     "Instances",
			summary: "List channels",
			returns: "Every channel.",
			description: "The channels instances can be created with (`sandbox`, `telegram`, `whatsapp_cloud`): what each can do " +
				"(message types, receipts, groups, edits) and the config an instance of it takes (write-only fields marked `secret`). " +
				"docs/channels.md explains each.",
		},
		{
			method: "GET", path: "/api/v1/instances", operationID: "listInstances", serve: callWith(a.listInstances),
			tag: "Instances", scope: "instances:read",
			summary:     "List instances",
			returns:     "A page of instances.",
			description: "The workspace's channel instances, newest first. Write-only config values show as `********`.",
		},
		{
			method: "POST", path: "/api/v1/instances", operationID: "createInstance", serve: callWithBody(a.createInstance),
			tag: "Instances", scope: "instances:write", status: http.StatusCreated,
			summary: "Create an instance",
			returns: "The instance: `disconnected`, or `connecting` with `connect: true`.",
			description: "Registers an instance on a channel (default `sandbox`) with the channel's settings. It starts " +
				"`disconnected`; `connect: true` starts connecting at once, as `POST /instances/{id}/connect` does. " +
				"A workspace has at most 100 instances (409 `instance_limit_reached`).",
			bodyExample: createInstanceRequest{Name: "Support line", Config: map[string]any{"auto_pair": true}, Connect: true},
		},
		{
			method: "GET", path: "/api/v1/instances/{id}", operationID: "getInstance", serve: callWith(a.getInstance),
			tag: "Instances", scope: "instances:read",
			summary:     "Get an instance",
			returns:     "The instance.",
			description: "One instance of the workspace, with its status. Poll it (or listen to `instance.status_changed`) to follow a connection.",
		},
		{
			method: "PATCH", path: "/api/v1/instances/{id}", operationID: "updateInstance", serve: callWithNulls(a.updateInstance),
			tag: "Instances", scope: "instances:write",
			summary: "Update an instance",
			returns: "The changed instance.",
			description: "Changes the fields sent and keeps the others. Config keys given replace their values, `null` resets one " +
				"to its default, and a write-only value sent back as `********` is kept.",
			bodyExample: updateInstanceRequest{Config: map[string]any{"echo": true}, MessagesPerSecond: ptr(5)},
		},
		{
			method: "DELETE", path: "/api/v1/instances/{id}", operationID: "deleteInstance", serve: callWith(a.deleteInstance),
			tag: "Instances", scope: "instances:write",
			summary:     "Delete an instance",
			returns:     "The instance is deleted.",
			description: "Logs a connected instance out, then removes it with its messages, chats, groups and contacts. Queued sends are dropped.",
		},
		{
			method: "POST", path: "/api/v1/instances/{id}/connect", operationID: "connectInstance", serve: callWith(a.connectInstance),
			tag: "Instances", scope: "instances:write", status: http.StatusAccepted,
			summary: "Connect an instance",
			returns: "The instance, `connecting`.",
			description: "Starts connecting a `disconnected` or `failed` instance; the channel answers in the background. " +
				"The instance then becomes `pairing` (get the QR code from `GET /instances/{id}/qr`) or, with a session " +
				"(or the sandbox's `auto_pair`), `connected`. An instance whose pairing code expired pairs again; one already connecting, pairing or connected is left as it is.",
		},
		{
			method: "POST", path: "/api/v1/instances/{id}/disconnect", operationID: "disconnectInstance", serve: callWith(a.disconnectInstance),
			tag: "Instances", scope: "instances:write", errors: []int{503},
			summary: "Disconnect an instance",
			returns: "The instance, `disconnected`.",
			description: "Logs the instance out: its session ends, so connecting again pairs again. Its address and history stay; " +
				"queued messages wait until it is connected again.",
		},
		{
			method: "POST", path: "/api/v1/instances/{id}/restart", operationID: "restartInstance", serve: callWith(a.restartInstance),
			tag: "Instances", scope: "instances:write", status: http.StatusAccepted,
			summary:     "Restart an instance",
			returns:     "The instance, `connecting`.",
			description: "Reconnects the instance, keeping its session: no new pairing when it had one.",
		},
		{
			method: "POST", path: "/api/v1/instances/{id}/rotate-callback-token", operationID: "rotateInstanceCallbackToken",
			serve: callWith(a.rotateCallbackToken), tag: "Instances", scope: "instances:write", errors: []int{422},
			summary: "Rotate an instance's callback URL",
			returns: "The instance, with its new `callback_url`.",
			description: "Gives the instance a new callback URL (and a new secret for providers that echo one); the old URL " +
				"answers 404 at once. A connected Telegram instance reconnects and registers the new URL itself; for WhatsApp " +
				"Cloud, paste the new URL in the Meta app's webhook settings. 422 `unsupported_by_channel` for channels that do " +
				"not call back (the sandbox).",
		},
		{
			method: "GET", path: "/api/v1/instances/{id}/qr", operationID: "getInstancePairing", serve: callWith(a.getPairing),
			tag: "Instances", scope: "instances:write", errors: []int{409},
			summary: "Get an instance's pairing QR code",
			returns: "The QR code and pairing code.",
			description: "While the instance is `pairing`: a QR code to scan (a PNG data URL, and its payload) and the same secret " +
				"as a code to type. Otherwise 409 `instance_not_pairing`; 409 `pairing_expired` once the code has expired " +
				"(connect again for a new one). It needs `instances:write`, although it changes nothing: whoever scans the " +
				"code links their phone account to the instance.",
		},
		{
			method: "POST", path: "/api/v1/instances/{id}/sandbox/pair", operationID: "pairSandboxInstance", serve: callWithBody(a.pairInstance),
			tag: "Instances", scope: "instances:write", optionalBody: true, errors: []int{422, 503},
			summary: "Pair a sandbox instance",
			returns: "The instance, `connected`, with its number.",
			description: "Completes pairing as if the QR code had been scanned (on a real channel the user scans it with their phone: 422 " +
				"`unsupported_by_channel`). The instance gets a +1555 number. A `pairing_code`, when sent, must match. " +
				"409 `instance_not_pairing` unless the instance is pairing.",
			bodyExample: pairRequest{PairingCode: "K7QM-3XWD"},
		},
		{
			method: "POST", path: "/api/v1/instances/{id}/sandbox/inbound", operationID: "injectSandboxMessage", serve: callWithBody(a.injectMessage),
			tag: "Instances", scope: "messages:send", status: http.StatusCreated, errors: []int{422},
			summary: "Simulate an inbound message (sandbox)",
			returns: "The received message.",
			description: "Stores a message as if `from` had written to the instance (in `group`, when set), with the same effects as " +
				"a real one: a `message.received` event, the chat's unread count, the sender's contact. For tests and demos; " +
				"other channels answer 422 `unsupported_by_channel`. The instance must be connected (409 `instance_not_connected`).",
			bodyExample: injectMessageRequest{From: "+15557654321", FromName: "Grace Hopper", Text: "Where is my order?"},
		},

		{
			method: "POST", path: "/api/v1/instances/{id}/messages", operationID: "sendMessage", serve: callWithBody(a.sendMessage),
			tag: "Messages", scope: "messages:send", status: http.StatusAccepted, errors: []int{422},
			summary: "Send a message",
			returns: "The message, `queued`.",
			description: "Queues a message and answers at once with it (`status: queued`). It is sent in the background, paced to the " +
				"instance's `messages_per_second` and in order per chat; its status then moves only forward (`sent`, `delivered`, " +
				"`read`) or ends `failed`, each change an event. Set `type` and the one field it names. The instance must be " +
				"connected (409 `instance_not_connected`); a type the channel cannot send is 422 `unsupported_by_channel`. " +
				"Send an `Idempotency-Key` to retry safely: the retry returns the same message.",
			bodyExample: sendMessageRequest{To: "+15551234567", Text: "Your order has shipped."},
		},
		{
			method: "GET", path: "/api/v1/instances/{id}/messages", operationID: "listMessages", serve: callWith(a.listMessages),
			tag: "Messages", scope: "messages:read",
			summary:     "List messages",
			returns:     "A page of messages.",
			description: "The instance's messages, sent and received, newest first. Filter by direction, status, chat, address and time.",
		},
		{
			method: "GET", path: "/api/v1/instances/{id}/messages/{message_id}", operationID: "getMessage", serve: callWith(a.getMessage),
			tag: "Messages", scope: "messages:read",
			summary:     "Get a message",
			returns:     "The message.",
			description: "One message of the instance, with its current status.",
		},
		{
			method: "PATCH", path: "/api/v1/instances/{id}/messages/{message_id}", operationID: "editMessage", serve: callWithBody(a.editMessage),
			tag: "Messages", scope: "messages:send", errors: []int{409, 422, 503},
			summary: "Edit a message",
			returns: "The edited message.",
			description: "Changes the text of a sent outbound text message, on the channel and here (`edited_at` is set). A message " +
				"that is queued, failed, deleted, inbound or not text is 409 `message_not_changeable`.",
		},
		{
			method: "DELETE", path: "/api/v1/instances/{id}/messages/{message_id}", operationID: "deleteMessage", serve: callWith(a.deleteMessage),
			tag: "Messages", scope: "messages:send", errors: []int{409, 422, 503},
			summary: "Delete a message for everyone",
			returns: "The message, marked deleted.",
			description: "Deletes a sent outbound message for everyone, on the channel and here. It stays listed with `deleted_at` set. " +
				"A message that is queued, failed, inbound or already deleted is 409 `message_not_changeable`.",
		},
		{
			method: "POST", path: "/api/v1/instances/{id}/typing", operationID: "sendTyping", serve: callWithBody(a.sendTyping),
			tag: "Messages", scope: "messages:send", status: http.StatusAccepted, errors: []int{409, 422, 503},
			summary: "Show a typing indicator",
			returns: "The indicator was handed to the channel.",
			description: "Shows `composing` (typing) or `recording` in a chat for a few seconds, or stops it (`paused`). Nothing is stored " +
				"and no event is recorded. The instance must be connected (409 `instance_not_connected`). WhatsApp Cloud shows it only " +
				"in answer to the newest message received in the chat, which it marks read (the chat is marked read here too); " +
				"with nothing received it is 409 `no_received_message`.",
			bodyExample: typingRequest{To: "+15551234567", State: "composing"},
		},

		{
			method: "GET", path: "/api/v1/instances/{id}/chats", operationID: "listChats", serve: callWith(a.listChats),
			tag: "Chats", scope: "messages:read",
			summary: "List chats",
			returns: "A page of chats.",
			description: "The instance's conversations, each with its latest message and unread count: the chat with the latest " +
				"message first (`sort=last_message`, the default, as a phone lists them; a chat without messages counts from its " +
				"creation), or the newest chat first (`sort=created`). `archived` filters. While you page the activity order, a " +
				"chat that gets a message moves to the top: it is never listed twice, but one the pass had not reached yet shows " +
				"in the next pass, not on the following pages; `sort=created` pages never skip or repeat a chat. A cursor " +
				"works only with the sort that made it (400 `validation_failed`, `param: after`).",
		},
		{
			method: "GET", path: "/api/v1/instances/{id}/chats/{chat_id}", operationID: "getChat", serve: callWith(a.getChat),
			tag: "Chats", scope: "messages:read",
			summary:     "Get a chat",
			returns:     "The chat.",
			description: "One conversation of the instance.",
		},
		{
			method: "PATCH", path: "/api/v1/instances/{id}/chats/{chat_id}", operationID: "updateChat", serve: callWithBody(a.updateChat),
			tag: "Chats", scope: "messages:send",
			summary:     "Archive or unarchive a chat",
			returns:     "The changed chat.",
			description: "Archives or unarchives the chat (a `chat.updated` event). A new message unarchives it.",
			bodyExample: updateChatRequest{Archived: ptr(true)},
		},
		{
			method: "POST", path: "/api/v1/instances/{id}/chats/{chat_id}/read", operationID: "markChatRead", serve: callWith(a.markChatRead),
			tag: "Chats", scope: "messages:send",
			summary: "Mark a chat read",
			returns: "The chat, with no unread messages.",
			description: "Marks the chat's received messages `read` here and, where the channel tells senders, sends read receipts " +
				"(on the sandbox, another instance's messages become `read`).",
		},

		{
			method: "POST", path: "/api/v1/instances/{id}/groups", operationID: "createGroup", serve: callWithBody(a.createGroup),
			tag: "Groups", scope: "groups:write", status: http.StatusCreated, errors: []int{422, 503},
			summary: "Create a group",
			returns: "The group.",
			description: "Creates a group on the channel with the instance as admin and the participants as members (on the sandbox, " +
				"member instances learn of it: `group.created`). Send to it with `to` set to its `grp_…` id. The instance must be connected.",
			bodyExample: createGroupRequest{Subject: "Launch team", Description: "Release coordination", Participants: []string{"+15551234567"}},
		},
		{
			method: "GET", path: "/api/v1/instances/{id}/groups", operationID: "listGroups", serve: callWith(a.listGroups),
			tag: "Groups", scope: "groups:read",
			summary:     "List groups",
			returns:     "A page of groups.",
			description: "The groups the instance created, was added to, or has left, newest first.",
		},
		{
			method: "GET", path: "/api/v1/instances/{id}/groups/{group_id}", operationID: "getGroup", serve: callWith(a.getGroup),
			tag: "Groups", scope: "groups:read",
			summary:     "Get a group",
			returns:     "The group.",
			description: "One group of the instance, with its members.",
		},
		{
			method: "PATCH", path: "/api/v1/instances/{id}/groups/{group_id}", operationID: "updateGroup", serve: callWithNulls(a.updateGroup),
			tag: "Groups", scope: "groups:write", errors: []int{409, 422, 503},
			summary:     "Update a group",
			returns:     "The changed group.",
			description: "Changes the group's subject or description on the channel. A group the instance has left is 409 `group_left`.",
			bodyExample: updateGroupRequest{Subject: ptr("Launch team (v2)")},
		},
		{
			method: "POST", path: "/api/v1/instances/{id}/groups/{group_id}/participants", operationID: "changeGroupParticipants", serve: callWithBody(a.changeParticipants),
			tag: "Groups", scope: "groups:write", errors: []int{422, 503},
			summary: "Add or remove group members",
			returns: "The group with its new members.",
			description: "Adds the addresses in `add` as members and removes those in `remove` (a `group.participants_changed` event). " +
				"A group has at most 256 members.",
			bodyExample: participantsRequest{Add: []string{"+15551234568"}},
		},
		{
			method: "POST", path: "/api/v1/instances/{id}/groups/{group_id}/leave", operationID: "leaveGroup", serve: callWith(a.leaveGroup),
			tag: "Groups", scope: "groups:write", errors: []int{422, 503},
			summary:     "Leave a group",
			returns:     "The group, marked left.",
			description: "The instance leaves the group. It stays listed with `left: true` and can no longer be changed or sent to (409 `group_left`).",
		},

		{
			method: "POST", path: "/api/v1/instances/{id}/contacts", operationID: "createContact", serve: callWithBody(a.createContact),
			tag: "Contacts", scope: "contacts:write", status: http.StatusCreated,
			summary: "Create a contact",
			returns: "The contact.",
			description: "Adds a contact to the instance. Contacts are also created when someone new writes. An address the instance " +
				"already has is 409 `contact_exists`.",
			bodyExample: createContactRequest{Address: "+15551234567", Name: ptr("Ada Lovelace"), Labels: &[]string{"vip"}},
		},
		{
			method: "POST", path: "/api/v1/instances/{id}/contacts/check", operationID: "checkContacts", serve: callWithBody(a.checkContacts),
			tag: "Contacts", scope: "contacts:read", errors: []int{422, 503},
			summary: "Check addresses",
			returns: "Whether each address can be messaged, in the order asked.",
			description: "Asks the channel which addresses can be messaged (on the sandbox, every +1555 number but +1555000xxxx). " +
				"Nothing is stored. The instance must be connected.",
		},
		{
			method: "GET", path: "/api/v1/instances/{id}/contacts", operationID: "listContacts", serve: callWith(a.listContacts),
			tag: "Contacts", scope: "contacts:read",
			summary:     "List contacts",
			returns:     "A page of contacts.",
			description: "The instance's contacts, newest first.",
		},
		{
			method: "GET", path: "/api/v1/instances/{id}/contacts/{contact_id}", operationID: "getContact", serve: callWith(a.getContact),
			tag: "Contacts", scope: "contacts:read",
			summary:     "Get a contact",
			returns:     "The contact.",
			description: "One contact of the instance.",
		},
		{
			method: "PATCH", path: "/api/v1/instances/{id}/contacts/{contact_id}", operationID: "updateContact", serve: callWithNulls(a.updateContact),
			tag: "Contacts", scope: "contacts:write",
			summary:     "Update a contact",
			returns:     "The changed contact.",
			description: "Changes the fields sent and keeps the others; `labels` and `attributes`, when sent, replace the old ones. The address stays.",
			bodyExample: updateContactRequest{Labels: &[]string{"vip", "beta"}},
		},
		{
			method: "DELETE", path: "/api/v1/instances/{id}/contacts/{contact_id}", operationID: "deleteContact", serve: callWith(a.deleteContact),
			tag: "Contacts", scope: "contacts:write",
			summary:     "Delete a contact",
			returns:     "The contact is deleted.",
			description: "Removes the contact; it is created again if the address writes again. Its messages stay.",
		},

		{
			method: "GET", path: "/api/v1/webhooks", operationID: "listWebhooks", serve: callWith(a.listWebhooks),
			tag: "Webhooks", scope: "webhooks:read",
			summary:     "List webhook endpoints",
			returns:     "A page of endpoints.",
			description: "The workspace's webhook endpoints, newest first. Signing secrets are never shown here.",
		},
		{
			method: "POST", path: "/api/v1/webhooks", operationID: "createWebhook", serve: callWithBody(a.createWebhook),
			tag: "Webhooks", scope: "webhooks:write", status: http.StatusCreated,
			summary: "Create a webhook endpoint",
			returns: "The endpoint, with its signing secret (shown once).",
			description: "Registers an endpoint that receives the workspace's events of the chosen types (or `*` for all), " +
				"optionally only those of one channel instance. The response holds the signing secret (`whsec_…`) " +
				"this once: store it to verify deliveries. Targets must be public addresses unless the operator allow-lists them.",
			bodyExample: createWebhookRequest{URL: "https://example.com/webhooks/switchboard", Description: "Order system",
				EventTypes: []string{"api_key.created", "api_key.revoked"}},
		},
		{
			method: "GET", path: "/api/v1/webhooks/{id}", operationID: "getWebhook", serve: callWith(a.getWebhook),
			tag: "Webhooks", scope: "webhooks:read",
			summary:     "Get a webhook endpoint",
			returns:     "The endpoint.",
			description: "One endpoint of the workspace (without its secret).",
		},
		{
			method: "PATCH", path: "/api/v1/webhooks/{id}", operationID: "updateWebhook", serve: callWithNulls(a.updateWebhook),
			tag: "Webhooks", scope: "webhooks:write",
			summary: "Update a webhook endpoint",
			returns: "The changed endpoint.",
			description: "Changes the fields sent and keeps the others. `instance_id: null` (or `\"\"`) removes the instance filter. " +
				"Disabling an endpoint fails its pending deliveries (retry them after enabling it again); " +
				"enabling it clears its `disabled_reason`.",
			bodyExample: updateWebhookRequest{EventTypes: &[]string{"*"}, Enabled: ptr(true)},
		},
		{
			method: "DELETE", path: "/api/v1/webhooks/{id}", operationID: "deleteWebhook", serve: callWith(a.deleteWebhook),
			tag: "Webhooks", scope: "webhooks:write",
			summary:     "Delete a webhook endpoint",
			returns:     "The endpoint is deleted.",
			description: "Removes the endpoint and its delivery log; pending deliveries are not sent.",
		},
		{
			method: "POST", path: "/api/v1/webhooks/{id}/rotate-secret", operationID: "rotateWebhookSecret", serve: callWith(a.rotateWebhookSecret),
			tag: "Webhooks", scope: "webhooks:write", errors: []int{409},
			summary: "Rotate a webhook endpoint's signing secret",
			returns: "The endpoint with its new secret.",
			description: "Gives the endpoint a new signing secret, shown this once. The secret it replaces signs every delivery too " +
				"until `previous_secret_expires_at` (24 hours), and so does each secret an earlier rotation replaced, until its " +
				"own expiry, so receivers can switch without missing a message. At most 5 replaced secrets sign at once: " +
				"a rotation beyond that is 409 `rotation_limit_reached`.",
		},
		{
			method: "POST", path: "/api/v1/webhooks/{id}/test", operationID: "testWebhook", serve: callWithBody(a.testWebhook),
			tag: "Webhooks", scope: "webhooks:write", status: http.StatusAccepted, optionalBody: true,
			summary: "Send a test event",
			returns: "The test delivery, queued.",
			description: "Queues a test delivery to this endpoint only, whatever it subscribes to: by default a `webhook.test` " +
				"event whose data is the endpoint, or a sample event of the type given. Test events are not written to the event log.",
		},
		{
			method: "GET", path: "/api/v1/webhooks/{id}/deliveries", operationID: "listWebhookDeliveries", serve: callWith(a.listDeliveries),
			tag: "Webhooks", scope: "webhooks:read", errors: []int{410},
			summary: "List an endpoint's deliveries",
			returns: "A page of deliveries.",
			description: "Deliveries to the endpoint, newest first, each with every attempt: time, status code, latency, " +
				"the first 1 KB of the response body and the error.",
		},
		{
			method: "GET", path: "/api/v1/webhooks/{id}/deliveries/{delivery_id}", operationID: "getWebhookDelivery", serve: callWith(a.getDelivery),
			tag: "Webhooks", scope: "webhooks:read",
			summary:     "Get a delivery",
			returns:     "The delivery.",
			description: "One delivery to the endpoint, with every attempt.",
		},
		{
			method: "POST", path: "/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry", operationID: "retryWebhookDelivery", serve: callWith(a.retryDelivery),
			tag: "Webhooks", scope: "webhooks:write", status: http.StatusAccepted,
			summary: "Retry a delivery",
			returns: "The delivery, queued.",
			description: "Queues one more attempt now. A failed or succeeded delivery gets one attempt; a pending one keeps its " +
				"remaining retries and is brought forward. A disabled endpoint must be enabled first (409 `webhook_disabled`).",
		},
		{
			method: "POST", path: "/api/v1/webhooks/{id}/recover", operationID: "recoverWebhookDeliveries", serve: callWithBody(a.recoverDeliveries),
			tag: "Webhooks", scope: "webhooks:write", status: http.StatusAccepted, errors: []int{409},
			summary: "Recover failed deliveries",
			returns: "How many failed deliveries were queued, and whether more are left.",
			description: "Sends again, now, every failed delivery of the endpoint created in the range, oldest first, at most " +
				"1,000 a call (`has_more`: call again): each gets one more attempt, with the same `webhook-id`, as a manual retry " +
				"gives it. For an endpoint that was down, then enabled again. A disabled endpoint must be enabled first " +
				"(409 `webhook_disabled`).",
			bodyExample: recoverRequest{Since: "2025-04-01T08:00:00Z"},
		},
	}
	routes = append(routes, a.linkRoutes()...)
	routes = append(routes, a.automationRoutes()...)
	routes = append(routes, a.subscriptionRoutes()...)
	for i := range routes {
		if routes[i].status == 0 {
			routes[i].status = http.StatusOK
		}
		routes[i].handler = routes[i].serve.handler(a, routes[i])
	}
	return routes
}

func ptr[T any](v T) *T { return &v }
