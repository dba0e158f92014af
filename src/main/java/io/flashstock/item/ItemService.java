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

/** Creates, reads and restocks items in MySQL. Restock is a relative update: it never loses a concurrent sale. */
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
    public ItemView create(CreateItemRequest request) {
        ItemView created = QuarkusTransaction.requiringNew().call(() -> insert(request));
        availability.created(created.sku(), created.version());
        mirror.itemCreated(created.sku());
        return created;
    }

    private ItemView insert(CreateItemRequest request) {
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
        return ItemView.of(item);
    }

    /** The item; its counters count every acknowledged purchase (redis-lua: the hot stock's, when it has them). */
    public ItemView get(String sku) {
        ItemView stored = QuarkusTransaction.requiringNew().call(() -> ItemView.of(find(sku)));
        return mirror.current(stored);
    }

    /** What a buyer's page polls: from memory or the hot stock, never a MySQL query per request. */
    public AvailabilityView availability(String sku) {
        return availability.read(sku);
    }

    /**
     * Replaces the item's sale window; once committed, the mirror (redis-lua) sets it in the hot stock, and every
     * pod's availability forgets what it knew of the item. A conflict on the item's row is retried (bounded, then 503,
     * nothing changed); a commit whose answer was lost is 503 {@code outcome-unknown}: setting the same window again
     * is harmless, so the caller repeats the call.
     */
    public ItemView setSale(String sku, SaleWindow window) {
        Changed set = LostCommit.run(retry, commit -> {
            Instant now = Timestamps.now();
            if (Item.setSaleWindow(sku, window, now) == 0) {
                throw FlashstockException.itemNotFound(sku);
            }
            Changed changed = new Changed(ItemView.of(find(sku)),
                    mirror.record(StockEvent.Kind.SALE, sku, null, 0, now), false);
            commit.committing(LostCommit.Landing.unknown()); // what follows is its commit
            return changed;
        });
        if (set.event() != null) {
            mirror.apply(List.of(set.event()));
        }
        availability.changed(sku, set.item().version());
        return set.item();
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
    public RestockOutcome restock(String sku, int quantity, String idempotencyKey) {
        Restock restock = Restock.of(sku, quantity, idempotencyKey, Timestamps.now());
        LostCommit<RestockOutcome> commit = LostCommit.sinceNow(); // the retries' time counts
        Changed restocked;
        try {
            restocked = retry.inNewTransactions(() -> {
                commit.attempt();
                Changed done = addUnits(restock);
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

    private Changed addUnits(Restock restock) {
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

    private static Item find(String sku) {
        Item item = Item.findById(sku);
        if (item == null) {
            throw FlashstockException.itemNotFound(sku);
        }
        return item;
    }
}
