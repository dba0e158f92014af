#!/usr/bin/env bash
# flashstock: the purchase scripts alone, on a redis-server of this script's own (free port, no persistence,
# stopped at exit): Redis's CPU per purchase of purchase.lua (one purchase per call) against purchase_batch.lua
# (N purchases per call), with and without an Idempotency-Key per purchase, each as the service sends it
# (purchase_rules.lua before the script, as LuaScript composes it). Every purchase is a new user's and takes a unit.
# Usage: bench/lua_alone.sh [--instructions | --where] [N (default 16)] [PURCHASES (default 20000; 3200 with
#        --instructions or --where)]
#   --instructions: the redis-server runs under valgrind's callgrind and the figure is the instructions it executed
#   per purchase (one connection, counted after a warm-up): the same for the same scripts whatever else the machine
#   does, so two versions of a script compare within a percent; CPU time (the default) moves with the machine's speed.
#   --where: --instructions, and after each figure where those instructions went: Redis's functions that a script
#   call passes through (WHERE_FUNCTIONS, a grep -E pattern), each with its instructions per purchase, callees
#   included. Debian's redis-server has no symbols: give one built with them in REDIS_SERVER.
# REDIS_SERVER: the redis-server to run (default: the one on PATH).
# Needs redis-server, redis-cli and redis-benchmark (and valgrind for --instructions). Compare figures within one run.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
INSTRUCTIONS=no
WHERE=no
case "${1:-}" in
  --instructions) INSTRUCTIONS=yes; shift ;;
  --where) INSTRUCTIONS=yes; WHERE=yes; shift ;;
esac
WHERE_FUNCTIONS="${WHERE_FUNCTIONS:-:(luaCallFunction|luaRedisGenericCommand|call|luaReplyToRedisReply|luaCreateArray|luaC_step|processMultibulkBuffer|[a-z]+Command)}"
N="${1:-16}"
PURCHASES="${2:-$([ "$INSTRUCTIONS" = yes ] && echo 3200 || echo 20000)}"
LUA=src/main/resources/lua
WORK="$(mktemp -d /tmp/flashstock-lua-alone.XXXXXX)"
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
SERVER=("${REDIS_SERVER:-redis-server}" --bind 127.0.0.1 --port "$PORT" --save '' --appendonly no --dir "$WORK" --logfile "$WORK/redis.log")
if [ "$INSTRUCTIONS" = yes ]; then
  valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.%p" "${SERVER[@]}" 2>"$WORK/valgrind.log" &
  SERVER_PID=$!
else
  "${SERVER[@]}" &
  SERVER_PID=$!
fi
trap 'redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true; wait "$SERVER_PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
r() { redis-cli -p "$PORT" "$@"; }
until [ "$(r ping 2>/dev/null)" = PONG ]; do sleep 0.2; done

compose() { cat "$LUA/purchase_rules.lua"; printf '\n'; cat "$LUA/$1.lua"; }
single_sha="$(r SCRIPT LOAD "$(compose purchase)")"
batch_sha="$(r SCRIPT LOAD "$(compose purchase_batch)")"
cpu_us() { r INFO cpu | tr -d '\r' | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {printf "%.0f", s * 1e6}'; }
# The instructions the server executed since the last call (callgrind's counters dumped, then zeroed).
instructions() {
  callgrind_control -d "$SERVER_PID" >/dev/null 2>&1
  callgrind_control -z "$SERVER_PID" >/dev/null 2>&1
  awk '/^(summary|totals):/ {print $2; exit}' "$(ls -t "$WORK"/callgrind.* | head -1)"
}
# where PURCHASES: the functions of WHERE_FUNCTIONS in the last dump, each with its instructions (callees included)
# per purchase (a function called from itself is also listed as name'2, its inner calls)
where() {
  callgrind_annotate --inclusive=yes --threshold=100 "$(ls -t "$WORK"/callgrind.* | head -1)" 2>/dev/null \
    | grep -E "^ *[0-9,]+ \([ 0-9.]+%\) +[^ ]*$WHERE_FUNCTIONS('[0-9]+)? \[" \
    | awk -v n="$1" '{gsub(",", "", $1); name = $0; sub(/ \[.*$/, "", name); sub(/^.*:/, "", name)
                     printf "    %-36s %9.0f\n", name, $1 / n}'
}
ID=01a21e9a-b588-70e0-a41e

