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
 * cannot be asked in time the answer is 503 {@code outcome-unknown}; a retry with the same Idempotency-Key then
 * finds the order if it was committed.
 *
 * <p>Bounded: a failure that came {@value #SLOW_FAILURE_SECONDS} s or more after the attempt started means MySQL is
 * not answering (a hang ends in the socket timeout), so it is not asked again: that would only wait as long. After a
 * quick failure (a cut: refused or reset connections) MySQL is asked again while the lookup is under a second old,
 * and one ask takes at most the socket timeout. So a hung MySQL gets its answer within about twice the socket
 * timeout.
 */
public final class StoredOrders {

    private static final Logger LOG = Logger.getLogger(StoredOrders.class);
    private static final long SLOW_FAILURE_SECONDS = 3;
    private static final long RETRY_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private StoredOrders() {
    }

    /**
     * The ids among {@code orderIds} whose orders are in MySQL. Throws 503 {@code outcome-unknown} (caused by
     * {@code failure}) when MySQL cannot tell now.
     *
     * @param attemptStarted {@link System#nanoTime()} when the attempt that failed with {@code failure} started
     */
    public static Set<String> among(Collection<String> orderIds, Throwable failure, long attemptStarted) {
        if (orderIds.isEmpty()) {
            return Set.of();
        }
        long start = System.nanoTime();
        if (start - attemptStarted >= TimeUnit.SECONDS.toNanos(SLOW_FAILURE_SECONDS)) {
            LOG.warnf("Cannot tell whether %d order(s) were committed: MySQL did not answer for %d ms (%s); answering "
                    + "outcome-unknown", orderIds.size(), (start - attemptStarted) / 1_000_000, failure.toString());
            throw FlashstockException.outcomeUnknown(failure);
        }
        while (true) {
            try {
                Set<String> stored = new HashSet<>(
                        QuarkusTransaction.requiringNew().call(() -> PurchaseOrder.storedAmong(orderIds)));
                LOG.infof("After a database failure (%s): %d of %d order(s) being written had been committed",
                        failure.toString(), stored.size(), orderIds.size());
                return stored;
            } catch (RuntimeException e) {
                if (System.nanoTime() - start >= RETRY_WINDOW_NANOS || !Backoff.sleep(PAUSE_NANOS)) {
                    LOG.warnf("Cannot tell whether %d order(s) were committed (%s); answering outcome-unknown",
                            orderIds.size(), e.toString());
                    failure.addSuppressed(e);
                    throw FlashstockException.outcomeUnknown(failure);
                }
            }
        }
    }
}
