# Turns the measurements of one bench/run.sh run (a tab-separated file) into the Markdown tables it prints and
# writes to docs/benchmarks.md, or (-v out=chart) into the data file of bench/chart.gp. -v settled_pct=N: the
# compile share under which a settle round counted as quiet (bench/run.sh's JIT_SETTLED_PCT; 5 when not given).
#
# Records (tab-separated):
#   svc  CONFIG SCENARIO CONC REP RPS P50_US P99_US N2XX N409_SOLD_OUT N409_LIMIT N503 REQUESTS SVC_CPU_S BACKEND_CPU_S
#        [REDIS_CPU_S [BUSY_CPU_S IDLE_CPU_S]]
#                                  (REDIS_CPU_S: redis-server alone, BACKEND_CPU_S counts it too; empty: not measured;
#                                  missing from results files older than issue 36's ratios. BUSY_CPU_S, IDLE_CPU_S: all
#                                  cores' busy and idle time (bench/cpu_budget.awk); missing from older files)
#   raw  NAME CONC REP RPS P50_US P99_US NOTE [CONFIG [CALLS SVC_CPU_S REDIS_CPU_S]]
#                                  (CONFIG: the service run a floor was measured in, or the redis-lua run whose
#                                  EVALSHA it replays; CALLS: the requests or calls made, and the CPU seconds the
#                                  service and Redis spent meanwhile, empty when not measured)
#   info CONFIG KEY VALUE          (ready_ms, rss_load_kb, rss_peak_kb, settings, jit_settle)
#   rss  CONFIG CONC KB            (the service's VmRSS, sampled every 0.1 s during a hot sell)
#   catalog CONFIG ITEMS READY_MS IDLE_REDIS_CMDS_PER_S IDLE_RSS_KB IDLE_SECONDS NOTE BUSIEST_COMMANDS
#                                  (empty: not measured; BUSIEST_COMMANDS "name rate, ...")
#   tokens CONFIG REP STORM_REQUESTS SHOP_REQUESTS HITS MISSES EVICTIONS NOTE
#                                  (the verified-token cache's counts around a distinct-token storm, with the steady
#                                  shop alongside; HITS..EVICTIONS empty: the build has no such meters)
#   batch CONFIG CONC REP MEAN CALLS
#                                  (a hot sell's mean purchase-script batch and its number of calls, from the service's
#                                  flashstock_lua_purchase_batch_size; both empty: the build does not record it)
#   alloc CONFIG CONC REP KB       (the JVM heap a hot sell allocated per order, from jvm_gc_memory_allocated_bytes;
#                                  empty: not measured)
#   skip WHAT MESSAGE
# A CONFIG with "@" (redis-lua/write-behind@512MB) is the memory run of the CONFIG before the "@".
# Every figure is the median over the repetitions; every ratio divides medians of this same run.
# Plain POSIX awk (no gawk extensions). Loaded together with bench/cpu_budget.awk (-v cores=N), which it calls.

BEGIN {
    FS = "\t"
    nraw_names = split("floor mysql-versioned mysql-conditional redis-evalsha", raw_names, " ")
    raw_title["floor"] = "HTTP floor: `GET /q/health/live` of the service"
    raw_title["mysql-versioned"] = "MySQL hot row, versioned `UPDATE ... WHERE version = ?` (read + update, retried)"
    raw_title["mysql-conditional"] = "MySQL hot row, conditional `UPDATE ... WHERE available >= 1`"
    raw_title["redis-evalsha"] = "Redis `EVALSHA` of the service's purchase.lua (redis-benchmark)"
    nscen = split("hot-sell sell-out sold-out-storm sold-out-storm-keyed availability-storm token-storm-one token-storm-distinct", scenarios, " ")
    # the configuration the issue targets are about
    target_config = "redis-lua/write-behind"
    if (settled_pct == "") settled_pct = 5
}

function add(key, value) {
    vals[key] = (key in vals) ? vals[key] " " value : value
}

# Sorts a[1..n] ascending as numbers (insertion sort: a handful of values).
function sort_numbers(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) {
        t = a[i] + 0
        for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
        a[j + 1] = t
    }
}

function median(key,    n, a) {
    if (!(key in vals)) return ""
    n = split(vals[key], a, " ")
    sort_numbers(a, n)
    return (n % 2) ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}

function maximum(key,    n, a, i, m) {
    if (!(key in vals)) return ""
    n = split(vals[key], a, " ")
    m = a[1] + 0
    for (i = 2; i <= n; i++) if (a[i] + 0 > m) m = a[i] + 0
    return m
}

function count(key,    a) {
    return (key in vals) ? split(vals[key], a, " ") : 0
}

