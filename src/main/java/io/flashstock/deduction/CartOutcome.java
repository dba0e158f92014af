package io.flashstock.deduction;

import io.flashstock.order.PurchaseView;

/**
 * A multi-item purchase that holds units on every line: a new one, or the one an Idempotency-Key already made
 * ({@code replayed}).
 */
public record CartOutcome(PurchaseView purchase, boolean replayed) {
}
