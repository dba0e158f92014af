package io.flashstock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.flashstock.Timestamps;
import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.deduction.StrategyName;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.flashstock.item.Item;
import io.flashstock.item.StockEvent;
import io.flashstock.item.StockMirror;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.ScheduledExecution;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * The Redis hot stock of {@code redis-lua}: one hash of counters per item ({@link RedisKeys#stock}), the item's
 * RESERVED orders and per-user units, and its stream of orders not yet in MySQL. Every change goes through one of
 * the scripts in {@code src/main/resources/lua/}, each atomic.
 *
 * <ul>
 * <li><b>Warm-up</b>: at startup, on item creation, and whenever an item's hash is missing, copies MySQL's counters
 * (and its RESERVED orders and per-user units) into Redis under the item's lock, only where the hash does not
 * exist: it never overwrites live counters and never flushes anything.</li>
 * <li><b>Generation</b>: the first warm-up writes a random generation; every pod checks it each
 * {@code flashstock.lua.watch-interval}. Missing or changed means Redis restarted or lost its data: the pod is cold
 * (purchases 503, readiness DOWN) until it has re-warmed every item from MySQL. A purchase that finds its item's
 * hash missing gets 503 at once and triggers the same.</li>
 * <li><b>Mirror</b> ({@link StockMirror}): confirm, cancel, expiry and restock commit in MySQL first, with a
 * {@link StockEvent} row; the event is then applied by an idempotent script and deleted. A sweeper applies rows a
 * crashed pod left behind.</li>
 * <li><b>Reconcile</b>: an item whose counters stayed unchanged for {@code reconcile-after-quiet}, with no pending
 * order and no unmirrored event, gets MySQL's counters if they differ (compare-and-set on the hash's change
 * counter), so Redis and MySQL converge after any failure.</li>
 * </ul>
 */
@ApplicationScoped
public class HotStock implements StockMirror {

    private static final Logger LOG = Logger.getLogger(HotStock.class);

    private final RedisDataSource redis;
    private final RedisLock locks;
    private final OrderRelay relay;
    private final PendingStream stream;
    private final FlashstockConfig.Lua settings;
    private final boolean active;
    private final boolean writeBehind;
    private final String pod = UUID.randomUUID().toString();
    private final LuaScript purchaseScript = LuaScript.load("purchase");
    private final LuaScript transitionScript = LuaScript.load("transition");
    private final LuaScript restockScript = LuaScript.load("restock");
    private final LuaScript warmScript = LuaScript.load("warm");
    private final LuaScript reconcileScript = LuaScript.load("reconcile");
    private final Counter cold;
    private final Counter reconciled;
    /** Set once every item was warmed for the current generation; cleared when Redis lost its data. */
    private final AtomicBoolean warm = new AtomicBoolean();
    private volatile String generation;
    /** Per item: the last change counter seen, and since when it has not moved (for reconcile). */
    private final Map<String, long[]> quiet = new ConcurrentHashMap<>();

    HotStock(RedisDataSource redis, RedisLock locks, OrderRelay relay, PendingStream stream, FlashstockConfig config,
            MeterRegistry registry) {
        this.redis = redis;
        this.stream = stream;
        this.locks = locks;
        this.relay = relay;
        this.settings = config.lua();
        this.active = StrategyName.REDIS_LUA.configValue().equals(config.strategy());
        this.writeBehind = settings.persistence() == FlashstockConfig.Persistence.WRITE_BEHIND;
        this.cold = Counter.builder("flashstock.hotstock.cold")
                .description("Times Redis was found without an item's hot stock (restart, data loss)")
                .register(registry);
        this.reconciled = Counter.builder("flashstock.hotstock.reconciled")
                .description("Items whose hot counters were corrected from MySQL").register(registry);
    }

    @Override
    public boolean active() {
        return active;
    }

    /** Whether the scripts are loaded and every item is warm for the current generation. */
    public boolean isWarm() {
        return warm.get();
    }

    public String pod() {
        return pod;
    }

    void onStart(@Observes StartupEvent event) {
        if (!active) {
            return;
        }
        try {
            rewarm();
        } catch (RuntimeException e) {
            LOG.warnf("Hot stock not warm yet (readiness stays DOWN, retried every %s): %s",
                    settings.watchInterval(), e.toString());
        }
    }

    // --- purchases ------------------------------------------------------------------------------------------------

    /** What the purchase script decided. */
    public record Decision(String code, String entryId, String orderId, Instant createdAt, Instant expiresAt,
            int limit) {
    }

    /** Runs the purchase script for a new order id. Redis unreachable or cold → {@link UnavailableException}. */
    public Decision purchase(PurchaseCommand command, String orderId, Instant createdAt, Instant expiresAt) {
        relay.track(command.sku());
        Decision decision = decide(command, orderId, createdAt, expiresAt);
        if (!"COLD".equals(decision.code())) {
            return decision;
        }
        // No hot stock for this sku: an unknown item, an item whose warm-up failed, or Redis lost its data.
        try {
            if (!QuarkusTransaction.requiringNew().call(() -> Item.count("sku", command.sku()) > 0)) {
                throw FlashstockException.itemNotFound(command.sku());
            }
            if (generationLost()) {
                itemWentCold(command.sku());
                throw coldAnswer();
            }
            warm(command.sku());
        } catch (FlashstockException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new UnavailableException("The hot stock cannot be rebuilt now; nothing was changed, try again.", e);
        }
        decision = decide(command, orderId, createdAt, expiresAt);
        if ("COLD".equals(decision.code())) {
            throw coldAnswer();
        }
        return decision;
    }

    private Decision decide(PurchaseCommand command, String orderId, Instant createdAt, Instant expiresAt) {
        if (!warm.get()) {
            throw coldAnswer();
        }
        String sku = command.sku();
        Response reply;
        try {
            reply = purchaseScript.run(redis, List.of(RedisKeys.stock(sku), RedisKeys.users(sku),
                    RedisKeys.held(sku), RedisKeys.orders(sku), RedisKeys.idempotency(sku, command.idempotencyKey()),
                    RedisKeys.voided(sku, orderId)),
                    List.of(orderId, command.userId(), Integer.toString(command.quantity()),
                            command.fingerprint() == null ? "" : command.fingerprint(),
                            Long.toString(createdAt.getEpochSecond()), Long.toString(expiresAt.getEpochSecond()),
                            Long.toString(Math.max(1, settings.idempotencyTtl().toSeconds())),
                            command.idempotencyKey() == null ? "" : command.idempotencyKey(), pod));
        } catch (RuntimeException e) {
            // Timed out or the connection broke: the script may still run, or have run. Make sure it has no effect.
            try {
                stream.abandon(sku, orderId, command.idempotencyKey());
            } catch (RuntimeException again) {
                LOG.warnf("Could not void purchase %s of %s after a Redis failure (if it ran, its order is kept "
                        + "and persisted): %s", orderId, sku, again.toString());
            }
            throw new UnavailableException("The hot stock cannot be reached; nothing was changed, try again.", e);
        }
        String code = reply.get(0).toString();
        switch (code) {
            case "OK":
                return new Decision(code, reply.get(1).toString(), orderId, createdAt, expiresAt, 0);
            case "REPLAY":
                return new Decision(code, null, reply.get(1).toString(),
                        Instant.ofEpochSecond(reply.get(2).toLong()), Instant.ofEpochSecond(reply.get(3).toLong()), 0);
            case "LIMIT":
                return new Decision(code, null, null, null, null, reply.get(1).toInteger());
            default:
                return new Decision(code, null, null, null, null, 0);
        }
    }

    private static UnavailableException coldAnswer() {
        return new UnavailableException("The hot stock is being rebuilt from the database; nothing was changed, "
                + "try again.");
    }

    // --- the mirror -------------------------------------------------------------------------------------------

    @Override
    public void apply(List<StockEvent> events) {
        if (!active || events.isEmpty()) {
            return;
        }
        List<String> done = new ArrayList<>(events.size());
        for (StockEvent event : events) {
            relay.track(event.sku);
            try {
                if (applyOne(event) != COLD) {
                    done.add(event.id); // a cold item keeps its event: applied after its warm-up (or moot)
                }
            } catch (RuntimeException e) {
                LOG.warnf("Could not mirror %s of %s now; the sweeper retries: %s", event.kind, event.sku,
                        e.toString());
            }
        }
        if (!done.isEmpty()) {
            try {
                QuarkusTransaction.requiringNew().run(() -> StockEvent.delete("id in ?1", done));
            } catch (RuntimeException e) {
                LOG.warnf("Could not delete %d mirrored stock events (applying them again is harmless): %s",
                        done.size(), e.toString());
            }
        }
    }

    /** What the mirror scripts answer for an item without hot stock. */
    private static final long COLD = -1;

    private long applyOne(StockEvent event) {
        String sku = event.sku;
        return switch (event.kind) {
            case RESTOCKED -> restockScript.run(redis, List.of(RedisKeys.stock(sku), RedisKeys.event(sku, event.id)),
                    List.of(Integer.toString(event.quantity), event.id,
                            Long.toString(Math.max(3600, settings.idempotencyTtl().toSeconds())),
                            Long.toString(event.itemVersion))).toLong();
            case CONFIRMED, RETURNED -> transitionScript.run(redis,
                    List.of(RedisKeys.stock(sku), RedisKeys.users(sku), RedisKeys.held(sku)),
                    List.of(event.orderId, event.kind.name())).toLong();
        };
    }

    @Override
    public void itemCreated(String sku) {
        if (!active) {
            return;
        }
        try {
            warm(sku);
        } catch (RuntimeException e) {
            // The first purchase finds the hash missing and the watcher warms it.
            LOG.warnf("Could not warm new item %s now: %s", sku, e.toString());
        }
    }

    @Override
    public boolean persistPending(String orderId) {
        if (!active || !writeBehind) {
            return false;
        }
        try {
            return relay.drainAll() > 0;
        } catch (RuntimeException e) {
            throw new UnavailableException("Recent orders cannot be read now; try again.", e);
        }
    }

    // --- warm-up, generation, reconcile ------------------------------------------------------------------------

    /**
     * Warms every item from MySQL for the current generation (writing one if there is none), then marks this pod
     * warm. Items that are warm already are left alone.
     */
    synchronized void rewarm() {
        for (LuaScript script : List.of(purchaseScript, transitionScript, restockScript, warmScript,
                reconcileScript)) {
            script.preload(redis);
        }
        String current;
        List<String> skus;
        do {
            current = redis.value(String.class).get(RedisKeys.generation());
            if (current == null) {
                redis.value(String.class).setnx(RedisKeys.generation(), UUID.randomUUID().toString());
                current = redis.value(String.class).get(RedisKeys.generation());
            }
            skus = QuarkusTransaction.requiringNew()
                    .call(() -> Item.getEntityManager().createQuery("select i.sku from Item i", String.class)
                            .getResultList());
            for (String sku : skus) {
                warm(sku);
            }
            // Redis lost its data again while we warmed: what we warmed may be gone, warm again.
        } while (!current.equals(redis.value(String.class).get(RedisKeys.generation())));
        generation = current;
        warm.set(true);
        LOG.infof("Hot stock warm: %d item(s), generation %s", skus.size(), current);
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
            snapshot.idempotencyKeys().forEach((key, first) -> redis.value(String.class).setnx(RedisKeys.idempotency(sku, key),
                    first));
            snapshot.idempotencyKeyTtls().forEach((key, ttl) -> redis.key().expire(RedisKeys.idempotency(sku, key), ttl));
            boolean created = warmScript.run(redis, List.of(RedisKeys.stock(sku)),
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
        String[] args = new String[fieldsAndValues.size() + 1];
        args[0] = key;
        for (int i = 0; i < fieldsAndValues.size(); i++) {
            args[i + 1] = fieldsAndValues.get(i);
        }
        redis.execute("HSET", args);
    }

    /** Whether Redis no longer has the generation this pod warmed (restart, flush, failover that lost data). */
    private boolean generationLost() {
        String current = redis.value(String.class).get(RedisKeys.generation());
        return current == null || !current.equals(generation);
    }

    /** A purchase found the item's hash missing: Redis lost data. Fail closed until the watcher re-warmed. */
    private void itemWentCold(String sku) {
        cold.increment();
        if (warm.compareAndSet(true, false)) {
            LOG.warnf("Hot stock of %s is missing in Redis: failing closed until re-warmed from MySQL", sku);
        }
    }

    /**
     * Every watch interval: detects a lost or changed generation (and re-warms), re-applies unmirrored events, and
     * reconciles quiet items.
     */
    @Scheduled(identity = "hot-stock-watch", every = "${flashstock.lua.watch-interval:1s}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Inactive.class)
    void watch() {
        try {
            if (generationLost() && warm.compareAndSet(true, false)) {
                cold.increment();
                LOG.warnf("Hot-stock generation %s is gone: Redis restarted or lost data; re-warming from MySQL",
                        generation);
            }
            if (!warm.get()) {
                rewarm();
            } else {
                // Items created through other pods: this pod's relay and reconcile look at them too.
                QuarkusTransaction.requiringNew().call(() -> Item.getEntityManager()
                        .createQuery("select i.sku from Item i", String.class).getResultList()).forEach(relay::track);
            }
            sweepEvents();
            reconcileQuiet();
        } catch (RuntimeException e) {
            LOG.warnf("Hot-stock watch round failed, the next one retries: %s", e.toString());
        }
    }

    private void sweepEvents() {
        Instant before = Timestamps.now().minus(settings.watchInterval().multipliedBy(2));
        List<StockEvent> left = QuarkusTransaction.requiringNew().call(() -> StockEvent.recordedBefore(before, 500));
        if (!left.isEmpty()) {
            LOG.infof("Mirroring %d stock event(s) left behind", left.size());
            apply(left);
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
        for (String sku : relay.knownSkus()) {
            Map<String, String> fields = redis.hash(String.class).hmget(RedisKeys.stock(sku), "seq", "stock",
                    "available", "reserved", "sold");
            String seqText = fields.get("seq");
            if (seqText == null) {
                continue;
            }
            long seq = Long.parseLong(seqText);
            long[] seen = quiet.compute(sku, (k, old) -> old == null || old[0] != seq ? new long[] { seq, now } : old);
            if (now - seen[1] < quietNanos || redis.stream(String.class).xlen(RedisKeys.orders(sku)) > 0) {
                continue;
            }
            ItemSnapshot.Counters db = QuarkusTransaction.requiringNew().call(() -> ItemSnapshot.counters(sku));
            if (db == null || db.pendingEvents() > 0) {
                continue;
            }
            if (db.matches(fields)) {
                continue;
            }
            long set = reconcileScript.run(redis, List.of(RedisKeys.stock(sku), RedisKeys.orders(sku)),
                    List.of(seqText, Integer.toString(db.stock()), Integer.toString(db.available()),
                            Integer.toString(db.reserved()), Integer.toString(db.sold()), Long.toString(db.version())))
                    .toLong();
            if (set == 1) {
                reconciled.increment();
                LOG.warnf("Hot stock of %s differed from MySQL (Redis %s, MySQL %s); corrected", sku, fields, db);
            }
        }
    }

    /** Skips the scheduled watch where the strategy is not redis-lua. */
    @Singleton
    public static class Inactive implements Scheduled.SkipPredicate {
        private final boolean active;

        Inactive(FlashstockConfig config) {
            this.active = StrategyName.REDIS_LUA.configValue().equals(config.strategy());
        }

        @Override
        public boolean test(ScheduledExecution execution) {
            return !active;
        }
    }
}
