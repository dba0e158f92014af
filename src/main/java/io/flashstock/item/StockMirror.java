package io.flashstock.item;

import java.time.Instant;
import java.util.List;

import io.flashstock.support.KeyFilter;

/**
 * Where the items' counters live besides MySQL, chosen once at startup by the configured strategy: the Redis hot stock
 * of {@code redis-lua} (its own implementation), or nothing but MySQL ({@link MySqlStock}) for the others. Services
 * ask it what to do after (and inside) their transactions; none of them asks which strategy runs.
 *
 * <p>Protocol: inside the transaction that changes counters, {@link #record} stores a {@link StockEvent} when there is a
 * copy to keep in step; after the commit, {@link #apply} mirrors and deletes those events. A pod that crashes in
 * between leaves the rows behind, and the mirror's sweeper applies them. Applying is idempotent. The one change that
 * cannot wait for the commit is a stock set that lowers the stock: the copy decides purchases on counters of its own,
 * so {@link #take} checks and takes the units there inside the transaction, and {@link #untake} gives them back if it
 * does not commit ({@code StockSets.setStock}).
 */
public interface StockMirror {

    /** Whether the copy outside MySQL can be used now, for readiness. */
    enum Readiness {
        /** There is no copy: MySQL alone holds the counters. */
        NOT_USED,
        READY,
        NOT_READY
    }

    /** Records a committed change for mirroring; call inside the changing transaction. Null: nothing to mirror. */
    StockEvent record(StockEvent.Kind kind, String sku, String orderId, int quantity, Instant now);

    /** What {@link #take} found where purchases are decided. */
    enum Take {
        /** The units were taken (or there is no copy: MySQL's conditional update decides alone). */
        TAKEN,
        /** Fewer units are available than the stock set takes: reserved + sold would pass the new stock. */
        SHORT,
        /** The copy does not hold the item now (Redis lost it, a warm-up is due): nothing taken, try again. */
        COLD
    }

    /**
     * Inside the transaction of a stock set that lowers the stock ({@code event}, recorded by {@link #record} with a
     * negative quantity, holding the item's row lock): takes {@code -event.quantity} available units where purchases
     * are decided, atomically with the check that they are there, so that a purchase decided there never finds the
     * units the stock set removed. Applying the event after the commit then adds nothing; {@link #untake} gives them
     * back when the transaction does not commit. Blocks.
     */
    Take take(StockEvent event);

    /**
     * Gives back what {@link #take} took for {@code event}, once its transaction is believed not to have committed;
     * nothing when it took nothing or gave it back already. Answers true, giving nothing back, when the copy has
     * applied the event meanwhile: only a committed event is applied, so the transaction did commit (a lookup after a
     * lost commit answer can miss the event, which a sweeper mirrors and deletes). Never throws (a failure is logged:
     * the reconciliation corrects the copy once the item is quiet).
     */
    boolean untake(StockEvent event);

    /** Mirrors events whose transaction committed, then deletes them. Never throws: the sweeper retries. */
    void apply(List<StockEvent> events);

    /**
     * {@link #apply} of one committed change that purchases must see once it is answered (a pause, a sale window, a
     * retire): tried again for a short while when it cannot be applied at once (a pod rebuilding the item holds it for
     * a moment, Redis is slow), then left to the sweeper. Never throws.
     */
    void applyInForce(StockEvent event);

    /** Makes a new item's counters available to the mirror (after its creation committed). Never throws. */
    void itemCreated(String sku);

    /**
     * The item's available units and change number where purchases are decided (MySQL, or the copy, warming the item
     * if the copy has none); {@link StockLevel#NONE} for an unknown item.
     */
    StockLevel level(String sku);

    /**
     * The Idempotency-Keys of the item's successful single purchases (each with its user), wherever the strategy holds
     * them, read after the level that showed the item sold out: a purchase with a key the filter does not hold is not
     * the retry of an earlier success, so it may be refused from memory. {@code null} when the item has too many keys
     * to hold ({@link StoredKeys#MAX}). Blocks.
     */
    KeyFilter keysOf(String sku);

    /**
     * The item as MySQL stored it, with the copy's counters when the copy holds the item: those count every
     * acknowledged purchase, MySQL's may trail behind (write-behind). {@code stored} when there is no copy.
     */
    ItemView current(ItemView stored);

    /**
     * Whether orders may be on their way to MySQL outside it (the redis-lua streams): then a recent order id that MySQL
     * does not have yet is worth a {@link #persistPending} before it is answered 404.
     */
    boolean mayHavePending();

    /**
     * Makes an order (or a multi-item purchase: its id is its first line's order id) that was acknowledged but may not
     * be in MySQL yet (write-behind) land there now; returns whether anything was persisted. For GET/confirm/cancel
     * right after the purchase. A made-up id costs one bounded lookup, never relay work.
     */
    boolean persistPending(String id);

    /**
     * Makes every order of the item acknowledged so far land in MySQL now (write-behind), so that a listing of the
     * item's orders read next has them all. Nothing to do where every acknowledged order is in MySQL already. Waits a
     * bounded time for a relay round under way: then 503 {@code unavailable}.
     */
    void persistPendingOf(String sku);

    /**
     * How many acknowledged orders, of every item, may not be in MySQL yet (write-behind): what a listing of orders
     * read from MySQL now may miss. 0 where every acknowledged order is in MySQL before its answer.
     */
    long pendingOrders();

    /**
     * Inside the transaction that gave units of the item back in MySQL: the item's version to {@link #announce} after
     * the commit, or -1 when the mirror tells every pod itself once it applied the change (its scripts do).
     */
    long returnedAtVersion(String sku);

    /**
     * The item changed in MySQL at {@code version} in a way a known level must not outlive (units back, a new sale
     * window): every pod is told, this one at once, unless the mirror's own scripts tell them when they apply it.
     * Never throws nor waits for Redis.
     */
    void announce(String sku, long version);

    /** Whether the copy can be used now (for readiness). */
    Readiness readiness();
}
