#!/usr/bin/env bash
# Short-link redirect benchmarks on the real binary, on SQLite and on PostgreSQL (make bench;
# figures in docs/benchmarks.md). For each database:
#
#  1. Redirects per second: wrk (-t$THREADS -c$CONNS, a desktop Chrome User-Agent, so every
#     visit is a counted click, not a bot) GETs /l/{slug} of a link created with
#     POST /api/v1/links; wrk does not follow redirects, it counts the 302s. Baseline in the
#     same run, loaded identically, the order alternating each round: sbbaseline -redirect, a
#     bare net/http handler answering the same 302 with the same Location, Cache-Control and
#     X-Robots-Tag. Each run is followed by a wait until the link's click count stops rising
#     (the buffered click writer catching up) and, on PostgreSQL, until the database is idle
#     again (autovacuum and checkpoints after a million rows take seconds), so that the work
#     of one run never falls on the next; the server's CPU per request, and PostgreSQL's, are
#     counted over the run and those waits (each redirect's click write included). Then the
#     clicks recorded (GET /api/v1/links/{id}) are compared with the requests wrk completed
#     and the redirects in the access log: the difference is clicks dropped because the
#     writer's buffer was full (switchboard_link_clicks_dropped_total).
#  2. Redirect latency at a fixed rate (RATE: requests a second, or "half", half the median
#     Switchboard rate of step 1; several values run in turn): sbrate sends GETs on a
#     schedule over CONNS keep-alive connections for LATENCY_TIME and prints p50/p99/max
#     measured from each request's scheduled time (coordinated-omission aware, like wrk2);
#     the bare redirect is measured the same way.
#  3. Click → link.clicked webhook latency: sbclickhook registers a webhook for link.clicked
#     pointing at its own loopback receiver, visits HOOK_RATE times a second for HOOK_TIME
#     and prints p50/p99/max of arrival − data.click.timestamp.
#
# Settings (environment): DATABASES ("sqlite postgres"), ROUNDS (3), DURATION (10s), THREADS
# (2), CONNS (64), RATE ("half"; e.g. "half 5000 1000"), LATENCY_TIME (10s), HOOK_RATE (50),
# HOOK_TIME (10s), BENCH_DATABASE_URL (PostgreSQL admin URL; default
# postgres://postgres@127.0.0.1:5432/postgres; each run makes and drops its own database),
# SWITCHBOARD_BIN (bin/switchboard, built if missing), PPROF_ADDR (e.g. 127.0.0.1:6060: the
# server serves Go's profiles there; go tool pprof -seconds 5 http://$PPROF_ADDR/debug/pprof/profile).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
DATABASES="${DATABASES:-sqlite postgres}" ROUNDS="${ROUNDS:-3}" DURATION="${DURATION:-10s}"
THREADS="${THREADS:-2}" CONNS="${CONNS:-64}" RATE="${RATE:-half}" LATENCY_TIME="${LATENCY_TIME:-10s}"
HOOK_RATE="${HOOK_RATE:-50}" HOOK_TIME="${HOOK_TIME:-10s}"
admin="${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
UA='Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
for tool in wrk curl python3; do
	command -v "$tool" >/dev/null || { echo "bench-links: $tool is needed" >&2; exit 1; }
done
[[ " $DATABASES " != *" postgres "* ]] || command -v psql >/dev/null || { echo "bench-links: psql is needed" >&2; exit 1; }

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
(cd "$root/backend" && go build -o "$tmp/sbbaseline" ./cmd/sbbaseline && go build -o "$tmp/sbrate" ./cmd/sbrate &&
	go build -o "$tmp/sbclickhook" ./cmd/sbclickhook)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 200); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.05; done; echo "bench-links: $1 did not answer" >&2; exit 1; }
