#!/usr/bin/env bash
# Inbound publishing benchmark on the real binary and PostgreSQL (make bench; figures in
# docs/benchmarks.md, "Automation: inbound publishing"). Every request is a POST of a JSON
# order of about 300 bytes without Idempotency-Key (so each 202 is one new call) to
# /hooks/{token} of
#   - "none": an endpoint without verification, schema or action, or
#   - "link": an endpoint whose action creates a short link from the payload (create_link,
#     url/title/metadata templates), so each 202 also queues a run for the replica's action
#     workers,
# or to the baseline, sbbaseline -database-url: a bare net/http server that commits one row
# per POST in its own transaction (the floor of "accepted durably" on this database).
#
#  1. Latency at a fixed rate. wrk keeps CONNS requests in flight, so its mean latency is
#     CONNS / throughput whatever the server does (Little's law); sbrate instead sends RATE
#     POSTs a second (each value in turn) for LATENCY_TIME over CONNS connections on a
#     schedule and measures each from its scheduled time (no coordinated omission), to "none"
#     and to the baseline.
#  2. Accepted calls per second: wrk -t$THREADS -c$CONNS -d$DURATION --latency (an outside
#     load generator) on none, baseline and link in turn, ROUNDS times. Each line prints
#     wrk's requests/s, the 202s it counted, its p50/p99, the server's CPU per call, and the
#     calls PostgreSQL holds for the endpoint (SELECT count(*) FROM automation_calls) against
#     the 202s counted: a request in flight when wrk stops may be stored without wrk counting
#     its answer, so stored − counted is between 0 and CONNS a run; anything else fails the
#     script. After each link run the script waits (up to DRAIN) until its action runs are
#     done and prints how fast they finished, so that one round's backlog never loads the
#     next; at the end, how many runs succeeded, failed or are still queued.
#
# Settings (environment): ROUNDS (3), DURATION (10s), THREADS (2), CONNS (64), DRAIN (120s),
# RATE ("1000 3000"), LATENCY_TIME (10s),
# BENCH_DATABASE_URL (admin URL; default postgres://postgres@127.0.0.1:5432/postgres; the
# script makes and drops its own database), SWITCHBOARD_BIN (bin/switchboard, built if
# missing), PPROF_ADDR (e.g. 127.0.0.1:6060: the server serves Go's profiles there;
# go tool pprof -top -seconds 5 http://$PPROF_ADDR/debug/pprof/profile during a run).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ROUNDS="${ROUNDS:-3}" DURATION="${DURATION:-10s}" THREADS="${THREADS:-2}" CONNS="${CONNS:-64}" DRAIN="${DRAIN:-120s}"
RATE="${RATE:-1000 3000}" LATENCY_TIME="${LATENCY_TIME:-10s}"
admin="${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
for tool in wrk psql curl python3; do
	command -v "$tool" >/dev/null || { echo "bench-hooks: $tool is needed" >&2; exit 1; }
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
(cd "$root/backend" && go build -o "$tmp/sbbaseline" ./cmd/sbbaseline && go build -o "$tmp/sbrate" ./cmd/sbrate)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 200); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.05; done; echo "bench-hooks: $1 did not answer" >&2; exit 1; }
new_db() { # → a fresh database's URL in DBURL
	local db="sbbench_hooks_$RANDOM$RANDOM"
	dbs+=("$db")
	psql -q "$admin" -c "CREATE DATABASE $db" >/dev/null
	DBURL="postgres://$(sed -E "s#/[^/?]*(\?|$)#/$db\1#" <<<"${admin#postgres://}")"
}

new_db
sbdb="$DBURL"
sb_port="$(free_port)"
sb="http://127.0.0.1:$sb_port"
SWITCHBOARD_ADDR="127.0.0.1:$sb_port" SWITCHBOARD_BASE_URL="$sb" DATABASE_URL="$sbdb" \
	SWITCHBOARD_RATE_LIMIT=1000000000 SWITCHBOARD_RATE_BURST=1000000000 SWITCHBOARD_LOG_LEVEL=warn \
	SWITCHBOARD_PPROF_ADDR="${PPROF_ADDR:-}" \
	"$bin" serve >"$tmp/switchboard.log" 2>&1 &
sb_pid=$!
pids+=("$sb_pid")
wait_up "$sb/readyz"

