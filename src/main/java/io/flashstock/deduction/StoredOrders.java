package io.flashstock.deduction;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

import io.flashstock.db.CommitLookup;
import io.flashstock.order.PurchaseOrder;
import org.jboss.logging.Logger;

/**
 * Definite answers for purchases after a failure whose outcome only MySQL knows: of the orders a failed commit was
 * writing, those that are in MySQL are 201, the others took no effect. Asked within {@link CommitLookup}'s bounds;
 * when MySQL cannot tell in time the answer is 503 {@code outcome-unknown}, and a retry with the same
 * Idempotency-Key then finds the order if it was committed.
 */
public final class StoredOrders {

    private static final Logger LOG = Logger.getLogger(StoredOrders.class);

    private StoredOrders() {
    }

    /**
     * The ids among {@code orderIds} whose orders are in MySQL. Throws 503 {@code outcome-unknown} (caused by
     * {@code failure}) when MySQL cannot tell in time.
     *
     * @param attemptStarted {@link System#nanoTime()} when the attempt that failed with {@code failure} started
     */
    public static Set<String> among(Collection<String> orderIds, Throwable failure, long attemptStarted) {
        if (orderIds.isEmpty()) {
            return Set.of();
        }
        Set<String> stored = new HashSet<>(CommitLookup.ask(orderIds.size() + " order(s)",
                () -> PurchaseOrder.committedAmong(orderIds), failure, attemptStarted));
        LOG.infof("After a database failure (%s): %d of %d order(s) being written had been committed",
                failure.toString(), stored.size(), orderIds.size());
        return stored;
    }
}
