#!/usr/bin/env bash
# flashstock benchmark: every deduction strategy against the raw Redis and MySQL limits, in one run.
# Run bench/run.sh --help for the usage. What it does, per strategy (and per persistence mode of redis-lua):
#   fresh data (database flashstock_bench dropped and created, Redis flushed: the redis-server this script starts
#   for itself, or db 15 of an external one), start the packaged service,
#   time start-to-ready, warm the JVM up, then for each concurrency and repetition, alternating:
#     HTTP floor (GET /q/health/live) · hot sell · raw MySQL versioned · sell-out · raw MySQL conditional ·
#     sold-out storm without keys · the same with a random Idempotency-Key each · availability storm
#     (GET /items/{sku}/availability; skipped while the build lacks it),
#   then per repetition the token storms at 50 connections (the key-less sold-out storm with one shop token, then
#   with a distinct buyer token per request, a steady shop alongside; its verified-token cache hits from /q/metrics),
#   checking the invariants after every service scenario, and sampling the service's RSS during the hot sells.
#   Raw Redis EVALSHA of the service's own purchase.lua runs after each redis-lua service run.
# Every warm-up ends with settle rounds until the JIT has settled (jit_settle).
# Then (--quick, --full) the memory run: redis-lua write-behind's hot sell once more with the container image's JVM
# options (src/main/docker/Dockerfile.jvm) in a simulated 512 MB container (-XX:MaxRAM=512m), RSS sampled under load.
# Then the catalog runs, per catalog size: items inserted straight into MySQL, Redis empty, each strategy's
# start-to-ready; for redis-lua write-behind also 10 items put on sale, then the Redis commands/s and RSS while idle.
# The end: tables of medians and ratios (all from this run), and the issue targets met or missed.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$BENCH_DIR/.." && pwd)"
COMMAND_LINE="bench/run.sh $*"

# The parts, in bench/lib/: each defines functions and the state they keep; the steps below run them in order.
#   options.sh    the usage, the options and the settings of a run
#   common.sh     messages, the one-run lock, the cleanup at exit, the tools, the results file's other lines
#   backends.sh   MySQL and Redis
#   service.sh    the service jar, the bearer tokens (the storm's distinct ones: bench/MintTokens.java), the service process
#   load.sh       one wrk run, its figures, and the invariants checked after it
#   raw.sh        the raw MySQL and Redis limits
#   scenarios.sh  the warm-up with its JIT settle rounds, the hot sell, the availability probe, the token storms
#   runs.sh       each strategy's service run, and the memory run
#   catalog.sh    the catalog runs
#   report.sh     the tables, and docs/benchmarks.md
# bench/compare.sh (A/B of the hot sell of two builds, side by side) and bench/abuse.sh reuse these parts.
for part in options common backends service load raw scenarios runs catalog report; do
  # shellcheck source=/dev/null
  source "$BENCH_DIR/lib/$part.sh"
done

parse_options "$@"
apply_mode
read_environment
take_lock
trap cleanup EXIT
trap 'exit 130' INT TERM

ensure_tools
connect_backends
raise_max_connections
prepare_jar
compile_raw_mysql
make_tokens

say "mode $MODE: concurrency ${CONCURRENCY[*]}, $REPS repetition(s), strategies: ${CONFIGS[*]}; memory run: $MEMORY_RUN;" \
  "catalogs: ${CATALOG[*]:-none}; output in $OUT"
if [ -f "$PURCHASE_LUA" ]; then
  say "the build has lua/purchase.lua; its header:"
  sed -n '1,/^[^-]/p' "$PURCHASE_LUA" | grep '^--' | sed 's/^/    /' || true
fi

for config in "${CONFIGS[@]}"; do run_config "$config"; done
raw_redis_not_run
if $MEMORY_RUN; then memory_run; fi
if ((${#CATALOG[@]} > 0)); then catalog_run; fi
redis_flush

report | tee "$OUT/report.md"
if $WRITE_DOCS; then write_docs; fi
echo
say "no invariant was broken; $(($(wc -l <"$OUT/wrk.log"))) load runs checked; took $((SECONDS - STARTED_AT)) s; details in $OUT"
