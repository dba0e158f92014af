package io.flashstock.deduction;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.flashstock.db.LostCommit;
import io.flashstock.db.LostCommit.Landing;
import io.flashstock.deduction.Combiner.Result;
import io.flashstock.error.FlashstockException;
import io.flashstock.order.Purchase;

/** What a purchase's commit makes true, for the lost-commit rule ({@link LostCommit}): how to answer it when lost. */
public final class LostPurchases {

    private LostPurchases() {
    }

    /**
     * A cart decided as {@code decided} ({@link DbPurchase#decideCart}): MySQL is asked whether the purchase is
     * there; stored, it is the answer, else 503 (nothing was changed). A replay changed nothing: the failure is
     * thrown as it is.
     */
    public static Landing<CartOutcome> cart(CartOutcome decided) {
        if (decided.replayed()) {
            return (failure, attemptStarted) -> {
                throw failure;
            };
        }
        String purchaseId = decided.purchase().purchaseId();
        return Landing.lookedUp("purchase " + purchaseId, () -> Purchase.committed(purchaseId),
                stored -> stored ? decided : null);
    }

    /** A batch decided as {@code decided} ({@link DbPurchase#decideBatch}): answered by {@link #settleBatch}. */
    public static Landing<List<Result<PurchaseOutcome>>> batch(List<Result<PurchaseOutcome>> decided) {
        return (failure, attemptStarted) -> settleBatch(decided, failure, attemptStarted);
    }

    /**
     * The answers of a batch ({@link DbPurchase#decideBatch}) whose commit failed on the way: the new orders MySQL
     * has stand, the others are refused with 503 (nothing changed), or {@code outcome-unknown} when MySQL cannot tell.
     * So are the repeats of a new order's Idempotency-Key inside the batch, which were answered with that order: it
     * stands or falls with it. Refusals, and replays of orders stored before, stay as they were.
     */
    public static List<Result<PurchaseOutcome>> settleBatch(List<Result<PurchaseOutcome>> decided,
            RuntimeException e, long attemptStarted) {
        Set<String> fresh = decided.stream().map(Result::value)
                .filter(outcome -> outcome != null && !outcome.replayed()).map(o -> o.order().orderId())
                .collect(Collectors.toCollection(LinkedHashSet::new));
        Set<String> stored;
        RuntimeException refusal;
        try {
            stored = StoredOrders.among(fresh, e, attemptStarted);
            refusal = LostCommit.nothingChanged(e);
        } catch (FlashstockException unknown) {
            stored = Set.of();
            refusal = unknown; // outcome-unknown, for the new orders only: refusals and replays stay definite
        }
        Set<String> kept = stored;
        RuntimeException answer = refusal;
        return decided.stream().map(result -> {
            PurchaseOutcome outcome = result.value();
            if (outcome == null || !fresh.contains(outcome.order().orderId())
                    || kept.contains(outcome.order().orderId())) {
                return result;
            }
            return Result.<PurchaseOutcome>refused(answer);
        }).toList();
    }
}
