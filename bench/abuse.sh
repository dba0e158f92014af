#!/usr/bin/env bash
# flashstock abuse checks: the "Done when" figures of the issue "Hostile traffic", against the packaged jar with the
# documented defaults and one buyer token (README, "Abuse and limits"). Run bench/abuse.sh --help for the usage.
#   1. db-optimistic, then redis-lock (a random Idempotency-Key each): the heap after a full GC (jcmd GC.run, then
#      jstat's used S0+S1+Eden+Old) before and after PURCHASES purchases of distinct made-up skus, every one 404;
#      the gauge flashstock_items_tracked (/q/metrics on the management port) before and after. Target: within 24 MB.
#   2. redis-lua write-behind: READS availability reads of distinct made-up skus (all 404), then ZCARD fs:active
#      and how many made-up skus are in it, and the idle Redis command rate 10 s later (total_commands_processed over
#      10 s). Targets: at most a handful (5) in fs:active, none of them made up; at most 50 commands/s.
#   3. In every service run, on a real item: a token for another audience and one whose exp is 100 years away get
#      401 (a valid one gets 201 alongside); user B's purchase with user A's Idempotency-Key gets its own 201.
# Each service run has a fresh database flashstock_abuse (dropped at the end) and the script's own redis-server
# (emptied between runs, stopped at the end). The tokens are minted as bench/run.sh mints them (a key pair of this
# run's own, bench/MintTokens.java). Exits 1 when a target is missed.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$BENCH_DIR/.." && pwd)"
# say, die, stop_pid, take_lock, ensure_tool (common.sh); start_own_redis, stop_own_redis (backends.sh);
# make_tokens, start_or_die, stop_service, create_item (service.sh)
for part in common backends service; do
  # shellcheck source=/dev/null
  source "$BENCH_DIR/lib/$part.sh"
done

usage() {
  cat <<'EOF'
Usage: bench/abuse.sh [--quick] [--purchases N] [--reads N] [--connections N] [--jar PATH]
  (default)        150,000 made-up-sku purchases per strategy, 40,000 made-up-sku availability reads (the issue's sizes)
  --quick          20,000 purchases, 10,000 reads
  --purchases N    made-up-sku purchases per strategy (db-optimistic, redis-lock)
  --reads N        made-up-sku availability reads (redis-lua write-behind)
  --connections N  wrk connections (default 16)
  --jar PATH       the service jar (default target/quarkus-app/quarkus-run.jar, built when missing)
Environment: BENCH_MYSQL_HOST/PORT/USER/PASSWORD (default 127.0.0.1:3306 root, no password), BENCH_JAVA_OPTS (JVM
options of the service), BENCH_OUT (folder for logs; default a new one under /tmp).
EOF
}

PURCHASES=150000
READS=40000
CONNECTIONS=16
JAR="${FLASHSTOCK_JAR:-}"
while (($# > 0)); do
  case "$1" in
    --quick) PURCHASES=20000 READS=10000 ;;
    --purchases) PURCHASES="$2"; shift ;;
    --reads) READS="$2"; shift ;;
    --connections) CONNECTIONS="$2"; shift ;;
    --jar) JAR="$2"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done

HEAP_TARGET_MB=24
ACTIVE_TARGET=5 # "at most a handful" of fs:active members
IDLE_TARGET=50  # Redis commands/s
WARM_PURCHASES=2000 # made-up skus before the first heap reading: the JIT, lazy singletons and pools, not the storm

MYSQL_HOST="${BENCH_MYSQL_HOST:-127.0.0.1}"
MYSQL_PORT="${BENCH_MYSQL_PORT:-3306}"
MYSQL_USER="${BENCH_MYSQL_USER:-root}"
export MYSQL_PWD="${BENCH_MYSQL_PASSWORD:-}"
ABUSE_DB=flashstock_abuse
JDBC_URL="jdbc:mysql://$MYSQL_HOST:$MYSQL_PORT/$ABUSE_DB"
REDIS_DB=0
OUT="${BENCH_OUT:-$(mktemp -d /tmp/flashstock-abuse.XXXXXX)}"
mkdir -p "$OUT"
TOKENS=2 # make_tokens: buyers b-1 (user A) and b-2 (user B)
STARTED_AT=$SECONDS
DB_MADE=false

abuse_cleanup() {
  stop_pid "$WRK_PID" 2
  stop_service
  stop_own_redis
  if $DB_MADE; then sql_server "DROP DATABASE IF EXISTS $ABUSE_DB" || true; fi
}

