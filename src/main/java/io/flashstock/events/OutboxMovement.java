package io.flashstock.events;

import java.time.Instant;

/**
 * A movement of the ledger as the event publisher reads it ({@link OutboxStore#movements}): the row, and for a
 * movement of an order the order's user, quantity, status and expiry as they are when it is published.
 */
record OutboxMovement(long id, String sku, String kind, int stockDelta, int availableDelta, int reservedDelta,
        int soldDelta, String orderId, String purchaseId, String actor, Instant at, String userId, Integer quantity,
        Instant expiresAt) {
}
