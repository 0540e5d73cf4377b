package rest

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/switchboard-dev/switchboard/backend/service"
)

// NewWithRouter is New that also returns the mux router, so tests can walk the route table
// and match requests to the routes that served them.
func NewWithRouter(svc *service.Service, opts Options) (http.Handler, *mux.Router) {
	a := newAPI(svc, opts)
	return a.handler, a.router
}
