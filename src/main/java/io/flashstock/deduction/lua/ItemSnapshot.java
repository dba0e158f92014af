package io.flashstock.deduction.lua;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.flashstock.item.Item;
import io.flashstock.item.SaleWindow;
import io.flashstock.item.StockEvent;
import io.flashstock.order.CallerKey;
import io.flashstock.order.OrderStatus;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.support.Timestamps;

/**
 * What MySQL holds for one item, as the hot stock needs it: counters and version, RESERVED orders ({@code orderId →
 * "userId quantity"}), for an item with a per-user limit each user's RESERVED + CONFIRMED units, and the
 * Idempotency-Keys still within their TTL ({@code user's key → "orderId fingerprint createdAt expiresAt"} and the
 * seconds left). Read in the caller's transaction, under a shared lock on the item's row: every change of an item's
 * counters updates that row, so nothing changes the item while the snapshot is read, and all of it belongs to
 * {@link #version()}.
 */
record ItemSnapshot(int stock, int available, int reserved, int sold, int perUserLimit, long version, SaleWindow window,
        boolean retired, int reservationTtlSeconds, Map<String, String> held, Map<String, String> users,
        Map<CallerKey, IdempotencyKeys.Remembered> idempotencyKeys) {

    /** The item's snapshot, or {@code null} when it does not exist. */
    static ItemSnapshot load(String sku, Duration idempotencyTtl) {
        List<?> rows = PurchaseOrder.getEntityManager().createNativeQuery("SELECT stock, available, reserved, sold,"
                + " per_user_limit, version FROM item WHERE sku = ?1 LOCK IN SHARE MODE")
                .setParameter(1, sku).getResultList();
        if (rows.isEmpty()) {
            return null;
        }
        Object[] item = (Object[]) rows.get(0);
        int limit = ((Number) item[4]).intValue();
        Map<String, String> held = new LinkedHashMap<>();
        PurchaseOrder.getEntityManager()
                .createQuery("select o.id, o.userId, o.quantity from PurchaseOrder o"
                        + " where o.sku = :sku and o.status = :reserved", Object[].class)
                .setParameter("sku", sku).setParameter("reserved", OrderStatus.RESERVED).getResultList()
                .forEach(row -> held.put((String) row[0], row[1] + " " + row[2]));
        Map<String, String> users = new LinkedHashMap<>();
        if (limit > 0) {
            PurchaseOrder.getEntityManager()
                    .createQuery("select o.userId, sum(o.quantity) from PurchaseOrder o"
                            + " where o.sku = :sku and o.status in (:held) group by o.userId", Object[].class)
                    .setParameter("sku", sku)
                    .setParameter("held", OrderStatus.HOLDING)
                    .getResultList().forEach(row -> users.put((String) row[0], String.valueOf(row[1])));
        }
        Map<CallerKey, IdempotencyKeys.Remembered> keys = new LinkedHashMap<>();
        Instant now = Timestamps.now();
        PurchaseOrder.getEntityManager()
                .createQuery("select o.userId, o.idempotencyKey, o.id, o.requestFingerprint, o.createdAt, o.expiresAt"
                        + " from PurchaseOrder o where o.sku = :sku and o.idempotencyKey is not null"
                        + " and o.createdAt > :since", Object[].class)
                .setParameter("sku", sku).setParameter("since", now.minus(idempotencyTtl)).getResultList()
                .forEach(row -> keys.put(new CallerKey((String) row[0], (String) row[1]),
                        IdempotencyKeys.Remembered.of((String) row[2], (String) row[3], (Instant) row[4],
                                (Instant) row[5], idempotencyTtl, now)));
        Item entity = Item.findById(sku); // same transaction, row share-locked above
        return new ItemSnapshot(((Number) item[0]).intValue(), ((Number) item[1]).intValue(),
                ((Number) item[2]).intValue(), ((Number) item[3]).intValue(), limit, ((Number) item[5]).longValue(),
                entity.saleWindow(), entity.retired,
                entity.reservationTtlSeconds == null ? 0 : entity.reservationTtlSeconds, held, users, keys);
    }

    /**
     * An item's counters, version and the number of its changes not mirrored yet, read in one statement (one
     * snapshot).
     */
    record Counters(int stock, int available, int reserved, int sold, long version, long pendingEvents) {

        boolean matches(Map<String, String> redis) {
            return String.valueOf(stock).equals(redis.get("stock"))
                    && String.valueOf(available).equals(redis.get("available"))
                    && String.valueOf(reserved).equals(redis.get("reserved"))
                    && String.valueOf(sold).equals(redis.get("sold"));
        }
    }

    static Counters counters(String sku) {
        List<?> rows = StockEvent.getEntityManager().createNativeQuery("SELECT i.stock, i.available, i.reserved,"
                + " i.sold, i.version, (SELECT COUNT(*) FROM stock_event e WHERE e.sku = i.sku) FROM item i"
                + " WHERE i.sku = ?1")
                .setParameter(1, sku).getResultList();
        if (rows.isEmpty()) {
            return null;
        }
        Object[] row = (Object[]) rows.get(0);
        return new Counters(((Number) row[0]).intValue(), ((Number) row[1]).intValue(), ((Number) row[2]).intValue(),
                ((Number) row[3]).intValue(), ((Number) row[4]).longValue(), ((Number) row[5]).longValue());
    }
}
