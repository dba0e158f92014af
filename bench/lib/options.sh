# shellcheck shell=bash
# bench/run.sh: the usage, the options and the settings of a run (mode, environment, output folder).
# Sourced by bench/run.sh (set -euo pipefail); defines functions only.

usage() {
  cat <<'EOF'
Usage: bench/run.sh MODE [OPTIONS]

Benchmarks the flashstock service (every deduction strategy in the build) against the raw limits of its
parts, measured side by side in the same run, and fails loudly when any run breaks an invariant.

Modes (one is required):
  --smoke          seconds per strategy at concurrency 4, and a catalog of 1,000 items (redis-lua write-behind
                   only): proves the harness works (CI runs this); no memory run
  --quick          concurrency 50, 3 repetitions, catalogs of 0 and 10,000 items: about 25 minutes with all
                   strategies (each service's warm-up waits up to 180 s for the JIT to settle)
  --full           concurrency 1, 10, 50, 200, 3 repetitions, sell-out of 1,000 units to 50,000+ buyers,
                   catalogs of 0, 10,000 and 100,000 items; writes docs/benchmarks.md and docs/benchmarks.png

Each service is warmed up before it is measured: purchases, refused ones and reads, then settle rounds of the
measured scenarios until the JIT compiles for under 5% of two rounds in a row (jstat -compiler of the JDK;
--smoke: one round, --quick and --full: 180 s at most; a redis-lua write-behind service settled after 94 to 117 s
on 2026-12-03, and had not after 90 s on 2026-12-02).

Scenarios, per strategy: HTTP floor, hot sell, sell-out, sold-out storm without keys and with a random
Idempotency-Key per request, availability storm (GET /items/{sku}/availability of the hot item; skipped, with
a line saying so, while the service answers 404 there), with the raw MySQL and Redis limits; then per
repetition the token storms at 50 connections: the key-less sold-out storm with one shop token, then with a
distinct buyer token per request (minted beforehand by bench/MintTokens.java: 6,000 / 40,000 / 60,000 in
--smoke / --quick / --full), a steady shop buying alongside with its one token, and the verified-token
cache's hits and misses read from /q/metrics (the shop's hit rate). Then (--quick, --full) the memory run: redis-lua write-behind's hot
sell with the JVM options of src/main/docker/Dockerfile.jvm (JAVA_OPTS_APPEND, MALLOC_ARENA_MAX) and
-XX:MaxRAM=512m (a 512 MB container limit), RSS sampled during the load. Then the catalog runs: per catalog size,
the items inserted straight into MySQL (after a first start has let Flyway create the schema) and Redis
flushed, every strategy's start-to-ready (--smoke: redis-lua write-behind's only); for redis-lua write-behind
also 10 new items sold a few units each, then 10 s idle: Redis commands/s (INFO total_commands_processed, of
the whole server) and the service's RSS. The summary compares the redis-lua write-behind figures with the
issue targets, and each redis-lua mode's hot sell with one uncombined purchase call measured in the same run
(issue 36): orders/s / raw EVALSHA, Redis CPU per order / per raw EVALSHA call, service CPU per order / per
no-op request (the HTTP floor), the mean batch of the purchase script's calls (from /q/metrics), p50 and p99.

Options:
  --write-docs         write docs/benchmarks.md and docs/benchmarks.png in any mode
  --docs-dir DIR       where to write them (default: docs/ of this checkout)
  --strategies LIST    comma-separated subset of: db-optimistic,redis-lock,redis-lua (both modes),
                       redis-lua:write-through, redis-lua:write-behind
  --concurrency LIST   comma-separated client counts, instead of the mode's
  --reps N             repetitions per concurrency, instead of the mode's
  --settle-seconds S   the most seconds of JIT settle rounds after each warm-up, instead of the mode's (smoke 1,
                       quick and full 180)
  --catalog LIST       comma-separated catalog sizes (items; 0 = empty catalog), instead of the mode's;
                       none: no catalog runs
  --jar PATH           service jar to run (default: this checkout's target/quarkus-app/quarkus-run.jar,
                       built with ./mvnw when missing or older than the sources); also FLASHSTOCK_JAR
  -h, --help           this text

