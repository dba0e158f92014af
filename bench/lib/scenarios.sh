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
# are refused (with a key of the sell-out's kind, without one, and each with a random key); with READS (the
# default) also the token storms' item sold out and their distinct tokens (token_warm_up), and the reads that are
# measured against each other (warm_read): the HTTP floor, and the availability read where this build has it
# (AVAILABILITY).
warm_up() {
  local top=${CONCURRENCY[0]} c
  for c in "${CONCURRENCY[@]}"; do if ((c > top)); then top=$c; fi; done
  create_item warm-hot 2000000000 0
  checked_purchases "$1 warm-up" warm-hot "$RUN_ID-w" "$top" "$WARMUP_SECONDS" "$2"
  create_item warm-out 10 1
  checked_purchases "$1 warm-up sold-out" warm-out "$RUN_ID-wo" "$top" 2 "$2"
  BENCH_KEYS=0 checked_purchases "$1 warm-up sold-out storm" warm-out "$RUN_ID-wx" "$top" 2 "$2"
  BENCH_KEYS=random checked_purchases "$1 warm-up keyed sold-out storm" warm-out "$RUN_ID-wy" "$top" 2 "$2"
  if ${3:-true}; then
    token_warm_up "$1" "$2"
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

# jit_settle LABEL REDIS_COUNTERS READS CONC: rounds of what is measured (2 s of purchases that win, 1 s each of the
# sold-out storm without and with keys, and with READS 1 s each of the HTTP floor and of the availability read; not
# the distinct tokens, of which each service gets only so many, see token_storms) until the JIT has
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
    BENCH_KEYS=random checked_purchases "$label settle round $rounds keyed sold-out storm" warm-out \
      "$RUN_ID-jy$rounds" "$conc" 1 "$2"
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
# the service's RSS samples of the run recorded too. /q/metrics is read once right before and once right after it
# (metrics-before.txt, metrics-after.txt): the p99 and the batch sizes below are of that window.
hot_sell() {
  local label="$1" sku="hot-$2" conc="$3" rss kb
  create_item "$sku" 2000000000 0
  metrics_now >"$OUT/metrics-before.txt"
  redis_cmdstats >"$OUT/cmdstats-before.txt"
  profile_start
  run_wrk purchase "$sku" "$RUN_ID-h$2" "$conc" 0 "$HOT_SECONDS" 0
  profile_stop "${label//[^A-Za-z0-9.-]/-}-$2"
  redis_cmdstats >"$OUT/cmdstats-after.txt"
  metrics_now >"$OUT/metrics-after.txt"
  rss=$(rss_kb "$SERVICE_PID" VmRSS)
  if ((rss > RSS_LOAD)); then RSS_LOAD=$rss; fi
  for kb in "${RSS_SAMPLES[@]}"; do printf 'rss\t%s\t%s\t%s\n' "$label" "$conc" "$kb"; done >>"$RESULTS"
  record_svc "$label" hot-sell "$conc" "$4"
  metrics_p99 "$label" "$conc" "$4"
  lua_batch "$label" "$conc" "$4"
  heap_allocated "$label" "$conc" "$4"
  redis_time "$label" "$conc" "$4"
  check_item "$label hot sell $2" "$sku" "$5"
}

# The purchase script's calls, each with the number of purchases it decided (issue 36: combined purchases): a
# DistributionSummary of the service's, flashstock.lua.purchase.batch.size.
LUA_BATCH_METRIC=flashstock_lua_purchase_batch_size

# lua_batch LABEL CONC REP: the mean batch of the purchase script's calls during the last hot sell (summary_mean of
# LUA_BATCH_METRIC between the /q/metrics texts around it), said and recorded as a "batch" line; its mean and calls
# empty ("n/a") when the service recorded none: a build without the metric, a strategy other than redis-lua.
lua_batch() {
  local mean="" calls=""
  read -r mean calls < <(summary_mean "$LUA_BATCH_METRIC" "$OUT/metrics-before.txt" "$OUT/metrics-after.txt") || true
  if [ -n "$mean" ]; then
    say "  purchase script batches: mean $mean over $calls calls"
  else
    say "  purchase script batches: n/a (no $LUA_BATCH_METRIC samples)"
  fi
  printf 'batch\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$mean" "$calls" >>"$RESULTS"
}

# heap_allocated LABEL CONC REP: the JVM heap the service allocated per order (2xx) during the last hot sell, in KB:
# the growth of Micrometer's jvm_gc_memory_allocated_bytes_total between the /q/metrics texts around it (the young
# generation's growth, counted at each collection: exact to within the one collection a hot sell of 10^4+ orders
# straddles at each end). Said and recorded as an "alloc" line; empty ("n/a") without the meter or without orders.
heap_allocated() {
  local kb
  kb="$(awk -v orders="${R[s2xx]:-0}" '
    { sign = (FILENAME == ARGV[1]) ? -1 : 1 }
    index($0, "jvm_gc_memory_allocated_bytes_total") == 1 { bytes += sign * $NF; seen++ }
    END { if (seen == 2 && orders > 0) printf "%.2f", bytes / orders / 1024 }' \
    "$OUT/metrics-before.txt" "$OUT/metrics-after.txt")"
  say "  heap allocated per order: ${kb:-n/a} KB"
  printf 'alloc\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$kb" >>"$RESULTS"
}

# redis_cmdstats: Redis's INFO commandstats as "command calls usec" lines (the whole server's: the bench's own
# redis-server serves nothing else). Commands a script calls count both on their own and in its EVALSHA's usec.
redis_cmdstats() {
  rcli INFO commandstats 2>/dev/null | tr -d '\r' \
    | sed -n 's/^cmdstat_\([^:]*\):calls=\([0-9]*\),usec=\([0-9]*\),.*/\1 \2 \3/p' || true
}

# redis_time LABEL CONC REP [COUNT UNIT]: where Redis's time went between cmdstats-before.txt and cmdstats-after.txt,
# per COUNT (default: the last run's 2xx; UNIT "order"): for each command with time, its calls and microseconds per
# unit, the largest first; said (the first eight) and recorded as "rediscmd" lines. Time inside scripts shows twice:
# under evalsha and under each command the scripts called.
redis_time() {
  local count="${4:-${R[s2xx]:-0}}" unit="${5:-order}" top
  ((count > 0)) || return 0
  awk -v count="$count" -v label="$1" -v conc="$2" -v rep="$3" '
    NR == FNR { calls[$1] = $2; usec[$1] = $3; next }
    { dc = $2 - calls[$1]; du = $3 - usec[$1]
      if (du > 0) printf "rediscmd\t%s\t%s\t%s\t%s\t%.3f\t%.2f\n", label, conc, rep, $1, dc / count, du / count }
  ' "$OUT/cmdstats-before.txt" "$OUT/cmdstats-after.txt" | sort -t$'\t' -k7,7gr >"$OUT/rediscmd.tsv"
  cat "$OUT/rediscmd.tsv" >>"$RESULTS"
  top="$(head -8 "$OUT/rediscmd.tsv" | awk -F'\t' '{printf "%s%s %s us (%s calls)", (NR > 1 ? ", " : ""), $5, $7, $6}')"
  [ -z "$top" ] || say "  Redis time per $unit by command: $top"
}

# metrics_p99 LABEL CONC REP: the last hot sell's p99 as Prometheus computes it from flashstock_purchases_seconds (the
# upper bound of the bucket holding it), beside wrk's, and how many buckets apart they are: the README's PromQL must
# agree with what clients see within one bucket (issue 35).
metrics_p99() {
  local p99_ms samples apart wrk_ms
  histogram_buckets flashstock_purchases_seconds <"$OUT/metrics-before.txt" >"$OUT/purchases-before.txt"
  histogram_buckets flashstock_purchases_seconds <"$OUT/metrics-after.txt" >"$OUT/purchases-after.txt"
  wrk_ms="$(thousandths "${R[p99_us]}")"
  read -r p99_ms samples apart < <(histogram_p99 "$OUT/purchases-before.txt" "$OUT/purchases-after.txt" "$wrk_ms")
  say "$(printf '  /q/metrics p99: le %s ms over %s purchases; wrk p99 %s ms: %s bucket(s) apart' "$p99_ms" "$samples" \
    "$wrk_ms" "${apart:--}")"
  record_info "$1" "metrics_p99_c$2_r$3" "$p99_ms $wrk_ms ${apart:--}"
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

# ---------------------------------------------------------------------------------------------------------------
# The token storms: the key-less sold-out storm at TOKEN_CONC connections, once with the one shop token of every
# other run, once with each purchase a distinct buyer's (BUYER_TOKENS, see make_tokens: its own token, its sub as
# the userId), while a steady shop (shop_start) buys alongside at a low rate with the one shop token. The question
# is whether a crowd of new tokens pushes the shop's token out of the verified-token cache
# (io.flashstock.access.VerifiedTokens) and so costs it a signature check per request.
#
# The shop's hit rate comes from the cache's meters in /q/metrics (cache_gets_total{cache="flashstock.tokens.cache",
# result=hit|miss}), read before the shop starts and after it stopped, around the distinct-token storm. They count all
# tokens together; the shop's share is told apart by the storm's tokens themselves: no token of the storm was ever
# sent to this service before (each repetition has its own TOKENS_PER_REP of them, the warm-up its own TOKENS_WARM,
# and the storm stops when its share is spent), so none can be in the cache and every storm request is a miss.
# Hence every hit in the window is the shop's: shop hits = hits, shop misses = shop requests - hits. The check that
# nothing else was counted: hits + misses == storm requests + shop requests (recorded; the report says when not).

# shop_start SKU FILE: the steady shop, in the background: key-less purchases of SKU (sold out) with SHOP_AUTH, a
# user id of their own each, one at a time, SHOP_PAUSE seconds apart, until shop_stop; each answer's status in FILE.
shop_start() {
  local sku="$1" file="$2"
  : >"$file"
  rm -f "$OUT/shop.stop"
  (
    n=0
    while [ ! -e "$OUT/shop.stop" ]; do
      n=$((n + 1))
      code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST "$(base_url)/items/$sku/purchases" \
        -H 'Content-Type: application/json' -H "$SHOP_AUTH" \
        -d "{\"userId\":\"shop-$(basename "$file" .txt)-$n\",\"quantity\":1}" || true)"
      echo "${code:-000}" >>"$file"
      sleep "$SHOP_PAUSE"
    done
  ) &
  SHOP_PID=$!
}

# shop_stop LABEL FILE: stops the steady shop; breach unless every answer was a 409 (the item is sold out). Sets
# SHOP_REQUESTS.
SHOP_REQUESTS=0
shop_stop() {
  local bad
  touch "$OUT/shop.stop"
  wait "$SHOP_PID" 2>/dev/null || true
  SHOP_PID=""
  SHOP_REQUESTS="$(wc -l <"$2")"
  bad="$(grep -cv '^409$' "$2" || true)"
  ((bad == 0)) || breach "$1: $bad of the steady shop's $SHOP_REQUESTS answers were not 409 ($(sort "$2" | uniq -c | tr -s ' \n' ' '))"
  ((SHOP_REQUESTS > 0)) || breach "$1: the steady shop sent no request"
}

# token_cache_counts: "HITS MISSES EVICTIONS" of the verified-token cache so far, from the service's /q/metrics;
# nothing when this build has no such meters (or the management port is unknown).
token_cache_counts() {
  [ -n "$MANAGEMENT_PORT" ] || return 0
  curl -s --max-time 10 "http://127.0.0.1:$MANAGEMENT_PORT/q/metrics" | awk '
    index($0, "cache=\"flashstock.tokens.cache\"") == 0 { next }
    /^cache_gets_total\{/ && /result="hit"/ { h = $NF }
    /^cache_gets_total\{/ && /result="miss"/ { m = $NF }
    /^cache_evictions_total\{/ { e = $NF }
    END { if (h != "" && m != "") printf "%d %d %d\n", h, m, e }' || true
}

# token_warm_up LABEL REDIS_COUNTERS: the token storms' item tok-out (10 units, sold out by 10 purchases), then
# 2 s of the distinct-token storm with the warm-up's own tokens (the first TOKENS_WARM), so that verifying a new
# token is compiled before it is measured.
token_warm_up() {
  create_item tok-out 10 1
  run_wrk purchase tok-out "$RUN_ID-tb" 4 10 0 0
  check_item "$1 warm-up: tok-out sold" tok-out "$2"
  BENCH_KEYS=0 BENCH_TOKENS="$BUYER_TOKENS" BENCH_TOKENS_FROM=0 \
    run_wrk purchase tok-out "$RUN_ID-tw" "$TOKEN_CONC" "$TOKENS_WARM" 2 0
  check_item "$1 warm-up: distinct-token storm" tok-out "$2"
  say "$1: distinct-token storm warmed up: ${R[received]} tokens at ${R[rps]} req/s"
}

# token_storms LABEL REP REDIS_COUNTERS: the one-token storm, then the distinct-token storm (the steady shop buying
# alongside each), STORM_SECONDS each (the distinct one stops sooner when its TOKENS_PER_REP tokens are spent);
# both recorded as service runs, and a "tokens" line with the cache's counts around the distinct-token storm.
token_storms() {
  local label="$1" rep="$2" before after hits="" misses="" evictions="" storm note=""
  shop_start tok-out "$OUT/shop-one-$rep.txt"
  BENCH_KEYS=0 run_wrk purchase tok-out "$RUN_ID-to$rep" "$TOKEN_CONC" 0 "$STORM_SECONDS" 0
  shop_stop "$label token storm, one token, #$rep" "$OUT/shop-one-$rep.txt"
  record_svc "$label" token-storm-one "$TOKEN_CONC" "$rep"
  check_item "$label token storm, one token, #$rep" tok-out "$3"

  before="$(token_cache_counts)"
  shop_start tok-out "$OUT/shop-distinct-$rep.txt"
  BENCH_KEYS=0 BENCH_TOKENS="$BUYER_TOKENS" BENCH_TOKENS_FROM=$((TOKENS_WARM + (rep - 1) * TOKENS_PER_REP)) \
    run_wrk purchase tok-out "$RUN_ID-td$rep" "$TOKEN_CONC" "$TOKENS_PER_REP" "$STORM_SECONDS" 0
  shop_stop "$label token storm, distinct tokens, #$rep" "$OUT/shop-distinct-$rep.txt"
  after="$(token_cache_counts)"
  record_svc "$label" token-storm-distinct "$TOKEN_CONC" "$rep"
  check_item "$label token storm, distinct tokens, #$rep" tok-out "$3"
  storm="${R[received]}"
  if ((R[sent] >= TOKENS_PER_REP)); then note="its $TOKENS_PER_REP tokens spent after ${R[seconds]} s"; fi

  if [ -n "$before" ] && [ -n "$after" ]; then
    read -r hits misses evictions < <(awk -v b="$before" -v a="$after" 'BEGIN {
      split(b, x, " "); split(a, y, " "); print y[1] - x[1], y[2] - x[2], y[3] - x[3] }')
    if ((hits + misses != storm + SHOP_REQUESTS)); then
      note="${note:+$note; }cache gets $((hits + misses)) != storm $storm + shop $SHOP_REQUESTS"
    fi
    say "$label: token storm #$rep: the shop's token hit the cache $hits times in $SHOP_REQUESTS requests;" \
      "the cache counted $misses misses for $storm new tokens, $evictions evictions${note:+; $note}"
  else
    note="${note:+$note; }no flashstock.tokens.cache meters in /q/metrics"
    say "$label: token storm #$rep: the shop's hit rate is not known: $note"
  fi
  printf 'tokens\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$rep" "$storm" "$SHOP_REQUESTS" "$hits" "$misses" \
    "$evictions" "$note" >>"$RESULTS"
}