# ---------------------------------------------------------------------------------------------------------------
# Figures: one row each (check, figure, target, ok|MISSED), printed as a table at the end.

ROWS=()
MISSED=0
row() { # check figure target ok(true|false)
  local verdict=ok
  if [ "$4" != true ]; then verdict=MISSED; MISSED=$((MISSED + 1)); fi
  ROWS+=("$1|$2|$3|$verdict")
  say "$1: $2 (target: $3) $verdict"
}

fresh_db() {
  sql_server "DROP DATABASE IF EXISTS $ABUSE_DB; CREATE DATABASE $ABUSE_DB" >/dev/null
  DB_MADE=true
  rcli FLUSHALL >/dev/null # the script's own redis-server
}

# heap_mb PID: the heap in use after two full GCs, in MB (jstat -gc: S0U + S1U + EU + OU, kB).
heap_mb() {
  jcmd "$1" GC.run >/dev/null
  sleep 1
  jcmd "$1" GC.run >/dev/null
  jstat -gc "$1" | awk 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
    NR == 2 { printf "%.1f", ($col["S0U"] + $col["S1U"] + $col["EU"] + $col["OU"]) / 1024 }'
}

# tracked: the gauge flashstock_items_tracked of the running service, "kind=value" by kind.
tracked() {
  curl -s --max-time 5 "http://127.0.0.1:$MANAGEMENT_PORT/q/metrics" \
    | awk '/^flashstock_items_tracked\{/ { match($0, /kind="[^"]*"/); k = substr($0, RSTART + 6, RLENGTH - 7)
        match($0, /strategy="[^"]*"/); s = substr($0, RSTART + 10, RLENGTH - 11)
        printf "%s%s%s=%d", sep, k, (s == "any" ? "" : "/" s), $NF; sep = " " }'
}
TRACKED=() # "when: kinds" lines, printed after the table

# storm_figure: the last storm's answers, short: "N x 404 (other, errors), R/s".
storm_figure() {
  awk -v r="$STORM_RESULT" 'BEGIN { n = split(r, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], p, "="); f[p[1]] = p[2] }
    printf "%d x 404 of %d (other %d, errors %d), %d/s", f["s404"], f["sent"], f["other"], f["errors"], f["rps"] }'
}

# storm MODE KEYS PREFIX N: N requests of made-up skus PREFIX-1..N (bench/wrk_abuse.lua) with buyer A's token;
# STORM_RESULT is its ABUSE_RESULT line; true when every one was answered 404. wrk's -d (at least 100 requests/s)
# only bounds a run that goes wrong: the script stops wrk once every answer is in.
storm() {
  local log="$OUT/wrk-$3.log"
  ABUSE_MODE="$1" ABUSE_KEYS="$2" ABUSE_PREFIX="$3" ABUSE_REQUESTS="$4" ABUSE_AUTH="Bearer $BUYER_A" \
    wrk -t1 -c"$CONNECTIONS" -d$((60 + $4 / 100))s --timeout 10s -s "$BENCH_DIR/wrk_abuse.lua" "$(base_url)" >"$log" 2>&1 &
  WRK_PID=$!
  wait "$WRK_PID" || true
  WRK_PID=""
  STORM_RESULT="$(grep -o 'ABUSE_RESULT.*' "$log" | sed 's/^ABUSE_RESULT //' || true)"
  say "  $1 storm of $4 made-up skus ($3-*): ${STORM_RESULT:-no result, see $log}"
  [[ " $STORM_RESULT " == *" received=$4 "* && " $STORM_RESULT " == *" s404=$4 "* ]]
}