new_db
base_port="$(free_port)"
echo '{"id":"evt_01jr8d0c3b5n7q9s1u3w5y7a9c","object":"automation_call"}' >"$tmp/accepted.json"
"$tmp/sbbaseline" -addr "127.0.0.1:$base_port" -body "$tmp/accepted.json" -database-url "$DBURL" >/dev/null &
base_pid=$!
pids+=("$base_pid")
wait_up "http://127.0.0.1:$base_port/"

# A user, a workspace and a key through GraphQL as the console does; endpoints over REST.
jar="$tmp/cookies"
gql() { curl -fsS -b "$jar" -c "$jar" -H 'Content-Type: application/json' -H "Origin: $sb" -d "$1" "$sb/graphql"; }
gql '{"query":"mutation { signUp(input: {email: \"bench@example.com\", password: \"benchmark password\", name: \"Bench\"}) { user { id } } }"}' >/dev/null
gql '{"query":"mutation { ensureWorkspace { id } }"}' >/dev/null
key="$(gql '{"query":"mutation { createApiKey(input: {name: \"bench\", scopes: [\"*\"]}) { secret } }"}' |
	sed -n 's/.*"secret":"\([^"]*\)".*/\1/p')"
[[ -n "$key" ]] || { echo "bench-hooks: could not create a key" >&2; exit 1; }
api() { curl -fsS -H "Authorization: Bearer $key" -H 'Content-Type: application/json' "$@"; }
endpoint() { # body → "id url"
	local out
	out="$(api -d "$1" "$sb/api/v1/automation/endpoints")"
	python3 -c 'import json,sys; e=json.load(sys.stdin); print(e["id"], e["url"])' <<<"$out"
}
read -r none_id none_url < <(endpoint '{"name":"bench: no action"}')
read -r link_id link_url < <(endpoint '{"name":"bench: create_link","action":{"type":"create_link",
	"url":"{{payload.tracking_url}}","title":"Order {{payload.order_id}} for {{payload.customer.name}}",
	"metadata":{"order":"{{payload.order_id}}","source":"{{endpoint.name}}"}}}')

# About 300 bytes of JSON, a different order each request.
cat >"$tmp/publish.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local n = 0
local threads = 0
function setup(thread)
	threads = threads + 1
	thread:set("tid", threads)
end
request = function()
	n = n + 1
	local id = string.format("%d-%08d", tid or 0, n)
	return wrk.format(nil, nil, nil, string.format(
		'{"order_id":"A-%s","status":"paid","total":%d.%02d,"currency":"EUR",' ..
		'"customer":{"name":"Ada Lovelace","email":"ada.%s@example.com","phone":"+1555%07d"},' ..
		'"items":[{"sku":"TEA-%d","qty":%d,"price":12.50},{"sku":"MUG-2","qty":1,"price":9.90}],' ..
		'"tracking_url":"https://carrier.example/track/1Z%s"}',
		id, 10 + n % 90, n % 100, id, n % 10000000, n % 50, 1 + n % 3, id))
end
EOF

# load label url → "req/s 202s p50ms p99ms" (wrk's report kept in $tmp/wrk-<label>.txt)
load() {
	local out
	out="$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -s "$tmp/publish.lua" "$2")"
	echo "$out" >>"$tmp/wrk-$1.txt"
	python3 - "$out" <<'EOF'
import re, sys
out = sys.argv[1]
def ms(v):
    m = re.match(r"([\d.]+)(us|ms|s)", v)
    return float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
total = int(re.search(r"(\d+) requests in", out).group(1))
non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
bad = int(non2xx.group(1)) if non2xx else 0
errs = re.search(r"Socket errors: (.*)", out)
p50 = ms(re.search(r"\s50%\s+(\S+)", out).group(1))
p99 = ms(re.search(r"\s99%\s+(\S+)", out).group(1))
print(f"{rps:.0f} {total - bad} {p50:.2f} {p99:.2f} {bad} {errs.group(1).replace(' ', '') if errs else '-'}")
EOF
}
# CPU time (user + system, clock ticks) a process has used.
hz="$(getconf CLK_TCK 2>/dev/null || echo 100)"
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
stored() { psql -qtA "$sbdb" -c "SELECT count(*) FROM automation_calls WHERE endpoint_id = '$1'"; }

