package io.flashstock.order;

import java.time.Instant;

/** An order as the REST contract shows it. */
public record OrderView(String orderId, String sku, String userId, int quantity, OrderStatus status,
        Instant createdAt, Instant expiresAt) {

    public static OrderView of(PurchaseOrder order) {
        return new OrderView(order.id, order.sku, order.userId, order.quantity, order.status, order.createdAt,
                order.expiresAt);
    }
}
