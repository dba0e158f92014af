package io.flashstock.deduction.lua;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.item.Item;
import io.flashstock.item.StockEvent;
import io.flashstock.item.UnitsBackChannel;
import io.flashstock.redis.RedisKeys;
import io.flashstock.support.Backoff;
import io.flashstock.support.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.redis.datasource.RedisDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The redis-lua hot stock's half of the stock-event outbox ({@link StockEvent}): a change committed in MySQL (confirm,
 * cancel, expiry, restock, stock set, sale window) is applied to the item's hash by an idempotent script, then its row
 * is deleted; {@link #sweep()} applies the rows a crashed pod left behind. {@link HotStockMirror} hands its events here.
 */
@ApplicationScoped
class HotStockEvents {

    private static final Logger LOG = Logger.getLogger(HotStockEvents.class);
    /** What the mirror scripts answer for an item without hot stock. */
    private static final long COLD = -1;
    /**
     * An event of an item still cold this long after its commit is moot: no warm-up that started before the commit
     * is still running (their leases are shorter), so the next warm-up reads a MySQL snapshot that has it.
     */
    private static final Duration COLD_EVENT_MOOT_AFTER = Duration.ofMinutes(1);
    /** How long {@link #applyInForce} keeps trying, and how long it waits between tries. */
    private static final Duration IN_FORCE_WITHIN = Duration.ofSeconds(2);
    private static final Duration IN_FORCE_PAUSE = Duration.ofMillis(25);

    private final RedisDataSource redis;
    private final HotStockScripts scripts;
    private final HotStockWarmer warmer;
    private final ActiveItems items;
    private final UnitsBackChannel unitsBack;
    private final FlashstockConfig.Lua settings;
    /**
     * Longest one {@link #apply} keeps trying: two Redis timeouts. With Redis hung, each event would wait out the
     * client's timeout; the events left are the sweeper's, so a batch of the expiry job does not hold its run for
     * hundreds of timeouts.
     */
    private final Duration applyBudget;

    HotStockEvents(RedisDataSource redis, HotStockScripts scripts, HotStockWarmer warmer, ActiveItems items,
            UnitsBackChannel unitsBack, FlashstockConfig config,
            @ConfigProperty(name = "quarkus.redis.timeout") Duration redisTimeout) {
        this.redis = redis;
        this.scripts = scripts;
        this.warmer = warmer;
        this.items = items;
        this.unitsBack = unitsBack;
        this.settings = config.lua();
        this.applyBudget = redisTimeout.multipliedBy(2);
    }

    /** How long a restock's or stock set's marker lives: at least an hour, and as long as an Idempotency-Key. */
    static long markerTtlSeconds(FlashstockConfig.Lua settings) {
        return Math.max(3600, settings.idempotencyTtl().toSeconds());
    }

    /** Mirrors events whose transaction committed, then deletes them. Never throws: the sweeper retries. */
    void apply(List<StockEvent> events) {
        mirror(events);
    }

    /**
     * Tries again every {@link #IN_FORCE_PAUSE} for up to {@link #IN_FORCE_WITHIN} while a rebuild holds the item's
     * lock: a hash rebuilt from a snapshot before the change would otherwise sell without it until the sweeper's
     * round. An item without hot stock (or of another generation) needs no wait: its next warm-up reads MySQL.
     * <p>
     * Each retry looks at the lock <em>before</em> it tries: a try that found the lock, followed by a look that no
     * longer does, would leave the change out of the hash the rebuild just wrote. Looked at first, a lock gone means
     * the rebuild's hash is there for the try, and a lock taken after the look belongs to a rebuild that reads MySQL
     * after this commit.
     */
    void applyInForce(StockEvent event) {
        if (mirror(List.of(event)) > 0) {
            return;
        }
        long deadline = System.nanoTime() + IN_FORCE_WITHIN.toNanos();
        while (true) {
            boolean rebuilding = beingRebuilt(event.sku);
            if (mirror(List.of(event)) > 0 || !rebuilding) {
                return;
            }
            if (System.nanoTime() - deadline > 0 || !Backoff.sleep(IN_FORCE_PAUSE.toNanos())) {
                LOG.warnf("%s of %s is committed but not in force in the hot stock yet; the sweeper applies it",
                        event.kind, event.sku);
                return;
            }
        }
    }

    /** Whether a pod holds the item's lock to rebuild its hash; false when Redis cannot say (the sweeper retries). */
    private boolean beingRebuilt(String sku) {
        try {
            return redis.key().exists(RedisKeys.lock(sku));
        } catch (RuntimeException e) {
            LOG.warnf("A change of %s may not be in force in the hot stock yet (Redis: %s); the sweeper applies it", sku,
                    e.toString());
            return false;
        }
    }

    /** {@link #apply}; returns how many of the events are done with (mirrored, or moot). */
    private int mirror(List<StockEvent> events) {
        if (events.isEmpty()) {
            return 0;
        }
        List<String> done = new ArrayList<>(events.size());
        Instant moot = Timestamps.now().minus(COLD_EVENT_MOOT_AFTER);
        long deadline = System.nanoTime() + applyBudget.toNanos();
        for (StockEvent event : events) {
            if (System.nanoTime() - deadline > 0) {
                LOG.warnf("Redis is too slow to mirror more now (%d of %d event(s) done); the sweeper mirrors the rest",
                        done.size(), events.size());
                break;
            }
            try {
                long applied = applyOne(event);
                if (applied != COLD) {
                    items.touch(event.sku);
                    done.add(event.id);
                    if (applied > 0 && event.kind != StockEvent.Kind.CONFIRMED) { // units back, or a new window
                        unitsBack.learned(event.sku, applied); // this pod at once; the others by the message
                    }
                } else if (event.createdAt.isBefore(moot)) {
                    done.add(event.id); // cold since: the next warm-up reads it from MySQL
                } // else a warm-up may be under way from a snapshot before the commit: applied after it
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
        return done.size();
    }

    /**
     * Applies one event to the item's hot stock of this pod's generation. A hash of another generation counts as
     * cold (-1: the event is kept): it is about to be rebuilt from a MySQL snapshot that may predate the event, so a
     * change written into it would be lost with it. So does a hash whose item's lock is held: a pod is rebuilding it
     * (a pod that has not taken up a new generation yet still finds the old one in the hash).
     */
    private long applyOne(StockEvent event) {
        String sku = event.sku;
        String generation = Objects.requireNonNullElse(warmer.generation(), "");
        return switch (event.kind) {
            case RESTOCKED -> scripts.restock.run(redis,
                    List.of(RedisKeys.stock(sku), RedisKeys.event(sku, event.id), RedisKeys.lock(sku)),
                    List.of(Integer.toString(event.quantity), event.id,
                            Long.toString(markerTtlSeconds(settings)),
                            Long.toString(event.itemVersion), RedisKeys.unitsBackChannel(), generation)).toLong();
            case SALE -> {
                Item item = QuarkusTransaction.requiringNew().call(() -> Item.<Item>findById(sku));
                yield item == null ? 0 : scripts.sale.run(redis, List.of(RedisKeys.stock(sku), RedisKeys.lock(sku)),
                        List.of(SaleFields.millis(item.saleStartsAt), SaleFields.millis(item.saleEndsAt),
                                SaleFields.flag(item.paused), Long.toString(item.version),
                                RedisKeys.unitsBackChannel(), generation, SaleFields.flag(item.retired))).toLong();
            }
            case CONFIRMED, RETURNED -> scripts.transition.run(redis,
                    List.of(RedisKeys.stock(sku), RedisKeys.users(sku), RedisKeys.held(sku), RedisKeys.lock(sku),
                            RedisKeys.left(sku)),
                    List.of(event.orderId, event.kind.name(), RedisKeys.unitsBackChannel(), generation)).toLong();
        };
    }

    /**
     * Applies events older than two watch intervals: their pod crashed between commit and mirror. Events of an item
     * that is still cold stay until it is warmed or for {@code COLD_EVENT_MOOT_AFTER}, and are looked at again each
     * sweep; only sweeps that mirrored something say so at INFO.
     */
    void sweep() {
        Instant before = Timestamps.now().minus(settings.watchInterval().multipliedBy(2));
        List<StockEvent> left = QuarkusTransaction.requiringNew().call(() -> StockEvent.recordedBefore(before, 500));
        if (!left.isEmpty()) {
            int done = mirror(left);
            if (done > 0) {
                LOG.infof("Mirrored %d stock event(s) left behind; %d left for a later sweep", done,
                        left.size() - done);
            } else {
                LOG.debugf("%d stock event(s) left behind not mirrored yet (items cold)", left.size());
            }
        }
    }
}
