package io.flashstock.deduction.lua;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.flashstock.db.ConflictRetry;
import io.flashstock.db.DbErrors;
import io.flashstock.deduction.DbPurchase;
import io.flashstock.item.Item;
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
        /** Another order holds its Idempotency-Key in MySQL (Redis had forgotten the key): not inserted. */
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
            return retry.inNewTransactions(() -> insert(sku, orders));
        } catch (RuntimeException e) {
            if (!DbErrors.isSoldOut(e)) {
                throw e;
            }
        }
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        long version = 0;
        for (PendingOrder order : orders) {
            try {
                Persisted one = retry.inNewTransactions(() -> insert(sku, List.of(order)));
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

    /** Whether the order is in MySQL (before taking back an order another writer may have stored meanwhile). */
    public boolean stored(String orderId) {
        return QuarkusTransaction.requiringNew().call(() -> PurchaseOrder.exists(orderId));
    }

    private Persisted insert(String sku, List<PendingOrder> orders) {
        List<String> ids = orders.stream().map(PendingOrder::orderId).toList();
        Set<String> present = new HashSet<>(PurchaseOrder.storedAmong(ids));
        List<String> keys = orders.stream().map(PendingOrder::idempotencyKey).filter(k -> k != null).toList();
        Map<String, String> keyOwners = new HashMap<>();
        if (!keys.isEmpty()) {
            PurchaseOrder.getEntityManager()
                    .createQuery("select o.idempotencyKey, o.id from PurchaseOrder o"
                            + " where o.sku = :sku and o.idempotencyKey in :keys", Object[].class)
                    .setParameter("sku", sku).setParameter("keys", keys).getResultList()
                    .forEach(row -> keyOwners.put((String) row[0], (String) row[1]));
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
            if (key != null && keyOwners.containsKey(key)) {
                outcomes.put(pending.orderId(), Outcome.DUPLICATE_KEY);
                continue;
            }
            if (key != null) {
                keyOwners.put(key, pending.orderId());
            }
            fresh.add(PurchaseOrder.reserved(pending.orderId(), sku, pending.userId(), pending.quantity(), key,
                    pending.fingerprint(), pending.createdAt(),
                    java.time.Duration.between(pending.createdAt(), pending.expiresAt())));
            units += pending.quantity();
            outcomes.put(pending.orderId(), Outcome.INSERTED);
        }
        long version = 0;
        if (!fresh.isEmpty()) {
            Item.reserveUnits(sku, units, Timestamps.now());
            version = Item.currentVersion(sku);
            DbPurchase.insert(fresh); // another pod inserting the same order concurrently: retried, then PRESENT
        }
        return new Persisted(outcomes, version);
    }
}