function remember(list_name, value) {
    if (!((list_name, value) in seen)) {
        seen[list_name, value] = 1
        lists[list_name] = (list_name in lists) ? lists[list_name] " " value : value
    }
}

function num(x, decimals) {
    if (x == "") return "–"
    return sprintf("%." decimals "f", x)
}

function ms(us) {
    if (us == "") return "–"
    return sprintf(us >= 100000 ? "%.0f" : (us >= 10000 ? "%.1f" : "%.2f"), us / 1000)
}

function ratio(a, b) {
    if (a == "" || b == "" || b + 0 == 0) return "–"
    a = a / b
    return sprintf(a >= 10 ? "%.0f" : (a >= 1 ? "%.2f" : (a >= 0.01 ? "%.3f" : "%.4f")), a)
}

$1 == "svc" {
    k = $2 SUBSEP $3 SUBSEP $4
    # the token storms run at a concurrency of their own: not one of the run's (the targets, the chart)
    remember("configs", $2); remember("rowconcs", $4)
    if ($3 !~ /^token-storm/) remember("concs", $4)
    add("rps" SUBSEP k, $6); add("p50" SUBSEP k, $7); add("p99" SUBSEP k, $8)
    add("n2xx" SUBSEP k, $9); add("n409" SUBSEP k, $10 + $11); add("n503" SUBSEP k, $12)
    if ($13 > 0) {
        # orders (2xx answers) per second: below req/s when some purchases were refused (409, 503)
        add("ords" SUBSEP k, $6 * $9 / $13)
        add("svccpu" SUBSEP k, $14 * 1000 / $13)
        add("backcpu" SUBSEP k, $15 * 1000 / $13)
    }
    if ($3 == "hot-sell" && $9 > 0) {
        add("cpuorder" SUBSEP $2 SUBSEP $4, ($14 + $15) * 1000 / $9)
        add("svccpuorder" SUBSEP $2 SUBSEP $4, $14 * 1000 / $9)
        if ($16 != "") add("rediscpuorder" SUBSEP $2 SUBSEP $4, $16 * 1000 / $9)
        budget_record($2, $4, $9, $14, $15, $16, $17, $18)
    }
    next
}
$1 == "raw" {
    k = $2 SUBSEP $3
    remember("concs", $3)
    add("rawrps" SUBSEP k, $5); add("rawp50" SUBSEP k, $6); add("rawp99" SUBSEP k, $7)
    if ($9 != "") add("rawrps" SUBSEP $2 SUBSEP $9 SUBSEP $3, $5)
    # CPU ms per request or call, of the service run CONFIG (the floor) or of the Redis it replayed against
    if ($9 != "" && $10 > 0) {
        if ($11 != "") add("rawsvccpu" SUBSEP $2 SUBSEP $9 SUBSEP $3, $11 * 1000 / $10)
        if ($12 != "") add("rawrediscpu" SUBSEP $2 SUBSEP $9 SUBSEP $3, $12 * 1000 / $10)
    }
    # A note that starts with a number ("0.52 retries/update") shows the median number; other notes as they are.
    if (match($8, /^[0-9.]+/)) { add("rawnote" SUBSEP k, substr($8, 1, RLENGTH)); notes[k] = substr($8, RLENGTH + 1) }
    else if ($8 != "") notes[k] = $8
    next
}
$1 == "info" && $3 ~ /^metrics_p99_/ { np99++; p99_config[np99] = $2; p99_run[np99] = substr($3, 13); p99_value[np99] = $4; next }
$1 == "info" { info[$2, $3] = $4; next }
$1 == "rss" { add("rss" SUBSEP $2, $4); add("rss" SUBSEP $2 SUBSEP $3, $4); next }
$1 == "catalog" {
    ncat++
    cat_config[ncat] = $2; cat_items[ncat] = $3; cat_ready[ncat] = $4; cat_idle[ncat] = $5
    cat_rss[ncat] = $6; cat_idle_s[ncat] = $7; cat_note[ncat] = $8; cat_top[ncat] = $9
    if ($3 == 0 && $4 != "") cat_empty[$2] = $4
    next
}
$1 == "tokens" {
    remember("token_configs", $2)
    tok_runs[$2]++
    add("tokstorm" SUBSEP $2, $4)
    tok_shop[$2] += $5
    if ($6 != "" && $7 != "") {
        tok_measured[$2]++
        tok_hits[$2] += $6
        # the storm's own misses: every miss but the shop's (see token_storms in bench/lib/scenarios.sh)
        if ($4 > 0) add("tokmiss" SUBSEP $2, ($7 - ($5 - $6)) / $4)
        add("tokevict" SUBSEP $2, $8)
        if ($8 + 0 > 0) tok_full[$2]++
        if ($5 - $6 > tok_worst[$2] + 0) tok_worst[$2] = $5 - $6
        tok_measured_shop[$2] += $5
    }
    if ($9 != "") tok_notes[$2] = tok_notes[$2] "; #" $3 ": " $9
    next
}
$1 == "batch" { if ($5 != "") add("luabatch" SUBSEP $2 SUBSEP $3, $5); next }
$1 == "alloc" { if ($5 != "") add("heapkb" SUBSEP $2 SUBSEP $3, $5); next }
$1 == "skip" { nskips++; skips[nskips] = "- " $2 ": " $3; next }

