# Turns the measurements of one bench/run.sh run (a tab-separated file) into the Markdown tables it prints and
# writes to docs/benchmarks.md, or (-v out=chart) into the data file of bench/chart.gp.
#
# Records (tab-separated):
#   svc  CONFIG SCENARIO CONC REP RPS P50_US P99_US N2XX N409_SOLD_OUT N409_LIMIT N503 REQUESTS SVC_CPU_S BACKEND_CPU_S
#   raw  NAME CONC REP RPS P50_US P99_US NOTE [CONFIG]   (CONFIG: the redis-lua run whose EVALSHA it replays)
#   info CONFIG KEY VALUE          (ready_ms, rss_load_kb, rss_peak_kb)
#   skip WHAT MESSAGE
# Every figure is the median over the repetitions; every ratio divides medians of this same run.
# Plain POSIX awk (no gawk extensions).

BEGIN {
    FS = "\t"
    nraw_names = split("floor mysql-versioned mysql-conditional redis-evalsha", raw_names, " ")
    raw_title["floor"] = "HTTP floor: `GET /q/health/live` of the service"
    raw_title["mysql-versioned"] = "MySQL hot row, versioned `UPDATE ... WHERE version = ?` (read + update, retried)"
    raw_title["mysql-conditional"] = "MySQL hot row, conditional `UPDATE ... WHERE available >= 1`"
    raw_title["redis-evalsha"] = "Redis `EVALSHA` of the service's purchase.lua (redis-benchmark)"
    nscen = split("hot-sell sell-out sold-out-storm", scenarios, " ")
}

function add(key, value) {
    vals[key] = (key in vals) ? vals[key] " " value : value
}

function median(key,    n, a, i, j, t) {
    if (!(key in vals)) return ""
    n = split(vals[key], a, " ")
    for (i = 2; i <= n; i++) {
        t = a[i] + 0
        for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
        a[j + 1] = t
    }
    return (n % 2) ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
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
    remember("configs", $2); remember("concs", $4)
    add("rps" SUBSEP k, $6); add("p50" SUBSEP k, $7); add("p99" SUBSEP k, $8)
    add("n2xx" SUBSEP k, $9); add("n409" SUBSEP k, $10 + $11); add("n503" SUBSEP k, $12)
    if ($13 > 0) {
        add("svccpu" SUBSEP k, $14 * 1000 / $13)
        add("backcpu" SUBSEP k, $15 * 1000 / $13)
    }
    if ($3 == "hot-sell" && $9 > 0) {
        add("cpuorder" SUBSEP $2 SUBSEP $4, ($14 + $15) * 1000 / $9)
        add("svccpuorder" SUBSEP $2 SUBSEP $4, $14 * 1000 / $9)
    }
    next
}
$1 == "raw" {
    k = $2 SUBSEP $3
    remember("concs", $3)
    add("rawrps" SUBSEP k, $5); add("rawp50" SUBSEP k, $6); add("rawp99" SUBSEP k, $7)
    if ($9 != "") add("rawrps" SUBSEP $2 SUBSEP $9 SUBSEP $3, $5)
    # A note that starts with a number ("0.52 retries/update") shows the median number; other notes as they are.
    if (match($8, /^[0-9.]+/)) { add("rawnote" SUBSEP k, substr($8, 1, RLENGTH)); notes[k] = substr($8, RLENGTH + 1) }
    else if ($8 != "") notes[k] = $8
    next
}
$1 == "info" { info[$2, $3] = $4; next }
$1 == "skip" { nskips++; skips[nskips] = "- " $2 ": " $3; next }

END {
    nconf = split(lists["configs"], configs, " ")
    nconc = split(lists["concs"], concs, " ")
    # concurrency ascending
    for (i = 2; i <= nconc; i++) {
        t = concs[i] + 0
        for (j = i - 1; j >= 1 && concs[j] + 0 > t; j--) concs[j + 1] = concs[j]
        concs[j + 1] = t
    }
    if (out == "chart") { chart(); exit }

    print "### Service"
    print ""
    print "Median of the repetitions. req/s counts every answered purchase; 2xx, 409 (sold-out + purchase-limit) and"
    print "503 are answers per run. CPU ms/req: CPU time of the service process (svc) and of mariadbd + redis-server"
    print "(db+redis) per answered request."
    print ""
    print "| strategy | scenario | conc | req/s | p50 ms | p99 ms | 2xx | 409 | 503 | CPU ms/req svc | CPU ms/req db+redis | runs |"
    print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (ci = 1; ci <= nconf; ci++) for (si = 1; si <= nscen; si++) for (ni = 1; ni <= nconc; ni++) {
        k = configs[ci] SUBSEP scenarios[si] SUBSEP concs[ni]
        if (!(("rps" SUBSEP k) in vals)) continue
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", configs[ci], scenarios[si], concs[ni],
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
    for (ci = 1; ci <= nconf; ci++) for (si = 1; si <= nscen; si++) for (ni = 1; ni <= nconc; ni++) {
        k = configs[ci] SUBSEP scenarios[si] SUBSEP concs[ni]
        if (!(("rps" SUBSEP k) in vals)) continue
        base = "db-optimistic" SUBSEP scenarios[si] SUBSEP concs[ni]
        r = median("rps" SUBSEP k)
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", configs[ci], scenarios[si], concs[ni],
            ratio(r, median("rawrps" SUBSEP "floor" SUBSEP concs[ni])),
            ratio(r, median("rawrps" SUBSEP "mysql-versioned" SUBSEP concs[ni])),
            ratio(r, median("rawrps" SUBSEP "mysql-conditional" SUBSEP concs[ni])),
            ratio(r, median("rawrps" SUBSEP "redis-evalsha" SUBSEP concs[ni])),
            ratio(r, median("rps" SUBSEP base)),
            ratio(median("p50" SUBSEP k), median("p50" SUBSEP base)),
            ratio(median("p99" SUBSEP k), median("p99" SUBSEP base))
    }

    print ""
    print "### Per strategy"
    print ""
    top = concs[nconc]
    print "| strategy | JVM start-to-ready ms | RSS under load MB | peak RSS MB | CPU ms/order, hot sell c=" top " (svc / svc+db+redis) |"
    print "|---|---:|---:|---:|---:|"
    for (ci = 1; ci <= nconf; ci++) {
        c = configs[ci]
        printf "| %s | %s | %s | %s | %s / %s |\n", c, info[c, "ready_ms"],
            (info[c, "rss_load_kb"] == "") ? "–" : num(info[c, "rss_load_kb"] / 1024, 0),
            (info[c, "rss_peak_kb"] == "") ? "–" : num(info[c, "rss_peak_kb"] / 1024, 0),
            num(median("svccpuorder" SUBSEP c SUBSEP top), 3), num(median("cpuorder" SUBSEP c SUBSEP top), 3)
    }
    if (nskips > 0) {
        print ""
        print "Not measured in this run:"
        print ""
        for (i = 1; i <= nskips; i++) print skips[i]
    }
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
