package io.flashstock.deduction;

import java.util.Optional;

import io.flashstock.item.StockMirror;
import io.flashstock.redis.StrategyLease;
import io.flashstock.support.Workers;
import io.smallrye.mutiny.Uni;

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

    /** Decides the purchase; may block (MySQL, Redis, a lock wait): call it on a worker thread. */
    PurchaseOutcome purchase(PurchaseCommand command);

    /**
     * {@link #purchase(PurchaseCommand)} for a caller on the event loop. By default the whole purchase runs on a
     * worker thread; a strategy whose common path need not block overrides it and hands only the rest to a worker.
     */
    default Uni<PurchaseOutcome> purchaseAsync(PurchaseCommand command) {
        return Workers.call(() -> purchase(command));
    }

    /**
     * A multi-item purchase, all or nothing: every line holds its units, or none does and the refusal names the
     * refused line ({@link io.flashstock.error.FlashstockException#forLine}). Same Idempotency-Key, limit and sale
     * window rules as {@link #purchase}; its lines are persisted together or not at all.
     */
    CartOutcome purchase(CartCommand cart);

    /**
     * The copy of the items' counters outside MySQL that this strategy decides on, which every service keeps in step
     * ({@link StockMirror}); empty when MySQL's counters decide (then {@link io.flashstock.item.MySqlStock}).
     */
    default Optional<StockMirror> stockMirror() {
        return Optional.empty();
    }

    /**
     * What the settlement report reads of this strategy's copy outside MySQL ({@link HotStockAudit}); empty when
     * MySQL's counters decide (then {@link HotStockAudit#NONE}).
     */
    default Optional<HotStockAudit> hotStockAudit() {
        return Optional.empty();
    }

    /** Which stores decide for this strategy: pods of different families never serve at once ({@link StrategyLease}). */
    default StrategyLease.Family leaseFamily() {
        return StrategyLease.Family.MYSQL;
    }

    /** Whether a purchase needs MySQL to be answered: only then does readiness require MySQL. */
    default boolean purchasesNeedDatabase() {
        return true;
    }

    /** Whether a purchase needs Redis to be answered: only then does readiness require Redis. */
    default boolean purchasesNeedRedis() {
        return false;
    }

    /**
     * Starts what the strategy runs besides its requests, once it was chosen (at startup, after this pod began its
     * strategy lease). Nothing by default: a strategy that is not chosen runs nothing.
     */
    default void start() {
    }
}
