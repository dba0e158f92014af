#!/usr/bin/env bash
# flashstock benchmark: every deduction strategy against the raw Redis and MySQL limits, in one run.
# Run bench/run.sh --help for the usage. What it does, per strategy (and per persistence mode of redis-lua):
#   fresh data (database flashstock_bench dropped and created, Redis flushed: the redis-server this script starts
#   for itself, or db 15 of an external one), start the packaged service,
#   time start-to-ready, warm the JVM up, then for each concurrency and repetition, alternating:
#     HTTP floor (GET /q/health/live) · hot sell · raw MySQL versioned · sell-out · raw MySQL conditional ·
#     sold-out storm · availability storm (GET /items/{sku}/availability; skipped while the build lacks it)
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

usage() {
  cat <<'EOF'
Usage: bench/run.sh MODE [OPTIONS]

Benchmarks the flashstock service (every deduction strategy in the build) against the raw limits of its
parts, measured side by side in the same run, and fails loudly when any run breaks an invariant.

Modes (one is required):
  --smoke          seconds per strategy at concurrency 4, and a catalog of 1,000 items (redis-lua write-behind
                   only): proves the harness works (CI runs this); no memory run
  --quick          concurrency 50, 3 repetitions, catalogs of 0 and 10,000 items: about 20 minutes with all
                   strategies (each service's warm-up waits up to 90 s for the JIT to settle)
  --full           concurrency 1, 10, 50, 200, 3 repetitions, sell-out of 1,000 units to 50,000+ buyers,
                   catalogs of 0, 10,000 and 100,000 items; writes docs/benchmarks.md and docs/benchmarks.png

Each service is warmed up before it is measured: purchases, refused ones and reads, then settle rounds of the
measured scenarios until the JIT compiles for under 5% of two rounds in a row (jstat -compiler of the JDK;
--smoke: one round, --quick: 90 s at most, --full: 180 s).

Scenarios, per strategy: HTTP floor, hot sell, sell-out, sold-out storm, availability storm (GET
/items/{sku}/availability of the hot item; skipped, with a line saying so, while the service answers 404
there), with the raw MySQL and Redis limits. Then (--quick, --full) the memory run: redis-lua write-behind's hot
sell with the JVM options of src/main/docker/Dockerfile.jvm (JAVA_OPTS_APPEND, MALLOC_ARENA_MAX) and
-XX:MaxRAM=512m (a 512 MB container limit), RSS sampled during the load. Then the catalog runs: per catalog size,
the items inserted straight into MySQL (after a first start has let Flyway create the schema) and Redis
flushed, every strategy's start-to-ready (--smoke: redis-lua write-behind's only); for redis-lua write-behind
also 10 new items sold a few units each, then 10 s idle: Redis commands/s (INFO total_commands_processed, of
the whole server) and the service's RSS. The summary compares the redis-lua write-behind figures with the
issue targets.

Options:
  --write-docs         write docs/benchmarks.md and docs/benchmarks.png in any mode
  --docs-dir DIR       where to write them (default: docs/ of this checkout)
  --strategies LIST    comma-separated subset of: db-optimistic,redis-lock,redis-lua
  --concurrency LIST   comma-separated client counts, instead of the mode's
  --reps N             repetitions per concurrency, instead of the mode's
  --catalog LIST       comma-separated catalog sizes (items; 0 = empty catalog), instead of the mode's;
                       none: no catalog runs
  --jar PATH           service jar to run (default: this checkout's target/quarkus-app/quarkus-run.jar,
                       built with ./mvnw when missing or older than the sources); also FLASHSTOCK_JAR
  -h, --help           this text

Environment: BENCH_MYSQL_HOST/PORT/USER/PASSWORD (127.0.0.1, 3306, root, empty), BENCH_REDIS_HOST/PORT
(unset: a Redis of its own, see below), BENCH_JAVA_OPTS (JVM options of the service), BENCH_OUT (folder for
logs and raw results; default a new temporary folder), BENCH_CONVERGE_SECONDS (how long redis-lua
write-behind may take to reach MySQL; default 5), BENCH_CATALOG_READY_SECONDS (how long a catalog run waits
for readiness before it records "not ready" and goes on; default 300).

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
EOF
}

# ---------------------------------------------------------------------------------------------------------------
# Options

MODE=""
WRITE_DOCS=false
DOCS_DIR="$REPO_DIR/docs"
ONLY_STRATEGIES=""
CONC_OVERRIDE=""
REPS_OVERRIDE=""
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

# Per mode: concurrency levels, repetitions, seconds of the hot sell / storm / HTTP floor / raw MySQL runs,
# the sell-out (stock vs buyers), warm-up seconds, the most seconds of JIT settle rounds (see jit_settle), the
# requests of one redis-benchmark run, the catalog sizes (and
# whether every strategy's start-to-ready is taken with them, or redis-lua write-behind's only), and whether the
# memory run is made.
case "$MODE" in
  smoke)
    CONCURRENCY=(4); REPS=1; HOT_SECONDS=2; STORM_SECONDS=1; FLOOR_SECONDS=1; RAW_SECONDS=1; RAW_WARMUP=0.5
    SELLOUT_STOCK=100; SELLOUT_BUYERS=500; WARMUP_SECONDS=3; SETTLE_SECONDS=1; REDIS_REQUESTS=5000
    CATALOG=(1000); CATALOG_EVERY_STRATEGY=false; MEMORY_RUN=false ;;
  quick)
    CONCURRENCY=(50); REPS=3; HOT_SECONDS=5; STORM_SECONDS=3; FLOOR_SECONDS=3; RAW_SECONDS=3; RAW_WARMUP=1
    SELLOUT_STOCK=1000; SELLOUT_BUYERS=10000; WARMUP_SECONDS=10; SETTLE_SECONDS=90; REDIS_REQUESTS=100000
    CATALOG=(0 10000); CATALOG_EVERY_STRATEGY=true; MEMORY_RUN=true ;;
  full)
    CONCURRENCY=(1 10 50 200); REPS=3; HOT_SECONDS=10; STORM_SECONDS=5; FLOOR_SECONDS=5; RAW_SECONDS=5
    RAW_WARMUP=1; SELLOUT_STOCK=1000; SELLOUT_BUYERS=51000; WARMUP_SECONDS=20; SETTLE_SECONDS=180
    REDIS_REQUESTS=200000
    CATALOG=(0 10000 100000); CATALOG_EVERY_STRATEGY=true; MEMORY_RUN=true; WRITE_DOCS=true ;;
esac
if [ -n "$CONC_OVERRIDE" ]; then IFS=, read -r -a CONCURRENCY <<<"$CONC_OVERRIDE"; fi
if [ -n "$REPS_OVERRIDE" ]; then REPS="$REPS_OVERRIDE"; fi
for c in "${CONCURRENCY[@]}" "$REPS"; do
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

# What runs: strategy[:persistence mode]. redis-lua is covered with both of its persistence modes.
ALL_CONFIGS=(db-optimistic redis-lock redis-lua:write-through redis-lua:write-behind)
CONFIGS=()
for config in "${ALL_CONFIGS[@]}"; do
  if [ -z "$ONLY_STRATEGIES" ] || [[ ",$ONLY_STRATEGIES," == *",${config%%:*},"* ]]; then CONFIGS+=("$config"); fi
