package io.flashstock.item;

import java.util.List;

/**
 * A copy of the items' counters outside MySQL that must follow every change MySQL commits: the Redis hot stock of
 * {@code redis-lua}. Services call it after their transaction commits; when it is not {@link #active()} (the other
 * strategies) every call does nothing.
 *
 * <p>Protocol: inside the transaction that changes counters, {@link #record} stores a {@link StockEvent} (only when
 * active); after the commit, {@link #apply} mirrors and deletes those events. A pod that crashes in between leaves
 * the rows behind, and the mirror's sweeper applies them. Applying is idempotent.
 */
public interface StockMirror {

    boolean active();

    /** Records a committed change for mirroring; call inside the changing transaction. No-op when not active. */
    default StockEvent record(StockEvent.Kind kind, String sku, String orderId, int quantity,
            java.time.Instant now) {
        return active() ? StockEvent.record(kind, sku, orderId, quantity, now) : null;
    }

    /** Mirrors events whose transaction committed, then deletes them. Never throws: the sweeper retries. */
    void apply(List<StockEvent> events);

    /** Makes a new item's counters available to the mirror (after its creation committed). Never throws. */
    void itemCreated(String sku);

    /**
     * The item's available units and change number as the copy holds them, warming the item if the copy has none
     * (only called when {@link #active()}); {@link StockLevel#NONE} for an unknown item.
     */
    StockLevel level(String sku);

    /**
     * The item as MySQL stored it, with the copy's counters when the copy holds the item: those count every
     * acknowledged purchase, MySQL's may trail behind (write-behind). Returns {@code stored} when not active.
     */
    ItemView current(ItemView stored);

    /**
     * Makes an order that was acknowledged but may not be in MySQL yet (write-behind) land there now; returns
     * whether anything was persisted. For GET/confirm/cancel right after the purchase.
     */
    boolean persistPending(String orderId);
}
