// Package graph is Switchboard's GraphQL API: the HTTP and websocket handler, its
// authentication and CSRF protection, and the resolvers, each a thin call into the service.
//
// The executable schema in graph/generated and the types in graph/model (gqlgen's
// models_gen.go) are generated from ../schema.graphqls; regenerate with `go generate ./...`.
package graph

//go:generate go run github.com/99designs/gqlgen generate --config ../gqlgen.yml
