package io.flashstock.order;

import java.time.Instant;

import io.flashstock.Timestamps;
import io.flashstock.deduction.ConflictRetry;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.item.Item;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Reads orders and moves them out of RESERVED. Each transition is one conditional update
 * ({@code UPDATE purchase_order SET status = ? WHERE id = ? AND status = 'RESERVED'}) followed, only when it
 * changed the row, by the move of the units in the same transaction. The conditional update takes the order's
 * row lock, so of concurrent confirm / cancel / expiry calls exactly one changes the row: units come back
 * exactly once. (No {@code SELECT ... FOR UPDATE OF}: MariaDB does not accept Hibernate's MySQL 8 syntax.)
 * Lock order everywhere: order rows, then the item row.
 */
@ApplicationScoped
public class OrderService {

    private final ConflictRetry retry;

    OrderService(ConflictRetry retry) {
        this.retry = retry;
    }

    public OrderView get(String orderId) {
        return retry.inNewTransactions(() -> OrderView.of(find(orderId)));
    }

    /** RESERVED → CONFIRMED (paid): the units move from reserved to sold. Confirming twice is a no-op. */
    public OrderView confirm(String orderId) {
        return retry.inNewTransactions(() -> {
            PurchaseOrder order = find(orderId);
            Instant now = Timestamps.now();
            if (transition(order, OrderStatus.CONFIRMED, now)) {
                Item.update("reserved = reserved - ?1, sold = sold + ?1, version = version + 1, updatedAt = ?2"
                        + " where sku = ?3", order.quantity, now, order.sku);
            } else if (order.status != OrderStatus.CONFIRMED) {
                throw notReserved(order, "confirmed");
            }
            return OrderView.of(order);
        });
    }

    /**
     * RESERVED → CANCELLED: the units return to available. Cancelling an order that is already CANCELLED or
     * EXPIRED changes nothing (its units came back already); a CONFIRMED order cannot be cancelled.
     */
    public OrderView cancel(String orderId) {
        return retry.inNewTransactions(() -> {
            PurchaseOrder order = find(orderId);
            Instant now = Timestamps.now();
            if (transition(order, OrderStatus.CANCELLED, now)) {
                returnUnits(order.sku, order.quantity, now);
            } else if (order.status == OrderStatus.CONFIRMED) {
                throw notReserved(order, "cancelled");
            }
            return OrderView.of(order);
        });
    }

    /**
     * Moves the order from RESERVED to {@code target} if it still is RESERVED; returns whether this call made the
     * change. Either way {@code order} shows the current status afterwards.
     */
    private static boolean transition(PurchaseOrder order, OrderStatus target, Instant now) {
        int changed = PurchaseOrder.update("status = ?1, updatedAt = ?2 where id = ?3 and status = ?4", target, now,
                order.id, OrderStatus.RESERVED);
        PurchaseOrder.getEntityManager().refresh(order);
        return changed == 1;
    }

    /** Gives {@code quantity} reserved units of an item back to available. Caller holds the order row lock(s). */
    static void returnUnits(String sku, long quantity, Instant now) {
        Item.update("available = available + ?1, reserved = reserved - ?1, version = version + 1, updatedAt = ?2"
                + " where sku = ?3", (int) quantity, now, sku);
    }

    private static PurchaseOrder find(String orderId) {
        PurchaseOrder order = PurchaseOrder.findById(orderId);
        if (order == null) {
            throw FlashstockException.orderNotFound(orderId);
        }
        return order;
    }

    private static FlashstockException notReserved(PurchaseOrder order, String verb) {
        return new FlashstockException(ProblemCode.ORDER_NOT_RESERVED,
                "Order '" + order.id + "' is " + order.status + " and cannot be " + verb + ".");
    }
}
