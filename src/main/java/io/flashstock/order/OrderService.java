package io.flashstock.order;

import java.time.Instant;

import io.flashstock.Timestamps;

import io.flashstock.deduction.ConflictRetry;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.item.Item;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;

/**
 * Reads orders and moves them out of RESERVED. Each transition locks the order row first
 * ({@code SELECT ... FOR UPDATE}), decides on its current status, and moves the units in the same transaction,
 * so concurrent confirm / cancel / expiry calls apply exactly one transition and units come back exactly once.
 * Lock order everywhere: order rows, then the item row.
 */
@ApplicationScoped
public class OrderService {

    private final ConflictRetry retry;

    OrderService(ConflictRetry retry) {
        this.retry = retry;
    }

    public OrderView get(String orderId) {
        return retry.inNewTransactions(() -> OrderView.of(find(orderId, LockModeType.NONE)));
    }

    /** RESERVED → CONFIRMED (paid): the units move from reserved to sold. Confirming twice is a no-op. */
    public OrderView confirm(String orderId) {
        return retry.inNewTransactions(() -> {
            PurchaseOrder order = find(orderId, LockModeType.PESSIMISTIC_WRITE);
            switch (order.status) {
                case CONFIRMED:
                    return OrderView.of(order);
                case RESERVED:
                    Instant now = Timestamps.now();
                    order.status = OrderStatus.CONFIRMED;
                    order.updatedAt = now;
                    Item.update("reserved = reserved - ?1, sold = sold + ?1, version = version + 1, updatedAt = ?2"
                            + " where sku = ?3", order.quantity, now, order.sku);
                    return OrderView.of(order);
                default:
                    throw notReserved(order, "confirmed");
            }
        });
    }

    /**
     * RESERVED → CANCELLED: the units return to available. Cancelling an order that is already CANCELLED or
     * EXPIRED changes nothing (its units came back already); a CONFIRMED order cannot be cancelled.
     */
    public OrderView cancel(String orderId) {
        return retry.inNewTransactions(() -> {
            PurchaseOrder order = find(orderId, LockModeType.PESSIMISTIC_WRITE);
            switch (order.status) {
                case CANCELLED, EXPIRED:
                    return OrderView.of(order);
                case RESERVED:
                    Instant now = Timestamps.now();
                    order.status = OrderStatus.CANCELLED;
                    order.updatedAt = now;
                    returnUnits(order.sku, order.quantity, now);
                    return OrderView.of(order);
                default:
                    throw notReserved(order, "cancelled");
            }
        });
    }

    /** Gives {@code quantity} reserved units of an item back to available. Caller holds the order row lock(s). */
    static void returnUnits(String sku, long quantity, Instant now) {
        Item.update("available = available + ?1, reserved = reserved - ?1, version = version + 1, updatedAt = ?2"
                + " where sku = ?3", (int) quantity, now, sku);
    }

    private static PurchaseOrder find(String orderId, LockModeType lock) {
        PurchaseOrder order = PurchaseOrder.findById(orderId, lock);
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
