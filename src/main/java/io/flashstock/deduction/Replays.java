package io.flashstock.deduction;

import java.util.List;

import io.flashstock.error.FlashstockException;
import io.flashstock.order.OrderView;
import io.flashstock.order.Purchase;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.order.PurchaseView;

/** The earlier answers to a repeated Idempotency-Key, as MySQL holds them, read in the caller's transaction. */
public final class Replays {

    private Replays() {
    }

    /**
     * The earlier answer for the user's repeated Idempotency-Key, or {@code null}; 422 if the key meant another
     * request. Another user's identical key is not looked at: that is another request.
     */
    public static PurchaseOutcome replayOrNull(PurchaseCommand command) {
        if (!command.hasIdempotencyKey()) {
            return null;
        }
        PurchaseOrder earlier = PurchaseOrder.findByIdempotencyKey(command.sku(), command.userId(),
                command.idempotencyKey());
        return earlier == null ? null : replay(command, OrderView.of(earlier), earlier.requestFingerprint);
    }

    /** The answer to a repeated Idempotency-Key whose first use made {@code earlier} with {@code fingerprint}. */
    public static PurchaseOutcome replay(PurchaseCommand command, OrderView earlier, String fingerprint) {
        if (!command.fingerprint().equals(fingerprint)) {
            throw FlashstockException.keyReused();
        }
        return new PurchaseOutcome(earlier, true);
    }

    /**
     * The earlier purchase for a repeated Idempotency-Key of the user, or {@code null}; 422 if the key meant another
     * request.
     */
    public static CartOutcome cartReplayOrNull(CartCommand cart) {
        if (!cart.hasIdempotencyKey()) {
            return null;
        }
        Purchase earlier = Purchase.findByIdempotencyKey(cart.userId(), cart.idempotencyKey());
        if (earlier == null) {
            return null;
        }
        if (!cart.fingerprint().equals(earlier.requestFingerprint)) {
            throw FlashstockException.keyReused();
        }
        return new CartOutcome(cartView(earlier.id), true);
    }

    /** The purchase with its lines as MySQL holds them, or {@code null} (in the caller's transaction). */
    public static PurchaseView cartView(String purchaseId) {
        List<PurchaseOrder> lines = PurchaseOrder.linesOf(purchaseId);
        return lines.isEmpty() ? null : PurchaseView.of(purchaseId, lines.stream().map(OrderView::of).toList());
    }
}
