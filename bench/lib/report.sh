# shellcheck shell=bash
# bench/run.sh: the report: the tables of this run's figures (bench/report.awk), and docs/benchmarks.md with its
# chart (bench/chart.gp).
# Sourced by bench/run.sh (set -euo pipefail); defines functions only.

# report_tables: the Markdown tables of the results so far.
report_tables() {
  awk -v settled_pct="$JIT_SETTLED_PCT" -v cores="$(nproc)" -f "$BENCH_DIR/report.awk" -f "$BENCH_DIR/cpu_budget.awk" \
    "$RESULTS"
}

# service_jvm: the JVM options every service run starts with (the memory run adds its own).
service_jvm() {
  local opts
  opts="$(shipped_gc)${BENCH_JAVA_OPTS:+ $BENCH_JAVA_OPTS}"
  echo "The service's JVM options: ${opts# } (the collector is the one the image and the" \
    "Deployment ship, src/main/docker/Dockerfile.jvm's GC_CONTAINER_OPTIONS, unless BENCH_JAVA_OPTS names one)."
}

report() {
  echo
  echo "## flashstock benchmark: $MODE run $RUN_ID, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  service_jvm
  echo
  report_tables
}

machine_description() {
  local cpu mem
  cpu="$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
  mem="$(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "- CPU: ${cpu:-unknown}, $(nproc) cores; memory $mem; kernel $(uname -r)"
  echo "- $(java -version 2>&1 | head -1); $(sql_server 'SELECT CONCAT("MySQL server ", VERSION())');" \
    "Redis $(rcli INFO server | awk -F: '/^redis_version/ {print $2}' | tr -d '\r')$(if $REDIS_OWN; then echo ' (own server)'; fi);" \
    "$(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
  echo "- $(service_jvm)"
  echo "- Everything on this one machine: service, MariaDB, Redis and the load generators share the cores."
}

# The first line of the hand-written part of docs/benchmarks.md, which write_docs keeps.
ANALYSIS_MARKER="<!-- analysis: written by hand"

