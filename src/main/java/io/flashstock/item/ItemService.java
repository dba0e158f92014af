package io.flashstock.item;

import java.time.Instant;
import java.util.List;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.db.ConflictRetry;
import io.flashstock.db.DbErrors;
import io.flashstock.db.LostCommit;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.flashstock.support.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.PersistenceException;

/**
 * Creates, reads, restocks, sets the stock of and retires items in MySQL. Restock is a relative update: it never loses
 * a concurrent sale; a stock set and a retirement are guarded by the item's version (If-Match). Each of these admin
 * actions appends its movement ({@link Ledger}) in its own transaction with the {@code actor} it is given (the
 * caller's token subject), also when it moves no counter (a sale window, a retirement, a stock set to the same stock).
 */
@ApplicationScoped
public class ItemService {

    private final StockMirror mirror;
    private final Availability availability;
    private final long maxReservationSeconds;
    private final int defaultPerUserLimit;
    private final ConflictRetry retry;

    ItemService(StockMirror mirror, Availability availability, FlashstockConfig config, ConflictRetry retry) {
        this.mirror = mirror;
        this.availability = availability;
        this.retry = retry;
        this.maxReservationSeconds = config.reservationCap().toSeconds();
        this.defaultPerUserLimit = Math.max(0, config.defaultPerUserLimit());
    }

    /** Creates the item; once committed, the mirror (redis-lua) warms its hot stock. */
    public ItemView create(CreateItemRequest request, String actor) {
        ItemView created = QuarkusTransaction.requiringNew().call(() -> insert(request, actor));
        availability.created(created.sku(), created.version());
        mirror.itemCreated(created.sku());
        return created;
    }

    private ItemView insert(CreateItemRequest request, String actor) {
        SaleWindow window = request.window();
        if (request.reservationTtlSeconds() != null && request.reservationTtlSeconds() > maxReservationSeconds) {
            throw FlashstockException.invalid("reservationTtlSeconds: must be at most " + maxReservationSeconds
                    + " (flashstock.reservation-max-ttl)");
        }
        if (Item.findById(request.sku()) != null) {
            throw FlashstockException.itemExists(request.sku());
        }
        Instant now = Timestamps.now();
        Item item = new Item();
        item.sku = request.sku();
        item.name = request.name();
        item.stock = request.stock();
        item.available = request.stock();
        item.perUserLimit = request.perUserLimit() == null ? defaultPerUserLimit : request.perUserLimit();
        item.saleStartsAt = window.startsAt();
        item.saleEndsAt = window.endsAt();
        item.paused = window.paused();
        item.reservationTtlSeconds = request.reservationTtlSeconds();
        item.createdAt = now;
        item.updatedAt = now;
        item.persist();
        try {
            Item.flush();
        } catch (PersistenceException e) {
            if (DbErrors.isDuplicateKey(e)) {
                throw FlashstockException.itemExists(request.sku());
            }
            throw e;
        }
        Ledger.record(Ledger.Entry.stock(item.sku, Ledger.Kind.CREATED, item.stock, null, actor));
        return ItemView.of(item);
    }

    /** The item; its counters count every acknowledged purchase (redis-lua: the hot stock's, when it has them). */
    public ItemView get(String sku) {
        ItemView stored = QuarkusTransaction.requiringNew().call(() -> ItemView.of(find(sku)));
        return mirror.current(stored);
    }

