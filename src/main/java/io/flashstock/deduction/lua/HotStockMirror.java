package io.flashstock.deduction.lua;

import static io.flashstock.error.UnavailableException.unlessFailing;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.error.UnavailableException;
import io.flashstock.item.Item;
import io.flashstock.item.ItemView;
import io.flashstock.item.StockEvent;
import io.flashstock.item.StockLevel;
import io.flashstock.item.StockMirror;
import io.flashstock.item.StoredKeys;
import io.flashstock.item.UnitsBackChannel;
import io.flashstock.redis.RedisKeys;
import io.flashstock.support.KeyFilter;
import io.flashstock.support.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.redis.datasource.RedisDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The {@link StockMirror} of {@code redis-lua}: confirm, cancel, expiry and restock commit in MySQL first, with a
 * {@link StockEvent} row (the outbox); the event is then applied to the hot stock by an idempotent script and
 * deleted. {@link #sweep()} applies rows a crashed pod left behind. Chosen only when redis-lua is the strategy
 * ({@link RedisLuaStrategy#stockMirror()}); not a {@link StockMirror} bean by itself.
 */
@ApplicationScoped
@Typed(HotStockMirror.class)
public class HotStockMirror implements StockMirror {

    private static final Logger LOG = Logger.getLogger(HotStockMirror.class);
    /** What the mirror scripts answer for an item without hot stock. */
    private static final long COLD = -1;
    /** What set_stock.lua's UNDO answers for an event the hot stock applied: its transaction committed. */
    private static final long APPLIED = -2;
    /**
     * An event of an item still cold this long after its commit is moot: no warm-up that started before the commit
     * is still running (their leases are shorter), so the next warm-up reads a MySQL snapshot that has it.
     */
    private static final Duration COLD_EVENT_MOOT_AFTER = Duration.ofMinutes(1);
    private static final String HOT_STOCK_UNREADABLE = "The hot stock cannot be read now; try again.";

    private final RedisDataSource redis;
    private final HotStockScripts scripts;
    private final HotStock hotStock;
    private final HotStockWarmer warmer;
    private final RecentOrders recent;
    private final ActiveItems items;
    private final UnitsBackChannel unitsBack;
    private final FlashstockConfig.Lua settings;
    private final PendingStream stream;
    /**
     * Longest one {@link #apply} keeps trying: two Redis timeouts. With Redis hung, each event would wait out the
     * client's timeout; the events left are the sweeper's, so a batch of the expiry job does not hold its run for
     * hundreds of timeouts.
     */
    private final Duration applyBudget;

    HotStockMirror(RedisDataSource redis, HotStockScripts scripts, HotStock hotStock, HotStockWarmer warmer,
            RecentOrders recent, ActiveItems items, UnitsBackChannel unitsBack, PendingStream stream,
            FlashstockConfig config, @ConfigProperty(name = "quarkus.redis.timeout") Duration redisTimeout) {
        this.applyBudget = redisTimeout.multipliedBy(2);
        this.redis = redis;
        this.stream = stream;
        this.scripts = scripts;
        this.hotStock = hotStock;
        this.warmer = warmer;
        this.recent = recent;
        this.items = items;
        this.unitsBack = unitsBack;
        this.settings = config.lua();
    }

    @Override
    public StockEvent record(StockEvent.Kind kind, String sku, String orderId, int quantity, Instant now) {
        return StockEvent.record(kind, sku, orderId, quantity, now);
    }

    /**
     * Takes the units of a stock set that lowers the stock, in the hot stock of this pod's generation, if they are
     * available there ({@code lua/set_stock.lua} TAKE): Redis's counters run ahead of MySQL's (orders still pending in
     * the streams), and purchases are decided on them, so this is where the check is made. Cold, of another
     * generation or being rebuilt (its lock held): nothing taken, the caller answers 503. Redis failing or too slow:
     * {@link UnavailableException} (503), and the take may have run, so the caller undoes it ({@link #untake}).
     */
    @Override
    public Take take(StockEvent event) {
        long taken = unlessFailing("The hot stock did not answer; nothing was changed, try again.",
                () -> setStock("TAKE", event));
        if (taken > 0) {
            items.touch(event.sku);
            return Take.TAKEN;
        }
        return taken == -2 ? Take.SHORT : Take.COLD;
    }

    /** Gives back the units {@link #take} took, once, unless the event was applied ({@code lua/set_stock.lua} UNDO). */
    @Override
    public boolean untake(StockEvent event) {
        try {
            long back = setStock("UNDO", event);
            if (back > 0) {
                unitsBack.learned(event.sku, back);
            }
            return back == APPLIED;
        } catch (RuntimeException e) {
            LOG.warnf("Could not give back the units of a stock set of %s that did not commit; the reconciliation "
                    + "corrects the hot stock once the item is quiet: %s", event.sku, e.toString());
            return false;
        }
    }

    private long setStock(String mode, StockEvent event) {
        return scripts.setStock.run(redis,
                List.of(RedisKeys.stock(event.sku), RedisKeys.event(event.sku, event.id), RedisKeys.lock(event.sku)),
                List.of(mode, event.id, Integer.toString(-event.quantity), Long.toString(markerTtlSeconds()),
                        RedisKeys.unitsBackChannel(), Objects.requireNonNullElse(warmer.generation(), ""))).toLong();
    }

    private long markerTtlSeconds() {
        return Math.max(3600, settings.idempotencyTtl().toSeconds());
    }

    @Override
    public void apply(List<StockEvent> events) {
        mirror(events);
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
                            Long.toString(markerTtlSeconds()),
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

    /** Nothing to do: the item's first purchase or availability read warms it, so an item never sold costs nothing. */
    @Override
    public void itemCreated(String sku) {
        // warmed on demand
    }

    @Override
    public StockLevel level(String sku) {
        StockLevel level = hotLevel(sku);
        for (int attempt = 0; level == null && attempt < 2; attempt++) { // missing or stale: warm, read again
            try {
                hotStock.prepare(sku);
            } catch (FlashstockException e) {
                if (e.code() == ProblemCode.ITEM_NOT_FOUND) {
                    return StockLevel.NONE;
                }
                throw e;
            }
            level = hotLevel(sku);
        }
        if (level == null) {
            throw new UnavailableException("The hot stock is not ready; try again.");
        }
        return level; // a read makes no item active: only what leaves work for the rounds does (ActiveItems)
    }

    /** The item's level as its hot stock of this pod's generation holds it; null when missing or stale. */
    private StockLevel hotLevel(String sku) {
        Map<String, String> fields = unlessFailing(HOT_STOCK_UNREADABLE, () -> redis.hash(String.class).hmget(
                RedisKeys.stock(sku), "available", "seq", "gen", "starts", "ends", "paused", "retired"));
        if (fields.get("available") == null || !hotStock.isCurrent(fields.get("gen"))) {
            return null;
        }
        return new StockLevel(Integer.parseInt(fields.get("available")), Long.parseLong(fields.get("seq")),
                SaleFields.state(fields, () -> unlessFailing(HOT_STOCK_UNREADABLE, this::redisNow)));
    }

    /** Redis's clock: the one purchase.lua judges sale windows by. */
    private Instant redisNow() {
        io.vertx.mutiny.redis.client.Response time = redis.execute("TIME");
        return Instant.ofEpochSecond(time.get(0).toLong(), time.get(1).toLong() * 1000);
    }

    /**
     * The keys of entries still in the item's stream, then those in MySQL: read in that order, an order the relay moves
     * meanwhile is in MySQL by the time MySQL is read (it leaves the stream only after its commit), so none is missed.
     */
    @Override
    public KeyFilter keysOf(String sku) {
        List<String> keys = new ArrayList<>(stream.pendingKeys(sku));
        List<String> stored = StoredKeys.of(sku);
        if (stored == null) {
            return null;
        }
        keys.addAll(stored);
        return KeyFilter.of(keys);
    }

    @Override
    public ItemView current(ItemView stored) {
        Map<String, String> hot = unlessFailing(HOT_STOCK_UNREADABLE, () -> redis.hash(String.class)
                .hmget(RedisKeys.stock(stored.sku()), "stock", "available", "reserved", "sold", "gen"));
        if (hot.get("available") == null || !hotStock.isCurrent(hot.get("gen"))) {
            return stored; // not warm: no purchase since it was last warmed here, MySQL is current
        }
        return stored.withCounters(Integer.parseInt(hot.get("stock")), Integer.parseInt(hot.get("available")),
                Integer.parseInt(hot.get("reserved")), Integer.parseInt(hot.get("sold")));
    }

    /** Orders are recorded in the items' streams before MySQL has them (for a moment in write-through too). */
    @Override
    public boolean mayHavePending() {
        return true;
    }

    /** Write-behind: a recent order's item is drained first (write-through answers after MySQL has the order). */
    @Override
    public boolean persistPending(String id) {
        return writeBehind() && recent.persist(id);
    }

    /** Write-behind: the relay persists the item's stream now. */
    @Override
    public void persistPendingOf(String sku) {
        if (writeBehind()) {
            recent.drain(sku);
        }
    }

    @Override
    public long pendingOrders() {
        return writeBehind() ? recent.pendingOrders() : 0;
    }

    private boolean writeBehind() {
        return settings.persistence() == FlashstockConfig.Persistence.WRITE_BEHIND;
    }

    /** The scripts that apply the event publish the units-back message themselves ({@link #apply}). */
    @Override
    public long returnedAtVersion(String sku) {
        return -1;
    }

    /** Nothing: the scripts that change the hot stock tell every pod themselves. */
    @Override
    public void announce(String sku, long version) {
        // announced by the mirror scripts
    }

    @Override
    public Readiness readiness() {
        return warmer.isReady() ? Readiness.READY : Readiness.NOT_READY;
    }
}
