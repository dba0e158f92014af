package io.flashstock.deduction.lua;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.flashstock.db.ConflictRetry;
import io.flashstock.db.DbErrors;
import io.flashstock.db.RetryableConflict;
import io.flashstock.deduction.OrderWriter;
import io.flashstock.item.Item;
import io.flashstock.order.CallerKey;
import io.flashstock.order.Purchase;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.support.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Writes orders that Redis acknowledged ({@code redis-lua}) into MySQL, exactly once, however often the same
 * order is handed in (a retried relay batch, two pods' relays, a request and the relay racing): an order whose id
 * is in MySQL already is skipped, and the item's counters move only by the orders this transaction inserted.
 *
 * <p>One transaction per batch: the item's row is updated first (its lock before the inserts' foreign-key checks,
 * as everywhere), then the orders go in as one JDBC batch. If MySQL refuses the units ({@code CHECK available >= 0}:
 * Redis handed out stock that MySQL does not have), the batch is split and each order tried alone, so only the
 * orders that really do not fit are {@link Outcome#SOLD_OUT}.
 */
@ApplicationScoped
public class PendingOrderWriter {

    private static final Logger LOG = Logger.getLogger(PendingOrderWriter.class);

    /** What became of a pending order. */
    public enum Outcome {
        /** Inserted now. */
        INSERTED,
        /** Its id was in MySQL already: persisted before (a retry, another pod). */
        PRESENT,
        /** Another order of its user holds its Idempotency-Key in MySQL (Redis had forgotten the key): not inserted. */
        DUPLICATE_KEY,
        /** MySQL has not the units for it: not inserted. */
        SOLD_OUT
    }

    private final ConflictRetry retry;

    PendingOrderWriter(ConflictRetry retry) {
        this.retry = retry;
    }

    /**
     * What one call of {@link #persist} decided: the outcome per order id, in the given order, and the item's MySQL
     * version right after the last commit that inserted any of them (0 when none was inserted).
     */
    public record Persisted(Map<String, Outcome> outcomes, long version) {

        /** The given orders that were inserted now. */
        public List<PendingOrder> inserted(List<PendingOrder> orders) {
            return orders.stream().filter(o -> outcomes.get(o.orderId()) == Outcome.INSERTED).toList();
        }
    }

    /**
     * Persists orders of one item. Throws when nothing could be decided (MySQL unreachable); after a split, an order
     * whose own attempt failed has no outcome (retry it).
     */
    public Persisted persist(String sku, List<PendingOrder> orders) {
        try {
            try {
                return retry.inNewTransactions(() -> insert(sku, orders, false));
            } catch (SeenBefore e) {
                return retry.inNewTransactions(() -> insert(sku, orders, true));
            }
        } catch (RuntimeException e) {
            if (!DbErrors.isSoldOut(e)) {
                throw e;
            }
        }
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        long version = 0;
        for (PendingOrder order : orders) {
            try {
                Persisted one = retry.inNewTransactions(() -> insert(sku, List.of(order), true));
                outcomes.putAll(one.outcomes());
                version = Math.max(version, one.version());
            } catch (RuntimeException e) {
                if (DbErrors.isSoldOut(e)) {
                    outcomes.put(order.orderId(), Outcome.SOLD_OUT);
                } else {
                    LOG.warnf("Order %s of %s not stored now, retried later: %s", order.orderId(), sku, e.toString());
                }
            }
        }
        return new Persisted(outcomes, version);
    }

    /**
     * What became of a cart ({@link Carts}), and each item's MySQL version right after the insert (if any);
     * {@code shortSku}: the line's item MySQL had too few units for (SOLD_OUT; null when not known).
     */
    public record CartWrite(Outcome outcome, Map<String, Long> versions, String shortSku) {

        CartWrite(Outcome outcome, Map<String, Long> versions) {
            this(outcome, versions, null);
        }
    }

    /**
     * Persists a COMMITTED cart: the purchase and every line in one transaction, or nothing. {@code lines} are its
     * lines as pending orders, in sku order (the row-lock order of every cart). Throws when MySQL cannot be reached.
     *
     * <p>A refusal (the units, the Idempotency-Key) is checked against the purchase itself before it is answered:
     * another writer of the same cart (another pod's relay, a drain for a read) may have stored it while this one
     * waited for the item's row lock, and its commit is what refused this one. That cart stands: PRESENT, never given
     * back.
     */
    public CartWrite persistCart(Purchase purchase, List<PendingOrder> lines) {
        CartWrite written;
        try {
            written = retry.inNewTransactions(() -> insertCart(purchase, lines));
        } catch (LineShort e) {
            written = new CartWrite(Outcome.SOLD_OUT, Map.of(), e.sku);
        } catch (RuntimeException e) {
            if (!DbErrors.isSoldOut(e) && !(e instanceof ItemGone)) {
                throw e;
            }
            written = new CartWrite(Outcome.SOLD_OUT, Map.of());
        }
        if (written.outcome() != Outcome.INSERTED && written.outcome() != Outcome.PRESENT
                && purchaseStored(purchase.id)) {
            return new CartWrite(Outcome.PRESENT, Map.of());
        }
        return written;
    }

    /** A line's item is no longer in MySQL: the cart cannot be stored. Thrown inside its transaction. */
    private static final class ItemGone extends RuntimeException {
        ItemGone() {
            super("item gone", null, false, false);
        }
    }

    /** MySQL has too few units for a line's item: the cart cannot be stored. Thrown inside its transaction. */
    private static final class LineShort extends RuntimeException {
        private final String sku;

        LineShort(String sku) {
            super("line short of units", null, false, false);
            this.sku = sku;
        }
    }

    /** Whether the purchase is in MySQL. */
    public boolean purchaseStored(String purchaseId) {
        return QuarkusTransaction.requiringNew().call(() -> Purchase.count("id", purchaseId) > 0);
    }

    private CartWrite insertCart(Purchase purchase, List<PendingOrder> lines) {
        if (Purchase.count("id", purchase.id) > 0) {
            return new CartWrite(Outcome.PRESENT, Map.of());
        }
        if (purchase.idempotencyKey != null
                && Purchase.findByIdempotencyKey(purchase.userId, purchase.idempotencyKey) != null) {
            return new CartWrite(Outcome.DUPLICATE_KEY, Map.of());
        }
        Instant now = Timestamps.now();
        Map<String, Long> versions = new HashMap<>();
        List<PurchaseOrder> orders = new ArrayList<>(lines.size());
        for (PendingOrder line : lines) {
            long version;
            try {
                version = Item.reserveUnitsForVersion(line.sku(), line.quantity(), now);
            } catch (RuntimeException e) {
                if (DbErrors.isSoldOut(e)) {
                    throw new LineShort(line.sku()); // rolls back the lines reserved before it
                }
                throw e;
            }
            if (version == 0) {
                throw new ItemGone(); // rolls back the lines reserved before it
            }
            versions.put(line.sku(), version);
            PurchaseOrder order = PurchaseOrder.reserved(line.orderId(), line.sku(), purchase.userId, line.quantity(),
                    null, null, purchase.createdAt, Duration.between(purchase.createdAt, purchase.expiresAt));
            order.purchaseId = purchase.id;
            orders.add(order);
        }
        OrderWriter.insertCart(purchase, orders);
        return new CartWrite(Outcome.INSERTED, versions);
    }

    /** Whether the order is in MySQL (before taking back an order another writer may have stored meanwhile). */
    public boolean stored(String orderId) {
        return QuarkusTransaction.requiringNew().call(() -> PurchaseOrder.exists(orderId));
    }

    /**
     * An order id or Idempotency-Key of the batch is in MySQL already (a retried batch, another writer): thrown inside
     * an unchecked {@link #insert}'s transaction, which rolls back, so that the batch is tried again checked.
     */
    private static final class SeenBefore extends RuntimeException {
        SeenBefore(Throwable cause) {
            super("an order of the batch is in MySQL already", cause, false, false);
        }
    }

    /**
     * One batch in the current transaction: the item's counters move by the orders inserted, then those go in.
     * <ul>
     * <li>{@code checked}: MySQL is asked first which ids and Idempotency-Keys it holds, and those orders are skipped
     * ({@code PRESENT}, {@code DUPLICATE_KEY}); a concurrent insert of the same order is retried, then found.</li>
     * <li>Not checked, the usual batch (orders nobody stored before): no questions first; the unique keys ask instead,
     * and any order there already fails the whole insert with {@link SeenBefore}, rolling back the counters with it.
     * Two queries and their parameter lists fewer per batch; profiled, they were a fifth of the relay's CPU.</li>
     * </ul>
     * Checked, of two orders of the batch with one user's Idempotency-Key the first is inserted, the other is
     * {@code DUPLICATE_KEY}; not checked, they fail the insert like an order stored before.
     */
    private Persisted insert(String sku, List<PendingOrder> orders, boolean checked) {
        Set<String> present = Set.of();
        Map<CallerKey, String> keyOwners = new HashMap<>();
        if (checked) {
            present = new HashSet<>(PurchaseOrder.storedAmong(orders.stream().map(PendingOrder::orderId).toList()));
            keyOwners = PurchaseOrder.ownersOfKeys(sku, orders.stream().filter(o -> o.idempotencyKey() != null)
                    .map(o -> new CallerKey(o.userId(), o.idempotencyKey())).toList());
        }
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        List<PurchaseOrder> fresh = new ArrayList<>();
        int units = 0;
        for (PendingOrder pending : orders) {
            if (present.contains(pending.orderId())) {
                outcomes.put(pending.orderId(), Outcome.PRESENT);
                continue;
            }
            String key = pending.idempotencyKey();
            if (checked && key != null
                    && keyOwners.putIfAbsent(new CallerKey(pending.userId(), key), pending.orderId()) != null) {
                outcomes.put(pending.orderId(), Outcome.DUPLICATE_KEY);
                continue;
            }
            fresh.add(PurchaseOrder.reserved(pending.orderId(), sku, pending.userId(), pending.quantity(), key,
                    pending.fingerprint(), pending.createdAt(), Duration.between(pending.createdAt(),
                            pending.expiresAt())));
            units += pending.quantity();
            outcomes.put(pending.orderId(), Outcome.INSERTED);
        }
        long version = 0;
        if (!fresh.isEmpty()) {
            version = Item.reserveUnitsForVersion(sku, units, Timestamps.now());
            try {
                OrderWriter.insert(fresh);
            } catch (RetryableConflict duplicate) {
                // checked: another pod inserted the same order meanwhile (retried, then PRESENT)
                throw checked ? duplicate : new SeenBefore(duplicate);
            }
        }
        return new Persisted(outcomes, version);
    }
}
