#!/usr/bin/env bash
# flashstock A/B: the hot sell of two builds of the service (A, the baseline; B, the candidate), side by side on the
# same machine in the same run. Run bench/compare.sh --help for the usage. Per strategy (and per persistence mode of
# redis-lua), ROUNDS rounds, each one service run of A and one of B, their order alternating (A B, B A, A B, ...) so
# that a drift of the machine during the run weighs on both alike. One service run: fresh data, the service jar
# started, the warm-up of bench/run.sh's hot-sell-only runs (purchases, refused ones, then its JIT settle rounds,
# capped short), the hot sell for SECONDS at CONCURRENCY, the invariants bench/run.sh checks after a hot sell, stop.
# Then per strategy: the median req/s of A and of B over the rounds, B/A, and PASS when B/A >= the minimum ratio.
# A build is a jar (--baseline / --candidate) or a commit (--baseline-rev / --candidate-rev), built here in a
# temporary git worktree (removed at exit).
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$BENCH_DIR/.." && pwd)"
COMMAND_LINE="bench/compare.sh $*"

# The parts of bench/run.sh (bench/lib/), for: read_environment, select_configs (options.sh); say, die, take_lock,
# cleanup, ensure_tools, record_info (common.sh); connect_backends, redis_flush (backends.sh); prepare_jar, build_jar,
# make_auth, stop_service (service.sh); R, the invariants (load.sh); split_config, warm_up, hot_sell (scenarios.sh);
# start_fresh (runs.sh); report, on an invariant breach (report.sh); start_broker, events_drained, delivery_histogram
# (kafka.sh); histogram_p99 (load.sh).
for part in options common backends service load raw scenarios runs report kafka; do
  # shellcheck source=/dev/null
  source "$BENCH_DIR/lib/$part.sh"
done

