# shellcheck shell=bash
# bench/run.sh: MySQL (the database flashstock_bench) and Redis (a redis-server of the bench's own, or db 15 of an
# external one): clients, start, emptying, and what the whole server has processed.
# Sourced by bench/run.sh (set -euo pipefail); defines functions only.

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

# connect_backends: MySQL must answer; Redis is started (own) or must answer (external). Sets REDIS_DESC,
# REDIS_PIDS (the Redis server processes whose CPU time the runs count on their own, see redis_ticks) and
# BACKEND_PIDS (the MySQL and Redis server processes whose CPU time the runs count together, see cpu_ticks).
connect_backends() {
  sql_server 'SELECT 1' >/dev/null 2>&1 || die "MariaDB/MySQL does not answer on $MYSQL_HOST:$MYSQL_PORT as $MYSQL_USER"
  if $REDIS_OWN; then
    start_own_redis
    REDIS_DESC="a redis-server of the bench's own, without persistence"
    say "Redis: started $REDIS_DESC on 127.0.0.1:$REDIS_PORT (pid $REDIS_PID, stopped at exit; log $OUT/redis-server.log)"
    REDIS_PIDS="$REDIS_PID"
  else
    REDIS_DESC="db $REDIS_DB of the Redis at $REDIS_HOST:$REDIS_PORT"
    say "Redis: $REDIS_WHY: using $REDIS_DESC (FLUSHDB of db $REDIS_DB only; MONITOR on that server)"
    [ "$(rcli PING 2>/dev/null)" = PONG ] || die "Redis does not answer on $REDIS_HOST:$REDIS_PORT"
    # Every redis-server of this machine: which one listens on the port is not asked, so with more than one (or a
    # busy shared one) the Redis CPU counts the others too; none (a Redis elsewhere): Redis CPU is not measured.
    REDIS_PIDS="$(pidof redis-server 2>/dev/null || true)"
  fi
  BACKEND_PIDS="$(pidof mariadbd mysqld 2>/dev/null || true) $REDIS_PIDS"
}

# backend_ticks, redis_ticks: the CPU ticks so far of MySQL + Redis (BACKEND_PIDS), and of Redis alone (REDIS_PIDS;
# nothing when no redis-server of this machine is known, so that no 0 passes for a measurement).
backend_ticks() {
  # shellcheck disable=SC2086 # BACKEND_PIDS is a list of pids
  cpu_ticks $BACKEND_PIDS
}
redis_ticks() {
  # shellcheck disable=SC2086 # REDIS_PIDS is a list of pids
  if [ -n "$REDIS_PIDS" ]; then cpu_ticks $REDIS_PIDS; fi
}

# Empties the bench's Redis: all of its own server; of an external one, db 15 only.
redis_flush() {
  if $REDIS_OWN; then rcli FLUSHALL >/dev/null; else rcli FLUSHDB >/dev/null; fi
}

fresh_data() {
  sql_server "DROP DATABASE IF EXISTS $BENCH_DB; CREATE DATABASE $BENCH_DB" >/dev/null
  redis_flush
}

# The raw MySQL clients hold one connection each: make room for the largest concurrency (until this script exits).
raise_max_connections() {
  local c max_needed=0 max_connections
  for c in "${CONCURRENCY[@]}"; do if ((c > max_needed)); then max_needed=$c; fi; done
  max_connections="$(sql_server 'SELECT @@max_connections')"
  if ((max_connections < max_needed + 60)); then
    if sql_server "SET GLOBAL max_connections = $((max_needed + 100))" 2>/dev/null; then
      RESTORE_MAX_CONNECTIONS="$max_connections"
      say "raised max_connections from $max_connections to $((max_needed + 100)) for this run (restored at exit)"
    else
      say "max_connections is $max_connections: raw MySQL runs above $((max_connections - 60)) clients may fail"
    fi
  fi
}

# redis_commands FILE: the commands the whole Redis server has processed so far, in one INFO call: "total N", then
# "COMMAND N" per command. A call is counted once it has answered, so one reading adds one INFO to the next.
# Server-wide: with an external Redis, other clients' commands count too.
redis_commands() {
  redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" INFO all | tr -d '\r' | awk -F'[:=,]' '
    /^total_commands_processed:/ { print "total", $2 }
    /^cmdstat_/ { sub(/^cmdstat_/, "", $1); print $1, $3 }' >"$1"
}
