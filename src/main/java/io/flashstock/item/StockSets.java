package io.flashstock.item;

import java.time.Instant;
import java.util.List;

import io.flashstock.db.LostCommit;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.flashstock.support.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * {@code PUT /items/{sku}/stock}: sets an item's stock under its version (If-Match), in MySQL and, for redis-lua, in
 * the hot stock, which decides purchases ahead of MySQL. The protocol between the two is below ({@link #setStock});
 * it appends its movement ({@link Ledger}) with the caller's {@code actor}, also for a stock set to the same stock.
 */
@ApplicationScoped
public class StockSets {

    private final StockMirror mirror;
    private final Availability availability;

    StockSets(StockMirror mirror, Availability availability) {
        this.mirror = mirror;
        this.availability = availability;
    }

    /**
     * Sets the item's stock to {@code stock} if it is at a version {@code ifMatch} names: 428 without If-Match, 412
     * {@code version-mismatch} when stale, 409 {@code stock-below-committed} when reserved + sold units pass
     * {@code stock}; else available becomes {@code stock - reserved - sold}. A purchase racing the change never makes
     * available negative and is never lost.
     *
     * <p>The protocol. In one MySQL transaction: lock the item's row ({@link Item#lockForChange}), check the version
     * and MySQL's reserved + sold, then the conditional update ({@link Item#setStock}: {@code WHERE version = ? AND
     * reserved + sold <= N}, bumping the version). MySQL strategies decide purchases on that row, so the lock and the
     * condition are the whole check. redis-lua decides purchases in the Redis hot stock, whose reserved + sold run
     * ahead of MySQL's (write-behind: orders still in the streams; both modes: a confirm or cancel committed in MySQL
     * and not yet mirrored only lowers MySQL's), so MySQL's check alone could pass a stock that Redis has sold past.
     * There the change goes in as a stock event of {@code delta = N - old stock} (the kind of a restock: a change of
     * stock and available, which commutes with restocks and purchases) and:
     * <ul>
     * <li>a lowering takes {@code -delta} available units in the hot stock <em>inside</em> the transaction, under the
     * row lock ({@link StockMirror#take}, {@code lua/set_stock.lua}): the check {@code available >= -delta} is made
     * by Redis, atomically with every purchase, on its own counters (pending orders included). Short: 409, the
     * transaction rolls back, nothing was taken. Taken: commit; applying the event afterwards adds nothing (its
     * marker is set). If the commit does not land (rolled back, or a lost commit that MySQL shows did not land), the
     * units are given back ({@link StockMirror#untake}); if nobody can tell (outcome-unknown), they stay taken: the
     * hot stock sells fewer units, never more, until the reconciliation corrects it from MySQL. While a take waits for
     * its commit, the reconciliation leaves the item alone ({@code taking} field).</li>
     * <li>a raise is applied after the commit, like a restock ({@code lua/restock.lua}, once, newest snapshot
     * aware): until then purchases are decided on the old, lower stock, which is safe.</li>
     * </ul>
     * The hot stock is warmed before the row is locked, so the take finds it; a take that finds it cold anyway is 503
     * (nothing changed). Answers the item with the counters purchases are decided on.
     */
    public ItemView setStock(String sku, int stock, IfMatch ifMatch, String actor) {
        IfMatch.required(ifMatch, sku);
        if (mirror.level(sku) == StockLevel.NONE) { // redis-lua: the hot stock is warm before the row is locked
            throw FlashstockException.itemNotFound(sku);
        }
        LostCommit<ItemView> commit = LostCommit.perAttempt();
        StockEvent[] taken = new StockEvent[1];
        Done set;
        try {
            set = QuarkusTransaction.requiringNew().call(() -> {
                commit.attempt();
                Instant now = Timestamps.now();
                Item.Locked locked = ItemService.lockForChange(sku);
                ifMatch.check(sku, locked.version());
                if (locked.committed() > stock || Item.setStock(sku, stock, locked.version(), now) == 0) {
                    throw FlashstockException.stockBelowCommitted(sku, stock, locked.committed());
                }
                int delta = stock - locked.stock();
                Ledger.record(Ledger.Entry.stock(sku, Ledger.Kind.STOCK_SET, delta, null, actor));
                StockEvent event = delta == 0 ? null
                        : mirror.record(StockEvent.Kind.RESTOCKED, sku, null, delta, now);
                if (event != null && delta < 0) {
                    // Before the call: a take whose answer is lost may have taken, and the undo gives back only what
                    // a take took (once), so a failure is settled as if it had.
                    taken[0] = event;
                    switch (mirror.take(event)) {
                        case SHORT -> {
                            taken[0] = null;
                            throw FlashstockException.stockBelowCommitted(sku, stock, -1);
                        }
                        case COLD -> {
                            taken[0] = null;
                            throw new UnavailableException(
                                    "The hot stock of this item is not ready; nothing was changed, try again.");
                        }
                        case TAKEN -> {
                        }
                    }
                }
                Done changed = new Done(ItemView.of(ItemService.find(sku)), event);
                commit.committing(event == null ? LostCommit.Landing.unknown()
                        : LostCommit.Landing.lookedUp("stock set " + event.id,
                                () -> StockEvent.committed(event.id) ? ItemView.of(ItemService.find(sku)) : null,
                                after -> after)); // committed: the stock-event sweeper mirrors it
                return changed; // what follows is its commit
            });
        } catch (RuntimeException e) {
            return settleStockSet(commit, taken[0], e);
        }
        if (set.event() != null) {
            mirror.apply(List.of(set.event()));
        }
        availability.changed(sku, set.item().version());
        return mirror.current(set.item());
    }

    /**
     * The answer of a stock set whose transaction failed: units taken in the hot stock are given back when the change
     * did not land, and kept when it did or when nobody can tell (then fewer units sell, never more).
     */
    private ItemView settleStockSet(LostCommit<ItemView> commit, StockEvent taken, RuntimeException failure) {
        if (taken == null) {
            return commit.settle(failure);
        }
        if (!commit.lost(failure)) {
            mirror.untake(taken); // rolled back
            throw failure;
        }
        try {
            return commit.settle(failure);
        } catch (UnavailableException notLanded) {
            if (mirror.untake(taken)) {
                // The lookup missed the event because a sweeper had mirrored it, which only a committed one is.
                try {
                    return QuarkusTransaction.requiringNew().call(() -> ItemView.of(ItemService.find(taken.sku)));
                } catch (RuntimeException unread) {
                    throw FlashstockException.outcomeUnknown(unread); // landed, but the item cannot be read now
                }
            }
            throw notLanded;
        }
    }

    /** The item as the stock set committed it, and the stock event for the mirror (null when the stock is unchanged). */
    private record Done(ItemView item, StockEvent event) {
    }
}
