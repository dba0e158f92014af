package io.flashstock.item;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.FlashstockException;
import io.flashstock.redis.RedisKeys;
import io.flashstock.support.KeyFilter;
import io.flashstock.support.TrackedItems;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.inject.Singleton;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * What this pod knows of each item's available units, so that the two loudest calls of a sale need neither Redis nor
 * MySQL: a sold-out purchase answers 409 from memory ({@link #soldOut}), and availability reads ({@link #read}) load
 * an item at most once per {@code flashstock.availability.cache-ttl}.
 *
 * <p>Where it comes from: the counter the strategy decides on ({@link StockMirror#level}: the Redis hot stock for
 * {@code redis-lua}, MySQL for the others), each value with that counter's change number ({@code seq} of the hot stock, the row's {@code version}),
 * and every purchase's own answer ({@link #observed}). When units come back (cancel, expiry, restock, a purchase
 * taken back, a correction) a message {@code "<item> <change number>"} goes to every pod over Redis pub/sub
 * ({@link RedisKeys#unitsBackChannel()}: from the redis-lua scripts themselves, or from {@link #changed} after a
 * MySQL commit; {@link UnitsBackChannel}), and each pod forgets what it knew before that change number: no pod keeps
 * refusing units that are there. Without the subscription (Redis unreachable) nothing is answered from memory, and
 * entries last the TTL.
 */
@Singleton
public class Availability {

    private static final Logger LOG = Logger.getLogger(Availability.class);
    /**
     * Entries kept at most; past it the map is emptied. Only items that exist get an entry (made-up skus go to the
     * bounded {@link UnknownSkus}), so this is a last guard, not the bound a storm runs into.
     */
    static final int MAX_ENTRIES = 100_000;

    /**
     * What is known of one item: the level (null: forgotten), the change number below which nothing is taken, and
     * (only for a level too low for the largest purchase) the keys of its successful purchases, null when not loaded.
     */
    private record Entry(StockLevel level, long floor, long loadedAt, KeyFilter keys) {
    }

    private final StockMirror mirror;
    private final UnitsBackChannel unitsBack;
    private final long ttlNanos;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<StockLevel>> loading = new ConcurrentHashMap<>();
    private final Counter fromMemory;
    private final UnknownSkus unknown;
    /** A level below this may refuse some purchase: its keys are loaded so keyed purchases can be refused too. */
    private final int maxQuantity;

    Availability(StockMirror mirror, UnitsBackChannel unitsBack, FlashstockConfig config, MeterRegistry registry) {
        this.mirror = mirror;
        this.unitsBack = unitsBack;
        this.ttlNanos = config.availability().cacheTtl().toNanos();
        this.fromMemory = Counter.builder("flashstock.purchases.sold-out.from-memory")
                .description("Purchases answered 409 sold-out from what the pod knew, without Redis or MySQL")
                .register(registry);
        this.unknown = new UnknownSkus(config.availability().unknownSkuTtl(), registry);
        this.maxQuantity = config.maxQuantityPerRequest();
        TrackedItems.register(registry, "availability", "any", entries, Map::size);
    }

    void onStart(@Observes StartupEvent event) {
        unitsBack.start(new UnitsBackChannel.Listener() {
            @Override
            public void unitsBack(String sku, long version) {
                unknown.exists(sku);
                forget(sku, version);
            }

            @Override
            public void forgetAll() {
                entries.clear();
                unknown.clear();
            }

            @Override
            public void subscribed() {
                // Levels learned while no message could arrive (since the last subscription ended) may be outdated by
                // one that was missed: none of them is answered from again. The floors stay: they only ever refuse
                // older answers.
                entries.replaceAll((sku, entry) -> entry.level() == null ? entry
                        : new Entry(null, entry.floor(), entry.loadedAt(), null));
                unknown.clear(); // an item created meanwhile was announced to no one here
            }
        });
    }

    void onStop(@Observes ShutdownEvent event) {
        unitsBack.stop();
    }

    /**
     * Keeps the subscription alive and the map small: replaces a subscription that did not hear its last heartbeat
     * back within one round (5 s), subscribes again after Redis was unreachable, sends the next heartbeat
     * ({@link UnitsBackChannel#upkeep}), and drops expired entries.
     */
    @Scheduled(identity = "availability-upkeep", every = "5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    synchronized void upkeep() {
        unitsBack.upkeep();
        long now = System.nanoTime();
        long keep = ttlNanos + java.util.concurrent.TimeUnit.SECONDS.toNanos(10); // floors outlive late answers
        entries.entrySet().removeIf(e -> now - e.getValue().loadedAt() > keep);
    }

    /** Whether the units-back subscription is up: only then is anything answered from memory. */
    boolean listening() {
        return unitsBack.listening();
    }

    /**
     * Units came back to the item at change number {@code version}: what is known from before is dropped, and no
     * older answer is taken.
     */
    private void forget(String sku, long version) {
        entries.compute(sku, (k, old) -> {
            long floor = old == null ? version : Math.max(old.floor(), version);
            boolean keep = old != null && old.level() != null && old.level().version() >= version;
            return keep ? new Entry(old.level(), floor, old.loadedAt(), old.keys())
                    : new Entry(null, floor, System.nanoTime(), null);
        });
    }

    /**
     * Whether the sku is known not to be an item: found missing within {@code unknown-sku-ttl}, not created since, and
     * the subscription up (creations are announced over it). Any thread may ask: nothing blocks.
     */
    public boolean knownMissing(String sku) {
        return listening() && unknown.knownMissing(sku);
    }

    /**
     * A request that began at {@code askedAt} (System.nanoTime) found no item {@code sku}: remembered, unless the item
     * was created (or changed) since it began.
     */
    public void notFound(String sku, long askedAt) {
        unknown.notFound(sku, askedAt);
    }

    /**
     * The item was created: this pod forgets it was missing at once, and every other pod when the announcement
     * reaches it ({@link UnitsBackChannel}). Never throws nor waits for Redis.
     */
    public void created(String sku, long version) {
        unknown.exists(sku);
        unitsBack.announce(sku, version);
    }

    /**
     * Whether {@code quantity} units of the item are known to be not there: a level loaded within the TTL, not
     * outdated by a units-back message, and the subscription up. False means: ask the strategy.
     */
    public boolean soldOut(String sku, int quantity) {
        return soldOut(sku, quantity, null, null);
    }

    /**
     * {@link #soldOut(String, int)} for a purchase with the Idempotency-Key {@code key} of {@code userId} (null: none):
     * with a key, only if the item's successful keys were loaded after its level and certainly do not hold this one,
     * so the purchase cannot be the retry of an earlier 201. No successful purchase can happen after that level
     * without units coming back first, which drops the level and its keys (the units-back message).
     */
    public boolean soldOut(String sku, int quantity, String userId, String key) {
        if (!listening()) {
            return false;
        }
        Entry entry = entries.get(sku);
        if (entry == null || entry.level() == null || !StockLevel.ON_SALE.equals(entry.level().state())
                || entry.level().available() >= quantity || System.nanoTime() - entry.loadedAt() > ttlNanos) {
            return false;
        }
        if (key != null && (entry.keys() == null || entry.keys().mayContain(KeyFilter.entry(userId, key)))) {
            return false;
        }
        fromMemory.increment();
        return true;
    }

    /** The strategy answered for the item: {@code available} units at change number {@code version}. */
    public void observed(String sku, int available, long version) {
        remember(sku, new StockLevel(available, version), null);
    }

    /** {@code keys}: those loaded after {@code level}, or null (then those of the same level are kept, if any). */
    private void remember(String sku, StockLevel level, KeyFilter keys) {
        if (entries.size() >= MAX_ENTRIES && !entries.containsKey(sku)) {
            entries.clear();
        }
        entries.compute(sku, (k, old) -> {
            if (old != null && (level.version() < old.floor()
                    || old.level() != null && old.level().version() > level.version())) {
                return old; // an answer from before units came back, or older than what is known
            }
            KeyFilter sameLevelKeys = keys != null ? keys
                    : old != null && old.level() != null && old.level().version() == level.version() ? old.keys() : null;
            return new Entry(level, old == null ? level.version() : Math.max(old.floor(), level.version()),
                    System.nanoTime(), sameLevelKeys);
        });
    }

    /**
     * The item changed in MySQL at {@code version} in a way a cached level must not outlive: units came back
     * (cancel, expiry, restock) or the sale window changed ({@code db-optimistic}, {@code redis-lock}). Every pod
     * forgets what it knew. Under {@code redis-lua} the scripts that change the hot stock say it themselves. Never
     * throws nor waits for Redis: entries expire after the TTL anyway.
     */
    public void changed(String sku, long version) {
        mirror.announce(sku, version);
    }

    /**
     * A purchase was refused sold-out: loads the item's level unless one within the TTL is known (and, for a purchase
     * with a key, {@code keyed}, the keys that let the next keyed ones be refused too), so that the next refusals come
     * from memory. Never throws.
     */
    public void learn(String sku, boolean keyed) {
        if (!needsLoad(sku, keyed)) {
            return;
        }
        try {
            load(sku);
        } catch (RuntimeException e) {
            LOG.debugf("Could not load the availability of %s: %s", sku, e.toString());
        }
    }

    /** {@link #learn} for a caller that must not block (the event loop): a load, when needed, runs on a worker. */
    public void learnSoon(String sku, boolean keyed) {
        if (needsLoad(sku, keyed)) {
            Infrastructure.getDefaultWorkerPool().execute(() -> learn(sku, keyed));
        }
    }

    /** Whether learning the item needs a load: listening, and no level of it within the TTL (or, keyed, no keys). */
    private boolean needsLoad(String sku, boolean keyed) {
        Entry entry = entries.get(sku);
        return listening() && (entry == null || entry.level() == null
                || System.nanoTime() - entry.loadedAt() > ttlNanos || keyed && entry.keys() == null);
    }

    /**
     * The keys of the item's successful purchases when {@code level} is too low for the largest purchase (those
     * already held for this very level, else loaded now, after it); null otherwise, or when they cannot be had.
     */
    private KeyFilter keysFor(String sku, StockLevel level) {
        if (!StockLevel.ON_SALE.equals(level.state()) || level.available() >= maxQuantity) {
            return null;
        }
        Entry known = entries.get(sku);
        if (known != null && known.keys() != null && known.level() != null
                && known.level().version() == level.version()) {
            return known.keys();
        }
        try {
            return mirror.keysOf(sku);
        } catch (RuntimeException e) {
            LOG.debugf("Could not load the keys of %s: %s", sku, e.toString());
            return null;
        }
    }

    /**
     * The item's availability, loaded at most once per TTL in this pod (concurrent readers share one load). May block
     * (the load reads Redis or MySQL): {@link #remembered} is the part any thread may call.
     */
    public AvailabilityView read(String sku) {
        AvailabilityView known = remembered(sku);
        return known != null ? known : view(sku, load(sku));
    }

    /**
     * {@link #read} when it needs no load: the level loaded within the TTL, else null. 404 for a sku known missing.
     * Never blocks: the event loop answers a storm of reads from here.
     */
    public AvailabilityView remembered(String sku) {
        if (knownMissing(sku)) {
            throw FlashstockException.itemNotFound(sku);
        }
        Entry entry = entries.get(sku);
        return entry != null && entry.level() != null && System.nanoTime() - entry.loadedAt() <= ttlNanos
                ? view(sku, entry.level()) : null;
    }

    private static AvailabilityView view(String sku, StockLevel level) {
        if (level == StockLevel.NONE) {
            throw FlashstockException.itemNotFound(sku);
        }
        return AvailabilityView.of(sku, level.available(), level.state());
    }

    private StockLevel load(String sku) {
        CompletableFuture<StockLevel> mine = new CompletableFuture<>();
        CompletableFuture<StockLevel> running = loading.putIfAbsent(sku, mine);
        if (running != null) {
            try {
                return running.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while loading " + sku, e);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            }
        }
        try {
            long askedAt = System.nanoTime();
            StockLevel level = mirror.level(sku);
            if (level == StockLevel.NONE) {
                notFound(sku, askedAt);
            } else {
                remember(sku, level, keysFor(sku, level));
            }
            mine.complete(level);
            return level;
        } catch (RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            loading.remove(sku, mine);
        }
    }
}
