package io.flashstock.deduction.lua;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.flashstock.item.Item;
import io.flashstock.item.UnitsBackChannel;
import io.flashstock.redis.Lease;
import io.flashstock.redis.RedisKeys;
import io.flashstock.redis.RedisLock;
import io.flashstock.redis.StrategyLease;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.redis.datasource.RedisDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Warm-up and the generation of the hot stock ({@code redis-lua}).
 * <ul>
 * <li><b>Warm-up on demand</b>: an item gets a hot stock the first time a purchase or an availability read needs it
 * ({@link #prepare}): MySQL's counters (and its RESERVED orders, per-user units and recent Idempotency-Keys, see
 * {@link ItemSnapshot}) are copied into Redis under the item's lock, only where the hash does not exist: it never
 * overwrites live counters and never flushes anything. Startup and readiness do not wait for the catalog, and an
 * item never sold takes no Redis memory.</li>
 * <li><b>Generation</b>: the first pod writes a random generation ({@link RedisKeys#generation()}) and each item's
 * hash records the generation it was warmed under. Missing or changed means Redis restarted or lost its data, or a
 * pod of another strategy changed MySQL behind the hot stock: the pods take up the new generation, and an item of
 * an older one is rebuilt from MySQL the next time it is used ({@code lua/purchase.lua} answers {@code STALE}).</li>
 * </ul>
 */
@ApplicationScoped
public class HotStockWarmer {

    private static final Logger LOG = Logger.getLogger(HotStockWarmer.class);
    /**
     * Longest a request waits for another's warm-up of the same item: more than the item's lock wait (10 s) plus a
     * MySQL snapshot, so the waiter gives up only if the warm-up itself hangs.
     */
    private static final Duration JOIN_WAIT = Duration.ofSeconds(20);

    private final RedisDataSource redis;
    private final RedisLock locks;
    private final IdempotencyKeys keys;
    private final OrderRelay relay;
    private final ActiveItems items;
    private final HotStockScripts scripts;
    private final StrategyLease strategyLease;
    private final FlashstockConfig.Lua settings;
    private final Counter cold;
    private final UnitsBackChannel unitsBack;
    /** The warm-up under way per item in this pod ({@link #prepare}). */
    private final Map<String, CompletableFuture<Void>> warming = new ConcurrentHashMap<>();
    /** The generation this pod uses; null until the scripts are loaded and the generation is known. */
    private volatile String generation;

    HotStockWarmer(RedisDataSource redis, RedisLock locks, OrderRelay relay, ActiveItems items, IdempotencyKeys keys,
            HotStockScripts scripts, UnitsBackChannel unitsBack, StrategyLease strategyLease,
            FlashstockConfig config, MeterRegistry registry) {
        this.strategyLease = strategyLease;
        this.unitsBack = unitsBack;
        this.redis = redis;
        this.keys = keys;
        this.locks = locks;
        this.relay = relay;
        this.items = items;
        this.scripts = scripts;
        this.settings = config.lua();
        this.cold = Counter.builder("flashstock.hotstock.cold")
                .description("Items rebuilt from MySQL because Redis lost their hot stock or it was of an older "
                        + "generation (restart, data loss, another strategy ran)")
                .register(registry);
    }

    /**
     * redis-lua was chosen ({@link RedisLuaStrategy#start()}): takes up the generation now, and again each time this
     * pod gets its lease back. (A MySQL strategy's pod drops the generation once it holds its lease: StrategyLease.)
     */
    void activate() {
        strategyLease.whenRegained(this::begin);
        try {
            start();
        } catch (RuntimeException e) {
            LOG.warnf("Hot stock not ready yet (readiness stays DOWN, retried every %s): %s",
                    settings.watchInterval(), e.toString());
        }
    }

    /** Whether the scripts are loaded and the generation is known: purchases can run (items warm on demand). */
    public boolean isReady() {
        return generation != null;
    }

    /** The generation this pod passes to the purchase script; null before {@link #start()} succeeded. */
    String generation() {
        return generation;
    }

    /** Loads the scripts and takes up Redis's generation (writing one if there is none). Cheap: no item is read. */
    synchronized void start() {
        requireLease();
        begin();
    }

    /**
     * {@link #start()} without asking the lease: also run by the lease itself when this pod gets it back after pods
     * of a MySQL strategy served, before its first sale, so that it never sells from a hash of the generation it knew
     * before (the MySQL pods dropped it; they changed MySQL behind it).
     */
    private synchronized void begin() {
        scripts.preloadAll(redis);
        items.retireScript().preload(redis);
        items.refresh();
        adoptGeneration();
    }

    /**
     * Reads Redis's generation, writing a new one if it is gone (a new or emptied Redis, data loss, another strategy
     * ran), and makes it this pod's. Returns whether it changed from what this pod used. Every cold or made-up sku's
     * first request asks here, so the usual answer, unchanged, takes no lock; only a change is taken up (and read
     * again) under the monitor, so that such requests never queue behind one another's Redis calls.
     */
    boolean takeUpGeneration() {
        requireLease();
        String current = redis.value(String.class).get(RedisKeys.generation());
        if (current != null && current.equals(generation)) {
            return false;
        }
        synchronized (this) {
            requireLease(); // again: the lease may have lapsed while this request waited for Redis or the monitor
            return adoptGeneration();
        }
    }

    private boolean adoptGeneration() {
        String current = redis.value(String.class).get(RedisKeys.generation());
        if (current == null) {
            redis.value(String.class).setnx(RedisKeys.generation(), UUID.randomUUID().toString());
            current = redis.value(String.class).get(RedisKeys.generation());
            scripts.preloadAll(redis); // an emptied Redis lost its scripts too
            items.retireScript().preload(redis);
        }
        String before = generation;
        if (current.equals(before)) {
            return false;
        }
        if (before != null) {
            unitsBack.lostTrack(); // what it knew came from hot stock that may be gone
            LOG.warnf("Hot-stock generation %s is gone (Redis restarted or lost data, or another strategy ran); "
                    + "items are rebuilt from MySQL under %s as they are used", before, current);
        }
        generation = current;
        return true;
    }

    /**
     * A generation is taken up, or written, only while this pod holds its strategy lease: while pods of a MySQL
     * strategy serve, a new generation would let redis-lua sell from a hot stock that MySQL no longer matches.
     */
    private void requireLease() {
        if (!strategyLease.held()) {
            throw new UnavailableException("The hot stock is not in use here now: " + strategyLease.waitingFor());
        }
    }

    /**
     * The purchase script found the item without a hot stock ({@code COLD}) or of another generation ({@code STALE}):
     * makes it usable. This pod takes up Redis's current generation first (it may have been outdated: then the item
     * may be fine as it is); an item missing or of another generation is then warmed from MySQL, after its pending
     * orders went to MySQL if it had a hash.
     *
     * <p>One warm-up per item at a time in a pod: the first request of a burst for a cold item (the opening of a sale)
     * warms it, and the others wait for that one instead of each asking MySQL and polling the item's lock.
     *
     * @throws io.flashstock.error.FlashstockException item-not-found when MySQL has no such item, unavailable when the
     *         warm-up failed or took too long
     */
    void prepare(String sku) {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> running = warming.putIfAbsent(sku, mine);
        if (running != null) {
            awaitOther(running);
            return;
        }
        try {
            prepareNow(sku);
            mine.complete(null);
        } catch (RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            warming.remove(sku, mine);
        }
    }

    /** Waits for another request's warm-up of the same item; its failure is this request's. */
    private static void awaitOther(CompletableFuture<Void> running) {
        try {
            running.get(JOIN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause
                    : new UnavailableException("The item cannot be made ready now; nothing was changed, try again.", e);
        } catch (TimeoutException e) {
            throw new UnavailableException("The item is still being made ready; nothing was changed, try again.", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException("Interrupted while the item was made ready; nothing was changed.", e);
        }
    }

    private void prepareNow(String sku) {
        takeUpGeneration();
        String current = generation;
        String itemGeneration = redis.hash(String.class).hget(RedisKeys.stock(sku), "gen");
        if (current.equals(itemGeneration)) {
            return; // warmed by another request meanwhile
        }
        if (itemGeneration != null || redis.key().exists(RedisKeys.stock(sku))) {
            relay.drain(sku); // acknowledged orders go to MySQL before the hot stock is rebuilt from it
        } else if (!QuarkusTransaction.requiringNew().call(() -> Item.count("sku", sku) > 0)) {
            throw FlashstockException.itemNotFound(sku); // no lock, no snapshot for an unknown sku
        }
        if (!warm(sku)) {
            throw FlashstockException.itemNotFound(sku);
        }
    }

    /**
     * Copies one item from MySQL into Redis for this pod's generation, under the item's lock so that two pods do not
     * interleave; a hash of another generation is dropped first. Returns false when MySQL has no such item.
     *
     * <p>The generation is read once the lock is held, not before: requests that queued for the lock while Redis lost
     * its data would otherwise rebuild the item, one after the other, under the generation that was just lost, and
     * every request of the new one would rebuild it back (seen after a FLUSHALL: seven rebuilds in four seconds).
     */
    private boolean warm(String sku) {
        try (Lease lease = locks.acquire(sku, Duration.ofSeconds(30), Duration.ofSeconds(10))) {
            String current = generation;
            String itemGeneration = redis.hash(String.class).hget(RedisKeys.stock(sku), "gen");
            if (current.equals(itemGeneration)) {
                return true;
            }
            ItemSnapshot snapshot = QuarkusTransaction.requiringNew()
                    .call(() -> ItemSnapshot.load(sku, settings.idempotencyTtl()));
            if (snapshot == null) {
                return false; // not an item
            }
            // A first warm-up makes no item active (a read warms too: reading a whole catalog must not put every item
            // into each pod's rounds); a purchase that takes units does. A rebuild does, as the item had a hot stock.
            if (itemGeneration != null || redis.key().exists(RedisKeys.stock(sku))) {
                items.touch(sku);
                cold.increment();
                LOG.infof("Rebuilding the hot stock of %s from MySQL (it was of generation %s)", sku, itemGeneration);
            }
            redis.key().del(RedisKeys.stock(sku), RedisKeys.held(sku), RedisKeys.users(sku));
            putAll(RedisKeys.held(sku), snapshot.held());
            putAll(RedisKeys.users(sku), snapshot.users());
            keys.restore(sku, snapshot.idempotencyKeys());
            scripts.warm.run(redis, List.of(RedisKeys.stock(sku), RedisKeys.held(sku), RedisKeys.users(sku),
                    RedisKeys.late(sku)),
                    List.of(Integer.toString(snapshot.stock()), Integer.toString(snapshot.available()),
                            Integer.toString(snapshot.reserved()), Integer.toString(snapshot.sold()),
                            Integer.toString(snapshot.perUserLimit()), Long.toString(snapshot.version()), current,
                            RedisKeys.unitsBackChannel(), SaleFields.millis(snapshot.window().startsAt()),
                            SaleFields.millis(snapshot.window().endsAt()), SaleFields.flag(snapshot.window().paused()),
                            Integer.toString(snapshot.reservationTtlSeconds()), SaleFields.flag(snapshot.retired())));
            LOG.debugf("Warmed %s: %s", sku, snapshot);
            return true;
        }
    }

    private void putAll(String key, Map<String, String> fields) {
        List<String> chunk = new ArrayList<>();
        for (Map.Entry<String, String> field : fields.entrySet()) {
            chunk.add(field.getKey());
            chunk.add(field.getValue());
            if (chunk.size() >= 2 * IdempotencyKeys.CHUNK) { // fields and values: no command blocks Redis long
                hset(key, chunk);
                chunk.clear();
            }
        }
        if (!chunk.isEmpty()) {
            hset(key, chunk);
        }
    }

    private void hset(String key, List<String> fieldsAndValues) {
        List<String> args = new ArrayList<>(fieldsAndValues.size() + 1);
        args.add(key);
        args.addAll(fieldsAndValues);
        redis.execute("HSET", args.toArray(String[]::new));
    }
}
