package io.flashstock.deduction.lua;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.order.OrderIds;
import io.flashstock.redis.LuaScript;
import io.flashstock.redis.RedisKeys;
import io.flashstock.support.TrackedItems;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.sortedset.ScoreRange;
import io.quarkus.redis.datasource.sortedset.ScoredValue;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * The items with work ({@code redis-lua}): bought (a purchase took units, or may have: its call failed and voiding it
 * could not tell), changed (a mirrored stock event) or rebuilt lately, or holding pending orders. The relay, the
 * reconcile and the sweeps look at these and only these, so what a pod sends to Redis grows with the items on sale,
 * never with the catalog. Reads, first warm-ups and refused purchases make no item active: every caller may read
 * every item, and a relay round that looked at each of them would hold up the items being bought.
 * <ul>
 * <li>A pod touching an item announces it in the shared sorted set {@link RedisKeys#activeItems()} (at most once per
 * {@link #ANNOUNCE_EVERY} per item), so every pod's relay learns it within a watch round: a crashed pod's pending
 * orders are claimed by the others, and a pod that starts reads the whole set once.</li>
 * <li>An item quiet for {@code flashstock.lua.active-for} with an empty stream, whose counters were last seen equal
 * to MySQL's, leaves the pod's rounds, and the shared set unless announced since ({@code lua/retire_item.lua}). An
 * item with pending orders, or still to be reconciled, never leaves.</li>
 * </ul>
 */
@Singleton
public class ActiveItems {

    private static final Logger LOG = Logger.getLogger(ActiveItems.class);
    /** How often a pod refreshes its announcement of an item it keeps touching. */
    static final Duration ANNOUNCE_EVERY = Duration.ofSeconds(5);
    /** Clock differences between pods the shared set's reads allow for (announcements carry the pod's clock). */
    static final long SKEW = 60_000;

    private final RedisDataSource redis;
    private final ReactiveRedisDataSource reactive;
    private final LuaScript retire = LuaScript.load("retire_item");
    private final long activeForNanos;
    /** sku → when this pod last touched or saw it (System.nanoTime). */
    private final Map<String, Long> touched = new ConcurrentHashMap<>();
    /** sku → when this pod last announced it (System.nanoTime). */
    private final Map<String, Long> announced = new ConcurrentHashMap<>();
    /** Items whose last announcement failed (a subset of {@link #touched}'s). */
    private final Set<String> unannounced = ConcurrentHashMap.newKeySet();
    /** Items bought through this pod since the relay last looked (write-behind wakes the relay for them). */
    private final Set<String> dirty = ConcurrentHashMap.newKeySet();
    /** sku → the latest announcement read from the shared set (epoch ms, the announcing pod's clock). */
    private final Map<String, Double> read = new ConcurrentHashMap<>();
    /** The highest announcement time read from the shared set; later reads start {@link #SKEW} before it. */
    private volatile double seenUpTo = Double.NEGATIVE_INFINITY;
    /** When {@link #refreshIfDue} last read the shared set (System.nanoTime). */
    private final java.util.concurrent.atomic.AtomicLong lastRefresh = new java.util.concurrent.atomic.AtomicLong(
            System.nanoTime() - java.time.Duration.ofHours(1).toNanos());

    ActiveItems(RedisDataSource redis, ReactiveRedisDataSource reactive, FlashstockConfig config,
            MeterRegistry registry) {
        this.redis = redis;
        this.reactive = reactive;
        this.activeForNanos = config.lua().activeFor().toNanos();
        TrackedItems.register(registry, "active-items", "redis-lua", touched, Map::size);
    }

    /**
     * The item has work now: this pod's rounds look at it, and so will every other pod's. Never blocks (a purchase on
     * the event loop touches its item): the announcement is sent without waiting for Redis's answer, and one that
     * fails is sent again by the next watch round ({@link #announceFailed}) or touch: the purchase never depended on
     * it, but another pod must learn of the item even if this pod dies and nobody buys it again.
     */
    public void touch(String sku) {
        long now = System.nanoTime();
        touched.put(sku, now);
        Long last = announced.get(sku);
        if (last == null || now - last >= ANNOUNCE_EVERY.toNanos()) {
            announce(sku, now);
        }
    }

    /** Sends again the announcements that failed, of the items still in this pod's rounds. */
    void announceFailed() {
        for (String sku : unannounced) {
            if (touched.containsKey(sku) && !announced.containsKey(sku)) {
                announce(sku, System.nanoTime());
            } else {
                unannounced.remove(sku);
            }
        }
    }

    private void announce(String sku, long now) {
        announced.put(sku, now);
        reactive.sortedSet(String.class).zadd(RedisKeys.activeItems(), System.currentTimeMillis(), sku)
                .subscribe().with(added -> unannounced.remove(sku), e -> {
                    announced.remove(sku);
                    unannounced.add(sku);
                    LOG.debugf("Could not announce %s: %s", sku, e.toString());
                });
    }

    /** A purchase through this pod left an order to persist (write-behind). */
    void dirty(String sku) {
        dirty.add(sku);
    }

    /** The items bought through this pod since the last call. */
    Set<String> takeDirty() {
        if (dirty.isEmpty()) {
            return Set.of();
        }
        Set<String> taken = Set.copyOf(dirty);
        dirty.removeAll(taken);
        return taken;
    }

    /** Every item with work, as this pod knows them. */
    Set<String> all() {
        return touched.keySet();
    }

    /** The items with work whose order ids carry {@code tag} (few: the items with work are few). */
    Set<String> withTag(int tag) {
        Set<String> tagged = new java.util.HashSet<>();
        for (String sku : touched.keySet()) {
            if (OrderIds.itemTag(sku) == tag) {
                tagged.add(sku);
            }
        }
        return tagged;
    }

    /** {@link #refresh} unless one ran within {@code minGap} (then false): a bound however often it is asked for. */
    boolean refreshIfDue(java.time.Duration minGap) {
        long now = System.nanoTime();
        long last = lastRefresh.get();
        if (now - last < minGap.toNanos() || !lastRefresh.compareAndSet(last, now)) {
            return false;
        }
        refresh();
        return true;
    }

    /**
     * Learns the items other pods announced since the last read (everything in the set the first time: items with
     * pending orders whatever their age). One command, reading only recent announcements.
     */
    void refresh() {
        double highest = seenUpTo;
        List<ScoredValue<String>> announcedSince = redis.sortedSet(String.class).zrangebyscoreWithScores(
                RedisKeys.activeItems(), new ScoreRange<>(highest - SKEW, true, Double.POSITIVE_INFINITY, true));
        long now = System.nanoTime();
        for (ScoredValue<String> item : announcedSince) {
            Double before = read.put(item.value(), item.score());
            if (before == null || before < item.score()) {
                touched.put(item.value(), now);
            }
            highest = Math.max(highest, item.score());
        }
        seenUpTo = highest;
    }

    /**
     * Drops the items quiet for {@code active-for} that have no work left ({@code busy} false: no pending order),
     * here and, unless announced since, in the shared set.
     */
    void retire(Predicate<String> busy) {
        long now = System.nanoTime();
        long cutoffMillis = System.currentTimeMillis() - activeForNanos / 1_000_000;
        for (Map.Entry<String, Long> item : touched.entrySet()) {
            String sku = item.getKey();
            if (now - item.getValue() < activeForNanos || busy.test(sku)) {
                continue;
            }
            retire.run(redis, List.of(RedisKeys.activeItems()), List.of(sku, Long.toString(cutoffMillis)));
            if (touched.remove(sku, item.getValue())) {
                announced.remove(sku);
                unannounced.remove(sku);
                read.remove(sku);
            }
        }
    }

    /** The retire script, loaded with the others whenever Redis may have lost its scripts. */
    LuaScript retireScript() {
        return retire;
    }
}