# The fixed-rate body: one order of the same shape as the Lua script's.
printf '%s' '{"order_id":"A-1-00000001","status":"paid","total":11.01,"currency":"EUR","customer":{"name":"Ada Lovelace","email":"ada.1-00000001@example.com","phone":"+15550000001"},"items":[{"sku":"TEA-1","qty":2,"price":12.50},{"sku":"MUG-2","qty":1,"price":9.90}],"tracking_url":"https://carrier.example/track/1Z1-00000001"}' >"$tmp/order.json"
echo "latency at a fixed rate: sbrate -conns $CONNS -duration $LATENCY_TIME -body ($(wc -c <"$tmp/order.json") bytes), measured from each request's scheduled time"
for rate in $RATE; do
	"$tmp/sbrate" -url "$none_url" -body "$tmp/order.json" -status 202 -rate "$rate" -conns "$CONNS" -duration "$LATENCY_TIME" -label "none     $rate/s" || true
	"$tmp/sbrate" -url "http://127.0.0.1:$base_port/" -body "$tmp/order.json" -status 202 -rate "$rate" -conns "$CONNS" -duration "$LATENCY_TIME" -label "baseline $rate/s" || true
done

# drain: wait (up to DRAIN) until the link endpoint has no queued run, and print how fast
# the runs finished once the load stopped (so that one round's backlog does not load the next).
runs() { psql -qtA "$sbdb" -c "SELECT count(*) FILTER (WHERE status = 'queued') FROM automation_runs WHERE endpoint_id = '$link_id'"; }
drain() {
	local q0 q start deadline took
	q0="$(runs)" start="$(date +%s)" deadline=$(($(date +%s) + ${DRAIN%s}))
	while :; do
		q="$(runs)"
		((q == 0 || $(date +%s) >= deadline)) && break
		sleep 1
	done
	took=$(($(date +%s) - start))
	printf '%-6s %-9s %s\n' "$1" "runs" "queued after the load: $q0; $((q0 - q)) finished in $took s ($(((q0 - q) / (took > 0 ? took : 1)))/s); still queued: $q"
}

declare -A counted=([none]="$(stored "$none_id")" [link]=0)
mismatch=0
echo "inbound publishing: wrk -t$THREADS -c$CONNS -d$DURATION --latency POST /hooks/{token}, ~300-byte JSON; baseline: one committed INSERT per POST"
printf '%-6s %-9s %8s %8s %8s %8s %8s %10s %8s %10s\n' round target req/s 202s p50ms p99ms non-2xx stored diff cpu-us/req
for r in $(seq "$ROUNDS"); do
	for t in none baseline link; do
		case $t in
		none) url="$none_url" id="$none_id" pid="$sb_pid" ;;
		link) url="$link_url" id="$link_id" pid="$sb_pid" ;;
		baseline) url="http://127.0.0.1:$base_port/" id="" pid="$base_pid" ;;
		esac
		t0="$(ticks "$pid")"
		read -r rps ok p50 p99 bad errs < <(load "$t" "$url")
		# the server's CPU per accepted call during the run (for "link", the action runs
		# done meanwhile included)
		cpu="$(awk -v d="$(($(ticks "$pid") - t0))" -v hz="$hz" -v n="$ok" 'BEGIN { printf "%.0f", n ? d / hz / n * 1e6 : 0 }')"
		if [[ -n "$id" ]]; then
			counted[$t]=$((counted[$t] + ok))
			s="$(stored "$id")"
			diff=$((s - counted[$t]))
			# a request in flight when wrk stopped can be stored without its answer counted
			if ((diff < 0 || diff > CONNS)); then mismatch=1; fi
			counted[$t]="$s" # the next run starts from what is stored
		else
			s="-" diff="-"
		fi
		note=""
		[[ "$errs" == "-" ]] || note="  socket errors: $errs"
		((rps >= 100)) || note="$note  (no progress: see docs/benchmarks.md, a stalled connection pool)"
		printf '%-6s %-9s %8s %8s %8s %8s %8s %10s %8s %10s%s\n' "$r" "$t" "$rps" "$ok" "$p50" "$p99" "$bad" "$s" "$diff" "$cpu" "$note"
	done
	drain "$r"
done

echo "link endpoint's action runs:"
psql -qtA -F ' ' "$sbdb" -c "SELECT status, count(*) FROM automation_runs WHERE endpoint_id = '$link_id' GROUP BY status ORDER BY status" |
	sed 's/^/  /'
echo "  links created: $(psql -qtA "$sbdb" -c "SELECT count(*) FROM links")"
if ((mismatch)); then
	echo "bench-hooks: calls stored and 202s counted differ by more than the connections in flight" >&2
	exit 1
fi
