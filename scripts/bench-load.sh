#!/usr/bin/env bash
# Load benchmark on loopback (make bench; results recorded in docs/benchmarks.md):
# authenticated GET /api/v1/models on the real bin/switchboard against a bare net/http server
# (backend/cmd/sbbaseline) answering the same bytes, both loaded by wrk, an outside load
# generator, with the same settings, runs alternating, ratio printed per round.
#
# Each round loads each server for DURATION, cut into SLICES runs of wrk that alternate
# between the two (so that other work on a shared machine, which comes and goes, falls on both
# alike), and prints the ratio of their requests per second over the round.
#
# Settings (environment): ROUNDS (5), DURATION (10s, whole seconds), SLICES (5; 1 gives one
# run per server per round), THREADS (2), CONNS (64),
# BENCH_DATABASE_URL (default: SQLite in a temporary directory), SWITCHBOARD_BIN
# (bin/switchboard, built if missing), LOG_FILE (where the server's JSON log goes; default a
# file in the temporary directory: the access log is on, as in production),
# PPROF_ADDR (e.g. 127.0.0.1:6060: serve pprof there, on its own loopback listener, while
# the benchmark runs; fetch a profile with
#   go tool pprof -seconds 10 http://$PPROF_ADDR/debug/pprof/profile).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ROUNDS="${ROUNDS:-5}" DURATION="${DURATION:-10s}" SLICES="${SLICES:-5}" THREADS="${THREADS:-2}" CONNS="${CONNS:-64}"
command -v wrk >/dev/null || { echo "bench-load: wrk is needed (apt-get install wrk, brew install wrk)" >&2; exit 1; }

tmp="$(mktemp -d)"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

bin="${SWITCHBOARD_BIN:-$root/bin/switchboard}"
[[ -x "$bin" ]] || (cd "$root/backend" && go build -o "$bin" ./cmd/switchboard)
(cd "$root/backend" && go build -o "$tmp/sbbaseline" ./cmd/sbbaseline)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
sb_port="$(free_port)"
base_port="$(free_port)"
sb="http://127.0.0.1:$sb_port"
log="${LOG_FILE:-$tmp/switchboard.log}"

SWITCHBOARD_ADDR="127.0.0.1:$sb_port" SWITCHBOARD_BASE_URL="$sb" \
	DATABASE_URL="${BENCH_DATABASE_URL:-sqlite://$tmp/bench.db}" \
	SWITCHBOARD_RATE_LIMIT=1000000000 SWITCHBOARD_RATE_BURST=1000000000 \
	SWITCHBOARD_PPROF_ADDR="${PPROF_ADDR:-}" \
	"$bin" serve >"$tmp/stdout" 2>"$log" &
sb_pid=$!
pids+=("$sb_pid")
for _ in $(seq 100); do curl -fs "$sb/healthz" >/dev/null 2>&1 && break; sleep 0.1; done

