package io.flashstock.deduction.lua;

import java.time.Instant;

import io.flashstock.order.OrderStatus;
import io.flashstock.order.OrderView;

/**
 * An order that Redis acknowledged ({@code redis-lua}) and that has to reach MySQL exactly once.
 *
 * @param entryId the id of its entry in the item's pending-orders stream
 * @param pod     the pod that answered the purchase
 * @param epoch   the hot stock's epoch it was acknowledged under (each warm-up starts a new one)
 * @param cart    the purchase id of the cart it is a line of ({@link Carts}), or {@code null}: a line is never
 *                persisted alone
 */
public record PendingOrder(String entryId, String orderId, String sku, String userId, int quantity,
        String idempotencyKey, String fingerprint, Instant createdAt, Instant expiresAt, String pod, String epoch,
        String cart) {

    /** Milliseconds since the epoch at which Redis recorded it (the stream entry id's first part). */
    public long recordedAtMillis() {
        int dash = entryId.indexOf('-');
        return Long.parseLong(dash < 0 ? entryId : entryId.substring(0, dash));
    }

    public OrderView view() {
        return new OrderView(orderId, sku, userId, quantity, OrderStatus.RESERVED, createdAt, expiresAt, null);
    }
}
