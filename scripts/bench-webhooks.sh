#!/usr/bin/env bash
# Webhook delivery throughput measured from outside, on the real binary (make bench; figures
# in docs/benchmarks.md). PostgreSQL only (several replicas share it):
#
#  1. An API-only replica (SWITCHBOARD_WEBHOOK_WORKERS=0) serves the API: a user, a key and
#     ENDPOINTS webhook endpoints (each a separate loopback receiver answering 200) are created
#     over GraphQL and REST, then wrk POSTs /api/v1/webhooks/{id}/test to each for BUILD_TIME,
#     which queues a backlog of test deliveries that nobody sends.
#  2. A delivering replica (default settings) starts on the same database; the time from its
#     readiness until the jobs table is empty gives deliveries per second.
#
# Settings (environment): ENDPOINTS ("10 1": one run per value), BUILD_TIME (3s),
# BENCH_DATABASE_URL (admin URL; default postgres://postgres@127.0.0.1:5432/postgres),
# SWITCHBOARD_BIN (bin/switchboard, built if missing).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ENDPOINTS="${ENDPOINTS:-10 1}" BUILD_TIME="${BUILD_TIME:-3s}"
admin="${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
for tool in wrk psql curl; do
	command -v "$tool" >/dev/null || { echo "bench-webhooks: $tool is needed" >&2; exit 1; }
done

tmp="$(mktemp -d)"
pids=()
dbs=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	for d in "${dbs[@]}"; do psql -q "$admin" -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null 2>&1 || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

bin="${SWITCHBOARD_BIN:-$root/bin/switchboard}"
[[ -x "$bin" ]] || (cd "$root/backend" && go build -o "$bin" ./cmd/switchboard)
(cd "$root/backend" && go build -o "$tmp/sbbaseline" ./cmd/sbbaseline)
echo '{}' >"$tmp/ok.json"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 200); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.05; done; echo "bench-webhooks: $1 did not answer" >&2; exit 1; }

start_replica() { # db workers → base URL (the replica's pid is appended to pids)
	local port url
	port="$(free_port)"
	url="http://127.0.0.1:$port"
	SWITCHBOARD_ADDR="127.0.0.1:$port" SWITCHBOARD_BASE_URL="$url" DATABASE_URL="$1" \
		SWITCHBOARD_WEBHOOK_WORKERS="$2" SWITCHBOARD_WEBHOOK_ALLOWLIST=127.0.0.1 \
		SWITCHBOARD_RATE_LIMIT=1000000000 SWITCHBOARD_RATE_BURST=1000000000 SWITCHBOARD_LOG_LEVEL=warn \
		"$bin" serve >>"$tmp/replicas.log" 2>&1 &
	pids+=("$!")
	wait_up "$url/readyz"
	REPLICA="$url"
}

cat >"$tmp/post.lua" <<'EOF'
wrk.method = "POST"
wrk.body = "{}"
wrk.headers["Content-Type"] = "application/json"
EOF

printf '%-10s %10s %10s %14s\n' endpoints deliveries seconds deliveries/s
for n in $ENDPOINTS; do
	db="sbbench_wh_$RANDOM$RANDOM"
	dbs+=("$db")
	psql -q "$admin" -c "CREATE DATABASE $db" >/dev/null
	dburl="$(sed -E "s#/[^/?]*(\?|$)#/$db\1#" <<<"${admin#postgres://}")"
	dburl="postgres://$dburl"

	start_replica "$dburl" 0
	api="$REPLICA"
	jar="$tmp/cookies.$n"
	gql() { curl -fsS -b "$jar" -c "$jar" -H 'Content-Type: application/json' -H "Origin: $api" -d "$1" "$api/graphql"; }
	gql '{"query":"mutation { signUp(input: {email: \"bench@example.com\", password: \"benchmark password\", name: \"Bench\"}) { user { id } } }"}' >/dev/null
	gql '{"query":"mutation { ensureWorkspace { id } }"}' >/dev/null
	key="$(gql '{"query":"mutation { createApiKey(input: {name: \"bench\", scopes: [\"webhooks:read\", \"webhooks:write\"]}) { secret } }"}' |
		sed -n 's/.*"secret":"\([^"]*\)".*/\1/p')"
	[[ -n "$key" ]] || { echo "bench-webhooks: could not create a key" >&2; exit 1; }
	hooks=()
	for i in $(seq "$n"); do
		port="$(free_port)"
		"$tmp/sbbaseline" -addr "127.0.0.1:$port" -body "$tmp/ok.json" >/dev/null &
		pids+=("$!")
		wait_up "http://127.0.0.1:$port/"
		id="$(curl -fsS -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
			-d "{\"url\":\"http://127.0.0.1:$port/hook\",\"event_types\":[\"api_key.revoked\"]}" "$api/api/v1/webhooks" |
			sed -n 's/.*"id":"\(wh_[^"]*\)".*/\1/p')"
		[[ -n "$id" ]] || { echo "bench-webhooks: could not create an endpoint" >&2; exit 1; }
		hooks+=("$id")
	done
	# The backlog: test deliveries queued through the API, nobody sending them yet.
	loaders=()
	for id in "${hooks[@]}"; do
		wrk -t1 -c4 -d"$BUILD_TIME" -s "$tmp/post.lua" -H "Authorization: Bearer $key" "$api/api/v1/webhooks/$id/test" >/dev/null &
		loaders+=("$!")
	done
	wait "${loaders[@]}"
	# Deliveries only: the jobs table also holds the retention job, which is never empty.
	total="$(psql -qtA "$dburl" -c "SELECT count(*) FROM jobs WHERE kind = 'webhook.delivery' AND status = 'queued'")"

	start_replica "$dburl" 64
	t0="$(date +%s.%N)"
	while [[ "$(psql -qtA "$dburl" -c "SELECT count(*) FROM jobs WHERE kind = 'webhook.delivery'")" != 0 ]]; do sleep 0.05; done
	t1="$(date +%s.%N)"
	ok="$(psql -qtA "$dburl" -c "SELECT count(*) FROM webhook_deliveries WHERE status = 'succeeded'")"
	[[ "$ok" == "$total" ]] || { echo "bench-webhooks: $ok of $total deliveries succeeded" >&2; exit 1; }
	awk -v n="$n" -v d="$total" -v a="$t0" -v b="$t1" 'BEGIN { printf "%-10s %10d %10.2f %14.0f\n", n, d, b - a, d / (b - a) }'
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	pids=()
done
