module github.com/switchboard-dev/switchboard/graph

go 1.26.8

require (
	github.com/99designs/gqlgen v0.17.95
	github.com/gorilla/websocket v1.5.3
)

require (
	github.com/agnivade/levenshtein v1.2.2 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/sosodev/duration v1.4.0 // indirect
	github.com/vektah/gqlparser/v2 v2.5.64 // indirect
	golang.org/x/sync v0.24.0 // indirect
)

replace github.com/switchboard-dev/switchboard/backend => ../backend
