# shellcheck shell=bash
# bench/run.sh: what a service run is made of: the warm-up (until the JIT has settled), the hot sell, and the
# probe of the availability read.
# Sourced by bench/run.sh (set -euo pipefail); defines functions and their state only.

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
    checked_reads "$1 warm-up $2" "$2" "$3" "$RUN_ID-w$2$runs" "$4" 2
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
  checked_purchases "$1 warm-up" warm-hot "$RUN_ID-w" "$top" "$WARMUP_SECONDS" "$2"
  create_item warm-out 10 1
  checked_purchases "$1 warm-up sold-out" warm-out "$RUN_ID-wo" "$top" 2 "$2"
  BENCH_KEYS=0 checked_purchases "$1 warm-up sold-out storm" warm-out "$RUN_ID-wx" "$top" 2 "$2"
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
    checked_purchases "$label settle round $rounds" warm-hot "$RUN_ID-j$rounds" "$conc" 2 "$2"
    BENCH_KEYS=0 checked_purchases "$label settle round $rounds sold-out storm" warm-out "$RUN_ID-jx$rounds" "$conc" 1 "$2"
    if $3; then
      checked_reads "$label settle round $rounds noop" noop "" "$RUN_ID-jf$rounds" "$conc" 1
      if $AVAILABILITY; then
        checked_reads "$label settle round $rounds availability" availability warm-hot "$RUN_ID-ja$rounds" "$conc" 1
      fi
      stop_if_breached
    fi
    t1="$(date +%s.%N)"
    after="$(jit_compiled)"
    if [ -z "$before" ] || [ -z "$after" ]; then break; fi
    read -r pct methods < <(awk -v b="$before" -v a="$after" -v t0="$t0" -v t1="$t1" 'BEGIN {
      split(b, x, " "); split(a, y, " "); printf "%.1f %d\n", 100 * (y[2] - x[2]) / (t1 - t0), y[1] - x[1] }')
    say "$label: settle round $rounds: the JIT compiled $methods methods for $pct % of the round"
    if awk -v p="$pct" -v m="$JIT_SETTLED_PCT" 'BEGIN {exit !(p < m)}'; then quiet=$((quiet + 1)); else quiet=0; fi
    if ((quiet == 2)); then settled=true; break; fi
  done
  if [ -z "$pct" ]; then
    say "$label: $rounds settle round(s); the JIT's compile time could not be read (jstat)"
    record_info "$label" jit_settle "$rounds round(s), unknown"
  elif $settled; then
    say "$label: the JIT settled after $rounds round(s), $((SECONDS - started)) s"
    record_info "$label" jit_settle "settled after $rounds round(s), $((SECONDS - started)) s"
  else
    say "$label: the JIT had not settled after $rounds round(s), $((SECONDS - started)) s: $pct % in the last"
    record_info "$label" jit_settle "not settled after $rounds round(s), $((SECONDS - started)) s ($pct % in the last)"
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
  record_info "$1" rss_load_kb "$RSS_LOAD"
  record_info "$1" rss_peak_kb "$(rss_kb "$SERVICE_PID" VmHWM)"
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
    skipped "availability storm ($label)" "endpoint missing: GET /items/{sku}/availability answered 404"
    return 1
  fi
  [ "$code" = 200 ] || die "$label: GET $url answered $code (expected 200, or 404 while the endpoint is missing): $body"
  grep -qi '^etag:' "$OUT/availability-probe.headers" || die "$label: GET $url answered 200 without an ETag header"
  for field in sku available state; do
    [[ "$body" == *"\"$field\""* ]] || die "$label: GET $url answered 200 without the field \"$field\": $body"
  done
  say "$label: GET /items/$2/availability answers 200 with an ETag: $body"
}
