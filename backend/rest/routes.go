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
	}
}