# http_code METHOD PATH TOKEN [IDEMPOTENCY_KEY]: a purchase or read of the running service; the body in $OUT/last.json.
http_code() {
  local args=(-s -o "$OUT/last.json" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $3")
  if [ "$1" = POST ]; then args+=(-H 'Content-Type: application/json' -d '{"quantity":1}'); fi
  if [ -n "${4:-}" ]; then args+=(-H "Idempotency-Key: $4"); fi
  curl "${args[@]}" "$(base_url)$2"
}
order_id() { grep -o '"orderId":"[^"]*"' "$OUT/last.json" | head -1 | cut -d'"' -f4; }

# token_and_key_checks LABEL: on a real item of its own, the refused tokens, then the squatted key.
token_and_key_checks() {
  local label="$1" sku="abuse-item-$1" path key a_code a_id b_code b_id other century valid
  create_item "$sku" 100 0
  path="/items/$sku/purchases"
  other="$(http_code POST "$path" "$TOKEN_OTHER_AUD")"
  century="$(http_code POST "$path" "$TOKEN_CENTURY")"
  valid="$(http_code POST "$path" "$BUYER_A")"
  row "$label: token aud=another-app / exp +100 y (valid token)" "$other / $century ($valid)" "401 / 401 (201)" \
    "$([ "$other$century$valid" = 401401201 ] && echo true || echo false)"
  key="squat-$RANDOM-$RANDOM"
  a_code="$(http_code POST "$path" "$BUYER_A" "$key")"
  a_id="$(order_id)"
  b_code="$(http_code POST "$path" "$BUYER_B" "$key")"
  b_id="$(order_id)"
  row "$label: user B with user A's key (A's answer)" "$b_code ..${b_id: -12} ($a_code ..${a_id: -12})" \
    "201, another orderId" "$([ "$a_code$b_code" = 201201 ] && [ -n "$b_id" ] && [ "$a_id" != "$b_id" ] && echo true || echo false)"
}

# heap_run STRATEGY KEYS: the made-up-sku purchase storm and the heap after a full GC around it.
heap_run() {
  local strategy="$1" keys="$2" label before after delta t0 tracked_before ok=true
  label="$strategy${keys:+ (random keys)}"
  say "$label: fresh database $ABUSE_DB, starting the service"
  fresh_db
  start_or_die "$strategy" "$strategy" "" "$OUT/service-$strategy.log" || die "$strategy is not in this build"
  say "  ready in $SERVICE_READY_MS ms (pid $SERVICE_PID, port $SERVICE_PORT, management $MANAGEMENT_PORT)"
  storm purchase "$keys" "warm-$strategy" "$WARM_PURCHASES" || ok=false
  before="$(heap_mb "$SERVICE_PID")"
  tracked_before="$(tracked)"
  t0=$SECONDS
  storm purchase "$keys" "ghost-$strategy" "$PURCHASES" || ok=false
  row "$label: $PURCHASES made-up purchases" "$(storm_figure) in $((SECONDS - t0)) s" "all 404" "$ok"
  after="$(heap_mb "$SERVICE_PID")"
  delta="$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%+.1f", a - b }')"
  row "$label: heap after full GC, before -> after" "$before -> $after MB ($delta MB)" "within $HEAP_TARGET_MB MB" \
    "$(awk -v d="$delta" -v t="$HEAP_TARGET_MB" 'BEGIN { print (d <= t && d >= -t) ? "true" : "false" }')"
  TRACKED+=("$label, before: $tracked_before" "$label, after:  $(tracked)")
  token_and_key_checks "$strategy"
  stop_service
}

# commands_per_second: the script's own Redis server's commands/s over the next 10 s (without the one INFO).
commands_per_second() {
  local t0 t1
  t0="$(rcli INFO stats | tr -d '\r' | sed -n 's/^total_commands_processed://p')"
  sleep 10
  t1="$(rcli INFO stats | tr -d '\r' | sed -n 's/^total_commands_processed://p')"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a - 1) / 10 }'
}

# lua_run: redis-lua write-behind, the made-up-sku availability storm and what it leaves in Redis.
lua_run() {
  local label="redis-lua write-behind" idle_before active_before tracked_before active made_up idle t0 ok=true
  say "$label: fresh database $ABUSE_DB and Redis, starting the service"
  fresh_db
  start_or_die "$label" redis-lua write-behind "$OUT/service-redis-lua.log" || die "redis-lua is not in this build"
  say "  ready in $SERVICE_READY_MS ms (pid $SERVICE_PID, port $SERVICE_PORT, management $MANAGEMENT_PORT)"
  sleep 5
  idle_before="$(commands_per_second)"
  active_before="$(rcli ZCARD fs:active)"
  tracked_before="$(tracked)"
  t0=$SECONDS
  storm availability "" "ghost-lua" "$READS" || ok=false
  row "$label: $READS made-up availability reads" "$(storm_figure) in $((SECONDS - t0)) s" "all 404" "$ok"
  say "  waiting 10 s, then counting Redis commands for 10 s"
  sleep 10
  active="$(rcli ZCARD fs:active)"
  made_up="$(rcli ZRANGE fs:active 0 -1 | grep -c '^ghost-lua-' || true)"
  idle="$(commands_per_second)"
  row "$label: fs:active members (made-up) before -> after" "$active_before -> $active ($made_up)" \
    "<= $ACTIVE_TARGET (0 made-up)" "$([ "$active" -le "$ACTIVE_TARGET" ] && [ "$made_up" = 0 ] && echo true || echo false)"
  row "$label: idle Redis commands/s, before -> 10 s after" "$idle_before -> $idle" "<= $IDLE_TARGET" \
    "$(awk -v r="$idle" -v t="$IDLE_TARGET" 'BEGIN { print (r <= t) ? "true" : "false" }')"
  TRACKED+=("$label, before: $tracked_before" "$label, after:  $(tracked)")
  token_and_key_checks redis-lua
  stop_service
}

