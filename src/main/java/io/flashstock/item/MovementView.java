package io.flashstock.item;

import java.time.Instant;

/**
 * One movement as the API shows it: what {@code kind} added to each counter of the item (negative: took away), the
 * order (a restock's id for {@code restock}) and multi-item purchase it belongs to, who did it and when.
 */
public record MovementView(long id, String sku, String kind, int stockDelta, int availableDelta, int reservedDelta,
        int soldDelta, String orderId, String purchaseId, String actor, Instant at) {

    static MovementView of(Movement row) {
        return new MovementView(row.id, row.sku, row.kind, row.stockDelta, row.availableDelta, row.reservedDelta,
                row.soldDelta, row.orderId, row.purchaseId, row.actor, row.createdAt);
    }
}
