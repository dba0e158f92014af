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
 * Creates, reads, restocks and retires items in MySQL, and sets their sale windows ({@link StockSets} sets their
 * stock). Restock is a relative update: it never loses a concurrent sale; a retirement is guarded by the item's
 * version (If-Match). Each of these admin actions appends its movement ({@link Ledger}) in its own transaction with the
 * {@code actor} it is given (the caller's token subject), also when it moves no counter (a sale window, a retirement).
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
     * After the commit of a change that purchases must see once it is answered (a pause, a sale window, a retire):
     * mirrors its stock event (redis-lua), waiting out a moment's obstacle in the hot stock (a rebuild under way), and
     * makes every pod's availability forget what it knew of the item. The item as MySQL committed it.
     */
    private ItemView inForce(Changed change) {
        if (change.event() != null) {
            mirror.applyInForce(change.event());
        }
        availability.changed(change.item().sku(), change.item().version());
        return change.item();
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
    static Item.Locked lockForChange(String sku) {
        Item.Locked locked = Item.lockForChange(sku);
        if (locked == null) {
            throw FlashstockException.itemNotFound(sku);
        }
        return locked;
    }

    /** The item; 404 for an unknown item. */
    static Item find(String sku) {
        Item item = Item.findById(sku);
        if (item == null) {
            throw FlashstockException.itemNotFound(sku);
        }
        return item;
    }
}
