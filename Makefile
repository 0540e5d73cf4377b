# Switchboard: `make run` to try it, `make test` to test everything.
SHELL := /bin/bash
GO ?= go
BIN := bin/switchboard
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# staticcheck: the one on PATH, else the pinned version in Go's bin directory (installed by
# `make lint` when missing; .ci/run pins the same version).
STATICCHECK_VERSION := v0.7.0
GOBIN_DIR := $(or $(shell $(GO) env GOBIN),$(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin)
STATICCHECK ?= $(or $(shell command -v staticcheck),$(GOBIN_DIR)/staticcheck)

.PHONY: run build frontend backend test test-go test-frontend test-e2e generate check-generated lint bench soak clean

## run: build the console and the binary, start on SQLite in ./data (DATABASE_URL=postgres://… for PostgreSQL)
run: build
	./$(BIN) serve

## build: the console (embedded) and bin/switchboard
build: frontend backend

frontend/node_modules: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	@touch frontend/node_modules

frontend: frontend/node_modules
	rm -rf backend/web/dist/assets backend/web/dist/index.html
	cd frontend && npm run build

backend:
	cd backend && $(GO) build -ldflags "-X main.version=$(VERSION)" -o ../$(BIN) ./cmd/switchboard

## test: every test — Go (SQLite and PostgreSQL), console unit tests, browser end-to-end tests
test: build test-go test-frontend test-e2e

test-go:
	cd backend && $(GO) test -race -count=1 ./...
	cd graph && $(GO) test -race -count=1 ./...

test-frontend: frontend/node_modules
	cd frontend && npm test

test-e2e: build
	cd frontend && SWITCHBOARD_BIN=../$(BIN) npm run test:e2e

## generate: regenerate gqlgen code and the console's typed operations from schema.graphqls
generate: frontend/node_modules
	cd graph && $(GO) generate ./...
	cd frontend && npm run codegen

## check-generated: fail when generated code differs from what is committed
check-generated: generate
	@git diff --exit-code -- graph frontend/src || (echo "generated code is out of date: run make generate and commit" && exit 1)

## lint: gofmt, go vet, staticcheck (installed when missing), eslint and tsc
lint: frontend/node_modules $(STATICCHECK)
	@test -z "$$(gofmt -l backend graph)" || (gofmt -l backend graph && exit 1)
	cd backend && $(GO) vet ./... && $(STATICCHECK) ./...
	cd graph && $(GO) vet ./... && $(STATICCHECK) ./...
	cd frontend && npm run lint

$(STATICCHECK):
	GOBIN=$(abspath $(dir $(STATICCHECK))) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

## bench: load benchmarks against baselines (see docs/benchmarks.md)
bench: build
	cd backend && $(GO) test -run '^$$' -bench . -benchtime 3s ./rest/ 2>&1 | tee ../bench.out
	cd backend && $(GO) test -run '^$$' -bench 'Throughput|Baseline' -benchtime 20000x ./webhook/ 2>&1 | tee -a ../bench.out
	cd backend && $(GO) test -run '^$$' -bench Latency -benchtime 1x ./webhook/ 2>&1 | tee -a ../bench.out
	cd graph && $(GO) test -run '^$$' -bench DocumentLimits . 2>&1 | tee -a ../bench.out
	./scripts/bench-load.sh
	./scripts/bench-webhooks.sh
	./scripts/bench-messages.sh
	./scripts/bench-links.sh
	./scripts/bench-hooks.sh
	cd backend && $(GO) run ./cmd/sbfanout -bin ../$(BIN) -clients $${FANOUT_CLIENTS:-1000}

## soak: mixed traffic on every surface for SOAK_SECONDS (default 600) against the binary on a PostgreSQL of its own, restarted and stopped part-way; checks nothing is lost (needs PostgreSQL's server package: initdb, pg_ctl)
soak: build
	cd backend && $(GO) run ./cmd/sbsoak -bin ../$(BIN) -seconds $${SOAK_SECONDS:-600} $(SOAK_FLAGS)

clean:
	rm -rf bin data backend/web/dist/assets backend/web/dist/index.html
