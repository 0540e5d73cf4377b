#!/usr/bin/env bash
# Load benchmark on loopback: authenticated GET /api/v1/models vs a bare net/http baseline,
# same client, same connection count, same run. Results go to docs/benchmarks.md by hand.
set -euo pipefail
cd "$(dirname "$0")/../backend"
go run ./cmd/sbbench -c "${CONNS:-32}" -d "${DURATION:-10s}" ${BENCH_DATABASE_URL:+-database-url "$BENCH_DATABASE_URL"}
