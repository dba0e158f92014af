package io.flashstock.order;

import java.time.Instant;
import java.util.List;

/**
 * A multi-item purchase as the REST contract shows it: its lines in sku order. Its lines move together, so
 * {@code status} and {@code expiresAt} are theirs.
 */
public record PurchaseView(String purchaseId, String userId, OrderStatus status, Instant createdAt,
        Instant expiresAt, List<OrderView> orders) {

    /** The view of a purchase whose lines are {@code orders} (all of them, in sku order). */
    public static PurchaseView of(String purchaseId, List<OrderView> orders) {
        OrderView first = orders.get(0);
        OrderStatus status = orders.stream().map(OrderView::status).allMatch(first.status()::equals) ? first.status()
                : orders.stream().map(OrderView::status).filter(s -> s != OrderStatus.RESERVED).findFirst()
                        .orElse(first.status());
        Instant expires = orders.stream().map(OrderView::expiresAt).min(Instant::compareTo).orElseThrow();
        return new PurchaseView(purchaseId, first.userId(), status, first.createdAt(), expires, List.copyOf(orders));
    }
}
