package io.flashstock.deduction;

import io.flashstock.order.OrderView;

/**
 * A purchase that holds units: a new order, or the order an Idempotency-Key already made ({@code replayed}).
 */
public record PurchaseOutcome(OrderView order, boolean replayed) {
}
