# shellcheck shell=bash
# bench/run.sh: the service runs: each strategy's (with the raw limits alternating, and after a redis-lua one the
# raw Redis runs of its purchase call), and the memory run.
# Sourced by bench/run.sh (set -euo pipefail); defines functions and their state only.

RAN_CONFIGS=()    # the configs whose service ran (not skipped)
LUA_RAN=false     # whether a redis-lua service ran
LUA_SKIPPED=false # whether redis-lua turned out not to be in this build
START_RC=0        # what the last start_fresh gave

# start_fresh LABEL STRATEGY PERSISTENCE LOG: fresh data (see fresh_data), then the service started on it; START_RC
# as start_or_die returns it (0 ready, 3 strategy not in this build). Once ready: its start-to-ready recorded, and
# what the checks and the hot sells keep per service run reset.
start_fresh() {
  START_RC=0
  fresh_data
  start_or_die "$@" || START_RC=$?
  if ((START_RC != 0)); then return 0; fi
  say "$1: ready in $SERVICE_READY_MS ms (pid $SERVICE_PID, port $SERVICE_PORT)"
  record_info "$1" ready_ms "$SERVICE_READY_MS"
  PROMISED_ORDERS=()
  SOLD_OUT_ANSWERS=()
  RSS_LOAD=0
}

# run_config CONFIG: one strategy[:persistence]'s service run on fresh data: the warm-up, then per concurrency and
# repetition a round of measure_round, then per repetition the token storms (at TOKEN_CONC connections whatever the
# concurrency); then the raw Redis runs of its purchase call (redis-lua). A strategy that
# is not in this build is skipped (and after the first redis-lua one, the other redis-lua ones too).
run_config() {
  local strategy persistence label log redis_counters=false c rep
  split_config "$1"
  if [ "$strategy" = redis-lua ] && $LUA_SKIPPED; then
    skipped "$label" "not in this build"
    return 0
  fi

  say "---- $label: starting the service on fresh data"
  log="$OUT/service-${label//\//-}.log"
  start_fresh "$label" "$strategy" "$persistence" "$log"
  if ((START_RC == 3)); then
    skipped "$label" "not in this build" \
      "(the service says: $(grep -o "[^:]*not implemented[^.]*" "$log" | head -1 | sed 's/^ *//'))"
    if [ "$strategy" = redis-lua ]; then LUA_SKIPPED=true; fi
    return 0
  fi
  RAN_CONFIGS+=("$1")
  if [ "$strategy" = redis-lua ]; then redis_counters=true; fi

  warm_up "$label" "$redis_counters"

  create_item raw-mysql 2000000000 0
  for c in "${CONCURRENCY[@]}"; do
    for ((rep = 1; rep <= REPS; rep++)); do measure_round "$label" "$c" "$rep" "$redis_counters"; done
  done
  record_rss "$label"
  for ((rep = 1; rep <= REPS; rep++)); do token_storms "$label" "$rep" "$redis_counters"; done

  if [ "$strategy" = redis-lua ]; then
    capture_lua_purchase
  fi
  stop_service

  if [ "$strategy" = redis-lua ]; then
    LUA_RAN=true
    raw_redis_runs "$label"
  fi
}

# measure_round LABEL CONC REP REDIS_COUNTERS: one round against the running service, alternating raw limits and
# service scenarios: HTTP floor, hot sell, raw MySQL versioned, sell-out, raw MySQL conditional, sold-out storm
# without keys, then with a random key each, availability storm (where the build has it); every service scenario
# checked.
measure_round() {
  local label="$1" c="$2" rep="$3" redis_counters="$4" tag="c$2-r$3"

  run_wrk noop "" "$RUN_ID-f$tag" "$c" 0 "$FLOOR_SECONDS" 0
  ((R[s2xx] == R[received] && R[received] > 0)) \
    || die "the HTTP floor run got ${R[received]} answers, ${R[s2xx]} of them 200: $(tail -1 "$OUT/wrk.log")"
  # with the service's CPU per answer: what a request costs it when it does nothing (issue 36 divides by it)
  record_raw floor "$c" "$rep" "${R[rps]}" "${R[p50_us]}" "${R[p99_us]}" "" "$label" "${R[received]}" "${R[svc_cpu]}" \
    "${R[redis_cpu]}"

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

  BENCH_KEYS=random run_wrk purchase "out-$tag" "$RUN_ID-y$tag" "$c" 0 "$STORM_SECONDS" 0
  record_svc "$label" sold-out-storm-keyed "$c" "$rep"
  check_item "$label keyed sold-out storm $tag" "out-$tag" "$redis_counters"

  if $AVAILABILITY; then # reads of the hot item: every answer must be 2xx
    run_wrk availability "hot-$tag" "$RUN_ID-a$tag" "$c" 0 "$STORM_SECONDS" 0
    record_svc "$label" availability-storm "$c" "$rep"
    check_answers "$label availability storm $tag" true
    stop_if_breached
  fi
}

