package io.flashstock.deduction.lua;

import static io.flashstock.error.UnavailableException.unlessFailing;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.error.UnavailableException;
import io.flashstock.item.ItemView;
import io.flashstock.item.StockEvent;
import io.flashstock.item.StockLevel;
import io.flashstock.item.StockMirror;
import io.flashstock.item.StoredKeys;
import io.flashstock.item.UnitsBackChannel;
import io.flashstock.redis.RedisKeys;
import io.flashstock.support.KeyFilter;
import io.quarkus.redis.datasource.RedisDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import org.jboss.logging.Logger;

/**
 * The {@link StockMirror} of {@code redis-lua}: confirm, cancel, expiry and restock commit in MySQL first, with a
 * {@link StockEvent} row (the outbox); the event is then applied to the hot stock by an idempotent script and
 * deleted ({@link HotStockEvents}, whose sweep applies rows a crashed pod left behind). Chosen only when redis-lua is
 * the strategy ({@link RedisLuaStrategy#stockMirror()}); not a {@link StockMirror} bean by itself.
 */
@ApplicationScoped
@Typed(HotStockMirror.class)
public class HotStockMirror implements StockMirror {

    private static final Logger LOG = Logger.getLogger(HotStockMirror.class);
    /** What set_stock.lua's UNDO answers for an event the hot stock applied: its transaction committed. */
    private static final long APPLIED = -2;
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
    private final HotStockEvents eventMirror;

    HotStockMirror(RedisDataSource redis, HotStockScripts scripts, HotStock hotStock, HotStockWarmer warmer,
            RecentOrders recent, ActiveItems items, UnitsBackChannel unitsBack, PendingStream stream,
            HotStockEvents eventMirror, FlashstockConfig config) {
        this.redis = redis;
        this.stream = stream;
        this.scripts = scripts;
        this.hotStock = hotStock;
        this.warmer = warmer;
        this.recent = recent;
        this.items = items;
        this.unitsBack = unitsBack;
        this.eventMirror = eventMirror;
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
                List.of(mode, event.id, Integer.toString(-event.quantity),
                        Long.toString(HotStockEvents.markerTtlSeconds(settings)),
                        RedisKeys.unitsBackChannel(), Objects.requireNonNullElse(warmer.generation(), ""))).toLong();
    }

    @Override
    public void apply(List<StockEvent> events) {
        eventMirror.apply(events);
    }

    @Override
    public void applyInForce(StockEvent event) {
        eventMirror.applyInForce(event);
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
