# shellcheck shell=bash
# bench/run.sh: one load run (wrk with bench/wrk_purchase.lua), its figures recorded, and the invariants checked
# after it.
# Sourced by bench/run.sh (set -euo pipefail); defines functions and the figures of the last run only.

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
# bench/wrk_purchase.lua); figures in R, CPU seconds in R[svc_cpu], R[back_cpu] (MySQL + Redis) and R[redis_cpu]
# (Redis alone; empty when not known, see redis_ticks), and of the whole machine: R[all_cpu] busy, R[idle_cpu] idle (every
# core; wrk, the kernel and this script are in the busy part), RSS samples in RSS_SAMPLES.
run_wrk() {
  local mode="$1" sku="$2" prefix="$3" conc="$4" requests="$5" seconds="$6" repeat="$7" out line safety
  local svc0 back0 redis0 svc1 back1 redis1 rss all0 idle0 all1 idle1
  RSS_SAMPLES=()
  safety=$((seconds > 0 ? seconds + 120 : 1800))
  svc0=$(cpu_ticks "$SERVICE_PID")
  back0=$(backend_ticks)
  redis0=$(redis_ticks)
  read -r all0 idle0 < <(machine_ticks)
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
  back1=$(backend_ticks)
  redis1=$(redis_ticks)
  read -r all1 idle1 < <(machine_ticks)
  out="$(cat "$OUT/wrk.out")"
  line="$(grep '^BENCH_RESULT' <<<"$out" || true)"
  [ -n "$line" ] || die "wrk printed no BENCH_RESULT: $out"
  printf '%s %s\n' "$prefix" "$line" >>"$OUT/wrk.log"
  parse_result "$line"
  R[svc_cpu]="$(cpu_seconds "$svc0" "$svc1")"
  R[back_cpu]="$(cpu_seconds "$back0" "$back1")"
  R[redis_cpu]="$(cpu_seconds "$redis0" "$redis1")"
  R[all_cpu]="$(cpu_seconds "$all0" "$all1")"
  R[idle_cpu]="$(cpu_seconds "$idle0" "$idle1")"
}

# say_run NAME SCENARIO CONC REP RATE UNIT P50_US P99_US TAIL: the line a recorded run prints.
say_run() {
  say "$(printf '%-24s %-15s c=%-3s #%s  %8s %s p50 %6s ms  p99 %7s ms%s' "$1" "$2" "$3" "$4" "$5" "$6" \
    "$(thousandths "$7")" "$(thousandths "$8")" "$9")"
}

record_svc() { # config scenario conc rep
  printf 'svc\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" \
    "${R[rps]}" "${R[p50_us]}" "${R[p99_us]}" "${R[s2xx]}" "${R[s409_sold_out]}" "${R[s409_limit]}" \
    "${R[s503]}" "${R[received]}" "${R[svc_cpu]}" "${R[back_cpu]}" "${R[redis_cpu]}" "${R[all_cpu]}" \
    "${R[idle_cpu]}" >>"$RESULTS"
  say_run "$1" "$2" "$3" "$4" "${R[rps]}" "req/s " "${R[p50_us]}" "${R[p99_us]}" \
    "  2xx ${R[s2xx]}  409 $((R[s409_sold_out] + R[s409_limit]))  503 ${R[s503]}"
}

# record_raw NAME CONC REP RPS P50_US P99_US [NOTE [CONFIG [CALLS SVC_CPU_S REDIS_CPU_S]]]: a raw limit's run as a
# "raw" line; CONFIG: the service run it was measured in or after; CALLS: the requests or calls it made, and the CPU
# seconds the service and Redis spent on them (the report divides those; empty: not measured).
record_raw() {
  printf 'raw\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "${7:-}" "${8:-}" \
    "${9:-}" "${10:-}" "${11:-}" >>"$RESULTS"
  say_run raw "$1" "$2" "$3" "$4" ops/s "$5" "$6" " ${7:-}"
}

# metrics_now: the service's /q/metrics now (Prometheus text, from the management interface).
metrics_now() {
  curl -s --max-time 5 "http://127.0.0.1:$MANAGEMENT_PORT/q/metrics"
}

# histogram_snapshot METRIC: the service's METRIC_bucket counts now (histogram_buckets of metrics_now).
histogram_snapshot() {
  metrics_now | histogram_buckets "$1"
}

# histogram_buckets METRIC: from a /q/metrics text on stdin, METRIC_bucket counts summed over its series by bucket:
# "le count" lines, cumulative, in the order /q/metrics lists them (rising le).
histogram_buckets() {
  awk -v series="$1_bucket{" '
    index($0, series) == 1 && match($0, /le="[^"]*"/) {
      le = substr($0, RSTART + 4, RLENGTH - 5)
      if (!(le in count)) order[++n] = le
      count[le] += $NF
    }
    END { for (i = 1; i <= n; i++) print order[i], count[order[i]] }'
}

# summary_mean METRIC BEFORE AFTER: the mean of the samples a summary (or histogram) METRIC took between two /q/metrics
# texts (files): the growth of METRIC_sum over that of METRIC_count, each summed over the metric's series, two
# decimals, and a second word: that count. Nothing when METRIC took no sample there, or the build has no such metric.
# The files are told apart by name (before counts -1, after +1), not by FNR: an empty one has no first line.
summary_mean() {
  awk -v count_name="$1_count" -v sum_name="$1_sum" '
    { sign = (FILENAME == ARGV[1]) ? -1 : 1 }
    index($0, count_name "{") == 1 || index($0, count_name " ") == 1 { count += sign * $NF }
    index($0, sum_name "{") == 1 || index($0, sum_name " ") == 1 { sum += sign * $NF }
    END { if (count > 0) printf "%.2f %d\n", sum / count, count }' "$2" "$3"
}

# histogram_p99 BEFORE AFTER [VALUE_MS]: from two histogram_snapshot files, the upper bound (ms) of the bucket holding
# the 99th percentile of the samples between them, and their number: "p99_ms count" (p99_ms "inf" past the last
# bucket, "-" without samples). With VALUE_MS (a p99 measured elsewhere, wrk's), a third word: how many buckets apart
# the two are (0: the same bucket).
histogram_p99() {
  awk -v value="${3:-}" 'NR == FNR { before[$1] = $2; next }
    { le[++n] = $1; c[n] = $2 - before[$1] }
    END {
      total = c[n]
      if (total == 0) { print "- 0"; exit }
      for (i = 1; i <= n; i++) if (c[i] >= 0.99 * total) break
      out = sprintf("%s %d", (le[i] == "+Inf" ? "inf" : sprintf("%.0f", le[i] * 1000)), total)
      if (value != "") {
        for (j = 1; j < n && le[j] * 1000 < value; j++) { }
        out = out " " (i > j ? i - j : j - i)
      }
      print out
    }' "$1" "$2"
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

# checked_purchases LABEL SKU PREFIX CONC SECONDS REDIS_COUNTERS: SECONDS of purchases of SKU (run_wrk), then
# check_item. With BENCH_KEYS=0 in its environment, purchases without Idempotency-Key (a storm).
checked_purchases() {
  run_wrk purchase "$2" "$3" "$4" 0 "$5" 0
  check_item "$1" "$2" "$6"
}

# checked_reads LABEL MODE SKU PREFIX CONC SECONDS: SECONDS of a read (wrk MODE noop or availability), every answer
# a 2xx (check_answers; stop_if_breached is the caller's).
checked_reads() {
  run_wrk "$2" "$3" "$4" "$5" 0 "$6" 0
  check_answers "$1" true
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

