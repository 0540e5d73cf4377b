#!/usr/bin/env bash
# Messaging benchmarks on the real binary and PostgreSQL (make bench; figures in
# docs/benchmarks.md):
#
#  1. Accepted sends per second: wrk POSTs /api/v1/instances/{id}/messages (each request a
#     text to one of 1,000 numbers, so to 1,000 chats) with CONNS connections for DURATION,
#     against a connected sandbox instance; every 202 is a message stored as queued with its
#     event and its send job, committed. Baseline in the same run: sbbaseline -database-url,
#     a bare net/http server committing one row per POST in its own transaction (the floor
#     of "accepted durably" on this database), loaded identically. Rounds alternate.
#  2. Send latency at a steady RATE below the instance's pace: sbsendlatency sends for
#     LATENCY_TIME, waits for every message to be delivered by the sandbox's simulated peer
#     (delivered_after_ms 0), and prints p50/p99 of send→sent and send→delivered from the
#     messages' own times.
#
# Settings (environment): ROUNDS (3), DURATION (10s), THREADS (2), CONNS (64), RATE (100), CHATS (20),
# LATENCY_TIME (10s), BENCH_DATABASE_URL (admin URL; default
# postgres://postgres@127.0.0.1:5432/postgres), SWITCHBOARD_BIN (bin/switchboard, built if
# missing).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ROUNDS="${ROUNDS:-3}" DURATION="${DURATION:-10s}" THREADS="${THREADS:-2}" CONNS="${CONNS:-64}"
RATE="${RATE:-100}" CHATS="${CHATS:-20}" LATENCY_TIME="${LATENCY_TIME:-10s}"
admin="${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
for tool in wrk psql curl python3; do
	command -v "$tool" >/dev/null || { echo "bench-messages: $tool is needed" >&2; exit 1; }
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
(cd "$root/backend" && go build -o "$tmp/sbbaseline" ./cmd/sbbaseline && go build -o "$tmp/sbsendlatency" ./cmd/sbsendlatency)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 200); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.05; done; echo "bench-messages: $1 did not answer" >&2; exit 1; }
new_db() { # → a fresh database's URL in DBURL
	local db="sbbench_msg_$RANDOM$RANDOM"
	dbs+=("$db")
	psql -q "$admin" -c "CREATE DATABASE $db" >/dev/null
	DBURL="postgres://$(sed -E "s#/[^/?]*(\?|$)#/$db\1#" <<<"${admin#postgres://}")"
}

new_db
sb_port="$(free_port)"
sb="http://127.0.0.1:$sb_port"
SWITCHBOARD_ADDR="127.0.0.1:$sb_port" SWITCHBOARD_BASE_URL="$sb" DATABASE_URL="$DBURL" \
	SWITCHBOARD_RATE_LIMIT=1000000000 SWITCHBOARD_RATE_BURST=1000000000 SWITCHBOARD_LOG_LEVEL=warn \
	"$bin" serve >"$tmp/switchboard.log" 2>&1 &
pids+=("$!")
wait_up "$sb/readyz"

new_db
base_port="$(free_port)"
echo '{"object":"message","status":"queued"}' >"$tmp/accepted.json"
"$tmp/sbbaseline" -addr "127.0.0.1:$base_port" -body "$tmp/accepted.json" -database-url "$DBURL" >/dev/null &
pids+=("$!")
wait_up "http://127.0.0.1:$base_port/"

# A user, a workspace and a key through GraphQL as the console does; instances over REST.
jar="$tmp/cookies"
gql() { curl -fsS -b "$jar" -c "$jar" -H 'Content-Type: application/json' -H "Origin: $sb" -d "$1" "$sb/graphql"; }
gql '{"query":"mutation { signUp(input: {email: \"bench@example.com\", password: \"benchmark password\", name: \"Bench\"}) { user { id } } }"}' >/dev/null
gql '{"query":"mutation { ensureWorkspace { id } }"}' >/dev/null
key="$(gql '{"query":"mutation { createApiKey(input: {name: \"bench\", scopes: [\"*\"]}) { secret } }"}' |
	sed -n 's/.*"secret":"\([^"]*\)".*/\1/p')"
[[ -n "$key" ]] || { echo "bench-messages: could not create a key" >&2; exit 1; }
api() { curl -fsS -H "Authorization: Bearer $key" -H 'Content-Type: application/json' "$@"; }
instance() { # name config-json → id of a connected sandbox instance
	local id
	id="$(api -d "{\"name\":\"$1\",\"config\":$2,\"connect\":true}" "$sb/api/v1/instances" | sed -n 's/.*"id":"\(inst_[^"]*\)".*/\1/p')"
	[[ -n "$id" ]] || { echo "bench-messages: could not create an instance" >&2; exit 1; }
	for _ in $(seq 200); do
		api "$sb/api/v1/instances/$id" | grep -q '"status":"connected"' && { echo "$id"; return; }
		sleep 0.05
	done
	echo "bench-messages: instance $id did not connect" >&2
	exit 1
}
blast="$(instance blast '{"auto_pair":true}')"

cat >"$tmp/send.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local n = 0
request = function()
	n = n + 1
	return wrk.format(nil, nil, nil, string.format('{"to":"+1555%07d","text":"Your code is %d"}', 2000000 + n % 1000, n))
end
EOF
rate() { # url → requests/s (non-2xx responses fail the run)
	local out
	out="$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" -s "$tmp/send.lua" -H "Authorization: Bearer $key" "$1")"
	if grep -q "Non-2xx" <<<"$out"; then echo "bench-messages: errors from $1:" >&2; echo "$out" >&2; exit 1; fi
	awk '/Requests\/sec/ { print $2 }' <<<"$out"
}

echo "accepted sends: wrk -t$THREADS -c$CONNS -d$DURATION POST /api/v1/instances/{id}/messages vs one committed INSERT per POST"
printf '%-6s %16s %16s %8s\n' round switchboard/s baseline/s ratio
for r in $(seq "$ROUNDS"); do
	s="$(rate "$sb/api/v1/instances/$blast/messages")"
	b="$(rate "http://127.0.0.1:$base_port/")"
	awk -v r="$r" -v s="$s" -v b="$b" 'BEGIN { printf "%-6s %16.0f %16.0f %8.2f\n", r, s, b, s / b }'
done

paced="$(instance paced '{"auto_pair":true,"delivered_after_ms":0}')"
api -X PATCH -d "{\"messages_per_second\":$((RATE * 2))}" "$sb/api/v1/instances/$paced" >/dev/null
echo "latency: $RATE messages/s to $CHATS chats for $LATENCY_TIME through an instance paced at $((RATE * 2))/s (the blast backlog still sending at 20/s)"
"$tmp/sbsendlatency" -base "$sb" -key "$key" -instance "$paced" -rate "$RATE" -chats "$CHATS" -duration "$LATENCY_TIME"
