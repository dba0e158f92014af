package io.flashstock.deduction;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.flashstock.error.FlashstockException;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.support.Backoff;
import io.quarkus.narayana.jta.QuarkusTransaction;
import org.jboss.logging.Logger;

/**
 * Definite answers after a failure whose outcome only MySQL knows: a commit whose answer was lost (the connection
 * dropped after the commit was sent) may have committed or not. Before answering, the strategy asks MySQL, on a new
 * connection, which of the orders it was writing are there: those are 201, the others took no effect. When MySQL
 * cannot be asked within a few tries the answer is 503 {@code outcome-unknown}; a retry with the same
 * Idempotency-Key then finds the order if it was committed.
 */
public final class StoredOrders {

    private static final Logger LOG = Logger.getLogger(StoredOrders.class);
    private static final int ATTEMPTS = 3;
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private StoredOrders() {
    }

    /**
     * The ids among {@code orderIds} whose orders are in MySQL. Throws 503 {@code outcome-unknown} (caused by
     * {@code failure}) when MySQL cannot tell now.
     */
    public static Set<String> among(Collection<String> orderIds, Throwable failure) {
        if (orderIds.isEmpty()) {
            return Set.of();
        }
        for (int attempt = 1;; attempt++) {
            try {
                Set<String> stored = new HashSet<>(
                        QuarkusTransaction.requiringNew().call(() -> PurchaseOrder.storedAmong(orderIds)));
                LOG.infof("After a database failure (%s): %d of %d order(s) being written had been committed",
                        failure.toString(), stored.size(), orderIds.size());
                return stored;
            } catch (RuntimeException e) {
                if (attempt >= ATTEMPTS || !Backoff.sleep(PAUSE_NANOS)) {
                    LOG.warnf("Cannot tell whether %d order(s) were committed (%s); answering outcome-unknown",
                            orderIds.size(), e.toString());
                    failure.addSuppressed(e);
                    throw FlashstockException.outcomeUnknown(failure);
                }
            }
        }
    }
}