# ---------------------------------------------------------------------------------------------------------------

take_lock # one load at a time on this machine, with bench/run.sh
trap abuse_cleanup EXIT
trap 'exit 130' INT TERM

for tool in curl:curl java:openjdk-17-jdk-headless javac:openjdk-17-jdk-headless jcmd:openjdk-17-jdk-headless \
  jstat:openjdk-17-jdk-headless wrk:wrk redis-cli:redis-tools redis-server:redis-server mariadb:mariadb-client \
  openssl:openssl; do
  ensure_tool "${tool%%:*}" "${tool#*:}"
done
sql_server 'SELECT 1' >/dev/null 2>&1 || die "MariaDB/MySQL does not answer on $MYSQL_HOST:$MYSQL_PORT as $MYSQL_USER"

if [ -z "$JAR" ]; then
  JAR="$REPO_DIR/target/quarkus-app/quarkus-run.jar"
  if [ ! -f "$JAR" ]; then
    say "building the service jar: ./mvnw -B -q package -DskipTests (log: $OUT/build.log)"
    (cd "$REPO_DIR" && ./mvnw -B -q package -DskipTests) >"$OUT/build.log" 2>&1 \
      || { tail -40 "$OUT/build.log" >&2; die "the build failed (log: $OUT/build.log)"; }
  fi
fi
[ -f "$JAR" ] || die "no service jar at $JAR"
say "service jar: $JAR (built $(date -u -r "$JAR" '+%Y-%m-%d %H:%M UTC')); output in $OUT"

make_tokens
BUYER_A="$(sed -n '1s/^[^ ]* //p' "$BUYER_TOKENS")"
BUYER_B="$(sed -n '2s/^[^ ]* //p' "$BUYER_TOKENS")"
java -cp "$OUT/classes" MintTokens "$OUT/jwt/privateKey.pem" "$JWT_ISSUER" other 1 "$OUT/jwt/other-aud.txt" another-app
java -cp "$OUT/classes" MintTokens "$OUT/jwt/privateKey.pem" "$JWT_ISSUER" century 1 "$OUT/jwt/century.txt" \
  flashstock $((100 * 36525 * 864)) # 100 years of seconds
TOKEN_OTHER_AUD="$(cut -d' ' -f2 "$OUT/jwt/other-aud.txt")"
TOKEN_CENTURY="$(cut -d' ' -f2 "$OUT/jwt/century.txt")"

start_own_redis
say "Redis: the script's own redis-server on 127.0.0.1:$REDIS_PORT (pid $REDIS_PID)"

heap_run db-optimistic ""
heap_run redis-lock random
lua_run

echo
echo "flashstock abuse checks: $PURCHASES made-up purchases per strategy, $READS made-up reads, $CONNECTIONS connections;"
echo "$(nproc) cores; took $((SECONDS - STARTED_AT)) s"
echo
printf '| %-68s | %-60s | %-22s | %-6s |\n' check figure target result
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..70})" "$(printf -- '-%.0s' {1..62})" "$(printf -- '-%.0s' {1..24})" \
  "$(printf -- '-%.0s' {1..8})"
for r in "${ROWS[@]}"; do
  IFS='|' read -r c f t v <<<"$r"
  printf '| %-68s | %-60s | %-22s | %-6s |\n' "$c" "$f" "$t" "$v"
done
echo
echo "flashstock_items_tracked by kind (/q/metrics), around the storms:"
printf '  %s\n' "${TRACKED[@]}"
echo
if ((MISSED > 0)); then
  say "$MISSED target(s) missed"
  exit 1
fi
say "every target met"
