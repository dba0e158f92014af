# Issue 36: where a redis-lua hot sell's CPU goes on this machine, and what its throughput target would take.
# Loaded with bench/report.awk (awk -f bench/report.awk -f bench/cpu_budget.awk), whose records, add(), median() and
# ratio helpers it uses; -v cores=N: the machine's cores (nproc).
#
# Per order (2xx) of each redis-lua mode's hot sell at the target concurrency, the CPU time of: the service; Redis;
# MariaDB (mariadbd: the backends' CPU less Redis's); the rest of the busy machine (wrk, the kernel's work no process
# was charged for, this script's sampling); and the cores' idle time. The five add up to cores / (orders/s).
#
# Then the budget: the orders/s of the issue's throughput target (0.5 x the raw EVALSHA rate of the same run) times
# the CPU an order would cost if the service and Redis met the issue's CPU targets (service 1.5 x its no-op request,
# Redis 0.4 x a raw call) and MariaDB and the rest cost what they cost in this hot sell; and the same with the
# service at 1.0 x its no-op request (a purchase costing the service no more than a bare GET of a health probe).
# A figure above the machine's cores says the throughput target cannot fit on it at these costs, whatever the code.

# The hot-sell rows' per-order CPU (ms): called by report.awk's svc record handler for every hot sell with 2xx.
function budget_record(c, conc, n2xx, svc, back, redis, all, idle) {
    if (all == "" || idle == "" || redis == "") return
    add("budget_redis" SUBSEP c SUBSEP conc, redis * 1000 / n2xx)
    add("budget_mariadb" SUBSEP c SUBSEP conc, (back - redis) * 1000 / n2xx)
    add("budget_rest" SUBSEP c SUBSEP conc, (all - svc - back) * 1000 / n2xx)
    add("budget_idle" SUBSEP c SUBSEP conc, idle * 1000 / n2xx)
    add("budget_busy" SUBSEP c SUBSEP conc, 100 * all / (all + idle))
}

function cpu_budget_table(    ci, c, n, modes, conc, svc, redis, mariadb, rest, target, at_goals, at_floor, floor) {
    n = 0
    for (ci = 1; ci <= nconf; ci++)
        if (index(configs[ci], "redis-lua/") == 1 && index(configs[ci], "@") == 0 \
            && (("budget_rest" SUBSEP configs[ci] SUBSEP target_conc()) in vals)) modes[++n] = configs[ci]
    if (n == 0) return
    conc = target_conc()
    print ""
    print "### Where a hot sell's CPU goes (issue 36)"
    print ""
    print "Each redis-lua mode's hot sell, " target_conc_note(conc) " CPU ms per order (2xx) of: the service,"
    print "Redis, MariaDB (the backends' CPU less Redis's), the rest of the busy machine (wrk, the kernel's unattributed"
    print "work, the benchmark's own sampling; all cores' busy time from `/proc/stat` less the three) and the idle cores;"
    print "the five add up to " cores " cores ÷ orders/s. Budget: 0.5 × this run's raw EVALSHA rate (the throughput"
    print "target) × the CPU per order if the service cost 1.5 × its no-op request and Redis 0.4 × a raw call (the"
    print "issue's CPU targets) and MariaDB and the rest what they cost here; then the same with the service at 1.0 ×"
    print "its no-op request. Cores needed above " cores " say the target does not fit this machine at those costs."
    print "Medians of the repetitions."
    print ""
    print "| mode | orders/s | machine busy | service | Redis | MariaDB | the rest | idle | target orders/s | cores needed, CPU targets met | cores needed, service at its no-op cost |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (ci = 1; ci <= n; ci++) {
        c = modes[ci]
        svc = median("svccpuorder" SUBSEP c SUBSEP conc)
        redis = median("budget_redis" SUBSEP c SUBSEP conc)
        mariadb = median("budget_mariadb" SUBSEP c SUBSEP conc)
        rest = median("budget_rest" SUBSEP c SUBSEP conc)
        floor = floor_svc_cpu(c, conc)
        target = (evalsha_rps(c, conc) == "") ? "" : 0.5 * evalsha_rps(c, conc)
        at_goals = at_floor = ""
        if (target != "" && floor != "" && raw_redis_cpu(c, conc) != "") {
            at_goals = target * (1.5 * floor + 0.4 * raw_redis_cpu(c, conc) + mariadb + rest) / 1000
            at_floor = target * (floor + 0.4 * raw_redis_cpu(c, conc) + mariadb + rest) / 1000
        }
        printf "| %s | %s | %s%% | %s | %s | %s | %s | %s | %s | %s | %s |\n", c,
            num(median("ords" SUBSEP c SUBSEP "hot-sell" SUBSEP conc), 0), num(median("budget_busy" SUBSEP c SUBSEP conc), 1),
            num(svc, 4), num(redis, 4), num(mariadb, 4), num(rest, 4), num(median("budget_idle" SUBSEP c SUBSEP conc), 4),
            num(target, 0), num(at_goals, 2), num(at_floor, 2)
    }
}