END {
    nconf = split(lists["configs"], configs, " ")
    nconc = split(lists["concs"], concs, " ")
    sort_numbers(concs, nconc)
    nrowconc = split(lists["rowconcs"], rowconcs, " ")
    sort_numbers(rowconcs, nrowconc)
    if (out == "chart") { chart(); exit }
    # the rows of the service tables: each strategy, scenario and concurrency that was measured, in that order
    nrows = 0
    for (ci = 1; ci <= nconf; ci++) for (si = 1; si <= nscen; si++) for (ni = 1; ni <= nrowconc; ni++) {
        if (!(("rps" SUBSEP configs[ci] SUBSEP scenarios[si] SUBSEP rowconcs[ni]) in vals)) continue
        nrows++; row_config[nrows] = configs[ci]; row_scen[nrows] = scenarios[si]; row_conc[nrows] = rowconcs[ni]
    }

    print "### Service"
    print ""
    print "Median of the repetitions. req/s counts every answered purchase; 2xx, 409 (sold-out + purchase-limit) and"
    print "503 are answers per run. CPU ms/req: CPU time of the service process (svc) and of mariadbd + redis-server"
    print "(db+redis) per answered request."
    print ""
    print "| strategy | scenario | conc | req/s | p50 ms | p99 ms | 2xx | 409 | 503 | CPU ms/req svc | CPU ms/req db+redis | runs |"
    print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (ri = 1; ri <= nrows; ri++) {
        k = row_config[ri] SUBSEP row_scen[ri] SUBSEP row_conc[ri]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", row_config[ri], row_scen[ri], row_conc[ri],
            num(median("rps" SUBSEP k), 0), ms(median("p50" SUBSEP k)), ms(median("p99" SUBSEP k)),
            num(median("n2xx" SUBSEP k), 0), num(median("n409" SUBSEP k), 0), num(median("n503" SUBSEP k), 0),
            num(median("svccpu" SUBSEP k), 3), num(median("backcpu" SUBSEP k), 3), count("rps" SUBSEP k)
    }

    print ""
    print "### Raw limits (same run, alternating with the service runs)"
    print ""
    print "| raw limit | conc | ops/s | p50 ms | p99 ms | runs | note |"
    print "|---|---:|---:|---:|---:|---:|---|"
    for (ri = 1; ri <= nraw_names; ri++) for (ni = 1; ni <= nconc; ni++) {
        k = raw_names[ri] SUBSEP concs[ni]
        if (!(("rawrps" SUBSEP k) in vals)) continue
        printf "| %s | %s | %s | %s | %s | %d | %s |\n", raw_title[raw_names[ri]], concs[ni],
            num(median("rawrps" SUBSEP k), 0), ms(median("rawp50" SUBSEP k)), ms(median("rawp99" SUBSEP k)),
            count("rawrps" SUBSEP k), ((("rawnote" SUBSEP k) in vals) ? num(median("rawnote" SUBSEP k), 1) : "") notes[k]
    }

    print ""
    print "### Ratios"
    print ""
    print "Throughput of each service run divided by the raw limit at the same concurrency (÷ floor: share of the"
    print "bare HTTP rate; ÷ MySQL / ÷ Redis: share of what the storage alone allows on one hot item) and by"
    print "db-optimistic in the same scenario; p50/p99 ÷ db-optimistic divide latencies (below 1 is faster)."
    print ""
    print "| strategy | scenario | conc | ÷ floor | ÷ MySQL versioned | ÷ MySQL conditional | ÷ Redis EVALSHA | ÷ db-optimistic | p50 ÷ db-optimistic | p99 ÷ db-optimistic |"
    print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (ri = 1; ri <= nrows; ri++) {
        c = row_conc[ri]
        k = row_config[ri] SUBSEP row_scen[ri] SUBSEP c
        base = "db-optimistic" SUBSEP row_scen[ri] SUBSEP c
        r = median("rps" SUBSEP k)
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", row_config[ri], row_scen[ri], c,
            ratio(r, median("rawrps" SUBSEP "floor" SUBSEP c)),
            ratio(r, median("rawrps" SUBSEP "mysql-versioned" SUBSEP c)),
            ratio(r, median("rawrps" SUBSEP "mysql-conditional" SUBSEP c)),
            ratio(r, median("rawrps" SUBSEP "redis-evalsha" SUBSEP c)),
            ratio(r, median("rps" SUBSEP base)),
            ratio(median("p50" SUBSEP k), median("p50" SUBSEP base)),
            ratio(median("p99" SUBSEP k), median("p99" SUBSEP base))
    }

    print ""
    print "### Per strategy"
    print ""
    top = concs[nconc]
    print "RSS during hot sells: the service's VmRSS sampled every 0.1 s while they ran (median / highest sample);"
    print "RSS under load: VmRSS right after them (highest); peak RSS: VmHWM at the end. JIT after the warm-up:"
    print "whether its settle rounds ended with the JIT compiling for under " settled_pct "% of two rounds in a row."
    print ""
    print "| strategy | JVM start-to-ready ms | RSS during hot sells MB | RSS under load MB | peak RSS MB | CPU ms/order, hot sell c=" top " (svc / svc+db+redis) | JIT after the warm-up |"
    print "|---|---:|---:|---:|---:|---:|---|"
    for (ci = 1; ci <= nconf; ci++) {
        c = configs[ci]
        printf "| %s | %s | %s / %s | %s | %s | %s / %s | %s |\n", c, info[c, "ready_ms"],
            mb(median("rss" SUBSEP c)), mb(maximum("rss" SUBSEP c)), mb(info[c, "rss_load_kb"]),
            mb(info[c, "rss_peak_kb"]),
            num(median("svccpuorder" SUBSEP c SUBSEP top), 3), num(median("cpuorder" SUBSEP c SUBSEP top), 3),
            info[c, "jit_settle"] == "" ? "–" : info[c, "jit_settle"]
    }
    p99_table()
    storms_table()
    tokens_table()
    memory_table()
    catalog_table()
    lua_ratios_table()
    cpu_budget_table()
    targets_table()
    if (nskips > 0) {
        print ""
        print "Not measured in this run:"
        print ""
        for (i = 1; i <= nskips; i++) print skips[i]
    }
}

