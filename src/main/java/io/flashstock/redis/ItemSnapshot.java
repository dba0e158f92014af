package io.flashstock.redis;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.flashstock.item.Item;
import io.flashstock.item.StockEvent;
import io.flashstock.order.OrderStatus;
import io.flashstock.order.PurchaseOrder;

/**
 * What MySQL holds for one item, as the hot stock needs it: counters, RESERVED orders ({@code orderId → "userId
 * quantity"}) and, for an item with a per-user limit, each user's RESERVED + CONFIRMED units. Read in the caller's
 * transaction.
 */
record ItemSnapshot(int stock, int available, int reserved, int sold, int perUserLimit, Map<String, String> held,
        Map<String, String> users) {

    /** The item's snapshot, or {@code null} when it does not exist. */
    static ItemSnapshot load(String sku) {
        Item item = Item.findById(sku);
        if (item == null) {
            return null;
        }
        Map<String, String> held = new LinkedHashMap<>();
        List<Object[]> reserved = PurchaseOrder.getEntityManager()
                .createQuery("select o.id, o.userId, o.quantity from PurchaseOrder o"
                        + " where o.sku = :sku and o.status = :reserved", Object[].class)
                .setParameter("sku", sku).setParameter("reserved", OrderStatus.RESERVED).getResultList();
        reserved.forEach(row -> held.put((String) row[0], row[1] + " " + row[2]));
        Map<String, String> users = new LinkedHashMap<>();
        if (item.hasUserLimit()) {
            PurchaseOrder.getEntityManager()
                    .createQuery("select o.userId, sum(o.quantity) from PurchaseOrder o"
                            + " where o.sku = :sku and o.status in (:held) group by o.userId", Object[].class)
                    .setParameter("sku", sku)
                    .setParameter("held", List.of(OrderStatus.RESERVED, OrderStatus.CONFIRMED))
                    .getResultList().forEach(row -> users.put((String) row[0], String.valueOf(row[1])));
        }
        return new ItemSnapshot(item.stock, item.available, item.reserved, item.sold, item.perUserLimit, held, users);
    }

    /** An item's counters and the number of its changes not mirrored yet, read in one statement (one snapshot). */
    record Counters(int stock, int available, int reserved, int sold, long pendingEvents) {

        boolean matches(Map<String, String> redis) {
            return String.valueOf(stock).equals(redis.get("stock"))
                    && String.valueOf(available).equals(redis.get("available"))
                    && String.valueOf(reserved).equals(redis.get("reserved"))
                    && String.valueOf(sold).equals(redis.get("sold"));
        }
    }

    static Counters counters(String sku) {
        List<?> rows = StockEvent.getEntityManager().createNativeQuery("SELECT i.stock, i.available, i.reserved,"
                + " i.sold, (SELECT COUNT(*) FROM stock_event e WHERE e.sku = i.sku) FROM item i WHERE i.sku = ?1")
                .setParameter(1, sku).getResultList();
        if (rows.isEmpty()) {
            return null;
        }
        Object[] row = (Object[]) rows.get(0);
        return new Counters(((Number) row[0]).intValue(), ((Number) row[1]).intValue(), ((Number) row[2]).intValue(),
                ((Number) row[3]).intValue(), ((Number) row[4]).longValue());
    }
}
