package rest

import "net/http"

// route is one operation of the API. Its operationID names it in the OpenAPI document.
type route struct {
	method, path string
	operationID  string
	handler      http.HandlerFunc
	// public routes take no key and no rate limit.
	public bool
}

// routes is the route table: every /api/v1 operation, in one place. Path variables use
// gorilla/mux syntax; {id:.+} lets model ids contain '/'.
func (a *api) routes() []route {
	return []route{
		{method: "GET", path: "/api/v1/openapi.json", operationID: "getOpenAPI", handler: a.getOpenAPI, public: true},

		{method: "GET", path: "/api/v1/me", operationID: "getMe", handler: a.getMe},

		{method: "GET", path: "/api/v1/models", operationID: "listModels", handler: a.listModels},
		{method: "GET", path: "/api/v1/models/{id:.+}", operationID: "getModel", handler: a.getModel},

		{method: "GET", path: "/api/v1/events", operationID: "listEvents", handler: a.listEvents},
		{method: "GET", path: "/api/v1/events/{id}", operationID: "getEvent", handler: a.getEvent},
		{method: "GET", path: "/api/v1/event-types", operationID: "listEventTypes", handler: a.listEventTypes},

		{method: "GET", path: "/api/v1/webhooks", operationID: "listWebhooks", handler: a.listWebhooks},
		{method: "POST", path: "/api/v1/webhooks", operationID: "createWebhook", handler: a.createWebhook},
		{method: "GET", path: "/api/v1/webhooks/{id}", operationID: "getWebhook", handler: a.getWebhook},
		{method: "PATCH", path: "/api/v1/webhooks/{id}", operationID: "updateWebhook", handler: a.updateWebhook},
		{method: "DELETE", path: "/api/v1/webhooks/{id}", operationID: "deleteWebhook", handler: a.deleteWebhook},
		{method: "POST", path: "/api/v1/webhooks/{id}/rotate-secret", operationID: "rotateWebhookSecret", handler: a.rotateWebhookSecret},
		{method: "POST", path: "/api/v1/webhooks/{id}/test", operationID: "testWebhook", handler: a.testWebhook},
		{method: "GET", path: "/api/v1/webhooks/{id}/deliveries", operationID: "listWebhookDeliveries", handler: a.listDeliveries},
		{method: "GET", path: "/api/v1/webhooks/{id}/deliveries/{delivery_id}", operationID: "getWebhookDelivery", handler: a.getDelivery},
		{method: "POST", path: "/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry", operationID: "retryWebhookDelivery", handler: a.retryDelivery},
	}
}