# Each hot sell's p99 as its clients saw it (wrk) and as Prometheus computes it from the service's histogram
# flashstock_purchases_seconds (the README's PromQL: the upper bound of the bucket holding the 99th percentile).
function p99_table(    i, f) {
    if (np99 == 0) return
    print ""
    print "### p99 of the hot sells: clients (wrk) and /q/metrics"
    print ""
    print "The service's histogram gives the bucket (its upper bound) holding the 99th percentile of the purchases it"
    print "answered during the hot sell; wrk's p99 adds the client and the loopback. \"apart\": how many buckets lie"
    print "between the two (0: wrk's p99 is in that bucket)."
    print ""
    print "| strategy | run | wrk p99 ms | /q/metrics p99 bucket, le ms | buckets apart |"
    print "|---|---|---:|---:|---:|"
    for (i = 1; i <= np99; i++) {
        split(p99_value[i], f, " ")
        printf "| %s | %s | %s | %s | %s |\n", p99_config[i], p99_run[i], f[2], f[1], f[3]
    }
}

# The sold-out storms side by side: without a key and with a random key each, both divided by the HTTP floor (the
# no-op endpoint) measured in the same rounds.
function storms_table(    ri, c, k, floor, keyless, keyed) {
    for (ri = 1; ri <= nrows; ri++) if (row_scen[ri] == "sold-out-storm-keyed") break
    if (ri > nrows) return
    print ""
    print "### Sold-out storms, without and with Idempotency-Keys"
    print ""
    print "Purchases of a sold-out item: key-less, then each with a random key of its own (a key the pod has never"
    print "seen, so it may belong to no earlier success), each divided by the HTTP floor (the service's no-op"
    print "`GET /q/health/live`) measured in the same rounds."
    print ""
    print "| strategy | conc | HTTP floor req/s | key-less req/s | key-less ÷ floor | keyed req/s | keyed ÷ floor | keyed ÷ key-less | keyed p99 ms |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (ri = 1; ri <= nrows; ri++) {
        if (row_scen[ri] != "sold-out-storm-keyed") continue
        c = row_conc[ri]
        k = row_config[ri] SUBSEP "sold-out-storm-keyed" SUBSEP c
        floor = median("rawrps" SUBSEP "floor" SUBSEP c)
        keyless = median("rps" SUBSEP row_config[ri] SUBSEP "sold-out-storm" SUBSEP c)
        keyed = median("rps" SUBSEP k)
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", row_config[ri], c, num(floor, 0), num(keyless, 0),
            ratio(keyless, floor), num(keyed, 0), ratio(keyed, floor), ratio(keyed, keyless), ms(median("p99" SUBSEP k))
    }
}