Environment: BENCH_MYSQL_HOST/PORT/USER/PASSWORD (127.0.0.1, 3306, root, empty), BENCH_REDIS_HOST/PORT (unset: a
Redis of its own, see below), BENCH_JAVA_OPTS (JVM options of the service, which runs with the collector the
image ships unless these name one), BENCH_OUT (folder for logs and raw results; default a new temporary folder),
BENCH_CONVERGE_SECONDS (how long redis-lua write-behind may take to reach MySQL; default 5),
BENCH_CATALOG_READY_SECONDS (how long a catalog run waits for readiness before it records "not ready" and goes
on; default 300), BENCH_ACCESS_LOG_LEVEL (the service's access log, one line per request: on as shipped; WARN
mutes it, to see its cost), BENCH_PROFILE (1: the service runs with a JFR recording, "profile" settings, and
after each hot sell profile-NAME.jfr in the output folder holds its last minutes and profile-NAME.md
bench/JfrBreakdown.java's tables of where the service's Java CPU samples of the hot sell's own seconds went: by
thread group, innermost library and method on the stack).

Redis: by default it starts a redis-server of its own (no persistence, data in a temporary folder, on a free
port of 127.0.0.1, log redis-server.log in the output folder), uses it for the whole run (the service, the
MONITOR capture, the raw EVALSHA runs, the flushes between runs) and stops it at exit, also on a failure or an
interrupt. With BENCH_REDIS_HOST or BENCH_REDIS_PORT set, it uses that Redis instead (host 127.0.0.1, port
6379 when only one is given), and on it only logical database 15 (FLUSHDB between runs); the same when
redis-server is not installed, with the shared 127.0.0.1:6379.
MySQL: only the database flashstock_bench (dropped and re-created for every service run). Nothing else is
touched. Tools it needs and does not find (wrk, redis-tools, gnuplot for the chart) are installed with apt-get
(redis-server is not: without it the run falls back to the shared Redis, as above).

Exit status: 0 all fine; 1 an error (tool missing, service failed to start, ...); 2 usage; 3 an invariant
was broken (the line INVARIANT BREACH says which).

To compare the hot sell of two builds side by side (A/B, alternating, medians): bench/compare.sh --help.
EOF
}

# parse_options ARG...: the command line into MODE, WRITE_DOCS, DOCS_DIR, ONLY_STRATEGIES, the overrides and JAR.
# Exits 0 after --help, 2 on a usage error.
parse_options() {
  MODE=""
  WRITE_DOCS=false
  DOCS_DIR="$REPO_DIR/docs"
  ONLY_STRATEGIES=""
  CONC_OVERRIDE=""
  REPS_OVERRIDE=""
  SETTLE_OVERRIDE=""
  CATALOG_OVERRIDE="-"
  JAR="${FLASHSTOCK_JAR:-}"

  while (($# > 0)); do
    case "$1" in
      --smoke | --quick | --full) MODE="${1#--}" ;;
      --write-docs) WRITE_DOCS=true ;;
      --docs-dir) DOCS_DIR="${2:?--docs-dir needs a folder}"; shift ;;
      --strategies) ONLY_STRATEGIES="${2:?--strategies needs a list}"; shift ;;
      --concurrency) CONC_OVERRIDE="${2:?--concurrency needs a list}"; shift ;;
      --reps) REPS_OVERRIDE="${2:?--reps needs a number}"; shift ;;
      --settle-seconds) SETTLE_OVERRIDE="${2:?--settle-seconds needs a number}"; shift ;;
      --catalog) CATALOG_OVERRIDE="${2?--catalog needs a list}"; shift ;;
      --jar) JAR="${2:?--jar needs a path}"; shift ;;
      -h | --help) usage; exit 0 ;;
      *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
  done
  if [ -z "$MODE" ]; then
    echo "choose a mode: --smoke, --quick or --full" >&2
    usage >&2
    exit 2
  fi
}