write_docs() {
  mkdir -p "$DOCS_DIR"
  local md="$DOCS_DIR/benchmarks.md" png="$DOCS_DIR/benchmarks.png" commit="" analysis=""
  local redis_servers="the bench's own redis-server" # whose CPU is Redis's (REDIS_PIDS, see connect_backends)
  if ! $REDIS_OWN; then redis_servers="every redis-server process of this machine"; fi
  # The hand-written analysis (from its marker to the end) is carried over into the new file: a recorded run
  # replaces the tables, not what was written about them.
  if [ -f "$md" ]; then
    analysis="$(awk -v marker="$ANALYSIS_MARKER" 'index($0, marker) { found = 1 } found' "$md")"
  fi
  if git -C "$jar_root" rev-parse --short HEAD >/dev/null 2>&1; then
    commit="$(git -C "$jar_root" rev-parse --short HEAD)$(git -C "$jar_root" diff --quiet HEAD -- src pom.xml 2>/dev/null || echo ' (with uncommitted changes)')"
  fi
  if $HAVE_GNUPLOT; then
    awk -v out=chart -f "$BENCH_DIR/report.awk" -f "$BENCH_DIR/cpu_budget.awk" "$RESULTS" >"$OUT/chart.tsv"
    gnuplot -e "datafile='$OUT/chart.tsv'; outfile='$png'; subtitle='bench/run.sh --$MODE, $(date -u +%Y-%m-%d), $(nproc) cores'" \
      "$BENCH_DIR/chart.gp" 2>"$OUT/gnuplot.log" || say "gnuplot failed (see $OUT/gnuplot.log)"
  fi
  {
    echo "# Benchmarks"
    echo
    echo "Produced by \`$COMMAND_LINE\` on $(date -u '+%Y-%m-%d %H:%M UTC')${commit:+, service built from commit $commit}."
    echo "Run \`bench/run.sh --help\` for what it does; the figures below all come from that one run, so every ratio"
    echo "divides numbers measured side by side. Absolute rates on a shared 2-core machine drift; ratios much less."
    echo
    echo "## Machine"
    echo
    machine_description
    echo
    echo "## How it is measured"
    echo
    echo "- Each strategy (and each redis-lua persistence mode) runs in its own service process on fresh data"
    echo "  (database \`$BENCH_DB\`, Redis: $REDIS_DESC), after a JVM warm-up: ${WARMUP_SECONDS} s of purchases, 2 s of"
    echo "  refused ones (with keys, without, with random keys), 2 s of the distinct-token storm on its own tokens,"
    echo "  then 2 s runs of the HTTP floor and of the availability read until their rate stops rising"
    echo "  (${WARMUP_SECONDS} s at most each); then settle rounds of what is measured (2 s of purchases, 1 s each of the"
    echo "  sold-out storms, the floor and the availability read) until the JIT has settled: two rounds in a row in"
    echo "  which it compiled for under ${JIT_SETTLED_PCT}% of the round's time (\`jstat -compiler\`), ${SETTLE_SECONDS} s at most."
    echo "  The memory run's warm-up has no reads. The table \"Per strategy\" says how each warm-up ended."
    echo "- Load: \`wrk -t1 -c<conc>\` with \`bench/wrk_purchase.lua\`: every purchase has its own user id and"
    echo "  Idempotency-Key. Hot sell: ${HOT_SECONDS} s against a stock that never runs out. Sell-out: $SELLOUT_STOCK units"
    echo "  against $SELLOUT_BUYERS buyers (one unit per user; 1% of the requests repeat an earlier buyer). Sold-out"
    echo "  storm: ${STORM_SECONDS} s of purchases of the sold-out item, without Idempotency-Key (a pod answers those"
    echo "  from memory). Keyed sold-out storm: the same, each purchase with a random Idempotency-Key of its own, so"
    echo "  that no key can be an earlier success's (\"Sold-out storms\" puts both next to the HTTP floor of the same"
    echo "  rounds). Availability storm: ${STORM_SECONDS} s of"
    echo "  \`GET /items/{sku}/availability\` of the hot item, every answer a 2xx or the run fails (skipped, and listed"
    echo "  under \"Not measured\", while the build answers 404 there)."
    echo "- Token storms, per repetition at ${TOKEN_CONC} connections whatever the concurrency: ${STORM_SECONDS} s of the key-less"
    echo "  sold-out storm with the one shop token (token-storm-one), then the same with each purchase another buyer's"
    echo "  with a token of its own (token-storm-distinct: sub and userId b-N, role buyer; $TOKENS tokens signed before"
    echo "  the run by \`bench/MintTokens.java\`, so signing costs nothing in the storm; ${TOKENS_WARM} for the warm-up, then"
    echo "  ${TOKENS_PER_REP} per repetition: a storm never sends a token twice and stops early when its share is spent)."
    echo "  A steady shop buys alongside each storm with the one shop token, one purchase at a time (curl, ${SHOP_PAUSE} s"
    echo "  apart). The shop's cache hit rate: the verified-token cache's \`cache_gets_total{cache=\"flashstock.tokens.cache\"}\`"
    echo "  (hit, miss) read from \`/q/metrics\` before the shop starts and after it stops, around the distinct-token"
    echo "  storm. The storm's tokens are new to the service, so none is a hit: every hit is the shop's, and its"
    echo "  misses are its requests less its hits; hits + misses must equal the storm's and the shop's requests."
    echo "- A run stops sending at its budget and ends when every request has its answer, so the 2xx count is"
    echo "  exactly the number of orders MySQL must hold. After each scenario: orders == 2xx answers, reserved+sold"
    echo "  == units of those orders <= stock, sold out exactly when a buyer was told sold-out, per-user limit kept,"
    echo "  stock == available+reserved+sold, and (redis-lua) the Redis counters equal MySQL's. None failed."
    echo "- Raw limits, alternating with the service scenarios: the HTTP floor (the service's in-memory"
    echo "  \`GET /q/health/live\` through the same wrk script), MySQL hot-row updates by N autocommit JDBC clients"
    echo "  (\`bench/RawMysql.java\`), and (after each redis-lua service run) \`redis-benchmark\` replaying the"
    echo "  service's own purchase \`EVALSHA\`, with fresh users and keys, on an item that never sells out"
    echo "  (write-behind's bound on the item's pending orders lifted: no relay drains them there)."
    echo "- CPU ms/req: CPU time (/proc/<pid>/stat) of the service, and of mariadbd + redis-server, during the"
    echo "  run, per answered request. RSS during hot sells: VmRSS sampled every 0.1 s while they ran; RSS under"
    echo "  load: VmRSS after the hot sells; peak RSS: VmHWM."
    echo "- redis-lua ratios (issue 36): Redis CPU is the CPU time of $redis_servers alone during each hot"
    echo "  sell, per order (2xx), and during each raw \`EVALSHA\` run, per call; service CPU per no-op request is the"
    echo "  service's CPU time during the HTTP floor run of the same service run, per answer. Mean batch: the growth"
    echo "  of \`${LUA_BATCH_METRIC}_sum\` over that of its \`_count\` (summed over its series) between \`/q/metrics\`"
    echo "  read right before and right after each hot sell; n/a where the build does not record it."
    echo "- Where a hot sell's CPU goes (issue 36): the busy and idle time of all cores (\`/proc/stat\`) around each"
    echo "  hot sell, less the service's, Redis's and MariaDB's, is the rest (wrk, the kernel, the benchmark itself);"
    echo "  the budget multiplies the throughput target's orders/s by the CPU an order would take at the CPU targets"
    echo "  (bench/cpu_budget.awk)."
    if $MEMORY_RUN; then
      echo "- Memory run: redis-lua write-behind's warm-up and hot sells once more, in a service started with the"
      echo "  container image's settings (\`JAVA_OPTS_APPEND\` and \`MALLOC_ARENA_MAX\` of"
      echo "  \`src/main/docker/Dockerfile.jvm\`, less \`-Dquarkus.http.host\`) and \`-XX:MaxRAM=${CONTAINER_MB}m\` for a"
      echo "  ${CONTAINER_MB} MB container limit (there is no cgroup limit here); the image launcher's own defaults are"
      echo "  not reproduced."
    fi
    if ((${#CATALOG[@]} > 0)); then
      echo "- Catalog runs, for catalogs of ${CATALOG[*]} items: fresh data, a first start so that Flyway creates the"
      echo "  schema, the items inserted with one SQL statement (stock = available = 100), Redis flushed, then"
      echo "  $(if $CATALOG_EVERY_STRATEGY; then echo "each strategy started"; else echo "redis-lua write-behind started"; fi) on that data:"
      echo "  start-to-ready (given up after ${CATALOG_READY_SECONDS} s). redis-lua write-behind then sells 3 units of"
      echo "  each of 10 new items and stays idle for ${IDLE_SECONDS} s: Redis commands/s (INFO"
      echo "  total_commands_processed of the whole server, less the reading) and the service's RSS."
    fi
    echo "- Issue targets: the redis-lua write-behind figures of this run against the goals of the issues (at 50"
    echo "  clients when measured)."
    echo
    echo "## Results"
    echo
    report_tables
    echo
    if [ -f "$png" ] && $HAVE_GNUPLOT; then
      echo "![Hot-sell throughput by strategy and concurrency, with the raw limits](benchmarks.png)"
      echo
    fi
    if [ -n "$analysis" ]; then
      echo
      printf '%s\n' "$analysis"
    fi
  } >"$md.new"
  mv "$md.new" "$md"
  if $HAVE_GNUPLOT; then say "wrote $md and $png"; else say "wrote $md (no chart: gnuplot missing)"; fi
}