# The token storms: the one-token and the distinct-token storm side by side, and what the verified-token cache
# counted around the distinct one (the steady shop's hits, the storm's misses).
function tokens_table(    n, tc, i, c, conc, ri, one, distinct, notes_head) {
    n = split(lists["token_configs"], tc, " ")
    if (n == 0) return
    print ""
    print "### Token storms: one token, and a distinct buyer token per request"
    print ""
    print "The key-less sold-out storm, once with the one shop token of every other run, once with each purchase"
    print "sent by another buyer with a token of its own that this service has never seen (signed before the run);"
    print "a steady shop buys alongside both, a purchase at a time, with the one shop token. Cache counts (the"
    print "service's `cache_gets_total{cache=\"flashstock.tokens.cache\"}`, read before the shop started and after"
    print "it stopped, around each distinct-token storm): no storm token can be a hit, so every hit is the shop's;"
    print "storm misses/request is the rest of the misses per storm request (1.00: each new token verified once)."
    print "The shop's hit rate and requests are summed over the repetitions; a miss of the shop's is expected once"
    print "per `flashstock.tokens.cache-ttl` (60 s), when its entry expires. Evictions 0: the storm did not fill the"
    print "cache (`flashstock.tokens.cache-size`, 2,000 by default), so it did not test whether the shop's token stays."
    print ""
    print "| strategy | conc | one token req/s | distinct tokens req/s | distinct ÷ one | storm requests | storm misses/request | evictions | shop requests | shop hits | shop hit rate | runs |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= n; i++) {
        c = tc[i]
        conc = ""
        for (ri = 1; ri <= nrows; ri++) if (row_config[ri] == c && row_scen[ri] == "token-storm-distinct") conc = row_conc[ri]
        one = median("rps" SUBSEP c SUBSEP "token-storm-one" SUBSEP conc)
        distinct = median("rps" SUBSEP c SUBSEP "token-storm-distinct" SUBSEP conc)
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %d |\n", c, conc, num(one, 0), num(distinct, 0),
            ratio(distinct, one), num(median("tokstorm" SUBSEP c), 0),
            (tok_measured[c] > 0) ? num(median("tokmiss" SUBSEP c), 2) : "–",
            (tok_measured[c] > 0) ? num(median("tokevict" SUBSEP c), 0) : "–", tok_shop[c],
            (tok_measured[c] > 0) ? tok_hits[c] : "–",
            (tok_measured[c] > 0) ? sprintf("%.3f", tok_hits[c] / tok_measured_shop[c]) : "–", tok_runs[c]
    }
    notes_head = 0
    for (i = 1; i <= n; i++) if (tok_notes[tc[i]] != "") {
        if (!notes_head++) { print ""; print "Notes:"; print "" }
        print "- " tc[i] ": " substr(tok_notes[tc[i]], 3)
    }
}

function mb(kb) {
    return (kb == "") ? "–" : sprintf("%.0f", kb / 1024)
}

# yes / no against a goal (cmp ">=" or "<="); "–" when not measured.
function met(x, cmp, goal) {
    if (x == "" || x == "–") return "–"
    return ((cmp == ">=") ? (x + 0 >= goal) : (x + 0 <= goal)) ? "yes" : "no"
}

# The memory runs (configs "BASE@LIMIT") next to the hot sells of BASE at the same concurrency.
function memory_table(    ci, c, base, ni, k, kb) {
    for (ci = 1; ci <= nconf; ci++) {
        c = configs[ci]
        if (index(c, "@") == 0) continue
        base = substr(c, 1, index(c, "@") - 1)
        print ""
        print "### Memory: " base " in a " substr(c, index(c, "@") + 1) " container"
        print ""
        print "The hot sell of " base " once more, in a service started with the container image's settings"
        print "(`src/main/docker/Dockerfile.jvm`; no cgroup limit here, so `-XX:MaxRAM` stands for the container's):"
        print "`" info[c, "settings"] "`. Next to it, the same hot sell of the service as run above."
        print "RSS under load: the service's VmRSS sampled every 0.1 s during the hot sells."
        print ""
        print "| service | conc | req/s | orders/s (2xx) | 503 | p99 ms | ÷ uncapped orders/s | RSS under load median MB | RSS under load peak MB | runs |"
        print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        for (ni = 1; ni <= nconc; ni++) {
            k = c SUBSEP "hot-sell" SUBSEP concs[ni]
            if (!(("rps" SUBSEP k) in vals)) continue
            memory_row(base, concs[ni], "")
            memory_row(c, concs[ni], base)
        }
    }
}

