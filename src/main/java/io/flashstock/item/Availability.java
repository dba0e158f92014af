package io.flashstock.item;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.FlashstockException;
import io.flashstock.redis.RedisKeys;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.pubsub.PubSubCommands;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * What this pod knows of each item's available units, so that the two loudest calls of a sale need neither Redis nor
 * MySQL: a sold-out purchase answers 409 from memory ({@link #soldOut}), and availability reads ({@link #read}) load
 * an item at most once per {@code flashstock.availability.cache-ttl}.
 *
 * <p>Where it comes from: the counter the strategy decides on (the Redis hot stock for {@code redis-lua}, MySQL for the
 * others), each value with that counter's change number ({@code seq} of the hot stock, the row's {@code version}),
 * and every purchase's own answer ({@link #observed}). When units come back (cancel, expiry, restock, a purchase
 * taken back, a correction) a message {@code "<item> <change number>"} goes to every pod over Redis pub/sub
 * ({@link RedisKeys#unitsBackChannel()}: from the redis-lua scripts themselves, or from {@link #unitsBack} after a
 * MySQL commit), and each pod forgets what it knew before that change number: no pod keeps refusing units that are
 * there. Without the subscription (Redis unreachable) nothing is answered from memory, and entries last the TTL.
 */
@ApplicationScoped
public class Availability {

    private static final Logger LOG = Logger.getLogger(Availability.class);
    /** Entries kept at most; past it the map is emptied (a storm of made-up skus must not grow the heap). */
    static final int MAX_ENTRIES = 100_000;

    /**
     * An item's available units at one change number, and its sale window's state then ({@code on-sale},
     * {@code not-started}, {@code ended}, {@code paused}); {@link #NONE} for an unknown item.
     */
    public record Level(int available, long version, String state) {
        public static final Level NONE = new Level(-1, -1, "unknown");

        public Level(int available, long version) {
            this(available, version, ON_SALE);
        }
    }

    /** The state of an item inside its sale window. */
    public static final String ON_SALE = "on-sale";

    /** What is known of one item: the level (null: forgotten), the change number below which nothing is taken. */
    private record Entry(Level level, long floor, long loadedAt) {
    }

    private final StockMirror mirror;
    private final RedisDataSource redis;
    /** Announces units back without waiting for Redis: a hung Redis must not slow a cancel or a restock. */
    private final ReactiveRedisDataSource announcer;
    private final long ttlNanos;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Level>> loading = new ConcurrentHashMap<>();
    private final Counter fromMemory;
    private volatile PubSubCommands.RedisSubscriber subscriber;
    private volatile boolean listening;
    /** Which subscription is current: the end of one given up on already does not stop its successor. */
    private volatile int subscription;
    /**
     * This pod's own channel, on the same subscription: a heartbeat sent to it must come back, so that a subscription
     * whose connection died without a word (a Redis host gone, a half-open TCP connection) is noticed and replaced.
     */
    private final String heartbeatChannel = RedisKeys.unitsBackChannel() + ":heartbeat:" + UUID.randomUUID();
    /** The heartbeat sent and not heard back yet (its {@code nanoTime}); 0: none outstanding. */
    private volatile long heartbeat;

    Availability(StockMirror mirror, RedisDataSource redis, ReactiveRedisDataSource announcer, FlashstockConfig config,
            MeterRegistry registry) {
        this.mirror = mirror;
        this.redis = redis;
        this.announcer = announcer;
        this.ttlNanos = config.availability().cacheTtl().toNanos();
        this.fromMemory = Counter.builder("flashstock.purchases.sold-out.from-memory")
                .description("Purchases answered 409 sold-out from what the pod knew, without Redis or MySQL")
                .register(registry);
    }

    void onStart(@Observes StartupEvent event) {
        listen();
    }

    void onStop(@Observes ShutdownEvent event) {
        PubSubCommands.RedisSubscriber current = subscriber;
        if (current != null) {
            try {
                current.unsubscribe();
            } catch (RuntimeException e) {
                LOG.debugf("Unsubscribing: %s", e.toString());
            }
        }
    }

    /**
     * Keeps the subscription alive and the map small: replaces a subscription that did not hear its last heartbeat
     * back within one round (5 s), subscribes again after Redis was unreachable, sends the next heartbeat, and drops
     * expired entries.
     */
    @Scheduled(identity = "availability-upkeep", every = "5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    synchronized void upkeep() {
        if (listening && heartbeat != 0) {
            LOG.warnf("The subscription to %s did not hear its heartbeat back; subscribing again (sold-out is not "
                    + "answered from memory meanwhile)", RedisKeys.unitsBackChannel());
            replaceSubscription();
        }
        if (!listening) {
            listen();
        }
        if (listening) {
            sendHeartbeat();
        }
        long now = System.nanoTime();
        long keep = ttlNanos + java.util.concurrent.TimeUnit.SECONDS.toNanos(10); // floors outlive late answers
        entries.entrySet().removeIf(e -> now - e.getValue().loadedAt() > keep);
    }

    private synchronized void listen() {
        if (listening) {
            return;
        }
        int current = ++subscription;
        try {
            subscriber = redis.pubsub(String.class).subscribe(List.of(RedisKeys.unitsBackChannel(), heartbeatChannel),
                    this::onMessage, () -> stopped(current), error -> stopped(current));
            heartbeat = 0;
            listening = true;
            // Levels learned while no message could arrive (since the last subscription ended) may be outdated by one
            // that was missed: none of them is answered from again. The floors stay: they only ever refuse older
            // answers.
            entries.replaceAll((sku, entry) -> entry.level() == null ? entry
                    : new Entry(null, entry.floor(), entry.loadedAt()));
        } catch (RuntimeException e) {
            LOG.warnf("Cannot subscribe to %s (sold-out is not answered from memory until then): %s",
                    RedisKeys.unitsBackChannel(), e.toString());
        }
    }

    /** Whether the units-back subscription is up: only then is anything answered from memory. */
    boolean listening() {
        return listening;
    }

    private void stopped(int which) {
        if (which == subscription) {
            listening = false;
            forgetAll(); // messages may be missed from now on
        }
    }

    /** Gives up on the current subscription (its end, whenever it comes, changes nothing) and forgets every item. */
    private synchronized void replaceSubscription() {
        PubSubCommands.RedisSubscriber old = subscriber;
        subscription++;
        listening = false;
        forgetAll();
        if (old != null) {
            try {
                old.unsubscribe();
            } catch (RuntimeException e) {
                LOG.debugf("Unsubscribing the subscription given up on: %s", e.toString());
            }
        }
    }

    private void sendHeartbeat() {
        long sent = System.nanoTime();
        heartbeat = sent; // before the publish: the echo may come back before it returns
        try {
            redis.pubsub(String.class).publish(heartbeatChannel, Long.toString(sent));
        } catch (RuntimeException e) {
            heartbeat = 0; // not sent: nothing to judge the subscription by
            LOG.debugf("Could not send the units-back heartbeat: %s", e.toString());
        }
    }

    /** The subscription's heartbeat channel (tests). */
    String heartbeatChannel() {
        return heartbeatChannel;
    }

    /** The current subscription (tests). */
    PubSubCommands.RedisSubscriber subscriber() {
        return subscriber;
    }

    /** Forgets every item: the counters the levels came from may have changed without a message (data loss). */
    public void forgetAll() {
        entries.clear();
    }

    private void onMessage(String channel, String message) {
        if (heartbeatChannel.equals(channel)) {
            if (message.equals(Long.toString(heartbeat))) {
                heartbeat = 0;
            }
            return;
        }
        int space = message.lastIndexOf(' ');
        if (space < 0) {
            return;
        }
        try {
            String item = message.substring(0, space);
            String sku = item.startsWith("fs:{") ? RedisKeys.skuOfStock(item) : item;
            forget(sku, Long.parseLong(message.substring(space + 1)));
        } catch (IllegalArgumentException e) {
            LOG.debugf("Ignoring units-back message %s", message);
        }
    }

    /**
     * Units came back to the item at change number {@code version} (this pod learned it itself, without waiting
     * for the message): what is known from before is dropped, and no older answer is taken.
     */
    public void forget(String sku, long version) {
        entries.compute(sku, (k, old) -> {
            long floor = old == null ? version : Math.max(old.floor(), version);
            boolean keep = old != null && old.level() != null && old.level().version() >= version;
            return new Entry(keep ? old.level() : null, floor, keep ? old.loadedAt() : System.nanoTime());
        });
    }

    /**
     * Whether {@code quantity} units of the item are known to be not there: a level loaded within the TTL, not
     * outdated by a units-back message, and the subscription up. False means: ask the strategy.
     */
    public boolean soldOut(String sku, int quantity) {
        if (!listening) {
            return false;
        }
        Entry entry = entries.get(sku);
        if (entry == null || entry.level() == null || !ON_SALE.equals(entry.level().state())
                || entry.level().available() >= quantity || System.nanoTime() - entry.loadedAt() > ttlNanos) {
            return false;
        }
        fromMemory.increment();
        return true;
    }

    /** The strategy answered for the item: {@code available} units at change number {@code version}. */
    public void observed(String sku, int available, long version) {
        remember(sku, new Level(available, version));
    }

    private void remember(String sku, Level level) {
        if (entries.size() >= MAX_ENTRIES && !entries.containsKey(sku)) {
            entries.clear();
        }
        entries.compute(sku, (k, old) -> {
            if (old != null && (level.version() < old.floor()
                    || old.level() != null && old.level().version() > level.version())) {
                return old; // an answer from before units came back, or older than what is known
            }
            return new Entry(level, old == null ? level.version() : Math.max(old.floor(), level.version()),
                    System.nanoTime());
        });
    }

    /**
     * The item changed in MySQL at {@code version} in a way a cached level must not outlive: units came back
     * (cancel, expiry, restock) or the sale window changed ({@code db-optimistic}, {@code redis-lock}). Every pod
     * forgets what it knew. Under {@code redis-lua} the scripts that change the hot stock say it themselves. Never
     * throws nor waits for Redis: entries expire after the TTL anyway.
     */
    public void changed(String sku, long version) {
        if (mirror.active()) {
            return;
        }
        forget(sku, version);
        announcer.pubsub(String.class).publish(RedisKeys.unitsBackChannel(), sku + " " + version).subscribe().with(
                ignored -> {
                }, e -> LOG.debugf("Could not announce units back for %s: %s", sku, e.toString()));
    }

    /**
     * A purchase was refused sold-out: loads the item's level unless one within the TTL is known, so that the next
     * refusals come from memory. Never throws.
     */
    public void learn(String sku) {
        if (!needsLoad(sku)) {
            return;
        }
        try {
            load(sku);
        } catch (RuntimeException e) {
            LOG.debugf("Could not load the availability of %s: %s", sku, e.toString());
        }
    }

    /** {@link #learn} for a caller that must not block (the event loop): a load, when needed, runs on a worker. */
    public void learnSoon(String sku) {
        if (needsLoad(sku)) {
            Infrastructure.getDefaultWorkerPool().execute(() -> learn(sku));
        }
    }

    /** Whether learning the item needs a load: listening, and no level of it within the TTL. */
    private boolean needsLoad(String sku) {
        Entry entry = entries.get(sku);
        return listening && (entry == null || entry.level() == null || System.nanoTime() - entry.loadedAt() > ttlNanos);
    }

    /** The item's availability, loaded at most once per TTL in this pod (concurrent readers share one load). */
    public AvailabilityView read(String sku) {
        Entry entry = entries.get(sku);
        Level level = entry != null && entry.level() != null && System.nanoTime() - entry.loadedAt() <= ttlNanos
                ? entry.level() : load(sku);
        if (level == Level.NONE) {
            throw FlashstockException.itemNotFound(sku);
        }
        return AvailabilityView.of(sku, level.available(), level.state());
    }

    private Level load(String sku) {
        CompletableFuture<Level> mine = new CompletableFuture<>();
        CompletableFuture<Level> running = loading.putIfAbsent(sku, mine);
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
            Level level = mirror.active() ? mirror.level(sku) : fromDatabase(sku);
            remember(sku, level);
            mine.complete(level);
            return level;
        } catch (RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            loading.remove(sku, mine);
        }
    }

    private static Level fromDatabase(String sku) {
        return QuarkusTransaction.requiringNew().call(() -> {
            Item item = Item.findById(sku);
            if (item == null) {
                return Level.NONE;
            }
            SaleWindow window = item.saleWindow();
            return new Level(item.available, item.version,
                    window.bounded() ? window.state(Item.databaseNow()) : window.state(Instant.EPOCH));
        });
    }
}