    /**
     * Replaces the item's sale window; once committed, the mirror (redis-lua) sets it in the hot stock, and every
     * pod's availability forgets what it knew of the item. With {@code If-Match} (optional here, for compatibility),
     * only an item still at a version it names changes, else 412 {@code version-mismatch}. A conflict on the item's
     * row is retried (bounded, then 503, nothing changed); a commit whose answer was lost is 503
     * {@code outcome-unknown}: setting the same window again is harmless, so the caller repeats the call.
     */
    public ItemView setSale(String sku, SaleWindow window, IfMatch ifMatch, String actor) {
        Changed set = LostCommit.run(retry, commit -> {
            Instant now = Timestamps.now();
            if (ifMatch != null) {
                Item.Locked locked = lockForChange(sku);
                ifMatch.check(sku, locked.version());
                Item.setSaleWindow(sku, window, locked.version(), now); // under the row lock: it changes
            } else if (Item.setSaleWindow(sku, window, now) == 0) {
                throw FlashstockException.itemNotFound(sku);
            }
            Ledger.record(Ledger.Entry.mark(sku, Ledger.Kind.SALE_WINDOW, actor));
            Changed changed = new Changed(ItemView.of(find(sku)),
                    mirror.record(StockEvent.Kind.SALE, sku, null, 0, now), false);
            commit.committing(LostCommit.Landing.unknown()); // what follows is its commit
            return changed;
        });
        return inForce(set);
    }

    /**
     * Retires the item if it is at a version {@code ifMatch} names (428 without it, 412 when stale): it sells no more
     * in any strategy (409 {@code item-retired}), while its reservations still confirm, cancel and expire. Like a sale
     * window that never reopens: MySQL strategies read the column in the purchase ({@code DbPurchase.checkWindow});
     * redis-lua mirrors it into the hot stock with the window ({@code lua/sale.lua}, a SALE stock event, newest
     * version only) before the answer, and {@code lua/purchase.lua} refuses it. A commit whose answer was lost is 503
     * {@code outcome-unknown}: read the item and retire it again if it is not retired.
     */
    public ItemView retire(String sku, IfMatch ifMatch, String actor) {
        IfMatch.required(ifMatch, sku);
        Changed retired = LostCommit.run(retry, commit -> {
            Instant now = Timestamps.now();
            Item.Locked locked = lockForChange(sku);
            ifMatch.check(sku, locked.version());
            Item.retire(sku, locked.version(), now); // under the row lock: it changes
            Ledger.record(Ledger.Entry.mark(sku, Ledger.Kind.RETIRE, actor));
            Changed changed = new Changed(ItemView.of(find(sku)),
                    mirror.record(StockEvent.Kind.SALE, sku, null, 0, now), false);
            commit.committing(LostCommit.Landing.unknown()); // what follows is its commit
            return changed;
        });
        return mirror.current(inForce(retired));
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
        Changed set;
        try {
            set = QuarkusTransaction.requiringNew().call(() -> {
                commit.attempt();
                Instant now = Timestamps.now();
                Item.Locked locked = lockForChange(sku);
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
                Changed changed = new Changed(ItemView.of(find(sku)), event, false);
                commit.committing(event == null ? LostCommit.Landing.unknown()
                        : LostCommit.Landing.lookedUp("stock set " + event.id,
                                () -> StockEvent.committed(event.id) ? ItemView.of(find(sku)) : null,
                                after -> after)); // committed: the stock-event sweeper mirrors it
                return changed; // what follows is its commit
            });
        } catch (RuntimeException e) {
            return settleStockSet(commit, taken[0], e);
        }
        return mirror.current(mirrored(set));
    }

    /**
     * After the commit of a change: mirrors its stock event (redis-lua) and makes every pod's availability forget
     * what it knew of the item. The item as MySQL committed it.
     */
    private ItemView mirrored(Changed change) {
        if (change.event() != null) {
            mirror.apply(List.of(change.event()));
        }
        return forgotten(change);
    }

    /**
     * {@link #mirrored} of a change that purchases must see once it is answered (a pause, a sale window, a retire):
     * a moment's obstacle in the hot stock (a rebuild under way) is waited out before the answer.
     */
    private ItemView inForce(Changed change) {
        if (change.event() != null) {
            mirror.applyInForce(change.event());
        }
        return forgotten(change);
    }