compare_usage() {
  cat <<'EOF'
Usage: bench/compare.sh (--baseline JAR_A | --baseline-rev GITREV) (--candidate JAR_B | --candidate-rev GITREV)
                        [OPTIONS]

A/B of the hot sell of two builds of the service, side by side in one run on this machine: per strategy, ROUNDS
rounds, each a service run of A and one of B in alternating order (A B, B A, A B, ...: drift cancels). A service
run: fresh data (database flashstock_bench, the script's own redis-server flushed), the jar started, warmed up as
bench/run.sh warms up its hot-sell-only runs (WARMUP seconds of purchases, 6 s of refused ones, then JIT settle
rounds until the JIT has settled, SETTLE seconds at most), SECONDS of hot sell at CONCURRENCY connections (a new item
that never sells out; every purchase its own user and Idempotency-Key), the invariants checked (orders == 2xx
answers, counters balanced, Redis == MySQL for redis-lua), the service stopped. Per strategy it prints the median
req/s of A and of B, B/A, the medians of p50 and p99, and PASS when B/A >= MIN_RATIO.

Builds:
  --baseline JAR_A         A: a service jar (target/quarkus-app/quarkus-run.jar of a build)
  --baseline-rev GITREV    A: the jar of that commit, built here (./mvnw -B -o -q package -DskipTests in a temporary
                           git worktree of this repository, removed at exit)
  --candidate JAR_B        B: a service jar
  --candidate-rev GITREV   B: the jar of that commit, built the same way
  --baseline-env NAME=VALUE, --candidate-env NAME=VALUE
                           an environment variable of that side's service runs only (repeatable): one jar with
                           two settings (--candidate-env alone and no baseline: A and B are one build, this
                           checkout's jar or --candidate's), e.g. the access log muted:
                           --candidate-env QUARKUS_LOG_CATEGORY__FLASHSTOCK_ACCESS__LEVEL=WARN
  --events                 A and B are one build (--candidate / --candidate-rev, or this checkout's jar), A with
                           the sale events off and B with them on, beside a Kafka broker of the run's own
                           (bench/LocalBroker.java) that both are given; after each B hot sell the run waits for
                           the outbox to drain and reports the publisher's lag: the p99 of
                           flashstock_events_delivery_seconds over the hot sell's deliveries (a bucket bound)
Options:
  --strategies LIST        comma-separated subset of: db-optimistic,redis-lock,redis-lua (redis-lua: both
                           write-through and write-behind), redis-lua:write-through, redis-lua:write-behind;
                           default all
  --concurrency N          connections of the hot sell (default 50)
  --rounds N               rounds per strategy, each one run of A and one of B (default 3)
  --seconds S              seconds of each hot sell (default 20)
  --min-ratio R            the least B/A that passes (default 0.9)
  --warmup-seconds S       seconds of the warm-up's winning purchases (default 10)
  --settle-seconds S       the most seconds of JIT settle rounds (default 30)
  -h, --help               this text

Example, the ledger's cost (issue 33), against the commit the branch started from:
  bench/compare.sh --baseline-rev "$(git merge-base main ledger)" --candidate-rev ledger
The events' cost (issue 34), this checkout's build with the events off and on:
  bench/compare.sh --events
Takes about 8 minutes per strategy with the defaults, 30 to 35 minutes for all four (each service run, 6 per
strategy: about 7 s to start, 16 s of warm-up, up to 30 s of settle rounds and the one running when the cap is
reached, 20 s of hot sell, the checks).
Environment: as bench/run.sh (BENCH_MYSQL_*, BENCH_REDIS_HOST/PORT, BENCH_JAVA_OPTS, BENCH_OUT, BENCH_CONVERGE_SECONDS,
BENCH_PROFILE: a JFR profile of each hot sell, profile-NAME.md in the output folder).
Output folder (BENCH_OUT, default a new temporary folder): compare.tsv (one line per service run: strategy, build,
round, position in the round, req/s, p50 us, p99 us, 2xx, answers, events lag p99 ms and deliveries), compare.md (the tables and how they were
measured), results.tsv (bench/run.sh's raw lines of the same runs), the service and build logs.
Exit status: 0 every ratio passed; 1 an error; 2 usage; 3 an invariant was broken; 4 a ratio below MIN_RATIO.
EOF
}

# ---------------------------------------------------------------------------------------------------------------
# Options

JAR_A="" JAR_B="" REV_A="" REV_B=""
ENV_A=() ENV_B=()
EVENTS=false
ONLY_STRATEGIES=""
AB_CONC=50
ROUNDS=3
AB_SECONDS=20
MIN_RATIO=0.9
AB_WARMUP=10
AB_SETTLE=30
while (($# > 0)); do
  case "$1" in
    --baseline) JAR_A="${2:?--baseline needs a jar}"; shift ;;
    --candidate) JAR_B="${2:?--candidate needs a jar}"; shift ;;
    --baseline-rev) REV_A="${2:?--baseline-rev needs a git revision}"; shift ;;
    --candidate-rev) REV_B="${2:?--candidate-rev needs a git revision}"; shift ;;
    --baseline-env) ENV_A+=("${2:?--baseline-env needs NAME=VALUE}"); shift ;;
    --candidate-env) ENV_B+=("${2:?--candidate-env needs NAME=VALUE}"); shift ;;
    --events) EVENTS=true ;;
    --strategies) ONLY_STRATEGIES="${2:?--strategies needs a list}"; shift ;;
    --concurrency) AB_CONC="${2:?--concurrency needs a number}"; shift ;;
    --rounds) ROUNDS="${2:?--rounds needs a number}"; shift ;;
    --seconds) AB_SECONDS="${2:?--seconds needs a number}"; shift ;;
    --min-ratio) MIN_RATIO="${2:?--min-ratio needs a number}"; shift ;;
    --warmup-seconds) AB_WARMUP="${2:?--warmup-seconds needs a number}"; shift ;;
    --settle-seconds) AB_SETTLE="${2:?--settle-seconds needs a number}"; shift ;;
    -h | --help) compare_usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; compare_usage >&2; exit 2 ;;
  esac
  shift