# raw_redis_runs LABEL: after the redis-lua run LABEL stopped, the raw Redis run of its captured purchase call per
# concurrency and repetition (see raw_redis), unless the call could not be captured.
raw_redis_runs() {
  local c rep
  if [ -n "$RAW_LUA_SKIP" ]; then
    skipped "raw Redis EVALSHA (after $1)" "$RAW_LUA_SKIP"
    return 0
  fi
  for c in "${CONCURRENCY[@]}"; do
    for ((rep = 1; rep <= REPS; rep++)); do raw_redis "$c" "$rep" "$1"; done
  done
}

# raw_redis_not_run: after all service runs, why there is no raw Redis row when no redis-lua service ran.
raw_redis_not_run() {
  local why
  if $LUA_RAN; then return 0; fi
  if [ -f "$PURCHASE_LUA" ]; then
    why="no redis-lua service run in this run to take the purchase call from"
  else
    why="not in this build (no lua/purchase.lua yet)"
  fi
  skipped "raw Redis EVALSHA of purchase.lua" "$why"
}

# ---------------------------------------------------------------------------------------------------------------
# The memory run: redis-lua write-behind's hot sell as the container image runs the JVM, with a simulated memory
# limit. The image's settings come from src/main/docker/Dockerfile.jvm (of the jar's checkout, else this one):
# JAVA_OPTS_APPEND, less -Dquarkus.http.host (the service stays on 127.0.0.1), and MALLOC_ARENA_MAX. There is no
# cgroup limit here, so -XX:MaxRAM stands for it (the JVM sizes its heap and picks its GC from it, as in a
# container). The image's launcher (run-java.sh) adds defaults of its own, which are not reproduced.

memory_run() {
  local label="redis-lua/write-behind@${CONTAINER_MB}MB" opts arena opt c rep
  local -a SERVICE_JVM_OPTS=("-XX:MaxRAM=${CONTAINER_MB}m") SERVICE_ENV=() words=()
  if [[ " ${RAN_CONFIGS[*]} " != *" redis-lua:write-behind "* ]]; then
    skipped "memory run ($label)" "no redis-lua write-behind run in this run to compare with"
    return 0
  fi
  if ! opts="$(image_setting JAVA_OPTS_APPEND)"; then
    skipped "memory run ($label)" "no src/main/docker/Dockerfile.jvm" "to take the JVM options from"
    return 0
  fi
  arena="$(image_setting MALLOC_ARENA_MAX)"
  read -r -a words <<<"$opts"
  for opt in "${words[@]}"; do
    if [[ "$opt" != -Dquarkus.http.host=* ]]; then SERVICE_JVM_OPTS+=("$opt"); fi
  done
  if [ -n "$arena" ]; then SERVICE_ENV+=("MALLOC_ARENA_MAX=$arena"); fi

  say "---- $label: starting the service on fresh data with ${SERVICE_ENV[*]} ${SERVICE_JVM_OPTS[*]}"
  start_fresh "$label" redis-lua write-behind "$OUT/service-memory.log"
  ((START_RC == 0)) || die "$label: the service said redis-lua is not in this build, yet it ran before"
  record_info "$label" settings "${SERVICE_ENV[*]} ${SERVICE_JVM_OPTS[*]}"
  warm_up "$label" true false
  for c in "${CONCURRENCY[@]}"; do
    for ((rep = 1; rep <= REPS; rep++)); do hot_sell "$label" "m-c$c-r$rep" "$c" "$rep" true; done
  done
  record_rss "$label"
  stop_service
}
