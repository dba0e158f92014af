# shellcheck shell=bash
# bench/run.sh: the raw limits the service is measured against: MySQL hot-row updates (bench/RawMysql.java) and
# Redis EVALSHA of the service's own purchase call (redis-benchmark).
# Sourced by bench/run.sh (set -euo pipefail); defines functions only.

# compile_raw_mysql: the raw MySQL harness, one Java file, compiled once with the MySQL driver the service build
# uses (CONNECTOR_JAR).
compile_raw_mysql() {
  local where
  CONNECTOR_JAR=""
  for where in "$(dirname "$JAR")/lib" "$HOME/.m2/repository/com/mysql"; do
    [ -d "$where" ] && CONNECTOR_JAR="$(find "$where" -name '*mysql-connector-j-*.jar' | sort -V | tail -1)"
    [ -z "$CONNECTOR_JAR" ] || break
  done
  [ -n "$CONNECTOR_JAR" ] || die "no mysql-connector-j jar found (in $(dirname "$JAR")/lib or ~/.m2)"
  mkdir -p "$OUT/classes"
  javac -d "$OUT/classes" -cp "$CONNECTOR_JAR" "$BENCH_DIR/RawMysql.java" || die "cannot compile bench/RawMysql.java"
}

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
# makes every call a fast NOSCRIPT error): it is discarded and run again, at most twice. The Redis server's CPU
# time during redis-benchmark is recorded with the number of calls: Redis's cost of one uncombined purchase, which
# the report divides a hot sell's Redis CPU per order by (issue 36). The service is stopped, so the server has
# nothing else to do meanwhile (an external one: nothing but its other clients' commands).
raw_redis() { # conc rep label (of the redis-lua run whose call it replays)
  local before after out rps p50 p99 note attempt ticks0 ticks1
  for attempt in 1 2 3; do
    if ! rcli SCRIPT EXISTS "${RAW_LUA_ARGS[1]}" | grep -qx 1; then
      say "raw Redis: the script ${RAW_LUA_ARGS[1]} is not loaded (any more); loading the build's purchase.lua"
      [ -f "$PURCHASE_LUA" ] && rcli SCRIPT LOAD "$(cat "$PURCHASE_LUA")" >/dev/null
    fi
    before="$(rcli HGET "fs:{$RAW_LUA_SKU}:stock" available)"
    redis_cmdstats >"$OUT/cmdstats-before.txt"
    ticks0="$(redis_ticks)"
    out="$(redis-benchmark -h "$REDIS_HOST" -p "$REDIS_PORT" --dbnum "$REDIS_DB" -c "$1" -n "$REDIS_REQUESTS" -P 1 \
      -r 1000000000 --csv "${RAW_LUA_ARGS[@]}" 2>&1)" || die "redis-benchmark failed: $out"
    ticks1="$(redis_ticks)"
    redis_cmdstats >"$OUT/cmdstats-after.txt"
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
  redis_time "raw-$3" "$1" "$2" "$REDIS_REQUESTS" "raw call"
  record_raw redis-evalsha "$1" "$2" "$rps" "$(awk -v m="$p50" 'BEGIN {printf "%d", m * 1000}')" \
    "$(awk -v m="$p99" 'BEGIN {printf "%d", m * 1000}')" "$note" "$3" "$REDIS_REQUESTS" "" "$(cpu_seconds "$ticks0" "$ticks1")"
}