# One row of the memory table: config c at conc, its throughput divided by that of base (none: c is the base).
function memory_row(c, conc, base,    k) {
    k = c SUBSEP "hot-sell" SUBSEP conc
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", (base == "") ? c " (uncapped)" : c, conc,
        num(median("rps" SUBSEP k), 0), num(median("ords" SUBSEP k), 0), num(median("n503" SUBSEP k), 0),
        ms(median("p99" SUBSEP k)),
        (base == "") ? "1.00" : ratio(median("ords" SUBSEP k), median("ords" SUBSEP base SUBSEP "hot-sell" SUBSEP conc)),
        mb(median("rss" SUBSEP c SUBSEP conc)), mb(maximum("rss" SUBSEP c SUBSEP conc)), count("rps" SUBSEP k)
}

function catalog_table(    i, idle_s) {
    if (ncat == 0) return
    for (i = 1; i <= ncat; i++) if (cat_idle_s[i] != "") idle_s = cat_idle_s[i]
    print ""
    print "### Catalog: start-up and idle cost by catalog size"
    print ""
    print "The items inserted straight into MySQL (stock 100 each, nothing sold) after a first start let Flyway"
    print "create the schema, Redis emptied, then the service started: start-to-ready is from the JVM's start to"
    print "the first 200 of `/q/health/ready`, ÷ empty divides it by the same start with no item."
    if (idle_s != "") {
        print "Idle (" target_config "): after 3 purchases of each of 10 new items, " idle_s " s without a request:"
        print "the Redis commands per second over that window (INFO total_commands_processed of the whole server, less"
        print "the reading itself; the busiest commands, per second) and the service's VmRSS at its end."
    }
    print ""
    print "| strategy | catalog items | start-to-ready s | ÷ empty | idle Redis commands/s | busiest, per s | RSS idle MB |"
    print "|---|---:|---:|---:|---:|---|---:|"
    for (i = 1; i <= ncat; i++) {
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", cat_config[i], cat_items[i],
            (cat_ready[i] == "") ? cat_note[i] : num(cat_ready[i] / 1000, 2),
            ratio(cat_ready[i], cat_empty[cat_config[i]]),
            (cat_idle[i] == "") ? "–" : cat_idle[i], (cat_top[i] == "") ? "–" : cat_top[i], mb(cat_rss[i])
    }
}

# Issue 36: per redis-lua mode (not the memory run), the hot sell at target_conc() divided by what one uncombined
# purchase costs in the same run: orders/s ÷ raw EVALSHA of its call; Redis CPU per order ÷ Redis CPU per raw EVALSHA
# call (redis-benchmark's run); service CPU per order ÷ service CPU per no-op request (the HTTP floor of the same
# service run). Each per-order or per-call figure is the median over the repetitions; the ratios divide medians.
# Then the issue's targets: the hot-sell rows as in targets_table, the CPU ones for each mode (the issue names none).
function lua_ratios_table(    ci, c, n, modes, conc, k, x, wt, wb) {
    n = 0
    for (ci = 1; ci <= nconf; ci++) if (index(configs[ci], "redis-lua/") == 1 && index(configs[ci], "@") == 0) modes[++n] = configs[ci]
    if (n == 0) return
    conc = target_conc()
    print ""
    print "### redis-lua ratios (issue 36)"
    print ""
    print "Each redis-lua mode's hot sell, " target_conc_note(conc)
    print "Redis CPU: the redis-server's CPU time during the hot sell per order (2xx), and during the raw EVALSHA"
    print "run (redis-benchmark replaying the mode's own purchase call, the service stopped) per call. Service CPU:"
    print "the service's CPU time per order, and per request of the HTTP floor (`GET /q/health/live`) measured in the"
    print "same service run. Mean batch: purchases per call of the purchase script over the hot sell (the service's"
    print "`flashstock_lua_purchase_batch_size` summary: growth of its sum ÷ growth of its count; n/a: the build does"
    print "not record it). Heap: KB the JVM allocated per order over the hot sell (growth of"
    print "`jvm_gc_memory_allocated_bytes_total`). p50/p99: wrk's. Medians of the repetitions; each ratio divides two"
    print "medians."
    print ""
    print "| mode | conc | orders/s | raw EVALSHA ops/s | ÷ raw EVALSHA | Redis CPU ms/order | Redis CPU ms/raw call | Redis ÷ raw | svc CPU ms/order | svc CPU ms/no-op request | svc ÷ no-op | mean batch | heap KB/order | p50 ms | p99 ms | runs |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (ci = 1; ci <= n; ci++) {
        c = modes[ci]
        k = c SUBSEP "hot-sell" SUBSEP conc
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", c, conc,
            num(median("ords" SUBSEP k), 0), num(evalsha_rps(c, conc), 0), evalsha_ratio(c, conc),
            num(median("rediscpuorder" SUBSEP c SUBSEP conc), 4), num(raw_redis_cpu(c, conc), 4), redis_cpu_ratio(c, conc),
            num(median("svccpuorder" SUBSEP c SUBSEP conc), 4), num(floor_svc_cpu(c, conc), 4), svc_cpu_ratio(c, conc),
            (("luabatch" SUBSEP c SUBSEP conc) in vals) ? num(median("luabatch" SUBSEP c SUBSEP conc), 2) : "n/a",
            (("heapkb" SUBSEP c SUBSEP conc) in vals) ? num(median("heapkb" SUBSEP c SUBSEP conc), 1) : "n/a",
            ms(median("p50" SUBSEP k)), ms(median("p99" SUBSEP k)), count("rps" SUBSEP k)
    }
    print ""
    print "| target (issue 36) | measured | goal | met |"
    print "|---|---:|---:|---|"
    hot_sell_target_rows(target_config, conc, target_config " ")
    for (ci = 1; ci <= n; ci++) {
        x = redis_cpu_ratio(modes[ci], conc)
        printf "| %s Redis CPU per order ÷ per raw EVALSHA call | %s | ≤ 0.4 | %s |\n", modes[ci], x, met(x, "<=", 0.4)
    }
    for (ci = 1; ci <= n; ci++) {
        x = svc_cpu_ratio(modes[ci], conc)
        printf "| %s service CPU per order ÷ per no-op request | %s | ≤ 1.5 | %s |\n", modes[ci], x, met(x, "<=", 1.5)
    }
    wt = median("ords" SUBSEP "redis-lua/write-through" SUBSEP "hot-sell" SUBSEP conc)
    wb = median("ords" SUBSEP "redis-lua/write-behind" SUBSEP "hot-sell" SUBSEP conc)
    x = ratio(wt, wb)
    printf "| redis-lua/write-through hot sell orders/s ÷ write-behind's | %s | ≥ 0.6 | %s |\n", x, met(x, ">=", 0.6)
}

