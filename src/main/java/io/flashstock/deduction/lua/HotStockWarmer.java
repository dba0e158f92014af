package io.flashstock.deduction.lua;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.ActiveStrategy;
import io.flashstock.deduction.StrategyName;
import io.flashstock.item.Item;
import io.flashstock.redis.Lease;
import io.flashstock.redis.RedisKeys;
import io.flashstock.redis.RedisLock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Warm-up and the generation of the hot stock ({@code redis-lua}).
 * <ul>
 * <li><b>Warm-up</b>: at startup, on item creation, and whenever an item's hash is missing, copies MySQL's counters
 * (and its RESERVED orders, per-user units and recent Idempotency-Keys, see {@link ItemSnapshot}) into Redis under
 * the item's lock, only where the hash does not exist: it never overwrites live counters and never flushes
 * anything.</li>
 * <li><b>Generation</b>: the first warm-up writes a random generation ({@link RedisKeys#generation()}). Missing or
 * changed means Redis restarted or lost its data: the pod is cold (purchases 503, readiness DOWN) until it has
 * re-warmed every item from MySQL.</li>
 * </ul>
 */
@ApplicationScoped
public class HotStockWarmer {

    private static final Logger LOG = Logger.getLogger(HotStockWarmer.class);

    private final RedisDataSource redis;
    private final RedisLock locks;
    private final OrderRelay relay;
    private final HotStockScripts scripts;
    private final ActiveStrategy strategy;
    private final FlashstockConfig.Lua settings;
    private final Counter cold;
    /** Set once every item was warmed for the current generation; cleared when Redis lost its data. */
    private final AtomicBoolean warm = new AtomicBoolean();
    private volatile String generation;

    HotStockWarmer(RedisDataSource redis, RedisLock locks, OrderRelay relay, HotStockScripts scripts,
            ActiveStrategy strategy, FlashstockConfig config, MeterRegistry registry) {
        this.redis = redis;
        this.locks = locks;
        this.relay = relay;
        this.scripts = scripts;
        this.strategy = strategy;
        this.settings = config.lua();
        this.cold = Counter.builder("flashstock.hotstock.cold")
                .description("Times Redis was found without an item's hot stock (restart, data loss)")
                .register(registry);
    }

    void onStart(@Observes StartupEvent event) {
        if (!strategy.is(StrategyName.REDIS_LUA)) {
            invalidate();
            return;
        }
        try {
            rewarm();
        } catch (RuntimeException e) {
            LOG.warnf("Hot stock not warm yet (readiness stays DOWN, retried every %s): %s",
                    settings.watchInterval(), e.toString());
        }
    }

    /**
     * A pod of another strategy is starting: it will change MySQL behind the hot stock's back (counters, per-user
     * units, RESERVED orders), so whatever redis-lua left in Redis is stale from now on. Removing the generation makes
     * redis-lua pods (now, or after a switch back) rebuild every item from MySQL. Best effort: a pod that does not
     * use Redis for its strategy still starts when Redis is down.
     */
    private void invalidate() {
        try {
            if (redis.key().del(RedisKeys.generation()) > 0) {
                LOG.infof("Strategy %s: the redis-lua hot stock in Redis is stale from now on; redis-lua pods will "
                        + "rebuild it from MySQL", strategy.name().configValue());
            }
        } catch (RuntimeException e) {
            LOG.debugf("Could not invalidate the hot stock: %s", e.toString());
        }
    }

    /** Whether the scripts are loaded and every item is warm for the current generation. */
    public boolean isWarm() {
        return warm.get();
    }

    /**
     * Warms every item from MySQL for the current generation, then marks this pod warm. While the generation holds,
     * items that are warm already are left alone. Without one (a new or emptied Redis, data loss, or a pod of another
     * strategy ran since: {@link #invalidate()}), whatever Redis still holds is not trusted: each item's pending
     * orders are persisted, its hot keys dropped and rebuilt from MySQL ({@link #rebuild}).
     */
    synchronized void rewarm() {
        scripts.preloadAll(redis);
        String current;
        List<String> skus;
        do {
            current = redis.value(String.class).get(RedisKeys.generation());
            boolean trusted = current != null;
            if (!trusted) {
                redis.value(String.class).setnx(RedisKeys.generation(), UUID.randomUUID().toString());
                current = redis.value(String.class).get(RedisKeys.generation());
            }
            skus = allSkus();
            for (String sku : skus) {
                if (trusted) {
                    warm(sku);
                } else {
                    rebuild(sku);
                }
            }
            // Redis lost its data again while we warmed: what we warmed may be gone, warm again.
        } while (!current.equals(redis.value(String.class).get(RedisKeys.generation())));
        generation = current;
        warm.set(true);
        LOG.infof("Hot stock warm: %d item(s), generation %s", skus.size(), current);
    }

    /** Every item's sku in MySQL. */
    List<String> allSkus() {
        return QuarkusTransaction.requiringNew().call(() -> Item.getEntityManager()
                .createQuery("select i.sku from Item i", String.class).getResultList());
    }

    /**
     * Copies one item from MySQL into Redis if its hash is missing, under the item's lock so that two pods do not
     * interleave. Returns whether it created the hash.
     */
    boolean warm(String sku) {
        relay.track(sku);
        if (redis.key().exists(RedisKeys.stock(sku))) {
            return false;
        }
        try (Lease lease = locks.acquire(sku, Duration.ofSeconds(30), Duration.ofSeconds(10))) {
            if (redis.key().exists(RedisKeys.stock(sku))) {
                return false;
            }
            ItemSnapshot snapshot = QuarkusTransaction.requiringNew()
                    .call(() -> ItemSnapshot.load(sku, settings.idempotencyTtl()));
            if (snapshot == null) {
                return false;
            }
            redis.key().del(RedisKeys.held(sku), RedisKeys.users(sku));
            putAll(RedisKeys.held(sku), snapshot.held());
            putAll(RedisKeys.users(sku), snapshot.users());
            snapshot.idempotencyKeys().forEach(
                    (key, first) -> redis.value(String.class).setnx(RedisKeys.idempotency(sku, key), first));
            snapshot.idempotencyKeyTtls().forEach(
                    (key, ttl) -> redis.key().expire(RedisKeys.idempotency(sku, key), ttl));
            boolean created = scripts.warm.run(redis, List.of(RedisKeys.stock(sku), RedisKeys.held(sku),
                    RedisKeys.users(sku), RedisKeys.late(sku)),
                    List.of(Integer.toString(snapshot.stock()), Integer.toString(snapshot.available()),
                            Integer.toString(snapshot.reserved()), Integer.toString(snapshot.sold()),
                            Integer.toString(snapshot.perUserLimit()), Long.toString(snapshot.version())))
                    .toLong() == 1;
            if (created) {
                LOG.debugf("Warmed %s: %s", sku, snapshot);
            }
            return created;
        }
    }

    /**
     * Rebuilds one item's hot stock from MySQL: its pending orders go to MySQL first (they were acknowledged), then
     * its counters, RESERVED orders and per-user units are dropped and warmed again. Under the item's lock, like
     * every warm-up; a purchase in between finds the item cold (503) or is reconciled.
     */
    private void rebuild(String sku) {
        relay.drain(sku);
        try (Lease lease = locks.acquire(sku, Duration.ofSeconds(30), Duration.ofSeconds(10))) {
            redis.key().del(RedisKeys.stock(sku), RedisKeys.held(sku), RedisKeys.users(sku));
        }
        warm(sku);
    }

    /** Whether Redis no longer has the generation this pod warmed (restart, flush, failover that lost data). */
    boolean generationLost() {
        String current = redis.value(String.class).get(RedisKeys.generation());
        return current == null || !current.equals(generation);
    }

    /** A purchase found the item's hash missing: Redis lost data. Fail closed until the watch re-warmed. */
    void itemWentCold(String sku) {
        cold.increment();
        if (warm.compareAndSet(true, false)) {
            LOG.warnf("Hot stock of %s is missing in Redis: failing closed until re-warmed from MySQL", sku);
        }
    }

    /** The watch found the generation gone or changed: fail closed until re-warmed. */
    void generationWentMissing() {
        if (warm.compareAndSet(true, false)) {
            cold.increment();
            LOG.warnf("Hot-stock generation %s is gone: Redis restarted or lost data; re-warming from MySQL",
                    generation);
        }
    }

    private void putAll(String key, Map<String, String> fields) {
        List<String> chunk = new ArrayList<>();
        for (Map.Entry<String, String> field : fields.entrySet()) {
            chunk.add(field.getKey());
            chunk.add(field.getValue());
            if (chunk.size() >= 1000) {
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