# A user, a workspace and a models:read key, through GraphQL as the console does.
jar="$tmp/cookies"
gql() { curl -fsS -b "$jar" -c "$jar" -H 'Content-Type: application/json' -H "Origin: $sb" -d "$1" "$sb/graphql"; }
gql '{"query":"mutation { signUp(input: {email: \"bench@example.com\", password: \"benchmark password\", name: \"Bench\"}) { user { id } } }"}' >/dev/null
gql '{"query":"mutation { ensureWorkspace { id } }"}' >/dev/null
secret="$(gql '{"query":"mutation { createApiKey(input: {name: \"bench\", scopes: [\"models:read\"]}) { secret } }"}' |
	sed -n 's/.*"secret":"\([^"]*\)".*/\1/p')"
[[ -n "$secret" ]] || { echo "bench-load: could not create a key" >&2; exit 1; }

# The baseline answers exactly the bytes Switchboard answers.
curl -fsS -H "Authorization: Bearer $secret" "$sb/api/v1/models" >"$tmp/models.json"
"$tmp/sbbaseline" -addr "127.0.0.1:$base_port" -body "$tmp/models.json" >/dev/null &
base_pid=$!
pids+=("$base_pid")
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$base_port/" >/dev/null 2>&1 && break; sleep 0.1; done

served=0 # requests wrk completed against switchboard, to check the access log against
load() { # url → wrk's report (fails on any non-2xx answer or socket error)
	local out
	out="$(wrk -t"$THREADS" -c"$CONNS" -d"$1" -H "Authorization: Bearer $secret" "$2")"
	if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then echo "bench-load: errors from $2:" >&2; echo "$out" >&2; exit 1; fi
	echo "$out"
}
# CPU time (user + system, clock ticks) a process has used: with other work on the machine,
# the server's CPU per request is a steadier comparison than requests per second.
hz="$(getconf CLK_TCK 2>/dev/null || echo 100)"
ticks() { [[ -r /proc/$1/stat ]] && awk '{print $14 + $15}' "/proc/$1/stat" || echo 0; }
slice_len=$(( ${DURATION%s} / SLICES )) # seconds of each wrk run
(( slice_len >= 1 )) || { echo "bench-load: DURATION (whole seconds, e.g. 10s) must give each of the $SLICES slices at least 1s" >&2; exit 1; }
run_slice() { # url pid → adds to REQS, SECS (wrk's count and duration) and TICKS (server CPU)
	local out t0 n
	t0="$(ticks "$2")"
	out="$(load "${slice_len}s" "$1")"
	n="$(awk '/requests in/ {print $1}' <<<"$out")"
	if [[ "$1" == "$sb"* ]]; then served=$((served + n)); fi
	REQS=$((REQS + n))
	SECS="$(awk -v s="$SECS" '/requests in/ {d = $4; sub(/,$/, "", d); m = (d ~ /m$/) ? 60 : 1; sub(/[ms]+$/, "", d); printf "%.3f", s + d * m}' <<<"$out")"
	TICKS=$((TICKS + $(ticks "$2") - t0))
}
summary() { # → RPS (requests per second), CPU (server µs of CPU per request) of the slices run
	RPS="$(awk -v n="$REQS" -v s="$SECS" 'BEGIN {printf "%.0f", n / s}')"
	CPU="$(awk -v t="$TICKS" -v n="$REQS" -v hz="$hz" 'BEGIN {printf "%.1f", t * 1e6 / hz / n}')"
}

echo "GET /api/v1/models: wrk -t$THREADS -c$CONNS, $ROUNDS rounds of $DURATION per server in $SLICES alternating slices of ${slice_len}s; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "access log: on (JSON, to $( [[ -n "${LOG_FILE:-}" ]] && echo "$LOG_FILE" || echo "a file" ))"
load 2s "http://127.0.0.1:$base_port/api/v1/models" >/dev/null # warm-up
served=$((served + $(load 2s "$sb/api/v1/models" | awk '/requests in/ {print $1}')))
printf '%-6s %12s %14s %7s   %s\n' round "baseline/s" "switchboard/s" ratio "server CPU µs/request (baseline, switchboard)"
ratios=()
for i in $(seq "$ROUNDS"); do
	b_reqs=0 b_secs=0 b_ticks=0 s_reqs=0 s_secs=0 s_ticks=0
	for j in $(seq "$SLICES"); do
		# Baseline first in odd rounds, Switchboard first in even ones; the order flips each
		# slice (b s, s b, b s, ...), so that neither side always runs after the other.
		for side in $( (( (i + j) % 2 == 0 )) && echo "base sb" || echo "sb base" ); do
			if [[ $side == base ]]; then
				REQS=$b_reqs SECS=$b_secs TICKS=$b_ticks
				run_slice "http://127.0.0.1:$base_port/api/v1/models" "$base_pid"
				b_reqs=$REQS b_secs=$SECS b_ticks=$TICKS
			else
				REQS=$s_reqs SECS=$s_secs TICKS=$s_ticks
				run_slice "$sb/api/v1/models" "$sb_pid"
				s_reqs=$REQS s_secs=$SECS s_ticks=$TICKS
			fi
		done
	done
	REQS=$b_reqs SECS=$b_secs TICKS=$b_ticks; summary; b=$RPS bc=$CPU
	REQS=$s_reqs SECS=$s_secs TICKS=$s_ticks; summary; s=$RPS sc=$CPU
	r="$(awk -v s="$s" -v b="$b" 'BEGIN {printf "%.2f", s/b}')"
	ratios+=("$r")
	printf '%-6s %12s %14s %7s   %s, %s\n' "$i" "$b" "$s" "$r" "$bc" "$sc"
done
median="$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')"
echo "median ratio switchboard/baseline: $median (target >= 0.85)"
# Stop the server (SIGTERM: it finishes requests and writes the last buffered log lines), then
# check that the access log has a line for every request wrk completed.
kill -TERM "$sb_pid"; wait "$sb_pid" || true
lines="$(grep -c '"msg":"request".*"path":"/api/v1/models".*"status":200' "$log" || true)"
echo "GET /api/v1/models answered to wrk: $served; access log lines for it: $lines (at least as many: wrk does not count requests still in flight when it stops)"