# Redis CPU ms per raw EVALSHA call replaying config c's purchase call, at conc (median; "" when not measured).
function raw_redis_cpu(c, conc) {
    return median("rawrediscpu" SUBSEP "redis-evalsha" SUBSEP c SUBSEP conc)
}

# Service CPU ms per no-op request (the HTTP floor) of config c's service run, at conc (median; "": not measured).
function floor_svc_cpu(c, conc) {
    return median("rawsvccpu" SUBSEP "floor" SUBSEP c SUBSEP conc)
}

function redis_cpu_ratio(c, conc) {
    return ratio(median("rediscpuorder" SUBSEP c SUBSEP conc), raw_redis_cpu(c, conc))
}

function svc_cpu_ratio(c, conc) {
    return ratio(median("svccpuorder" SUBSEP c SUBSEP conc), floor_svc_cpu(c, conc))
}

# The concurrency the issue targets are about: 50 clients when measured, else the highest of the run.
function target_conc(    ni, conc) {
    conc = concs[nconc]
    for (ni = 1; ni <= nconc; ni++) if (concs[ni] == 50) conc = 50
    return conc
}

function target_conc_note(conc) {
    return "at " conc " clients" ((conc == 50) ? "" : " (50 was not measured in this run)") "; every figure from this run."
}

# The median raw EVALSHA ops/s of the call config c sends (its own replay), else of any replay at conc.
function evalsha_rps(c, conc,    x) {
    x = "rawrps" SUBSEP "redis-evalsha" SUBSEP c SUBSEP conc
    if (!(x in vals)) x = "rawrps" SUBSEP "redis-evalsha" SUBSEP conc
    return median(x)
}

# Hot sell orders/s (2xx) of config c at conc ÷ raw EVALSHA of its call, formatted (ratio).
function evalsha_ratio(c, conc) {
    return ratio(median("ords" SUBSEP c SUBSEP "hot-sell" SUBSEP conc), evalsha_rps(c, conc))
}

# The target rows the catalog issue and issue 36 share: config c's hot sell ÷ raw EVALSHA, and its p99.
function hot_sell_target_rows(c, conc, prefix,    x) {
    x = evalsha_ratio(c, conc)
    printf "| %shot sell orders/s (2xx) ÷ raw Redis EVALSHA of its call | %s | ≥ 0.5 | %s |\n", prefix, x, met(x, ">=", 0.5)
    x = ms(median("p99" SUBSEP c SUBSEP "hot-sell" SUBSEP conc))
    printf "| %shot sell p99 ms | %s | ≤ 10 | %s |\n", prefix, x, met(x, "<=", 10)
}

