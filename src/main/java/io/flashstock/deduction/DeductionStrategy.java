package io.flashstock.deduction;

/**
 * Decides purchases: checks the Idempotency-Key, the user's limit and availability, deducts, and records the
 * order, as one atomic step as far as clients can tell. Business refusals are thrown as
 * {@link io.flashstock.error.FlashstockException} (sold-out, purchase-limit, idempotency-key-reused,
 * item-not-found); when the strategy cannot decide in time it throws
 * {@link io.flashstock.error.UnavailableException}. Either way nothing was deducted.
 *
 * <p>One implementation per {@link StrategyName}, selected at startup by {@link ActiveStrategy}.
 */
public interface DeductionStrategy {

    StrategyName name();

    PurchaseOutcome purchase(PurchaseCommand command);

    /**
     * A multi-item purchase, all or nothing: every line holds its units, or none does and the refusal names the
     * refused line ({@link io.flashstock.error.FlashstockException#forLine}). Same Idempotency-Key, limit and sale
     * window rules as {@link #purchase}; its lines are persisted together or not at all.
     */
    CartOutcome purchase(CartCommand cart);
}