# measure LABEL PURCHASES_PER_CALL CALLS ARGS...: Redis's CPU per purchase of CALLS calls (50 connections), or with
# --instructions the instructions per purchase (one connection, after 20 calls not counted)
measure() {
  local label="$1" per_call="$2" calls="$3" before after
  shift 3
  if [ "$INSTRUCTIONS" = yes ]; then
    redis-benchmark -p "$PORT" -c 1 -n 20 -r 1000000000 -q "$@" >/dev/null
    instructions >/dev/null
    redis-benchmark -p "$PORT" -c 1 -n "$calls" -r 1000000000 -q "$@" >/dev/null
    awk -v l="$label" -v d="$(instructions)" -v n=$((calls * per_call)) 'BEGIN {printf "%-44s %7.0f instructions\n", l, d / n}'
    if [ "$WHERE" = yes ]; then where $((calls * per_call)); fi
    return
  fi
  before="$(cpu_us)"
  redis-benchmark -p "$PORT" -c 50 -n "$calls" -r 1000000000 -q "$@" >/dev/null
  after="$(cpu_us)"
  awk -v l="$label" -v d=$((after - before)) -v n=$((calls * per_call)) 'BEGIN {printf "%-44s %7.1f us\n", l, d / n}'
}

for keyed in no yes; do
  r FLUSHALL >/dev/null
  r HSET 'fs:{alone}:stock' stock 2000000000 available 2000000000 reserved 0 sold 0 limit 0 epoch e1 gen g1 seq 0 \
    >/dev/null
  fp=''; key=''
  if [ "$keyed" = yes ]; then fp=fp0123456789; key=k; fi
  measure "one purchase per call, key: $keyed" 1 "$PURCHASES" EVALSHA "$single_sha" 7 'fs:{alone}:stock' \
    'fs:{alone}:users' 'fs:{alone}:held' 'fs:{alone}:orders' 'fs:{alone}:ukey:1:u:k-__rand_int__' \
    "fs:{alone}:void:$ID-__rand_int__" 'fs:{alone}:idem:k-__rand_int__' "$ID-__rand_int__" 'u__rand_int__' 1 "$fp" \
    1795809785 1795831385 "$key" 86400 pod-1 '' 0 g1 ''
  # The item's keys, then each purchase's own by kind (as PurchaseCombiner sends them): users' keys, tombstones,
  # older key names.
  keys=('fs:{alone}:stock' 'fs:{alone}:users' 'fs:{alone}:held' 'fs:{alone}:orders')
  args=()
  for ((i = 1; i <= N; i++)); do keys+=("fs:{alone}:ukey:1:u:k$i-__rand_int__"); done
  for ((i = 1; i <= N; i++)); do keys+=("fs:{alone}:void:$ID-$i-__rand_int__"); done
  for ((i = 1; i <= N; i++)); do keys+=("fs:{alone}:idem:k$i-__rand_int__"); done
  for ((i = 1; i <= N; i++)); do
    args+=("$ID-$i-__rand_int__" "u$i-__rand_int__" 1 "$fp" 1795809785 1795831385 "${key:+k$i}")
    if ((i == 1)); then args+=(86400 pod-1 '' 0 g1 ''); fi # the values shared by the call, after its first purchase
  done
  measure "$N purchases per call, key: $keyed" "$N" $((PURCHASES / N)) EVALSHA "$batch_sha" "${#keys[@]}" "${keys[@]}" \
    "${args[@]}"
  echo "  (units taken: $((2000000000 - $(r HGET 'fs:{alone}:stock' available))), stream entries: $(r XLEN 'fs:{alone}:orders'))"
done
