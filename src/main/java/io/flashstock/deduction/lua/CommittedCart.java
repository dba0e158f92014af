package io.flashstock.deduction.lua;

import java.time.Instant;
import java.util.List;

import io.flashstock.order.OrderStatus;
import io.flashstock.order.OrderView;
import io.flashstock.order.PurchaseView;

/** A COMMITTED cart as its decision record holds it ({@link Carts}). */
public record CommittedCart(String purchaseId, String userId, String idempotencyKey, String fingerprint,
        Instant createdAt, Instant expiresAt, List<CartLine> lines) {

    public PurchaseView view() {
        return PurchaseView.of(purchaseId, lines.stream().map(line -> new OrderView(line.orderId(), line.sku(),
                userId, line.quantity(), OrderStatus.RESERVED, createdAt, expiresAt, purchaseId)).toList());
    }

    /** The lines as pending orders, for MySQL and for settling their entries. */
    List<PendingOrder> orders() {
        return lines.stream().map(line -> new PendingOrder(line.entryId(), line.orderId(), line.sku(), userId,
                line.quantity(), null, null, createdAt, expiresAt, "", line.epoch(), purchaseId)).toList();
    }
}