    private ItemView forgotten(Changed change) {
        availability.changed(change.item().sku(), change.item().version());
        return change.item();
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
                    return QuarkusTransaction.requiringNew().call(() -> ItemView.of(find(taken.sku)));
                } catch (RuntimeException unread) {
                    throw FlashstockException.outcomeUnknown(unread); // landed, but the item cannot be read now
                }
            }
            throw notLanded;
        }
    }

    /** The item after a restock, and whether it repeats an earlier restock with the same Idempotency-Key. */
    public record RestockOutcome(ItemView item, boolean replayed) {
    }

    /**
     * Adds units; once committed, the mirror (redis-lua) adds them to the hot stock too. With an Idempotency-Key, a
     * repeat of the same restock adds nothing and answers the item as it is now; the same key with another quantity
     * is 422. A commit whose answer was lost is looked up before answering ({@link LostCommit}): 200 if it
     * committed, 503 (nothing changed) if not, {@code outcome-unknown} if MySQL cannot tell in time.
     */
    public RestockOutcome restock(String sku, int quantity, String idempotencyKey, String actor) {
        Restock restock = Restock.of(sku, quantity, idempotencyKey, Timestamps.now());
        LostCommit<RestockOutcome> commit = LostCommit.sinceNow(); // the retries' time counts
        Changed restocked;
        try {
            restocked = retry.inNewTransactions(() -> {
                commit.attempt();
                Changed done = addUnits(restock, actor);
                if (!done.replayed()) {
                    commit.committing(LostCommit.Landing.lookedUp("restock " + restock.id,
                            () -> Restock.committed(restock.id) ? ItemView.of(find(sku)) : null,
                            // committed: the stock-event sweeper mirrors it
                            after -> after == null ? null : new RestockOutcome(after, false)));
                }
                return done; // what follows is its commit
            });
        } catch (RuntimeException e) {
            if (idempotencyKey != null && DbErrors.isDuplicateKey(e)) {
                return QuarkusTransaction.requiringNew().call(() -> replay(sku, quantity, idempotencyKey));
            }
            return commit.settle(e);
        }
        if (restocked.event() != null) {
            mirror.apply(List.of(restocked.event()));
        }
        if (!restocked.replayed()) {
            availability.changed(sku, restocked.item().version());
        }
        return new RestockOutcome(restocked.item(), restocked.replayed());
    }

    /** The item after a change, the change's stock event for the mirror (or null), and whether it was a repeat. */
    private record Changed(ItemView item, StockEvent event, boolean replayed) {
    }

    private Changed addUnits(Restock restock, String actor) {
        if (restock.idempotencyKey != null) {
            Restock earlier = Restock.byKey(restock.sku, restock.idempotencyKey);
            if (earlier != null) {
                return new Changed(replay(restock.sku, restock.quantity, earlier).item(), null, true);
            }
        }
        int updated = Item.addStock(restock.sku, restock.quantity, restock.createdAt);
        Item item = find(restock.sku);
        if (updated == 0) {
            throw FlashstockException.invalid(
                    "quantity: restocking would take the stock of '" + restock.sku + "' past " + Integer.MAX_VALUE);
        }
        restock.persist();
        Ledger.record(Ledger.Entry.stock(restock.sku, Ledger.Kind.RESTOCK, restock.quantity, restock.id, actor));
        return new Changed(ItemView.of(item), mirror.record(StockEvent.Kind.RESTOCKED, restock.sku, null,
                restock.quantity, restock.createdAt), false);
    }

    private static RestockOutcome replay(String sku, int quantity, String idempotencyKey) {
        Restock earlier = Restock.byKey(sku, idempotencyKey);
        if (earlier == null) {
            throw new UnavailableException("A restock with this Idempotency-Key is in progress; try again.");
        }
        return replay(sku, quantity, earlier);
    }

    private static RestockOutcome replay(String sku, int quantity, Restock earlier) {
        if (earlier.quantity != quantity) {
            throw FlashstockException.keyReused();
        }
        return new RestockOutcome(ItemView.of(find(sku)), true);
    }

    /** The item's row, locked for a versioned change; 404 for an unknown item. */
    private static Item.Locked lockForChange(String sku) {
        Item.Locked locked = Item.lockForChange(sku);
        if (locked == null) {
            throw FlashstockException.itemNotFound(sku);
        }
        return locked;
    }

    private static Item find(String sku) {
        Item item = Item.findById(sku);
        if (item == null) {
            throw FlashstockException.itemNotFound(sku);
        }
        return item;
    }
}
