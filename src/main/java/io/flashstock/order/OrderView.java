package io.flashstock.order;

import java.time.Instant;

/**
 * An order as the REST contract shows it. {@code purchaseId}: the multi-item purchase it is a line of, or
 * {@code null} for a single-item purchase.
 */
public record OrderView(String orderId, String sku, String userId, int quantity, OrderStatus status,
        Instant createdAt, Instant expiresAt, String purchaseId) {

    public static OrderView of(PurchaseOrder order) {
        return new OrderView(order.id, order.sku, order.userId, order.quantity, order.status, order.createdAt,
                order.expiresAt, order.purchaseId);
    }
}
