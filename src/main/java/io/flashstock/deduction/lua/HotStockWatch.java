package io.flashstock.deduction.lua;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.redis.RedisKeys;
import io.flashstock.redis.StrategyLease;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.ScheduledExecution;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * Every {@code flashstock.lua.watch-interval} ({@code redis-lua} only): takes up a lost or changed generation (items
 * are then rebuilt as they are used), learns the items other pods work on, re-applies unmirrored stock events, and
 * reconciles quiet items: an item with work whose hot counters did not change for {@code reconcile-after-quiet}, with
 * no pending order and no unmirrored event, gets MySQL's counters if they differ (compare-and-set on the hash's
 * change counter), so Redis and MySQL converge after any failure. Only items with work ({@link ActiveItems}) are
 * looked at, and items quiet for {@code active-for} leave the rounds: an idle pod costs Redis a few commands a second
 * whatever the catalog.
 */
@ApplicationScoped
public class HotStockWatch {

    private static final Logger LOG = Logger.getLogger(HotStockWatch.class);
    /**
     * How long a stock set's take ({@code lua/set_stock.lua}) keeps its item from being corrected while it waits for
     * its MySQL commit: well past the transaction timeout, so only a take whose pod died is corrected.
     */
    private static final java.time.Duration TAKE_GUARD = java.time.Duration.ofSeconds(60);

    private final RedisDataSource redis;
    private final HotStockScripts scripts;
    private final HotStockWarmer warmer;
    private final HotStockEvents events;
    private final ActiveItems items;
    private final PendingStream stream;
    private final FlashstockConfig.Lua settings;
    private final Counter reconciled;
    private final Inactive schedule;
    /** Per item: the last change counter seen, and since when it has not moved. */
    private final Map<String, long[]> quiet = new ConcurrentHashMap<>();
    /**
     * Items whose hot counters were last seen equal to MySQL's at their current change counter (or that have no hot
     * stock here): only these leave the rounds once quiet, so that no item stops being reconciled while it differs.
     */
    private final Set<String> inStep = ConcurrentHashMap.newKeySet();
    /** When the quiet items were last reconciled (System.nanoTime). */
    private long lastReconcile;

    HotStockWatch(RedisDataSource redis, HotStockScripts scripts, HotStockWarmer warmer, HotStockEvents events,
            ActiveItems items, PendingStream stream, Inactive schedule, FlashstockConfig config,
            MeterRegistry registry) {
        this.redis = redis;
        this.scripts = scripts;
        this.warmer = warmer;
        this.events = events;
        this.items = items;
        this.stream = stream;
        this.settings = config.lua();
        this.schedule = schedule;
        this.reconciled = Counter.builder("flashstock.hotstock.reconciled")
                .description("Items whose hot counters were corrected from MySQL").register(registry);
    }

    /** redis-lua was chosen ({@link RedisLuaStrategy#start()}): the watch runs from now on, while the lease is held. */
    void start() {
        schedule.start();
    }

    @Scheduled(identity = "hot-stock-watch", every = "${flashstock.lua.watch-interval:1s}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Inactive.class)
    void watch() {
        try {
            if (!warmer.isReady()) {
                warmer.start();
            } else {
                warmer.takeUpGeneration();
                items.refresh();
                items.announceFailed();
            }
            events.sweep();
            long now = System.nanoTime();
            if (now - lastReconcile >= settings.reconcileAfterQuiet().toNanos() / 2) {
                lastReconcile = now;
                reconcileQuiet();
            }
            // An item leaves the rounds with no pending order and its counters last seen equal to MySQL's.
            items.retire(sku -> !stream.isEmpty(sku) || !inStep.contains(sku));
            quiet.keySet().retainAll(items.all());
            inStep.retainAll(items.all());
        } catch (RuntimeException e) {
            LOG.warnf("Hot-stock watch round failed, the next one retries: %s", e.toString());
        }
    }

    /**
     * Items whose change counter did not move for the quiet period, with no pending order and no unmirrored event,
     * get MySQL's counters if they differ. The script re-checks the counter and the stream, so a purchase in
     * between wins.
     */
    void reconcileQuiet() {
        long now = System.nanoTime();
        long quietNanos = settings.reconcileAfterQuiet().toNanos();
        for (String sku : items.all()) {
            Map<String, String> fields = redis.hash(String.class).hmget(RedisKeys.stock(sku), "seq", "stock",
                    "available", "reserved", "sold");
            String seqText = fields.get("seq");
            if (seqText == null) {
                inStep.add(sku); // no hot stock here: nothing to converge
                continue;
            }
            long seq = Long.parseLong(seqText);
            long[] seen = quiet.compute(sku, (k, old) -> old == null || old[0] != seq ? new long[] { seq, now } : old);
            if (seen[1] == now) {
                inStep.remove(sku); // changed: not known to match MySQL until looked at again
            }
            if (now - seen[1] < quietNanos || !stream.isEmpty(sku)) {
                continue;
            }
            ItemSnapshot.Counters db = QuarkusTransaction.requiringNew().call(() -> ItemSnapshot.counters(sku));
            if (db == null || db.matches(fields)) {
                inStep.add(sku);
                continue;
            }
            if (db.pendingEvents() > 0) {
                continue;
            }
            long set = scripts.reconcile.run(redis, List.of(RedisKeys.stock(sku), RedisKeys.orders(sku)),
                    List.of(seqText, Integer.toString(db.stock()), Integer.toString(db.available()),
                            Integer.toString(db.reserved()), Integer.toString(db.sold()), Long.toString(db.version()),
                            RedisKeys.unitsBackChannel(), Long.toString(TAKE_GUARD.toMillis())))
                    .toLong();
            if (set == 1) {
                reconciled.increment();
                LOG.warnf("Hot stock of %s differed from MySQL (Redis %s, MySQL %s); corrected", sku, fields, db);
            }
        }
    }

    /**
     * Skips the scheduled watch until redis-lua started it (under another strategy: always, and the watch is never
     * created), and while this pod does not hold its strategy lease (pods of a MySQL strategy serve: the hot stock is
     * not this pod's to warm or correct).
     */
    @Singleton
    public static class Inactive implements Scheduled.SkipPredicate {
        private final StrategyLease lease;
        private volatile boolean started;

        Inactive(StrategyLease lease) {
            this.lease = lease;
        }

        void start() {
            started = true;
        }

        @Override
        public boolean test(ScheduledExecution execution) {
            return !started || !lease.held();
        }
    }
}