hz="$(getconf CLK_TCK 2>/dev/null || echo 100)"
ticks() { [[ -r /proc/$1/stat ]] && awk '{print $14 + $15}' "/proc/$1/stat" || echo 0; }
# The database's CPU ticks so far (PostgreSQL: every postgres process's own, plus its finished
# children's, which the postmaster collects: autovacuum workers, ended sessions); 0 for SQLite,
# whose writes are the server's own CPU.
db_ticks() {
	[[ $1 == postgres ]] || { echo 0; return; }
	local t=0 p
	for p in $(pgrep -x postgres); do t=$((t + $(awk '{print $14 + $15 + $16 + $17}' "/proc/$p/stat" 2>/dev/null || echo 0))); done
	echo "$t"
}
# db_quiet waits (up to 60 s) until the database uses under 5 % of a core: the work the clicks
# left it (autovacuum, checkpoints) is Switchboard's, and must not fall on the baseline's run.
db_quiet() {
	[[ $1 == postgres ]] || return 0
	local a b
	for _ in $(seq 120); do
		a="$(db_ticks postgres)"
		sleep 0.5
		b="$(db_ticks postgres)"
		((b - a > hz / 40)) || return 0
	done
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

load() { # url → wrk's report (fails on a 4xx/5xx answer or a socket error)
	local out
	out="$(wrk -t"$THREADS" -c"$CONNS" -d"$1" -H "User-Agent: $UA" "$2")"
	if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then echo "bench-links: errors from $2:" >&2; echo "$out" >&2; exit 1; fi
	echo "$out"
}

bench_db() { # sqlite|postgres
	local kind="$1" dburl db
	if [[ $kind == sqlite ]]; then
		dburl="sqlite://$tmp/links.db"
		rm -f "$tmp"/links.db*
	else
		db="sbbench_links_$RANDOM$RANDOM"
		dbs+=("$db")
		psql -q "$admin" -c "CREATE DATABASE $db" >/dev/null
		dburl="postgres://$(sed -E "s#/[^/?]*(\?|$)#/$db\1#" <<<"${admin#postgres://}")"
	fi
	local port sb log sb_pid
	port="$(free_port)"
	sb="http://127.0.0.1:$port"
	log="$tmp/switchboard-$kind.log"
	# As in production: the JSON access log on (to a file), the webhook sender running.
	SWITCHBOARD_ADDR="127.0.0.1:$port" SWITCHBOARD_BASE_URL="$sb" DATABASE_URL="$dburl" \
		SWITCHBOARD_WEBHOOK_ALLOWLIST=127.0.0.1 SWITCHBOARD_PPROF_ADDR="${PPROF_ADDR:-}" \
		SWITCHBOARD_RATE_LIMIT=1000000000 SWITCHBOARD_RATE_BURST=1000000000 \
		"$bin" serve >"$tmp/stdout" 2>"$log" &
	sb_pid=$!
	pids+=("$sb_pid")
	wait_up "$sb/readyz"

	# A user, a workspace and a key through GraphQL as the console does; links over REST.
	local jar="$tmp/cookies-$kind" key
	gql() { curl -fsS -b "$jar" -c "$jar" -H 'Content-Type: application/json' -H "Origin: $sb" -d "$1" "$sb/graphql"; }
	gql '{"query":"mutation { signUp(input: {email: \"bench@example.com\", password: \"benchmark password\", name: \"Bench\"}) { user { id } } }"}' >/dev/null
	gql '{"query":"mutation { ensureWorkspace { id } }"}' >/dev/null
	key="$(gql '{"query":"mutation { createApiKey(input: {name: \"bench\", scopes: [\"*\"]}) { secret } }"}' |
		sed -n 's/.*"secret":"\([^"]*\)".*/\1/p')"
	[[ -n "$key" ]] || { echo "bench-links: could not create a key" >&2; exit 1; }
	api() { curl -fsS -H "Authorization: Bearer $key" -H 'Content-Type: application/json' "$@"; }
	link() { # slug → the new link's id
		local id
		id="$(api -d "{\"url\":\"https://example.com/landing?ref=$1\",\"slug\":\"$1\"}" "$sb/api/v1/links" |
			sed -n 's/.*"id":"\(lnk_[^"]*\)".*/\1/p')"
		[[ -n "$id" ]] || { echo "bench-links: could not create link $1" >&2; exit 1; }
		echo "$id"
	}
	clicks() { api "$sb/api/v1/links/$1" | sed -n 's/.*"clicks":\([0-9]*\).*/\1/p'; }
	settle() { # link id → CLICKS once the count has not moved for 0.75 s; SETTLE: seconds waited
		local last=-1 same=0 n t0
		t0="$(date +%s.%N)"
		for _ in $(seq 2400); do
			n="$(clicks "$1")"
			if [[ $n == "$last" ]]; then same=$((same + 1)); else same=0 last=$n; fi
			((same < 3)) || break
			sleep 0.25
		done
		CLICKS=$last
		SETTLE="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a - 0.75}')"
	}
	local bench_id paced_id
	bench_id="$(link bench)"
	paced_id="$(link paced)"
	link hooked >/dev/null

	# The redirect as a browser gets it; the baseline answers the same.
	local hdrs loc
	hdrs="$(curl -fsS -o /dev/null -D - -A "$UA" "$sb/l/bench" | tr -d '\r')"
	grep -q '^HTTP/1.1 302' <<<"$hdrs" || { echo "bench-links: GET /l/bench: $hdrs" >&2; exit 1; }
	loc="$(sed -n 's/^Location: //p' <<<"$hdrs")"
	local base_port base base_pid
	base_port="$(free_port)"
	base="http://127.0.0.1:$base_port"
	"$tmp/sbbaseline" -addr "127.0.0.1:$base_port" -redirect "$loc" >/dev/null &
	base_pid=$!
	pids+=("$base_pid")
	for _ in $(seq 100); do curl -fs -o /dev/null "$base/" && break; sleep 0.05; done
	diff <(grep -E '^(HTTP|Location|Cache-Control|X-Robots-Tag)' <<<"$hdrs") \
		<(curl -fsS -o /dev/null -D - -A "$UA" "$base/l/bench" | tr -d '\r' | grep -E '^(HTTP|Location|Cache-Control|X-Robots-Tag)') ||
		{ echo "bench-links: the baseline's redirect differs" >&2; exit 1; }

	echo "== $kind: GET /l/{slug} ($(sed -n 's/^\(Location\|Cache-Control\|X-Robots-Tag\): /\1=/p' <<<"$hdrs" | paste -sd' ')) vs sbbaseline -redirect"
	echo "wrk -t$THREADS -c$CONNS -d$DURATION -H 'User-Agent: ${UA:0:40}…', $ROUNDS rounds, order alternating; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	local served=1 out n # requests wrk completed against /l/bench (1: the curl above)
	load 2s "$base/l/bench" >/dev/null # warm-up
	n="$(load 2s "$sb/l/bench" | awk '/requests in/ {print $1}')"
	served=$((served + n))
	settle "$bench_id"
	db_quiet "$kind"
	printf '%-6s %12s %14s %7s %34s %9s\n' round "baseline/s" "switchboard/s" ratio "CPU µs/req base, sb(+click), db" "drain s"
	local ratios=() rates=() i side b s bc sc dc t0 d0 r drain
	for i in $(seq "$ROUNDS"); do
		for side in $( ((i % 2)) && echo "base sb" || echo "sb base"); do
			if [[ $side == base ]]; then
				t0="$(ticks "$base_pid")"
				out="$(load "$DURATION" "$base/l/bench")"
				b="$(awk '/Requests\/sec/ {printf "%.0f", $2}' <<<"$out")"
				n="$(awk '/requests in/ {print $1}' <<<"$out")"
				bc="$(awk -v t="$(($(ticks "$base_pid") - t0))" -v n="$n" -v hz="$hz" 'BEGIN {printf "%.1f", t * 1e6 / hz / n}')"
			else
				t0="$(ticks "$sb_pid")"
				d0="$(db_ticks "$kind")"
				out="$(load "$DURATION" "$sb/l/bench")"
				s="$(awk '/Requests\/sec/ {printf "%.0f", $2}' <<<"$out")"
				n="$(awk '/requests in/ {print $1}' <<<"$out")"
				served=$((served + n))
				settle "$bench_id"
				drain=$SETTLE
				db_quiet "$kind"
				sc="$(awk -v t="$(($(ticks "$sb_pid") - t0))" -v n="$n" -v hz="$hz" 'BEGIN {printf "%.1f", t * 1e6 / hz / n}')"
				dc="$(awk -v t="$(($(db_ticks "$kind") - d0))" -v n="$n" -v hz="$hz" 'BEGIN {printf "%.1f", t * 1e6 / hz / n}')"
			fi
		done
		r="$(awk -v s="$s" -v b="$b" 'BEGIN {printf "%.2f", s / b}')"
		ratios+=("$r")
		rates+=("$s")
		printf '%-6s %12s %14s %7s %34s %9s\n' "$i" "$b" "$s" "$r" "$bc, $sc, $dc" "$drain"
	done
	echo "median ratio switchboard/baseline: $(printf '%s\n' "${ratios[@]}" | median) (target >= 0.8)"
	settle "$bench_id"
	local recorded=$CLICKS

	local rate half
	half="$(printf '%s\n' "${rates[@]}" | median | awk '{printf "%d", $1 / 2 / 100 * 100}')"
	for rate in $RATE; do
		[[ $rate != half ]] || rate=$half
		echo "latency at a fixed rate: sbrate -rate $rate -duration $LATENCY_TIME -conns $CONNS (from each request's scheduled time)"
		"$tmp/sbrate" -label "switchboard GET /l/paced" -url "$sb/l/paced" -rate "$rate" -duration "$LATENCY_TIME" -conns "$CONNS"
		settle "$paced_id"
		echo "  (clicks recorded on /l/paced so far: $CLICKS; the click writer caught up ${SETTLE}s after the run)"
		db_quiet "$kind"
		"$tmp/sbrate" -label "baseline redirect       " -url "$base/l/paced" -rate "$rate" -duration "$LATENCY_TIME" -conns "$CONNS"
	done

	echo "click → link.clicked webhook: sbclickhook -rate $HOOK_RATE -duration $HOOK_TIME"
	"$tmp/sbclickhook" -base "$sb" -key "$key" -slug hooked -rate "$HOOK_RATE" -duration "$HOOK_TIME"

	# Stop the server (SIGTERM: it writes the buffered clicks and the last log lines), then
	# compare the redirects it logged with the clicks it recorded.
	kill -TERM "$sb_pid"
	wait "$sb_pid" || true
	local logged
	logged="$(grep -c '"path":"/l/bench","status":302' "$log" || true)"
	echo "GET /l/bench: wrk completed $served (and had up to $CONNS more in flight at each stop); access log: $logged redirects; clicks recorded: $recorded; missing (dropped, buffer full): $((logged - recorded))"
	kill "$base_pid" 2>/dev/null || true
	wait "$base_pid" 2>/dev/null || true
}

for kind in $DATABASES; do
	case "$kind" in
	sqlite | postgres) bench_db "$kind" ;;
	*) echo "bench-links: unknown database $kind (sqlite or postgres)" >&2; exit 1 ;;
	esac
done