done
((${#CONFIGS[@]} > 0)) || { echo "--strategies matched none of: db-optimistic, redis-lock, redis-lua" >&2; exit 2; }

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

say() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf '\n[bench] ERROR: %s\n' "$*" >&2; exit 1; }

# One run at a time: they would share the MySQL database (and, with an external Redis, its db 15).
exec 9>"${TMPDIR:-/tmp}/flashstock-bench.lock"
if ! flock -n 9; then
  say "another bench/run.sh is running; waiting for it (at most 30 minutes)"
  flock -w 1800 9 || die "the other bench/run.sh did not finish within 30 minutes"
fi

# ---------------------------------------------------------------------------------------------------------------
# Cleanup: every process this script started (its own redis-server last), and the one server setting it may
# have raised.

SERVICE_PID=""
MONITOR_PID=""
WRK_PID=""
REDIS_PID=""
REDIS_TMP=""
RESTORE_MAX_CONNECTIONS=""

stop_pid() { # pid [seconds to wait before SIGKILL]
  local pid="$1" wait_for="${2:-20}" i
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < wait_for * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# The bench's own redis-server (started further down), and its data folder.
stop_own_redis() {
  stop_pid "$REDIS_PID" 10
  REDIS_PID=""
  if [ -n "$REDIS_TMP" ] && [ -d "$REDIS_TMP" ]; then rm -rf -- "$REDIS_TMP"; fi
  REDIS_TMP=""
}

cleanup() {
  stop_pid "$WRK_PID" 2
  stop_pid "$MONITOR_PID" 2
  stop_pid "$SERVICE_PID" 20
  stop_own_redis
  if [ -n "$RESTORE_MAX_CONNECTIONS" ]; then
    sql_server "SET GLOBAL max_connections = $RESTORE_MAX_CONNECTIONS" || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------------------------
# Tools

# ensure_tool COMMAND DEBIAN_PACKAGE [optional]
ensure_tool() {
  local cmd="$1" package="$2" optional="${3:-}"
  command -v "$cmd" >/dev/null && return 0
  say "$cmd is missing: installing the Debian package $package"
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo -n"; fi
  if command -v apt-get >/dev/null \
    && { $sudo apt-get install -y -q "$package" >"$OUT/apt-$package.log" 2>&1 \
      || { $sudo apt-get update -q >>"$OUT/apt-$package.log" 2>&1 \
        && $sudo apt-get install -y -q "$package" >>"$OUT/apt-$package.log" 2>&1; }; } \
    && command -v "$cmd" >/dev/null; then
    say "installed $package"
    return 0
  fi
  if [ -n "$optional" ]; then
    say "could not install $package (see $OUT/apt-$package.log): $optional"
    return 1
  fi
  die "$cmd is needed and the package $package could not be installed (see $OUT/apt-$package.log); install it and run again"
}

ensure_tool curl curl
ensure_tool java openjdk-17-jdk-headless
ensure_tool javac openjdk-17-jdk-headless
ensure_tool wrk wrk
ensure_tool redis-cli redis-tools
ensure_tool redis-benchmark redis-tools
ensure_tool mariadb mariadb-client
ensure_tool unzip unzip "purchase.lua is then read from the source tree only"
ensure_tool openssl openssl
HAVE_JSTAT=false
if ensure_tool jstat openjdk-17-jdk-headless "the warm-up then runs its settle rounds without knowing whether the JIT has settled"; then
  HAVE_JSTAT=true
fi
HAVE_GNUPLOT=false
if $WRITE_DOCS && ensure_tool gnuplot gnuplot-nox "docs/benchmarks.md gets no chart"; then HAVE_GNUPLOT=true; fi

# ---------------------------------------------------------------------------------------------------------------
# MySQL and Redis

sql_server() { mariadb -h"$MYSQL_HOST" -P"$MYSQL_PORT" -u"$MYSQL_USER" -N -B -e "$1"; }
sql() { mariadb -h"$MYSQL_HOST" -P"$MYSQL_PORT" -u"$MYSQL_USER" -N -B "$BENCH_DB" -e "$1"; }
rcli() { redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" -n "$REDIS_DB" "$@"; }

# The own redis-server: no persistence, its data folder a temporary one, its log in $OUT. A port that looked
# free may be taken before redis-server binds it: then it exits, and another port is tried.
start_own_redis() {
  local log="$OUT/redis-server.log" attempt port i pid_seen
  REDIS_TMP="$(mktemp -d "${TMPDIR:-/tmp}/flashstock-bench-redis.XXXXXX")"
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    port=$((20000 + RANDOM % 12000)) # below the usual ephemeral range (32768-60999)
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi # something listens there
    echo "---- bench/run.sh: redis-server on 127.0.0.1:$port, attempt $attempt" >>"$log"
    # shellcheck disable=SC2094 # redis-server appends to its log; what it prints before opening it goes there too
    redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --dir "$REDIS_TMP" \
      --daemonize no --logfile "$log" >>"$log" 2>&1 &
    REDIS_PID=$!
    for ((i = 0; i < 200; i++)); do # 10 s
      kill -0 "$REDIS_PID" 2>/dev/null || break
      if [ "$(redis-cli -h 127.0.0.1 -p "$port" PING 2>/dev/null)" = PONG ]; then
        # the answer must come from this process, not from a server that took the port first
        pid_seen="$(redis-cli -h 127.0.0.1 -p "$port" INFO server 2>/dev/null | tr -d '\r' | sed -n 's/^process_id://p')"
        if [ "$pid_seen" = "$REDIS_PID" ]; then
          REDIS_HOST=127.0.0.1
          REDIS_PORT="$port"
          return 0
        fi
        break
      fi
      sleep 0.05
    done
    if kill -0 "$REDIS_PID" 2>/dev/null && [ -z "${pid_seen:-}" ]; then
      stop_own_redis
      die "the bench's own redis-server did not answer PING on 127.0.0.1:$port within 10 s (log: $log)"
    fi
    stop_pid "$REDIS_PID" 5
    REDIS_PID=""
    pid_seen=""
    grep -qi 'address already in use' "$log" || { tail -20 "$log" >&2; die "redis-server did not start (log: $log)"; }
  done
  die "found no free port for the bench's own redis-server in 10 attempts (log: $log)"
}

sql_server 'SELECT 1' >/dev/null 2>&1 || die "MariaDB/MySQL does not answer on $MYSQL_HOST:$MYSQL_PORT as $MYSQL_USER"
if $REDIS_OWN; then
  start_own_redis
  REDIS_DESC="a redis-server of the bench's own, without persistence"
  say "Redis: started $REDIS_DESC on 127.0.0.1:$REDIS_PORT (pid $REDIS_PID, stopped at exit; log $OUT/redis-server.log)"
else
  REDIS_DESC="db $REDIS_DB of the Redis at $REDIS_HOST:$REDIS_PORT"
  say "Redis: $REDIS_WHY: using $REDIS_DESC (FLUSHDB of db $REDIS_DB only; MONITOR on that server)"
  [ "$(rcli PING 2>/dev/null)" = PONG ] || die "Redis does not answer on $REDIS_HOST:$REDIS_PORT"
fi

# Empties the bench's Redis: all of its own server; of an external one, db 15 only.
redis_flush() {
  if $REDIS_OWN; then rcli FLUSHALL >/dev/null; else rcli FLUSHDB >/dev/null; fi
}

fresh_data() {
  sql_server "DROP DATABASE IF EXISTS $BENCH_DB; CREATE DATABASE $BENCH_DB" >/dev/null
  redis_flush
}

# The raw MySQL clients hold one connection each: make room for the largest concurrency (until this script exits).
max_needed=0
for c in "${CONCURRENCY[@]}"; do ((c > max_needed)) && max_needed=$c; done
max_connections="$(sql_server 'SELECT @@max_connections')"
if ((max_connections < max_needed + 60)); then
  if sql_server "SET GLOBAL max_connections = $((max_needed + 100))" 2>/dev/null; then
    RESTORE_MAX_CONNECTIONS="$max_connections"
    say "raised max_connections from $max_connections to $((max_needed + 100)) for this run (restored at exit)"
  else
    say "max_connections is $max_connections: raw MySQL runs above $((max_connections - 60)) clients may fail"
  fi
fi

# ---------------------------------------------------------------------------------------------------------------
# The service jar (built from this checkout when missing or stale, unless --jar / FLASHSTOCK_JAR names one)

if [ -z "$JAR" ]; then
  JAR="$REPO_DIR/target/quarkus-app/quarkus-run.jar"
  if [ ! -f "$JAR" ] || [ -n "$(find "$REPO_DIR/src/main" "$REPO_DIR/pom.xml" -newer "$JAR" -print -quit)" ]; then
    say "building the service jar: ./mvnw -B -q package -DskipTests (log: $OUT/build.log)"
    (cd "$REPO_DIR" && ./mvnw -B -q package -DskipTests) >"$OUT/build.log" 2>&1 \
      || { tail -40 "$OUT/build.log" >&2; die "the build failed (log: $OUT/build.log)"; }
  fi
fi
[ -f "$JAR" ] || die "no service jar at $JAR"
JAR="$(cd "$(dirname "$JAR")" && pwd)/$(basename "$JAR")"
say "service jar: $JAR"

# The purchase script of that build (for the raw Redis row), from the build output or its source tree.
PURCHASE_LUA="$OUT/purchase.lua"
rm -f "$PURCHASE_LUA"
for app_jar in "$(dirname "$JAR")"/app/*.jar; do
  if [ -f "$app_jar" ] && command -v unzip >/dev/null && unzip -l "$app_jar" lua/purchase.lua >/dev/null 2>&1; then
    unzip -p "$app_jar" lua/purchase.lua >"$PURCHASE_LUA"
  fi
done
jar_root="$(cd "$(dirname "$JAR")/../.." && pwd)"
if [ ! -s "$PURCHASE_LUA" ] && [ -f "$jar_root/src/main/resources/lua/purchase.lua" ]; then
  cp "$jar_root/src/main/resources/lua/purchase.lua" "$PURCHASE_LUA"
fi
[ -s "$PURCHASE_LUA" ] || rm -f "$PURCHASE_LUA"

# The raw MySQL harness: one Java file, compiled once, with the MySQL driver the service build uses.
CONNECTOR_JAR=""
for where in "$(dirname "$JAR")/lib" "$HOME/.m2/repository/com/mysql"; do
  [ -d "$where" ] && CONNECTOR_JAR="$(find "$where" -name '*mysql-connector-j-*.jar' | sort -V | tail -1)"
  [ -z "$CONNECTOR_JAR" ] || break
done
[ -n "$CONNECTOR_JAR" ] || die "no mysql-connector-j jar found (in $(dirname "$JAR")/lib or ~/.m2)"
mkdir -p "$OUT/classes"
javac -d "$OUT/classes" -cp "$CONNECTOR_JAR" "$BENCH_DIR/RawMysql.java" || die "cannot compile bench/RawMysql.java"

# ---------------------------------------------------------------------------------------------------------------
# Bearer tokens (README, "Access"): a key pair of this run's own, trusted by the services it starts. The load runs
# as a shop (it names a buyer per purchase in the body, as a shop's backend does); the catalog is set up as admin.

JWT_ISSUER="https://bench.flashstock.invalid"
mkdir -p "$OUT/jwt"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$OUT/jwt/privateKey.pem" 2>/dev/null \
  && openssl pkey -in "$OUT/jwt/privateKey.pem" -pubout -out "$OUT/jwt/publicKey.pem" \
  || die "openssl could not make the bench's token key pair"
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
mint_token() { # subject role: an RS256 JWT valid for a day
  local now header claims
  now="$(date +%s)"
  header="$(printf '{"alg":"RS256","typ":"JWT"}' | b64url)"
  claims="$(printf '{"iss":"%s","sub":"%s","groups":["%s"],"iat":%d,"exp":%d}' \
    "$JWT_ISSUER" "$1" "$2" "$now" $((now + 86400)) | b64url)"
  printf '%s.%s.%s' "$header" "$claims" \
    "$(printf '%s.%s' "$header" "$claims" | openssl dgst -sha256 -sign "$OUT/jwt/privateKey.pem" -binary | b64url)"
}
ADMIN_AUTH="Authorization: Bearer $(mint_token bench-admin admin)"
SHOP_AUTH="Authorization: Bearer $(mint_token bench-shop shop)"
export BENCH_AUTH="${SHOP_AUTH#Authorization: }" # wrk_purchase.lua sends it with every API request

# ---------------------------------------------------------------------------------------------------------------
# The service process

SERVICE_PORT=""
SERVICE_READY_MS=""
# Extra environment (NAME=value) and JVM options (after BENCH_JAVA_OPTS) of the next start; the memory run sets them.
SERVICE_ENV=()
SERVICE_JVM_OPTS=()

# start_service STRATEGY PERSISTENCE LOG [READY_SECONDS]: on the data as it is (see fresh_data); times start to
# ready (/q/health/ready 200) in SERVICE_READY_MS. 0 ready; 3 strategy not in this build; 4 still not ready after
# READY_SECONDS (default 120; the service is left running); dies if it stops during startup.
start_service() {
  local strategy="$1" persistence="$2" log="$3" ready_seconds="${4:-120}" t0 code i
  t0=$(date +%s%N)
  # shellcheck disable=SC2086 # BENCH_JAVA_OPTS is a list of options
  env QUARKUS_PROFILE="$strategy" \
    QUARKUS_DATASOURCE_JDBC_URL="$JDBC_URL" \
    QUARKUS_DATASOURCE_USERNAME="$MYSQL_USER" QUARKUS_DATASOURCE_PASSWORD="$MYSQL_PWD" \
    QUARKUS_REDIS_HOSTS="redis://$REDIS_HOST:$REDIS_PORT/$REDIS_DB" \
    QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT=0 \
    QUARKUS_MANAGEMENT_HOST=127.0.0.1 QUARKUS_MANAGEMENT_PORT=0 \
    MP_JWT_VERIFY_ISSUER="$JWT_ISSUER" MP_JWT_VERIFY_PUBLICKEY_LOCATION="file:$OUT/jwt/publicKey.pem" \
    FLASHSTOCK_RESERVATION_TTL=6h \
    ${persistence:+FLASHSTOCK_LUA_PERSISTENCE="$persistence"} \
    "${SERVICE_ENV[@]}" \
    java ${BENCH_JAVA_OPTS:-} "${SERVICE_JVM_OPTS[@]}" -jar "$JAR" >"$log" 2>&1 &
  SERVICE_PID=$!
  SERVICE_PORT=""
  for ((i = 0; i < ready_seconds * 20; i++)); do
    if ! kill -0 "$SERVICE_PID" 2>/dev/null; then
      wait "$SERVICE_PID" 2>/dev/null || true
      SERVICE_PID=""
      if grep -q 'not implemented' "$log"; then return 3; fi
      tail -30 "$log" >&2
      die "the service ($strategy${persistence:+ $persistence}) stopped during startup (log: $log)"
    fi
    if [ -z "$SERVICE_PORT" ]; then
      SERVICE_PORT="$(grep -so 'Listening on: http://[^ ]*[0-9]' "$log" | head -1 | sed 's/.*://' || true)"
    fi
    if [ -n "$SERVICE_PORT" ]; then
      code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$SERVICE_PORT/q/health/ready" || true)"
      if [ "$code" = 200 ]; then
        SERVICE_READY_MS=$((($(date +%s%N) - t0) / 1000000))
        return 0
      fi
    fi
    sleep 0.05
  done
  return 4
}

# start_or_die LABEL STRATEGY PERSISTENCE LOG: start_service that dies unless the service is ready within 120 s
# (0) or its strategy is not in this build (3).
start_or_die() {
  local rc=0
  start_service "${@:2}" || rc=$?
  if ((rc == 4)); then
    tail -30 "$4" >&2
    die "the service ($1) was not ready within 120 s (log: $4)"
  fi
  return "$rc"
}

stop_service() {
  stop_pid "$SERVICE_PID" 20
  SERVICE_PID=""
}

base_url() { echo "http://127.0.0.1:$SERVICE_PORT"; }

create_item() { # sku stock per_user_limit
  local code
  code="$(curl -s -o "$OUT/create-item.json" -w '%{http_code}' -X POST "$(base_url)/items" \
    -H 'Content-Type: application/json' -H "$ADMIN_AUTH" \
    -d "{\"sku\":\"$1\",\"name\":\"bench $1\",\"stock\":$2,\"perUserLimit\":$3}")"
  [ "$code" = 201 ] || die "POST /items $1 answered $code: $(cat "$OUT/create-item.json")"
}

# CPU time (clock ticks) of a process, and of MySQL + Redis servers together.
CLK_TCK="$(getconf CLK_TCK)"
cpu_ticks() { # pid...
  local pid total=0 t
  for pid in "$@"; do
    t="$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $12 + $13}')" || t=0
    total=$((total + ${t:-0}))
  done
  echo "$total"
}
if $REDIS_OWN; then
  BACKEND_PIDS="$(pidof mariadbd mysqld 2>/dev/null || true) $REDIS_PID"
else
  BACKEND_PIDS="$(pidof mariadbd mysqld redis-server 2>/dev/null || true)"
fi
rss_kb() { # pid VmRSS|VmHWM: in kB (plain bash, no program run: run_wrk samples it every 0.1 s)
  local key value _
  while read -r key value _; do
    if [ "$key" = "$2:" ]; then echo "$value"; return 0; fi
  done <"/proc/$1/status"
}

# ---------------------------------------------------------------------------------------------------------------
# Load runs

declare -A R # the last run's figures

parse_result() { # "PREFIX key=value ..."
  local kv
  R=()
  for kv in $1; do
    if [[ "$kv" == *=* ]]; then R["${kv%%=*}"]="${kv#*=}"; fi
  done
}

RSS_SAMPLES=() # the service's VmRSS (kB) every 0.1 s during the last run_wrk

# run_wrk MODE SKU PREFIX CONC REQUESTS SECONDS REPEAT_PCT: one wrk run (MODE: purchase, noop or availability, see
# bench/wrk_purchase.lua); figures in R, CPU seconds in R[svc_cpu] and R[back_cpu], RSS samples in RSS_SAMPLES.
run_wrk() {
  local mode="$1" sku="$2" prefix="$3" conc="$4" requests="$5" seconds="$6" repeat="$7" out line safety
  local svc0 back0 svc1 back1 rss
  RSS_SAMPLES=()
  safety=$((seconds > 0 ? seconds + 120 : 1800))
  svc0=$(cpu_ticks "$SERVICE_PID")
  # shellcheck disable=SC2086 # BACKEND_PIDS is a list of pids
  back0=$(cpu_ticks $BACKEND_PIDS)
  BENCH_MODE="$mode" BENCH_SKU="$sku" BENCH_PREFIX="$prefix" BENCH_REQUESTS="$requests" \
    BENCH_SECONDS="$seconds" BENCH_REPEAT_PCT="$repeat" \
    wrk -t1 -c"$conc" -d"${safety}s" --timeout 30s -s "$BENCH_DIR/wrk_purchase.lua" "$(base_url)" >"$OUT/wrk.out" 2>&1 &
  WRK_PID=$!
  # wrk ends by itself when every answer is in; a service that died would leave it waiting for its -d.
  while kill -0 "$WRK_PID" 2>/dev/null; do
    if ! kill -0 "$SERVICE_PID" 2>/dev/null; then
      stop_pid "$WRK_PID" 2
      die "the service process died during the run $prefix (log: $OUT/service-*.log)"
    fi
    if rss="$(rss_kb "$SERVICE_PID" VmRSS 2>/dev/null)"; then RSS_SAMPLES+=("$rss"); fi
    sleep 0.1
  done
  wait "$WRK_PID" || die "wrk failed: $(cat "$OUT/wrk.out")"
  WRK_PID=""
  svc1=$(cpu_ticks "$SERVICE_PID")
  # shellcheck disable=SC2086 # BACKEND_PIDS is a list of pids
  back1=$(cpu_ticks $BACKEND_PIDS)
  out="$(cat "$OUT/wrk.out")"
  line="$(grep '^BENCH_RESULT' <<<"$out" || true)"
  [ -n "$line" ] || die "wrk printed no BENCH_RESULT: $out"
  printf '%s %s\n' "$prefix" "$line" >>"$OUT/wrk.log"
  parse_result "$line"
  R[svc_cpu]="$(awk -v t=$((svc1 - svc0)) -v hz="$CLK_TCK" 'BEGIN {printf "%.3f", t / hz}')"
  R[back_cpu]="$(awk -v t=$((back1 - back0)) -v hz="$CLK_TCK" 'BEGIN {printf "%.3f", t / hz}')"
}

record_svc() { # config scenario conc rep
  printf 'svc\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" \
    "${R[rps]}" "${R[p50_us]}" "${R[p99_us]}" "${R[s2xx]}" "${R[s409_sold_out]}" "${R[s409_limit]}" \
    "${R[s503]}" "${R[received]}" "${R[svc_cpu]}" "${R[back_cpu]}" >>"$RESULTS"
  say "$(printf '%-24s %-15s c=%-3s #%s  %8s req/s  p50 %6s ms  p99 %7s ms  2xx %s  409 %s  503 %s' "$1" "$2" "$3" "$4" \
    "${R[rps]}" "$(awk -v u="${R[p50_us]}" 'BEGIN {printf "%.2f", u / 1000}')" \
    "$(awk -v u="${R[p99_us]}" 'BEGIN {printf "%.2f", u / 1000}')" "${R[s2xx]}" \
    "$((R[s409_sold_out] + R[s409_limit]))" "${R[s503]}")"
}

record_raw() { # name conc rep rps p50_us p99_us [note [config it ran after]]
  printf 'raw\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "${7:-}" "${8:-}" >>"$RESULTS"
  say "$(printf '%-24s %-15s c=%-3s #%s  %8s ops/s p50 %6s ms  p99 %7s ms %s' raw "$1" "$2" "$3" "$4" \
    "$(awk -v u="$5" 'BEGIN {printf "%.2f", u / 1000}')" "$(awk -v u="$6" 'BEGIN {printf "%.2f", u / 1000}')" "${7:-}")"
}

# ---------------------------------------------------------------------------------------------------------------
# Invariants, after every service scenario

breach() {
  BREACHES=$((BREACHES + 1))
  {
    echo
    echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
    echo "!!! INVARIANT BREACH: $*"
    echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
    echo
  } >&2
}

# What the answers of this service run promised, per item: 2xx answers (each an order of one unit) and sold-out
# answers. Reset with the data at every service start.
declare -A PROMISED_ORDERS=() SOLD_OUT_ANSWERS=()

# check_answers LABEL ONLY_2XX(true|false): after the run in R, answers the contract does not allow (purchases: any
# but 2xx, 409 sold-out / purchase-limit and 503; reads: any but 2xx), and answers that never came. Counts breaches;
# stop_if_breached stops.
check_answers() {
  local label="$1" unexpected=$((R[s409_other] + R[s4xx] + R[s5xx] + R[other]))
  if $2; then unexpected=$((R[received] - R[s2xx])); fi
  ((unexpected == 0)) || breach "$label: $unexpected unexpected answers (409 sold-out ${R[s409_sold_out]}, 409 limit ${R[s409_limit]}, 409 other ${R[s409_other]}, 503 ${R[s503]}, 4xx ${R[s4xx]}, 5xx ${R[s5xx]}, other ${R[other]}; see $OUT/service-*.log)"
  ((R[received] == R[sent])) || breach "$label: ${R[sent]} requests sent, ${R[received]} answered"
  ((R[socket_errors] == 0 && R[timeouts] == 0)) || breach "$label: ${R[socket_errors]} socket errors, ${R[timeouts]} timeouts: answers were lost"
}

# check_item LABEL SKU REDIS_COUNTERS(true|false): after the purchase run in R.
check_item() {
  local label="$1" sku="$2" redis_counters="$3"
  local orders units stock available reserved sold limit over row waited=0 rrow
  PROMISED_ORDERS[$sku]=$((${PROMISED_ORDERS[$sku]:-0} + R[s2xx]))
  SOLD_OUT_ANSWERS[$sku]=$((${SOLD_OUT_ANSWERS[$sku]:-0} + R[s409_sold_out]))
  local expected="${PROMISED_ORDERS[$sku]}"

  check_answers "$label" false

  # Orders reach MySQL before the answer, or (redis-lua write-behind) within a bounded delay.
  while :; do
    row="$(sql "SELECT i.stock, i.available, i.reserved, i.sold, i.per_user_limit,
                       (SELECT COUNT(*) FROM purchase_order o WHERE o.sku = i.sku),
                       (SELECT COALESCE(SUM(o.quantity), 0) FROM purchase_order o WHERE o.sku = i.sku)
                FROM item i WHERE i.sku = '$sku'")"
    [ -n "$row" ] || { breach "$label: item $sku is not in MySQL"; return 0; }
    read -r stock available reserved sold limit orders units <<<"$row"
    rrow=""
    if $redis_counters; then
      rrow="$(rcli HMGET "fs:{$sku}:stock" stock available reserved sold | paste -sd ' ')"
    fi
    if ((orders == expected)) && { ! $redis_counters || [ "$rrow" = "$stock $available $reserved $sold" ]; }; then
      break
    fi
    if ((waited >= CONVERGE_SECONDS * 10)); then break; fi
    sleep 0.1
    waited=$((waited + 1))
  done
  ((waited == 0)) || say "$label: MySQL caught up after $((waited * 100)) ms"

  ((orders == expected)) || breach "$label: $orders orders of $sku in MySQL, but $expected purchases were answered 2xx"
  ((units == reserved + sold)) || breach "$label: orders of $sku hold $units units, the item says reserved+sold = $((reserved + sold))"
  ((stock == available + reserved + sold)) || breach "$label: $sku stock $stock != available $available + reserved $reserved + sold $sold"
  ((reserved + sold <= stock)) || breach "$label: $sku oversold: $((reserved + sold)) units of $stock"
  if ((SOLD_OUT_ANSWERS[$sku] > 0)); then
    ((reserved + sold == stock)) || breach "$label: ${SOLD_OUT_ANSWERS[$sku]} buyers were told sold-out, but only $((reserved + sold)) of $stock units are gone"
  fi
  if ((limit > 0)); then
    over="$(sql "SELECT COUNT(*) FROM (SELECT user_id FROM purchase_order WHERE sku = '$sku'
                   AND status IN ('RESERVED', 'CONFIRMED') GROUP BY user_id HAVING SUM(quantity) > $limit) t")"
    ((over == 0)) || breach "$label: $over users of $sku hold more than the limit of $limit"
  fi
  if $redis_counters && [ "$rrow" != "$stock $available $reserved $sold" ]; then
    breach "$label: Redis fs:{$sku}:stock (stock available reserved sold) = '$rrow', MySQL = '$stock $available $reserved $sold'"
  fi
  stop_if_breached
}

# At the first breach: the report so far, the data kept, exit 3.
stop_if_breached() {
  if ((BREACHES > 0)); then
    report
    if $REDIS_OWN; then
      # its own redis-server goes at exit: keep its data as an RDB file
      if rcli SAVE >/dev/null 2>&1 && cp "$REDIS_TMP/dump.rdb" "$OUT/redis-breach.rdb" 2>/dev/null; then
        echo "Stopped at the first breach. Data kept in database $BENCH_DB and (the bench's own redis-server stops" \
          "now) in $OUT/redis-breach.rdb; logs in $OUT" >&2
      else
        echo "Stopped at the first breach. Data kept in database $BENCH_DB (the Redis data went with the bench's" \
          "own redis-server); logs in $OUT" >&2
      fi
    else
      echo "Stopped at the first breach. Data kept in database $BENCH_DB and Redis db $REDIS_DB; logs in $OUT" >&2
    fi
    exit 3
  fi
}

# ---------------------------------------------------------------------------------------------------------------
# Raw limits

raw_mysql() { # versioned|conditional conc rep sku
  local out
  out="$(java -cp "$OUT/classes:$CONNECTOR_JAR" RawMysql \
    "$JDBC_URL?useAffectedRows=true&cachePrepStmts=true&connectionTimeZone=UTC" "$MYSQL_USER" "$MYSQL_PWD" \
    "$4" "$1" "$2" "$RAW_SECONDS" "$RAW_WARMUP" 2>&1)" || die "raw MySQL $1 failed: $out"
  parse_result "$(grep '^RAW_RESULT' <<<"$out")"
  record_raw "mysql-$1" "$2" "$3" "${R[rps]}" "${R[p50_us]}" "${R[p99_us]}" \
    "$(awk -v r="${R[retries]}" -v n="${R[ops]}" 'BEGIN {printf "%.2f retries/update", (n > 0 ? r / n : 0)}')"
}

# Raw Redis: the exact EVALSHA the service sends for one purchase (caught with MONITOR while it runs), replayed
# by redis-benchmark with fresh user ids, keys and order ids, against an item whose stock never runs out.
RAW_LUA_SKU=raw-lua
RAW_LUA_ARGS=()
RAW_LUA_SKIP=""

# Decodes a MONITOR line's quoted arguments, one per line (gives up on arguments with newlines or binary).
monitor_args() {
  awk '{
    s = $0; sub(/^[^]]*\] /, "", s)
    n = length(s); arg = ""; inq = 0
    for (i = 1; i <= n; i++) {
      ch = substr(s, i, 1)
      if (!inq) { if (ch == "\"") { inq = 1; arg = "" } continue }
      if (ch == "\\") {
        i++; ch = substr(s, i, 1)
        if (ch == "\"" || ch == "\\") arg = arg ch
        else { print "UNSUPPORTED"; exit }
        continue
      }
      if (ch == "\"") { print arg; inq = 0; continue }
      arg = arg ch
    }
  }'
}

capture_lua_purchase() {
  RAW_LUA_ARGS=()
  RAW_LUA_SKIP=""
  create_item "$RAW_LUA_SKU" 2000000000 0
  local capture="$OUT/monitor.txt" line cmd i a user="rawcap-u1" key="rawcap-k1"
  redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" MONITOR >"$capture" 2>&1 &
  MONITOR_PID=$!
  sleep 0.3
  local order_id
  order_id="$(curl -s -X POST "$(base_url)/items/$RAW_LUA_SKU/purchases" -H 'Content-Type: application/json' \
    -H "$SHOP_AUTH" \
    -H "Idempotency-Key: $key" -d "{\"userId\":\"$user\",\"quantity\":1}" \
    | grep -o '"orderId":"[0-9a-fA-F-]*"' | cut -d'"' -f4 || true)"
  sleep 0.3
  stop_pid "$MONITOR_PID" 2
  MONITOR_PID=""
  # The call of the build's purchase.lua (by its SHA1) if seen, else the first script call on the item's keys.
  local calls purchase_sha=""
  calls="$(grep -F "[$REDIS_DB " "$capture" | grep -iE '"(EVALSHA|EVAL)"' | grep -F "{$RAW_LUA_SKU}" || true)"
  [ -f "$PURCHASE_LUA" ] && purchase_sha="$(sha1sum "$PURCHASE_LUA" | cut -d' ' -f1)"
  line="$( { [ -n "$purchase_sha" ] && grep -F "\"$purchase_sha\"" <<<"$calls"; } | head -1 || true)"
  [ -n "$line" ] || line="$(head -1 <<<"$calls")"
  if [ -z "$line" ]; then
    RAW_LUA_SKIP="no EVALSHA/EVAL of the item's keys seen during a purchase (MONITOR: $capture)"
    return 0
  fi
  mapfile -t cmd < <(monitor_args <<<"$line")
  if [ "${cmd[*]}" = UNSUPPORTED ] || ((${#cmd[@]} < 3)); then
    RAW_LUA_SKIP="cannot replay the captured call: $line"
    return 0
  fi
  if [[ "${cmd[0]^^}" == EVAL ]]; then # sent as a script body: load the build's purchase.lua instead
    [ -f "$PURCHASE_LUA" ] || { RAW_LUA_SKIP="the service sends EVAL and the build has no lua/purchase.lua"; return 0; }
    cmd[1]="$(rcli SCRIPT LOAD "$(cat "$PURCHASE_LUA")")"
  fi
  RAW_LUA_ARGS=(EVALSHA "${cmd[1]}")
  for ((i = 2; i < ${#cmd[@]}; i++)); do
    a="${cmd[$i]//$user/rawcap-u__rand_int__}"
    a="${a//$key/rawcap-k__rand_int__}"
    # the order id (a UUID): its last group becomes 12 random digits
    if [ -n "$order_id" ]; then a="${a//$order_id/${order_id:0:24}__rand_int__}"; fi
    RAW_LUA_ARGS+=("$a")
  done
  # Write-behind bounds the item's stream of pending orders (ARGV[11] of purchase.lua), which its relays keep short.
  # No relay reads the raw item's stream, so after that many calls every one would be refused (BUSY): the replay
  # lifts the bound (the script still checks it, at the same cost). Only for the argument layout purchase.lua
  # documents: 11 arguments or more, the 10th '' (write-behind), the 11th a positive count.
  local cap_at
  if [[ "${RAW_LUA_ARGS[2]}" =~ ^[0-9]+$ ]]; then
    cap_at=$((2 + RAW_LUA_ARGS[2] + 11))
    if ((${#RAW_LUA_ARGS[@]} > cap_at)) && [ -z "${RAW_LUA_ARGS[cap_at - 1]}" ] \
      && [[ "${RAW_LUA_ARGS[cap_at]}" =~ ^[1-9][0-9]*$ ]]; then
      say "raw Redis: the stream bound ${RAW_LUA_ARGS[cap_at]} (write-behind) lifted to 2000000000 for the replay"
      RAW_LUA_ARGS[cap_at]=2000000000
    fi
  fi
  printf '%q ' "${RAW_LUA_ARGS[@]}" >"$OUT/raw-lua-command.txt"
  say "raw Redis: replaying $(cat "$OUT/raw-lua-command.txt")"
}

# After the redis-lua service stopped (so no relay consumes what the raw calls leave behind). A run in which fewer
# than 95% of the calls took a unit measured something else (say the script cache was flushed under it, which
# makes every call a fast NOSCRIPT error): it is discarded and run again, at most twice.
raw_redis() { # conc rep label (of the redis-lua run whose call it replays)
  local before after out rps p50 p99 note attempt
  for attempt in 1 2 3; do
    if ! rcli SCRIPT EXISTS "${RAW_LUA_ARGS[1]}" | grep -qx 1; then
      say "raw Redis: the script ${RAW_LUA_ARGS[1]} is not loaded (any more); loading the build's purchase.lua"
      [ -f "$PURCHASE_LUA" ] && rcli SCRIPT LOAD "$(cat "$PURCHASE_LUA")" >/dev/null
    fi
    before="$(rcli HGET "fs:{$RAW_LUA_SKU}:stock" available)"
    out="$(redis-benchmark -h "$REDIS_HOST" -p "$REDIS_PORT" --dbnum "$REDIS_DB" -c "$1" -n "$REDIS_REQUESTS" -P 1 \
      -r 1000000000 --csv "${RAW_LUA_ARGS[@]}" 2>&1)" || die "redis-benchmark failed: $out"
    after="$(rcli HGET "fs:{$RAW_LUA_SKU}:stock" available)"
    printf 'c=%s #%s attempt %s: available %s -> %s\n%s\n' "$1" "$2" "$attempt" "$before" "$after" "$out" >>"$OUT/redis-benchmark.log"
    # "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_..."
    # (counted from the end: the test name is the command, which may hold commas)
    read -r rps p50 p99 < <(tail -1 <<<"$out" | tr -d '"' | awk -F, '{print $(NF-6), $(NF-3), $(NF-1)}')
    if ! [[ "$before" =~ ^[0-9]+$ && "$after" =~ ^[0-9]+$ ]]; then
      note="unit count not checked (no fs:{$RAW_LUA_SKU}:stock available)"
      break
    fi
    note="$(awk -v d=$((before - after)) -v n="$REDIS_REQUESTS" 'BEGIN {printf "%.1f%% of the calls took a unit", 100 * d / n}')"
    if ((before - after >= REDIS_REQUESTS * 95 / 100)); then
      break
    fi
    say "WARNING: raw Redis run c=$1 #$2: only $((before - after)) of $REDIS_REQUESTS calls took a unit;" \
      "$( ((attempt < 3)) && echo "discarded, running it again" || echo "kept, but it does not measure winning purchases")"
  done
  record_raw redis-evalsha "$1" "$2" "$rps" "$(awk -v m="$p50" 'BEGIN {printf "%d", m * 1000}')" \
    "$(awk -v m="$p99" 'BEGIN {printf "%d", m * 1000}')" "$note" "$3"
}

# ---------------------------------------------------------------------------------------------------------------
# Service scenarios (the main runs, the memory run and the catalog runs share them)

# split_config CONFIG: strategy[:persistence] into strategy, persistence and label (strategy[/persistence]), the
# caller's variables of those names.
split_config() {
  strategy="${1%%:*}"
  persistence=""
  if [[ "$1" == *:* ]]; then persistence="${1#*:}"; fi
  label="$strategy${persistence:+/$persistence}"
}

AVAILABILITY=false # whether the service run has GET /items/{sku}/availability (set by warm_up)

# warm_read LABEL MODE SKU CONC: 2 s runs of a read (wrk MODE noop or availability) until its rate stops rising
# (under 10% above the run before), for WARMUP_SECONDS at most; every answer must be 2xx. Purchases do not warm the
# read paths: /q/health/live at 50 clients took about 10 s to settle (3 s runs: 7,100, 16,800, 28,500, 42,700, then
# 43,500 to 45,100 req/s), and measured cold, the floor drifted up over the repetitions and so did the ratios to it.
warm_read() {
  local prev=0 runs=0 rate
  while ((runs == 0 || runs < WARMUP_SECONDS / 2)); do
    runs=$((runs + 1))
    run_wrk "$2" "$3" "$RUN_ID-w$2$runs" "$4" 0 2 0
    check_answers "$1 warm-up $2" true
    stop_if_breached
    rate="${R[rps]%.*}"
    if ((rate * 10 < prev * 11)); then break; fi
    prev="$rate"
  done
  say "$1: $2 warmed up: $runs run(s) of 2 s, the last at ${R[rps]} req/s"
}

# warm_up LABEL REDIS_COUNTERS [READS]: JVM warm-up at the highest concurrency: purchases that win, then ones that
# are refused; with READS (the default) also the reads that are measured against each other (warm_read): the HTTP
# floor, and the availability read where this build has it (AVAILABILITY).
warm_up() {
  local top=${CONCURRENCY[0]} c
  for c in "${CONCURRENCY[@]}"; do if ((c > top)); then top=$c; fi; done
  create_item warm-hot 2000000000 0
  run_wrk purchase warm-hot "$RUN_ID-w" "$top" 0 "$WARMUP_SECONDS" 0
  check_item "$1 warm-up" warm-hot "$2"
  create_item warm-out 10 1
  run_wrk purchase warm-out "$RUN_ID-wo" "$top" 0 2 0
  check_item "$1 warm-up sold-out" warm-out "$2"
  BENCH_KEYS=0 run_wrk purchase warm-out "$RUN_ID-wx" "$top" 0 2 0
  check_item "$1 warm-up sold-out storm" warm-out "$2"
  if ${3:-true}; then
    warm_read "$1" noop "" "$top"
    AVAILABILITY=true
    probe_availability "$1" warm-hot || AVAILABILITY=false
    if $AVAILABILITY; then warm_read "$1" availability warm-hot "$top"; fi
  fi
  jit_settle "$1" "$2" "${3:-true}" "$top"
  say "$1: warmed up"
}

# jit_compiled: "METHODS SECONDS" the service's JIT has compiled so far (jstat -compiler; the seconds are the
# compiler threads' time), or nothing when that cannot be read.
jit_compiled() {
  if $HAVE_JSTAT; then jstat -compiler "$SERVICE_PID" 2>/dev/null | awk 'NR == 2 && NF >= 4 {print $1, $4}'; fi
}

# jit_settle LABEL REDIS_COUNTERS READS CONC: rounds of what is measured (2 s of purchases that win, 1 s of the
# sold-out storm, and with READS 1 s each of the HTTP floor and of the availability read) until the JIT has
# settled: two rounds in a row whose compilations took under JIT_SETTLED_PCT % of their time (one such round alone
# is no sign: a large method compiled late can take a fifth of the next). A fixed warm-up is not enough
# on 2 cores: after 10 s of purchases the C2 compiler threads still took 25-47 % of the service's CPU through the
# measured runs (thread CPU from /proc, -XX:+PrintCompilation: 150-550 compilations per 10 s at 60-80 s), which
# understated every service run, most those early in a JVM's life (the first repetition, the memory run). Stops
# after SETTLE_SECONDS in any case (the report says whether it settled); without jstat it runs one round.
JIT_SETTLED_PCT=5
jit_settle() {
  local label="$1" conc="$4" rounds=0 t0 t1 started=$SECONDS before after pct="" methods quiet=0 settled=false
  while ((rounds == 0 || SECONDS - started < SETTLE_SECONDS)); do
    rounds=$((rounds + 1))
    before="$(jit_compiled)"
    t0="$(date +%s.%N)"
    run_wrk purchase warm-hot "$RUN_ID-j$rounds" "$conc" 0 2 0
    check_item "$label settle round $rounds" warm-hot "$2"
    BENCH_KEYS=0 run_wrk purchase warm-out "$RUN_ID-jx$rounds" "$conc" 0 1 0
    check_item "$label settle round $rounds sold-out storm" warm-out "$2"
    if $3; then
      run_wrk noop "" "$RUN_ID-jf$rounds" "$conc" 0 1 0
      check_answers "$label settle round $rounds noop" true
      if $AVAILABILITY; then
        run_wrk availability warm-hot "$RUN_ID-ja$rounds" "$conc" 0 1 0
        check_answers "$label settle round $rounds availability" true
      fi
      stop_if_breached
    fi
    t1="$(date +%s.%N)"
    after="$(jit_compiled)"
    [ -n "$before" ] && [ -n "$after" ] || break
    read -r pct methods < <(awk -v b="$before" -v a="$after" -v t0="$t0" -v t1="$t1" 'BEGIN {
      split(b, x, " "); split(a, y, " "); printf "%.1f %d\n", 100 * (y[2] - x[2]) / (t1 - t0), y[1] - x[1] }')
    say "$label: settle round $rounds: the JIT compiled $methods methods for $pct % of the round"
    if awk -v p="$pct" -v m="$JIT_SETTLED_PCT" 'BEGIN {exit !(p < m)}'; then quiet=$((quiet + 1)); else quiet=0; fi
    if ((quiet == 2)); then settled=true; break; fi
  done
  if [ -z "$pct" ]; then
    say "$label: $rounds settle round(s); the JIT's compile time could not be read (jstat)"
    printf 'info\t%s\tjit_settle\t%s round(s), unknown\n' "$label" "$rounds" >>"$RESULTS"
  elif $settled; then
    say "$label: the JIT settled after $rounds round(s), $((SECONDS - started)) s"
    printf 'info\t%s\tjit_settle\tsettled after %s round(s), %s s\n' "$label" "$rounds" "$((SECONDS - started))" >>"$RESULTS"
  else
    say "$label: the JIT had not settled after $rounds round(s), $((SECONDS - started)) s: $pct % in the last"
    printf 'info\t%s\tjit_settle\tnot settled after %s round(s), %s s (%s %% in the last)\n' \
      "$label" "$rounds" "$((SECONDS - started))" "$pct" >>"$RESULTS"
  fi
}

RSS_LOAD=0 # the service's highest VmRSS (kB) right after one of its hot sells

# hot_sell LABEL TAG CONC REP REDIS_COUNTERS: HOT_SECONDS of purchases of hot-TAG, a new item that never sells out;
# the service's RSS samples of the run recorded too.
hot_sell() {
  local label="$1" sku="hot-$2" conc="$3" rss kb
  create_item "$sku" 2000000000 0
  run_wrk purchase "$sku" "$RUN_ID-h$2" "$conc" 0 "$HOT_SECONDS" 0
  rss=$(rss_kb "$SERVICE_PID" VmRSS)
  if ((rss > RSS_LOAD)); then RSS_LOAD=$rss; fi
  for kb in "${RSS_SAMPLES[@]}"; do printf 'rss\t%s\t%s\t%s\n' "$label" "$conc" "$kb"; done >>"$RESULTS"
  record_svc "$label" hot-sell "$conc" "$4"
  check_item "$label hot sell $2" "$sku" "$5"
}

record_rss() { # label: after the hot sells of its service
  printf 'info\t%s\trss_load_kb\t%s\n' "$1" "$RSS_LOAD" >>"$RESULTS"
  printf 'info\t%s\trss_peak_kb\t%s\n' "$1" "$(rss_kb "$SERVICE_PID" VmHWM)" >>"$RESULTS"
}

# probe_availability LABEL SKU: whether this build serves GET /items/{sku}/availability (0), or answers 404 there for
# an item that exists (1: the availability storm is skipped, and the report says so). Dies on any other answer, and
# on a 200 without an ETag or without the fields sku, available and state.
probe_availability() {
  local label="$1" url field code body
  url="$(base_url)/items/$2/availability"
  code="$(curl -s -D "$OUT/availability-probe.headers" -o "$OUT/availability-probe.json" -w '%{http_code}' \
    -H "$SHOP_AUTH" --max-time 10 "$url" || true)"
  body="$(cat "$OUT/availability-probe.json" 2>/dev/null || true)"
  if [ "$code" = 404 ]; then
    say "$label: availability storm skipped: endpoint missing (GET /items/$2/availability answered 404)"
    printf 'skip\tavailability storm (%s)\tendpoint missing: GET /items/{sku}/availability answered 404\n' \
      "$label" >>"$RESULTS"
    return 1
  fi
  [ "$code" = 200 ] || die "$label: GET $url answered $code (expected 200, or 404 while the endpoint is missing): $body"
  grep -qi '^etag:' "$OUT/availability-probe.headers" || die "$label: GET $url answered 200 without an ETag header"
  for field in sku available state; do
    [[ "$body" == *"\"$field\""* ]] || die "$label: GET $url answered 200 without the field \"$field\": $body"
  done
  say "$label: GET /items/$2/availability answers 200 with an ETag: $body"
}

# ---------------------------------------------------------------------------------------------------------------
# The memory run: redis-lua write-behind's hot sell as the container image runs the JVM, with a simulated memory
# limit. The image's settings come from src/main/docker/Dockerfile.jvm (of the jar's checkout, else this one):
# JAVA_OPTS_APPEND, less -Dquarkus.http.host (the service stays on 127.0.0.1), and MALLOC_ARENA_MAX. There is no
# cgroup limit here, so -XX:MaxRAM stands for it (the JVM sizes its heap and picks its GC from it, as in a
# container). The image's launcher (run-java.sh) adds defaults of its own, which are not reproduced.

memory_run() {
  local label="redis-lua/write-behind@${CONTAINER_MB}MB" dockerfile="" where opts arena opt c rep rc=0
  local -a SERVICE_JVM_OPTS=("-XX:MaxRAM=${CONTAINER_MB}m") SERVICE_ENV=() words=()
  if [[ " ${RAN_CONFIGS[*]} " != *" redis-lua:write-behind "* ]]; then
    say "memory run: skipped: no redis-lua write-behind run in this run to compare with"
    printf 'skip\tmemory run (%s)\tno redis-lua write-behind run in this run to compare with\n' "$label" >>"$RESULTS"
    return 0
  fi
  for where in "$jar_root" "$REPO_DIR"; do
    if [ -f "$where/src/main/docker/Dockerfile.jvm" ]; then dockerfile="$where/src/main/docker/Dockerfile.jvm"; break; fi
  done
  if [ -z "$dockerfile" ]; then
    say "memory run: skipped: no src/main/docker/Dockerfile.jvm to take the JVM options from"
    printf 'skip\tmemory run (%s)\tno src/main/docker/Dockerfile.jvm\n' "$label" >>"$RESULTS"
    return 0
  fi
  opts="$(sed -n 's/^ENV JAVA_OPTS_APPEND="\(.*\)"[[:space:]]*$/\1/p' "$dockerfile" | tail -1)"
  arena="$(sed -n 's/^ENV MALLOC_ARENA_MAX=\([0-9][0-9]*\)[[:space:]]*$/\1/p' "$dockerfile" | tail -1)"
  read -r -a words <<<"$opts"
  for opt in "${words[@]}"; do
    if [[ "$opt" != -Dquarkus.http.host=* ]]; then SERVICE_JVM_OPTS+=("$opt"); fi
  done
  if [ -n "$arena" ]; then SERVICE_ENV+=("MALLOC_ARENA_MAX=$arena"); fi

  say "---- $label: starting the service on fresh data with ${SERVICE_ENV[*]} ${SERVICE_JVM_OPTS[*]}"
  fresh_data
  start_or_die "$label" redis-lua write-behind "$OUT/service-memory.log" || rc=$?
  ((rc == 0)) || die "$label: the service said redis-lua is not in this build, yet it ran before"
  say "$label: ready in $SERVICE_READY_MS ms (pid $SERVICE_PID, port $SERVICE_PORT)"
  printf 'info\t%s\tready_ms\t%s\n' "$label" "$SERVICE_READY_MS" >>"$RESULTS"
  printf 'info\t%s\tsettings\t%s\n' "$label" "${SERVICE_ENV[*]} ${SERVICE_JVM_OPTS[*]}" >>"$RESULTS"
  PROMISED_ORDERS=()
  SOLD_OUT_ANSWERS=()
  RSS_LOAD=0
  warm_up "$label" true false
  for c in "${CONCURRENCY[@]}"; do
    for ((rep = 1; rep <= REPS; rep++)); do hot_sell "$label" "m-c$c-r$rep" "$c" "$rep" true; done
  done
  record_rss "$label"
  stop_service
}

# ---------------------------------------------------------------------------------------------------------------
# The catalog runs: what a catalog of N items costs at start-up and while idle, N in CATALOG.

# catalog_items N: N items straight into MySQL in one statement (MariaDB's sequence engine), with the counters of a
# new item: stock = available = 100, nothing reserved or sold, no per-user limit, version 0, fence 0.
catalog_items() {
  local n="$1" count
  ((n > 0)) || return 0
  sql "INSERT INTO item (sku, name, stock, available, reserved, sold, per_user_limit, version, fence,
                         created_at, updated_at)
       SELECT CONCAT('cat-', seq), CONCAT('catalog item ', seq), 100, 100, 0, 0, 0, 0, 0,
              UTC_TIMESTAMP(6), UTC_TIMESTAMP(6)
       FROM seq_1_to_$n" || die "could not insert the catalog of $n items (the sequence engine is MariaDB's)"
  count="$(sql 'SELECT COUNT(*) FROM item')"
  ((count == n)) || die "the catalog insert left $count items in MySQL, not $n"
}

# redis_commands FILE: the commands the whole Redis server has processed so far, in one INFO call: "total N", then
# "COMMAND N" per command. A call is counted once it has answered, so one reading adds one INFO to the next.
# Server-wide: with an external Redis, other clients' commands count too.
redis_commands() {
  redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" INFO all | tr -d '\r' | awk -F'[:=,]' '
    /^total_commands_processed:/ { print "total", $2 }
    /^cmdstat_/ { sub(/^cmdstat_/, "", $1); print $1, $3 }' >"$1"
}

# catalog_idle LABEL N: 10 new items on sale (3 purchases each), then IDLE_SECONDS without a request: the Redis
# commands per second (in IDLE_RATE; the busiest three in IDLE_TOP) and the service's VmRSS at the end (IDLE_RSS_KB).
IDLE_RATE=""
IDLE_TOP=""
IDLE_RSS_KB=""
catalog_idle() {
  local label="$1" n="$2" i sku t0 t1
  PROMISED_ORDERS=()
  SOLD_OUT_ANSWERS=()
  for ((i = 1; i <= 10; i++)); do
    sku="sale-$i"
    create_item "$sku" 100 0
    run_wrk purchase "$sku" "$RUN_ID-c$n-$i" 1 3 0 0
    check_item "$label catalog $n: $sku" "$sku" true
  done
  redis_commands "$OUT/idle-before.txt"
  t0=$(date +%s%N)
  sleep "$IDLE_SECONDS"
  redis_commands "$OUT/idle-after.txt"
  t1=$(date +%s%N)
  # per second, less the first reading's own INFO; then the busiest commands, as "name rate" lines
  awk -v s="$(((t1 - t0) / 1000000))" 'NR == FNR { before[$1] = $2; next }
    { d = $2 - before[$1] - ($1 == "total" || $1 == "info"); if (d > 0) printf "%s %.1f\n", $1, d * 1000 / s }' \
    "$OUT/idle-before.txt" "$OUT/idle-after.txt" | sort -k2,2nr >"$OUT/idle-$n.txt"
  IDLE_RATE="$(awk '$1 == "total" { print $2 }' "$OUT/idle-$n.txt")"
  IDLE_RATE="${IDLE_RATE:-0.0}"
  IDLE_TOP="$(awk '$1 != "total" && n < 3 { printf "%s%s %s", (n++ ? ", " : ""), $1, $2 }' "$OUT/idle-$n.txt")"
  IDLE_RSS_KB="$(rss_kb "$SERVICE_PID" VmRSS)"
}

# Per catalog size: fresh data, a first start (db-optimistic) so that Flyway creates the schema, the items inserted,
# then each strategy that ran (redis-lua write-behind only, unless CATALOG_EVERY_STRATEGY), on that same data with
# Redis flushed: start-to-ready (given up after CATALOG_READY_SECONDS, recorded as not ready), and for redis-lua
# write-behind the idle figures. Write-behind runs last: it is the only one that adds anything (its items on sale).
catalog_run() {
  local n config strategy persistence label log rc ready note
  local -a configs=()
  for config in "${RAN_CONFIGS[@]}"; do
    if $CATALOG_EVERY_STRATEGY || [ "$config" = redis-lua:write-behind ]; then configs+=("$config"); fi
  done
  if ((${#configs[@]} == 0)); then
    say "catalog runs: skipped: no redis-lua write-behind run in this run"
    printf 'skip\tcatalog runs\tno redis-lua write-behind run in this run\n' >>"$RESULTS"
    return 0
  fi
  for n in "${CATALOG[@]}"; do
    say "---- catalog of $n items: a first start creates the schema, then $n items inserted with SQL, Redis flushed"
    fresh_data
    rc=0
    start_or_die "schema for the catalog of $n" db-optimistic "" "$OUT/service-catalog-$n-schema.log" || rc=$?
    ((rc == 0)) || die "db-optimistic is not in this build: the catalog runs need it to create the schema"
    stop_service
    catalog_items "$n"
    for config in "${configs[@]}"; do
      split_config "$config"
      log="$OUT/service-catalog-$n-${label//\//-}.log"
      redis_flush
      rc=0
      start_service "$strategy" "$persistence" "$log" "$CATALOG_READY_SECONDS" || rc=$?
      ready="" note="" IDLE_RATE="" IDLE_TOP="" IDLE_RSS_KB=""
      case "$rc" in
        0) ready="$SERVICE_READY_MS" ;;
        4) note="not ready within $CATALOG_READY_SECONDS s" ;;
        *) die "$label: the service said its strategy is not in this build, yet it ran before (log: $log)" ;;
      esac
      if ((rc == 0)) && [ "$config" = redis-lua:write-behind ]; then catalog_idle "$label" "$n"; fi
      printf 'catalog\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$n" "$ready" "$IDLE_RATE" "$IDLE_RSS_KB" \
        "${IDLE_RATE:+$IDLE_SECONDS}" "$note" "$IDLE_TOP" >>"$RESULTS"
      say "$(printf 'catalog %7s items: %-24s ready %s%s%s' "$n" "$label" \
        "${ready:+$(awk -v m="$ready" 'BEGIN {printf "%.2f s", m / 1000}')}${note}" \
        "${IDLE_RATE:+, idle Redis $IDLE_RATE cmds/s ($IDLE_TOP)}" \
        "${IDLE_RSS_KB:+, RSS $((IDLE_RSS_KB / 1024)) MB}")"
      stop_service
    done
  done
}

# ---------------------------------------------------------------------------------------------------------------
# Report

report() {
  echo
  echo "## flashstock benchmark: $MODE run $RUN_ID, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  awk -v settled_pct="$JIT_SETTLED_PCT" -f "$BENCH_DIR/report.awk" "$RESULTS"
}

machine_description() {
  local cpu mem
  cpu="$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
  mem="$(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "- CPU: ${cpu:-unknown}, $(nproc) cores; memory $mem; kernel $(uname -r)"
  echo "- $(java -version 2>&1 | head -1); $(sql_server 'SELECT CONCAT("MySQL server ", VERSION())');" \
    "Redis $(rcli INFO server | awk -F: '/^redis_version/ {print $2}' | tr -d '\r')$(if $REDIS_OWN; then echo ' (own server)'; fi);" \
    "$(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
  echo "- Everything on this one machine: service, MariaDB, Redis and the load generators share the cores."
}

write_docs() {
  mkdir -p "$DOCS_DIR"
  local md="$DOCS_DIR/benchmarks.md" png="$DOCS_DIR/benchmarks.png" commit=""
  if git -C "$jar_root" rev-parse --short HEAD >/dev/null 2>&1; then
    commit="$(git -C "$jar_root" rev-parse --short HEAD)$(git -C "$jar_root" diff --quiet HEAD -- src pom.xml 2>/dev/null || echo ' (with uncommitted changes)')"
  fi
  if $HAVE_GNUPLOT; then
    awk -v out=chart -f "$BENCH_DIR/report.awk" "$RESULTS" >"$OUT/chart.tsv"
    gnuplot -e "datafile='$OUT/chart.tsv'; outfile='$png'; subtitle='bench/run.sh --$MODE, $(date -u +%Y-%m-%d), $(nproc) cores'" \
      "$BENCH_DIR/chart.gp" 2>"$OUT/gnuplot.log" || say "gnuplot failed (see $OUT/gnuplot.log)"
  fi
  {
    echo "# Benchmarks"
    echo
    echo "Produced by \`$COMMAND_LINE\` on $(date -u '+%Y-%m-%d %H:%M UTC')${commit:+, service built from commit $commit}."
    echo "Run \`bench/run.sh --help\` for what it does; the figures below all come from that one run, so every ratio"
    echo "divides numbers measured side by side. Absolute rates on a shared 2-core machine drift; ratios much less."
    echo
    echo "## Machine"
    echo
    machine_description
    echo
    echo "## How it is measured"
    echo
    echo "- Each strategy (and each redis-lua persistence mode) runs in its own service process on fresh data"
    echo "  (database \`$BENCH_DB\`, Redis: $REDIS_DESC), after a JVM warm-up: ${WARMUP_SECONDS} s of purchases, 2 s of"
    echo "  refused ones, then 2 s runs of the HTTP floor and of the availability read until their rate stops rising"
    echo "  (${WARMUP_SECONDS} s at most each); then settle rounds of what is measured (2 s of purchases, 1 s each of the"
    echo "  sold-out storm, the floor and the availability read) until the JIT has settled: two rounds in a row in"
    echo "  which it compiled for under ${JIT_SETTLED_PCT}% of the round's time (\`jstat -compiler\`), ${SETTLE_SECONDS} s at most."
    echo "  The memory run's warm-up has no reads. The table \"Per strategy\" says how each warm-up ended."
    echo "- Load: \`wrk -t1 -c<conc>\` with \`bench/wrk_purchase.lua\`: every purchase has its own user id and"
    echo "  Idempotency-Key. Hot sell: ${HOT_SECONDS} s against a stock that never runs out. Sell-out: $SELLOUT_STOCK units"
    echo "  against $SELLOUT_BUYERS buyers (one unit per user; 1% of the requests repeat an earlier buyer). Sold-out"
    echo "  storm: ${STORM_SECONDS} s of purchases of the sold-out item, without Idempotency-Key (a pod answers those"
    echo "  from memory; a purchase with a key always reaches the strategy, as the sell-out's do). Availability storm: ${STORM_SECONDS} s of"
    echo "  \`GET /items/{sku}/availability\` of the hot item, every answer a 2xx or the run fails (skipped, and listed"
    echo "  under \"Not measured\", while the build answers 404 there)."
    echo "- A run stops sending at its budget and ends when every request has its answer, so the 2xx count is"
    echo "  exactly the number of orders MySQL must hold. After each scenario: orders == 2xx answers, reserved+sold"
    echo "  == units of those orders <= stock, sold out exactly when a buyer was told sold-out, per-user limit kept,"
    echo "  stock == available+reserved+sold, and (redis-lua) the Redis counters equal MySQL's. None failed."
    echo "- Raw limits, alternating with the service scenarios: the HTTP floor (the service's in-memory"
    echo "  \`GET /q/health/live\` through the same wrk script), MySQL hot-row updates by N autocommit JDBC clients"
    echo "  (\`bench/RawMysql.java\`), and (after each redis-lua service run) \`redis-benchmark\` replaying the"
    echo "  service's own purchase \`EVALSHA\`, with fresh users and keys, on an item that never sells out"
    echo "  (write-behind's bound on the item's pending orders lifted: no relay drains them there)."
    echo "- CPU ms/req: CPU time (/proc/<pid>/stat) of the service, and of mariadbd + redis-server, during the"
    echo "  run, per answered request. RSS during hot sells: VmRSS sampled every 0.1 s while they ran; RSS under"
    echo "  load: VmRSS after the hot sells; peak RSS: VmHWM."
    if $MEMORY_RUN; then
      echo "- Memory run: redis-lua write-behind's warm-up and hot sells once more, in a service started with the"
      echo "  container image's settings (\`JAVA_OPTS_APPEND\` and \`MALLOC_ARENA_MAX\` of"
      echo "  \`src/main/docker/Dockerfile.jvm\`, less \`-Dquarkus.http.host\`) and \`-XX:MaxRAM=${CONTAINER_MB}m\` for a"
      echo "  ${CONTAINER_MB} MB container limit (there is no cgroup limit here); the image launcher's own defaults are"
      echo "  not reproduced."
    fi
    if ((${#CATALOG[@]} > 0)); then
      echo "- Catalog runs, for catalogs of ${CATALOG[*]} items: fresh data, a first start so that Flyway creates the"
      echo "  schema, the items inserted with one SQL statement (stock = available = 100), Redis flushed, then"
      echo "  $(if $CATALOG_EVERY_STRATEGY; then echo "each strategy started"; else echo "redis-lua write-behind started"; fi) on that data:"
      echo "  start-to-ready (given up after ${CATALOG_READY_SECONDS} s). redis-lua write-behind then sells 3 units of"
      echo "  each of 10 new items and stays idle for ${IDLE_SECONDS} s: Redis commands/s (INFO"
      echo "  total_commands_processed of the whole server, less the reading) and the service's RSS."
    fi
    echo "- Issue targets: the redis-lua write-behind figures of this run against the goals of the issues (at 50"
    echo "  clients when measured)."
    echo
    echo "## Results"
    echo
    awk -v settled_pct="$JIT_SETTLED_PCT" -f "$BENCH_DIR/report.awk" "$RESULTS"
    echo
    if [ -f "$png" ] && $HAVE_GNUPLOT; then
      echo "![Hot-sell throughput by strategy and concurrency, with the raw limits](benchmarks.png)"
      echo
    fi
  } >"$md"
  if $HAVE_GNUPLOT; then say "wrote $md and $png"; else say "wrote $md (no chart: gnuplot missing)"; fi
}

# ---------------------------------------------------------------------------------------------------------------
# The run

say "mode $MODE: concurrency ${CONCURRENCY[*]}, $REPS repetition(s), strategies: ${CONFIGS[*]}; memory run: $MEMORY_RUN;" \
  "catalogs: ${CATALOG[*]:-none}; output in $OUT"
if [ -f "$PURCHASE_LUA" ]; then
  say "the build has lua/purchase.lua; its header:"
  sed -n '1,/^[^-]/p' "$PURCHASE_LUA" | grep '^--' | sed 's/^/    /' || true
fi

lua_ran=false
lua_skipped=false
RAN_CONFIGS=() # the configs whose service ran (not skipped)
for config in "${CONFIGS[@]}"; do
  split_config "$config"
  if [ "$strategy" = redis-lua ] && $lua_skipped; then
    say "$label: skipped: not in this build"
    printf 'skip\t%s\tnot in this build\n' "$label" >>"$RESULTS"
    continue
  fi

  say "---- $label: starting the service on fresh data"
  fresh_data
  rc=0
  start_or_die "$label" "$strategy" "$persistence" "$OUT/service-${label//\//-}.log" || rc=$?
  if ((rc == 3)); then
    say "$label: skipped: not in this build (the service says: $(grep -o "[^:]*not implemented[^.]*" "$OUT/service-${label//\//-}.log" | head -1 | sed 's/^ *//'))"
    printf 'skip\t%s\tnot in this build\n' "$label" >>"$RESULTS"
    [ "$strategy" = redis-lua ] && lua_skipped=true
    continue
  fi
  RAN_CONFIGS+=("$config")
  say "$label: ready in $SERVICE_READY_MS ms (pid $SERVICE_PID, port $SERVICE_PORT)"
  PROMISED_ORDERS=()
  SOLD_OUT_ANSWERS=()
  printf 'info\t%s\tready_ms\t%s\n' "$label" "$SERVICE_READY_MS" >>"$RESULTS"
  redis_counters=false
  [ "$strategy" = redis-lua ] && redis_counters=true

  warm_up "$label" "$redis_counters"

  create_item raw-mysql 2000000000 0
  RSS_LOAD=0
  for c in "${CONCURRENCY[@]}"; do
    for ((rep = 1; rep <= REPS; rep++)); do
      tag="c$c-r$rep"

      run_wrk noop "" "$RUN_ID-f$tag" "$c" 0 "$FLOOR_SECONDS" 0
      ((R[s2xx] == R[received] && R[received] > 0)) \
        || die "the HTTP floor run got ${R[received]} answers, ${R[s2xx]} of them 200: $(tail -1 "$OUT/wrk.log")"
      record_raw floor "$c" "$rep" "${R[rps]}" "${R[p50_us]}" "${R[p99_us]}"

      hot_sell "$label" "$tag" "$c" "$rep" "$redis_counters"

      raw_mysql versioned "$c" "$rep" raw-mysql

      create_item "out-$tag" "$SELLOUT_STOCK" 1
      run_wrk purchase "out-$tag" "$RUN_ID-s$tag" "$c" "$SELLOUT_BUYERS" 0 1
      record_svc "$label" sell-out "$c" "$rep"
      check_item "$label sell-out $tag" "out-$tag" "$redis_counters"

      raw_mysql conditional "$c" "$rep" raw-mysql

      BENCH_KEYS=0 run_wrk purchase "out-$tag" "$RUN_ID-x$tag" "$c" 0 "$STORM_SECONDS" 0
      record_svc "$label" sold-out-storm "$c" "$rep"
      check_item "$label sold-out storm $tag" "out-$tag" "$redis_counters"

      if $AVAILABILITY; then # reads of the hot item: every answer must be 2xx
        run_wrk availability "hot-$tag" "$RUN_ID-a$tag" "$c" 0 "$STORM_SECONDS" 0
        record_svc "$label" availability-storm "$c" "$rep"
        check_answers "$label availability storm $tag" true
        stop_if_breached
      fi
    done
  done
  record_rss "$label"

  if [ "$strategy" = redis-lua ]; then
    capture_lua_purchase
  fi
  stop_service

  if [ "$strategy" = redis-lua ]; then
    lua_ran=true
    if [ -n "$RAW_LUA_SKIP" ]; then
      say "raw Redis EVALSHA after $label: skipped: $RAW_LUA_SKIP"
      printf 'skip\traw Redis EVALSHA (after %s)\t%s\n' "$label" "$RAW_LUA_SKIP" >>"$RESULTS"
    else
      for c in "${CONCURRENCY[@]}"; do
        for ((rep = 1; rep <= REPS; rep++)); do raw_redis "$c" "$rep" "$label"; done
      done
    fi
  fi
done

if ! $lua_ran; then
  if [ -f "$PURCHASE_LUA" ]; then
    why="no redis-lua service run in this run to take the purchase call from"
  else
    why="not in this build (no lua/purchase.lua yet)"
  fi
  say "raw Redis EVALSHA of purchase.lua: skipped: $why"
  printf 'skip\traw Redis EVALSHA of purchase.lua\t%s\n' "$why" >>"$RESULTS"
fi
if $MEMORY_RUN; then memory_run; fi
if ((${#CATALOG[@]} > 0)); then catalog_run; fi
redis_flush

report | tee "$OUT/report.md"
if $WRITE_DOCS; then write_docs; fi
echo
say "no invariant was broken; $(($(wc -l <"$OUT/wrk.log"))) load runs checked; took $((SECONDS - STARTED_AT)) s; details in $OUT"