# Per mode: concurrency levels, repetitions, seconds of the hot sell / storm / HTTP floor / raw MySQL runs,
# the sell-out (stock vs buyers), warm-up seconds, the most seconds of JIT settle rounds (see jit_settle), the
# requests of one redis-benchmark run, the catalog sizes (and whether every strategy's start-to-ready is taken with
# them, or redis-lua write-behind's only), whether the memory run is made, and the distinct buyer tokens minted for
# the token storms (TOKENS, of which TOKENS_WARM for the warm-up; see token_storms). Then the overrides of the options.
apply_mode() {
  local c
  case "$MODE" in
    smoke)
      CONCURRENCY=(4); REPS=1; HOT_SECONDS=2; STORM_SECONDS=1; FLOOR_SECONDS=1; RAW_SECONDS=1; RAW_WARMUP=0.5
      SELLOUT_STOCK=100; SELLOUT_BUYERS=500; WARMUP_SECONDS=3; SETTLE_SECONDS=1; REDIS_REQUESTS=5000
      CATALOG=(1000); CATALOG_EVERY_STRATEGY=false; MEMORY_RUN=false; TOKENS=6000; TOKENS_WARM=2000 ;;
    quick)
      CONCURRENCY=(50); REPS=3; HOT_SECONDS=5; STORM_SECONDS=3; FLOOR_SECONDS=3; RAW_SECONDS=3; RAW_WARMUP=1
      SELLOUT_STOCK=1000; SELLOUT_BUYERS=10000; WARMUP_SECONDS=10; SETTLE_SECONDS=180; REDIS_REQUESTS=100000
      CATALOG=(0 10000); CATALOG_EVERY_STRATEGY=true; MEMORY_RUN=true; TOKENS=40000; TOKENS_WARM=4000 ;;
    full)
      CONCURRENCY=(1 10 50 200); REPS=3; HOT_SECONDS=10; STORM_SECONDS=5; FLOOR_SECONDS=5; RAW_SECONDS=5
      RAW_WARMUP=1; SELLOUT_STOCK=1000; SELLOUT_BUYERS=51000; WARMUP_SECONDS=20; SETTLE_SECONDS=180
      REDIS_REQUESTS=200000
      CATALOG=(0 10000 100000); CATALOG_EVERY_STRATEGY=true; MEMORY_RUN=true; WRITE_DOCS=true
      TOKENS=60000; TOKENS_WARM=6000 ;;
  esac
  if [ -n "$CONC_OVERRIDE" ]; then IFS=, read -r -a CONCURRENCY <<<"$CONC_OVERRIDE"; fi
  if [ -n "$REPS_OVERRIDE" ]; then REPS="$REPS_OVERRIDE"; fi
  if [ -n "$SETTLE_OVERRIDE" ]; then SETTLE_SECONDS="$SETTLE_OVERRIDE"; fi
  for c in "${CONCURRENCY[@]}" "$REPS" "$SETTLE_SECONDS"; do
    [[ "$c" =~ ^[1-9][0-9]*$ ]] || { echo "not a positive number: $c" >&2; exit 2; }
  done
  case "$CATALOG_OVERRIDE" in
    -) ;;
    none | "") CATALOG=() ;;
    *) IFS=, read -r -a CATALOG <<<"$CATALOG_OVERRIDE" ;;
  esac
  for c in "${CATALOG[@]}"; do
    [[ "$c" =~ ^(0|[1-9][0-9]{0,6})$ ]] || { echo "not a catalog size (0 to 9999999 items): $c" >&2; exit 2; }
  done
  # Catalog runs: seconds of idle measured, and how long to wait for a start to be ready.
  IDLE_SECONDS=10
  CATALOG_READY_SECONDS="${BENCH_CATALOG_READY_SECONDS:-300}"
  [[ "$CATALOG_READY_SECONDS" =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_CATALOG_READY_SECONDS: not a positive number" >&2; exit 2; }
  # The memory run: the container memory limit it simulates.
  CONTAINER_MB=512
  # The token storms: their connections (whatever the concurrency of the run), each repetition's share of the
  # distinct buyer tokens (none is sent twice to one service), and the steady shop's pause between its requests.
  TOKEN_CONC=50
  TOKENS_PER_REP=$(((TOKENS - TOKENS_WARM) / REPS))
  SHOP_PAUSE=0.05

  select_configs
}

# select_configs: CONFIGS, what runs: strategy[:persistence mode], those of ALL_CONFIGS whose strategy is in
# ONLY_STRATEGIES (comma-separated; empty: all). redis-lua is covered with both of its persistence modes, one of them
# alone as redis-lua:write-through or redis-lua:write-behind. Exits 2
# when none matches. bench/compare.sh selects its strategies with it too.
ALL_CONFIGS=(db-optimistic redis-lock redis-lua:write-through redis-lua:write-behind)
select_configs() {
  local config
  CONFIGS=()
  for config in "${ALL_CONFIGS[@]}"; do
    if [ -z "$ONLY_STRATEGIES" ] || [[ ",$ONLY_STRATEGIES," == *",${config%%:*},"* ]] \
      || [[ ",$ONLY_STRATEGIES," == *",$config,"* ]]; then CONFIGS+=("$config"); fi
  done
  ((${#CONFIGS[@]} > 0)) || { echo "--strategies matched none of: db-optimistic, redis-lock, redis-lua" >&2; exit 2; }
}

# read_environment: where MySQL and Redis are (BENCH_* variables), the output folder and the run's bookkeeping.
read_environment() {
  MYSQL_HOST="${BENCH_MYSQL_HOST:-127.0.0.1}"
  MYSQL_PORT="${BENCH_MYSQL_PORT:-3306}"
  MYSQL_USER="${BENCH_MYSQL_USER:-root}"
  export MYSQL_PWD="${BENCH_MYSQL_PASSWORD:-}"
  # Redis: a redis-server of this script's own (started below), unless one is named or none is installed.
  if [ -n "${BENCH_REDIS_HOST:-}" ] || [ -n "${BENCH_REDIS_PORT:-}" ]; then
    REDIS_OWN=false
    REDIS_WHY="BENCH_REDIS_HOST/BENCH_REDIS_PORT given"
  elif command -v redis-server >/dev/null; then
    REDIS_OWN=true
    REDIS_WHY=""
  else
    REDIS_OWN=false
    REDIS_WHY="redis-server is not installed, so no Redis of its own can be started"
  fi
  REDIS_HOST="${BENCH_REDIS_HOST:-127.0.0.1}"
  REDIS_PORT="${BENCH_REDIS_PORT:-6379}" # own server: the free port it gets, set when it starts
  if $REDIS_OWN; then REDIS_DB=0; else REDIS_DB=15; fi
  BENCH_DB=flashstock_bench
  CONVERGE_SECONDS="${BENCH_CONVERGE_SECONDS:-5}"
  JDBC_URL="jdbc:mysql://$MYSQL_HOST:$MYSQL_PORT/$BENCH_DB"

  OUT="${BENCH_OUT:-$(mktemp -d /tmp/flashstock-bench.XXXXXX)}"
  mkdir -p "$OUT"
  RESULTS="$OUT/results.tsv"
  : >"$RESULTS"
  RUN_ID="$(printf '%04x' $((RANDOM % 65536)))"
  STARTED_AT=$SECONDS
  BREACHES=0
}
