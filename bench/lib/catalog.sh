# shellcheck shell=bash
# bench/run.sh: the catalog runs: what a catalog of N items costs at start-up and while idle, N in CATALOG.
# Sourced by bench/run.sh (set -euo pipefail); defines functions and their figures only.

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
    skipped "catalog runs" "no redis-lua write-behind run in this run"
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
        "${ready:+$(thousandths "$ready") s}${note}" \
        "${IDLE_RATE:+, idle Redis $IDLE_RATE cmds/s ($IDLE_TOP)}" \
        "${IDLE_RSS_KB:+, RSS $((IDLE_RSS_KB / 1024)) MB}")"
      stop_service
    done
  done
}