done
usage_error() { echo "$*" >&2; compare_usage >&2; exit 2; }
if [ -n "$JAR_A" ] && [ -n "$REV_A" ]; then usage_error "give --baseline or --baseline-rev, not both"; fi
if [ -n "$JAR_B" ] && [ -n "$REV_B" ]; then usage_error "give --candidate or --candidate-rev, not both"; fi
for setting in "${ENV_A[@]}" "${ENV_B[@]}"; do
  [[ "$setting" =~ ^[A-Z_][A-Z0-9_]*= ]] || usage_error "not NAME=VALUE: $setting"
done
# One build with two settings: the candidate's (or this checkout's) jar on both sides.
SAME_BUILD=false
if $EVENTS || { ((${#ENV_A[@]} + ${#ENV_B[@]} > 0)) && [ -z "$JAR_A$REV_A" ]; }; then SAME_BUILD=true; fi
if $EVENTS; then
  if [ -n "$JAR_A$REV_A" ]; then usage_error "--events compares one build with itself: give no baseline"; fi
elif $SAME_BUILD; then
  :
else
  if [ -z "$JAR_A$REV_A" ]; then usage_error "no baseline: give --baseline JAR_A or --baseline-rev GITREV"; fi
  if [ -z "$JAR_B$REV_B" ]; then usage_error "no candidate: give --candidate JAR_B or --candidate-rev GITREV"; fi
fi
for n in "$AB_CONC" "$ROUNDS" "$AB_SECONDS" "$AB_WARMUP" "$AB_SETTLE"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || usage_error "not a positive number: $n"
done
[[ "$MIN_RATIO" =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage_error "not a ratio: $MIN_RATIO"
select_configs

# The settings bench/lib's functions read (bench/run.sh's apply_mode sets them per mode): the warm-up at the one
# concurrency (warm_up, jit_settle), the hot sell's seconds (hot_sell).
MODE=compare
CONCURRENCY=("$AB_CONC")
HOT_SECONDS="$AB_SECONDS"
WARMUP_SECONDS="$AB_WARMUP"
SETTLE_SECONDS="$AB_SETTLE"
WRITE_DOCS=false

read_environment
AB_RESULTS="$OUT/compare.tsv"
AB_COLUMNS=(strategy build round position rps p50_us p99_us s2xx received lag_p99_ms deliveries svc_cpu_s back_cpu_s
  broker_cpu_s)
(IFS=$'\t'; echo "${AB_COLUMNS[*]}") >"$AB_RESULTS"

# ---------------------------------------------------------------------------------------------------------------
# The builds

REV_TREES=() # the temporary worktrees of --baseline-rev / --candidate-rev, removed at exit

compare_cleanup() {
  local tree
  cleanup
  stop_broker
  for tree in "${REV_TREES[@]}"; do
    git -C "$REPO_DIR" worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf -- "$tree"
  done
  if ((${#REV_TREES[@]} > 0)); then git -C "$REPO_DIR" worktree prune || true; fi
}

# build_rev SIDE REV: the jar of commit REV, built in a temporary worktree; its path in BUILT_JAR, and the commit
# it was built from in BUILT_COMMIT.
build_rev() {
  local side="$1" rev="$2" tree commit
  commit="$(git -C "$REPO_DIR" rev-parse --verify -q "$rev^{commit}")" || die "$side: not a commit here: $rev"
  tree="$(mktemp -d "${TMPDIR:-/tmp}/flashstock-compare-$side.XXXXXX")"
  REV_TREES+=("$tree")
  git -C "$REPO_DIR" worktree add --detach "$tree" "$commit" >"$OUT/worktree-$side.log" 2>&1 \
    || die "$side: git worktree add failed (log: $OUT/worktree-$side.log)"
  say "$side: building $rev (${commit:0:10}): ./mvnw -B -o -q package -DskipTests in $tree (log: $OUT/build-$side.log)"
  build_jar "$tree" "$OUT/build-$side.log" -o
  BUILT_JAR="$tree/target/quarkus-app/quarkus-run.jar"
  BUILT_COMMIT="${commit:0:10}"
}

# jar_of SIDE JAR REV: JAR (or REV's build) checked and made absolute by prepare_jar, in JAR; DESC says what it is.
jar_of() {
  local side="$1" commit=""
  JAR="$2"
  if [ -n "$3" ]; then
    build_rev "$side" "$3"
    JAR="$BUILT_JAR"
    commit="$BUILT_COMMIT"
  fi
  prepare_jar
  if [ -z "$commit" ] && git -C "$jar_root" rev-parse --short HEAD >/dev/null 2>&1; then
    commit="$(git -C "$jar_root" rev-parse --short HEAD)$(git -C "$jar_root" diff --quiet HEAD -- src pom.xml 2>/dev/null \
      || echo ', with uncommitted changes')"
  fi
  DESC="$JAR${3:+ (built from $3)}${commit:+, commit $commit}"
}

# ---------------------------------------------------------------------------------------------------------------
# The runs

# ab_run CONFIG SIDE ROUND POSITION: one service run of build SIDE (A or B) of CONFIG: fresh data, start, warm-up,
# the hot sell (checked), stop; its figures appended to compare.tsv. START_RC 3: the strategy is not in that build.
ab_run() {
  local strategy persistence label side="$2" round="$3" redis_counters=false
  split_config "$1"
  local run_label="$label@$side"
  local publishing=false lag="-" deliveries="-"
  if [ "$side" = A ]; then
    JAR="$JAR_A" SERVICE_ENV=("${ENV_A[@]}")
  else
    JAR="$JAR_B" SERVICE_ENV=("${ENV_B[@]}")
  fi
  if [ "$strategy" = redis-lua ]; then redis_counters=true; fi
  if $EVENTS; then # the broker for both; the events on for B only
    if [ "$side" = B ]; then publishing=true; fi
    SERVICE_ENV+=(KAFKA_BOOTSTRAP_SERVERS="$BOOTSTRAP" FLASHSTOCK_EVENTS_ENABLED="$publishing")
  fi
  say "---- $run_label, round $round: starting the service on fresh data"
  start_fresh "$run_label" "$strategy" "$persistence" "$OUT/service-${label//\//-}-$side-r$round.log"
  if ((START_RC == 3)); then return 0; fi
  warm_up "$run_label" "$redis_counters" false
  if $publishing; then
    events_drained 60 || die "$run_label: the warm-up's events were not all published within 60 s"
    delivery_histogram >"$OUT/delivery-before.txt"
  fi
  local broker0="" broker_cpu=""
  if [ -n "$BROKER_PID" ]; then broker0="$(cpu_ticks $(process_tree "$BROKER_PID"))"; fi
  hot_sell "$run_label" "ab-r$round" "$AB_CONC" "$round" "$redis_counters"
  if [ -n "$broker0" ]; then
    broker_cpu="$(cpu_seconds "$broker0" "$(cpu_ticks $(process_tree "$BROKER_PID"))")"
  fi
  # Where an A/B difference goes: CPU per answered purchase of the service, of MySQL + Redis, and of the broker (on
  # these same cores, so B pays for its work too; the events-off A gives it nothing to do).
  say "$run_label: CPU ms per purchase: service $(per_order "${R[svc_cpu]}"), MySQL + Redis $(per_order \
    "${R[back_cpu]}"), Kafka broker $(per_order "$broker_cpu")"
  if $publishing; then
    events_drained 120 || die "$run_label: the hot sell's events were not all published within 120 s"
    delivery_histogram >"$OUT/delivery-after.txt"
    read -r lag deliveries < <(histogram_p99 "$OUT/delivery-before.txt" "$OUT/delivery-after.txt")
    say "$run_label: the hot sell's movements published: $deliveries, delivery p99 <= $lag ms"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$side" "$round" "$4" "${R[rps]}" \
    "${R[p50_us]}" "${R[p99_us]}" "${R[s2xx]}" "${R[received]}" "$lag" "$deliveries" "${R[svc_cpu]}" \
    "${R[back_cpu]}" "$broker_cpu" >>"$AB_RESULTS"
  stop_service
}

# process_tree PID: PID and its descendants (bench/LocalBroker.java runs the broker itself as a child JVM).
process_tree() {
  local child
  echo "$1"
  for child in $(pgrep -P "$1"); do process_tree "$child"; done
}

# per_order CPU_SECONDS: those seconds in ms per answered purchase of the last hot sell (R[s2xx]); "-" unmeasured.
per_order() {
  if [ -z "$1" ] || [ "${R[s2xx]:-0}" -le 0 ]; then echo -; return; fi
  awk -v s="$1" -v n="${R[s2xx]}" 'BEGIN {printf "%.4f", s * 1000 / n}'
}

# ab_config CONFIG: its rounds, A and B alternating; a strategy that is not in one of the builds is skipped.
ab_config() {
  local round first second
  for ((round = 1; round <= ROUNDS; round++)); do
    if ((round % 2 == 1)); then first=A second=B; else first=B second=A; fi
    ab_run "$1" "$first" "$round" 1
    if ((START_RC == 3)); then skipped "$1" "not in build $first"; return 0; fi
    ab_run "$1" "$second" "$round" 2
    if ((START_RC == 3)); then skipped "$1" "not in build $second"; return 0; fi
  done
}

# ab_table: per strategy, the medians of A and B over the rounds (req/s, p50, p99), B/A, each round's B/A, and the
# verdict against MIN_RATIO; the last line "summary FAILED COMPARED": the strategies whose B/A is below it, and
# those that ran in both builds.
ab_table() {
  awk -F'\t' -v min="$MIN_RATIO" -v events="$EVENTS" '
    function median(list,   n, a, i, j, t) {
      n = split(list, a, " ")
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    NR == 1 { next }
    {
      if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
      rps[$1, $2] = rps[$1, $2] " " $5; p50[$1, $2] = p50[$1, $2] " " $6; p99[$1, $2] = p99[$1, $2] " " $7
      round[$1, $2, $3] = $5; rounds[$1] = $3 > rounds[$1] ? $3 : rounds[$1]
      if ($2 == "B" && $10 != "-" && $10 != "") lag[$1] = lag[$1] " " ($10 == "inf" ? 1e12 : $10)
    }
    END {
      extra = events == "true" ? " B events lag p99 ms |" : ""
      print "| strategy | rounds | A req/s | B req/s | B/A | each round B/A | p50 ms A / B | p99 ms A / B | verdict |" extra
      print "|---|---:|---:|---:|---:|---|---:|---:|---|" (events == "true" ? "---:|" : "")
      for (i = 1; i <= n; i++) {
        s = order[i]
        if (rps[s, "A"] == "" || rps[s, "B"] == "") continue
        a = median(rps[s, "A"]); b = median(rps[s, "B"]); ratio = a > 0 ? b / a : 0
        each = ""; k = 0
        for (r = 1; r <= rounds[s]; r++)
          if ((s, "A", r) in round && (s, "B", r) in round && round[s, "A", r] > 0) {
            each = each (k++ ? ", " : "") sprintf("%.3f", round[s, "B", r] / round[s, "A", r])
          }
        ok = ratio >= min
        compared++
        if (!ok) failed++
        printf "| %s | %d | %.0f | %.0f | %.3f | %s | %.2f / %.2f | %.2f / %.2f | %s |", s, k, a, b, ratio, each,
          median(p50[s, "A"]) / 1000, median(p50[s, "B"]) / 1000, median(p99[s, "A"]) / 1000,
          median(p99[s, "B"]) / 1000, ok ? "PASS" : sprintf("FAIL (< %s)", min)
        if (events == "true") {
          l = lag[s] == "" ? "-" : median(lag[s])
          printf " %s |", l == "-" ? "-" : (l >= 1e12 ? "over 60,000" : sprintf("<= %d", l))
        }
        printf "\n"
      }
      print "summary " failed + 0 " " compared + 0
    }' "$AB_RESULTS"
}

# ab_report: the table and how it was measured (Markdown), then ab_table's summary line.
ab_report() {
  echo "## flashstock A/B of the hot sell: run $RUN_ID, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "\`$COMMAND_LINE\`"
  echo
  echo "- A (baseline): $DESC_A"
  echo "- B (candidate): $DESC_B"
  echo "- How it was measured: both builds on this machine in this one run, per strategy $ROUNDS round(s), each a"
  echo "  service run of A and one of B, in alternating order (A B, then B A, then A B, ...), so that a drift of the"
  echo "  shared machine weighs on both alike. Each service run: fresh data, the jar started, warmed up ($AB_WARMUP s of"
  echo "  purchases, 6 s of refused ones, then JIT settle rounds until two in a row compiled for under"
  echo "  $JIT_SETTLED_PCT% of their time, $AB_SETTLE s at most), then $AB_SECONDS s of hot sell at $AB_CONC connections"
  echo "  (\`wrk -t1\`, bench/wrk_purchase.lua: a new item that never sells out, every purchase its own user and"
  echo "  Idempotency-Key), the invariants of bench/run.sh checked after it (none broken), the service stopped."
  echo "- A req/s, B req/s: the median over the rounds of each run's answered purchases per second; B/A divides"
  echo "  those medians; \"each round B/A\" divides the two runs of one round. p50/p99: medians of the runs'."
  echo "  PASS when B/A >= $MIN_RATIO. Raw figures: compare.tsv."
  if $EVENTS; then
    echo "- Events: A and B are one build, A with flashstock.events.enabled=false and B with it true, both given the"
    echo "  run's own Kafka broker (bench/LocalBroker.java, on these same cores). After each B hot sell the run waited"
    echo "  for the outbox to drain; \"B events lag p99\" is the median over the rounds of the bucket bound of"
    echo "  flashstock_events_delivery_seconds (a movement's write to the broker's acknowledgement) holding the 99th"
    echo "  percentile of that hot sell's deliveries."
  fi
  echo
  ab_table
}

# ---------------------------------------------------------------------------------------------------------------

take_lock
trap compare_cleanup EXIT
trap 'exit 130' INT TERM

ensure_tools
jar_of B "$JAR_B" "$REV_B"
JAR_B="$JAR" DESC_B="$DESC"
if $EVENTS; then
  JAR_A="$JAR_B" DESC_A="$DESC_B, the sale events off"
  DESC_B="$DESC_B, the sale events on"
elif $SAME_BUILD; then
  JAR_A="$JAR_B" DESC_A="$DESC_B"
else
  jar_of A "$JAR_A" "$REV_A"
  JAR_A="$JAR" DESC_A="$DESC"
fi
if ((${#ENV_A[@]} > 0)); then DESC_A="$DESC_A, with ${ENV_A[*]}"; fi
if ((${#ENV_B[@]} > 0)); then DESC_B="$DESC_B, with ${ENV_B[*]}"; fi
say "A (baseline): $DESC_A"
say "B (candidate): $DESC_B"
if [ "$JAR_A" = "$JAR_B" ] && ! $SAME_BUILD; then say "A and B are the same jar: B/A shows the noise of the measurement"; fi
connect_backends
make_auth
if $EVENTS; then start_broker; fi
say "A/B of the hot sell: strategies ${CONFIGS[*]}; $ROUNDS round(s) of A and B alternating, $AB_SECONDS s at" \
  "$AB_CONC connections; output in $OUT"

for config in "${CONFIGS[@]}"; do ab_config "$config"; done
redis_flush

ab_report >"$OUT/compare.md.tmp"
read -r failed compared < <(sed -n 's/^summary //p' "$OUT/compare.md.tmp")
grep -v '^summary ' "$OUT/compare.md.tmp" >"$OUT/compare.md"
rm -f "$OUT/compare.md.tmp"
echo
cat "$OUT/compare.md"
echo
((compared > 0)) || die "no strategy ran in both builds (see the skipped lines above)"
say "took $((SECONDS - STARTED_AT)) s; raw results in $AB_RESULTS, the table in $OUT/compare.md"
if ((failed > 0)); then
  say "$failed of $compared strategies with B/A below $MIN_RATIO"
  exit 4
fi
say "every strategy compared ($compared): B/A >= $MIN_RATIO"