# The issue targets, for target_config, at target_conc().
function targets_table(    conc, t, floor, k, big, i, mem, x, memk) {
    t = target_config
    conc = target_conc()
    floor = median("rawrps" SUBSEP "floor" SUBSEP conc)
    print ""
    print "### Issue targets"
    print ""
    print t ", " target_conc_note(conc)
    print ""
    print "| target | measured | goal | met |"
    print "|---|---:|---:|---|"
    k = t SUBSEP "hot-sell" SUBSEP conc
    hot_sell_target_rows(t, conc, "")
    x = ratio(median("rps" SUBSEP t SUBSEP "sold-out-storm" SUBSEP conc), floor)
    printf "| sold-out storm ÷ HTTP floor | %s | ≥ 0.8 | %s |\n", x, met(x, ">=", 0.8)
    x = ratio(median("rps" SUBSEP t SUBSEP "sold-out-storm-keyed" SUBSEP conc), floor)
    printf "| keyed sold-out storm (a random Idempotency-Key each) ÷ HTTP floor | %s | ≥ 0.8 | %s |\n", x, met(x, ">=", 0.8)
    x = (tok_measured[t] > 0) ? sprintf("%.3f", tok_hits[t] / tok_measured_shop[t]) : "–"
    printf "| steady shop token's cache hit rate through the distinct-token storms | %s | a miss at most once per storm (cache-ttl) | %s |\n",
        x, (x == "–") ? "–" : ((tok_worst[t] + 0 > 1) ? "no" : (tok_full[t] > 0 ? "yes" : "untested: no storm filled the cache"))
    x = ratio(median("rps" SUBSEP t SUBSEP "availability-storm" SUBSEP conc), floor)
    printf "| availability storm ÷ HTTP floor | %s | ≥ 0.8 | %s |\n", x, met(x, ">=", 0.8)
    # catalog: the largest size with a start of the target config (and an empty one to divide by)
    big = 0
    for (i = 1; i <= ncat; i++) if (cat_config[i] == t && (big == 0 || cat_items[i] + 0 >= cat_items[big] + 0)) big = i
    if (big > 0) {
        x = ratio(cat_ready[big], cat_empty[t])
        if (cat_ready[big] == "") x = cat_note[big]
        printf "| start-to-ready, catalog of %s items ÷ empty | %s | ≤ 1.5 | %s |\n", cat_items[big], x,
            (cat_ready[big] == "") ? "no" : met(x, "<=", 1.5)
        x = (cat_idle[big] == "") ? "–" : cat_idle[big]
        printf "| idle Redis commands/s, catalog of %s items | %s | ≤ 50 | %s |\n", cat_items[big], x, met(x, "<=", 50)
    } else {
        print "| start-to-ready with a large catalog ÷ empty | – | ≤ 1.5 | – |"
        print "| idle Redis commands/s with a large catalog | – | ≤ 50 | – |"
    }
    mem = ""
    for (i = 1; i <= nconf; i++) if (index(configs[i], t "@") == 1) mem = configs[i]
    memk = mem SUBSEP "hot-sell" SUBSEP conc
    x = (mem == "") ? "" : maximum("rss" SUBSEP mem SUBSEP conc)
    printf "| RSS under load, %s container (highest sample) MB | %s | ≤ 350 | %s |\n",
        (mem == "") ? "memory-capped" : substr(mem, length(t) + 2), mb(x), (x == "") ? "–" : met(x / 1024, "<=", 350)
    x = (mem == "") ? "–" : ratio(median("ords" SUBSEP memk), median("ords" SUBSEP k))
    printf "| hot sell orders/s, %s container ÷ uncapped | %s | ≥ 0.9 | %s |\n",
        (mem == "") ? "memory-capped" : substr(mem, length(t) + 2), x, met(x, ">=", 0.9)
}

# Hot-sell throughput per concurrency: one row per concurrency, one column per strategy, then one per raw limit
# that was measured (their headers start with "raw:").
function chart(    ci, ri, ni, line, header, k, has) {
    header = "conc"
    for (ci = 1; ci <= nconf; ci++) header = header "\t" configs[ci]
    for (ri = 1; ri <= nraw_names; ri++) {
        has[ri] = 0
        for (ni = 1; ni <= nconc; ni++) if (("rawrps" SUBSEP raw_names[ri] SUBSEP concs[ni]) in vals) has[ri] = 1
        if (has[ri]) header = header "\traw:" raw_names[ri]
    }
    print header
    for (ni = 1; ni <= nconc; ni++) {
        line = concs[ni]
        for (ci = 1; ci <= nconf; ci++) {
            k = "rps" SUBSEP configs[ci] SUBSEP "hot-sell" SUBSEP concs[ni]
            line = line "\t" ((k in vals) ? median(k) : "NaN")
        }
        for (ri = 1; ri <= nraw_names; ri++) {
            if (!has[ri]) continue
            k = "rawrps" SUBSEP raw_names[ri] SUBSEP concs[ni]
            line = line "\t" ((k in vals) ? median(k) : "NaN")
        }
        print line
    }
}
