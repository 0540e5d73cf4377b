package graph

import (
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
)

// getQueries is gqlgen's GET transport, except for a mutation or subscription sent by GET:
// gqlgen answers that 406 with a bare message; GraphQL over HTTP says 405, and our clients
// read every error's extensions.code, so the refusal is written as the other transport
// errors are (405, Allow: GET, POST, code INVALID, reason method_not_allowed).
type getQueries struct{ transport.GET }

func (g getQueries) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	g.GET.Do(&notQueryRefusal{ResponseWriter: w}, r, exec)
}

// notQueryRefusal rewrites gqlgen's 406 (the one answer its GET transport gives that
// status: an operation that is not a query) and drops the body gqlgen writes after it.
type notQueryRefusal struct {
	http.ResponseWriter
	refused bool
}

var errNotQuery = transportError("INVALID", "method_not_allowed",
	"GET requests may only run queries; send mutations with POST")

func (w *notQueryRefusal) WriteHeader(status int) {
	if status != http.StatusNotAcceptable {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.refused = true
	w.Header().Set("Allow", "GET, POST")
	writeErrors(w.ResponseWriter, http.StatusMethodNotAllowed, errNotQuery)
}

func (w *notQueryRefusal) Write(b []byte) (int, error) {
	if w.refused {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}
