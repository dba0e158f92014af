package io.flashstock.db;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.flashstock.error.FlashstockException;
import io.flashstock.support.Backoff;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.persistence.EntityManager;
import org.jboss.logging.Logger;

/**
 * Definite answers after a commit whose answer was lost (the connection broke after the commit was sent, or MySQL
 * stopped answering): the change may have committed or not, and only MySQL knows. Before answering, the caller asks
 * MySQL, in a new transaction on a new connection, what became of it ({@link LostCommit} holds that rule). When
 * MySQL cannot be asked in time the answer is 503 {@code outcome-unknown}; a retry with the same Idempotency-Key (or
 * of the same idempotent request) then finds the truth.
 *
 * <p>Bounded: a failure that came {@value #SLOW_FAILURE_SECONDS} s or more after the attempt started means MySQL is
 * not answering (a hang ends in the socket timeout), so it is not asked again: that would only wait as long. After a
 * quick failure (a cut: refused or reset connections) MySQL is asked again while the lookup is under a second old,
 * and one ask takes at most the socket timeout. So a hung MySQL gets its answer within about twice the socket
 * timeout.
 */
public final class CommitLookup {

    /**
     * Appended to a lookup's SELECT: it reads with shared locks, so a transaction still writing the rows looked up is
     * waited for. The connection that failed may have broken while MySQL was still committing (the COMMIT received,
     * the redo log being flushed): its changes hold their row locks until they are visible, so a locking read sees
     * them, where a plain read would take the rows for absent or unchanged and answer "nothing was changed" for a
     * change that lands a moment later. The wait ends within {@code innodb_lock_wait_timeout} (3 s), then the lookup
     * fails like any other. MariaDB has no {@code FOR SHARE}; MySQL 8 still reads this.
     */
    private static final String AFTER_WRITERS = " LOCK IN SHARE MODE";

    private static final Logger LOG = Logger.getLogger(CommitLookup.class);
    private static final long SLOW_FAILURE_SECONDS = 3;
    private static final long RETRY_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private CommitLookup() {
    }

    /**
     * The values among {@code values} of {@code table}'s {@code column} that MySQL holds, once no transaction is writing
     * those rows any more ({@link #AFTER_WRITERS}): what a lookup after a lost commit answer reads, in the caller's
     * transaction. {@code table} and {@code column} are the caller's constants, never input.
     */
    @SuppressWarnings("unchecked")
    public static List<String> committed(EntityManager em, String table, String column, Collection<String> values) {
        return em.createNativeQuery("SELECT " + column + " FROM " + table + " WHERE " + column + " IN (:values)"
                + AFTER_WRITERS, String.class).setParameter("values", values).getResultList();
    }

    /**
     * Runs {@code lookup} in a new transaction and returns what it found; a lookup reads with
     * {@link #committed}. Throws 503 {@code outcome-unknown} (caused by {@code failure}) when MySQL cannot tell in
     * time.
     *
     * @param what           what is looked up, for the log
     * @param attemptStarted {@link System#nanoTime()} when the attempt that failed with {@code failure} started
     */
    public static <T> T ask(String what, Supplier<T> lookup, Throwable failure, long attemptStarted) {
        long start = System.nanoTime();
        if (start - attemptStarted >= TimeUnit.SECONDS.toNanos(SLOW_FAILURE_SECONDS)) {
            LOG.warnf("Cannot tell whether %s committed: MySQL did not answer for %d ms (%s); answering "
                    + "outcome-unknown", what, (start - attemptStarted) / 1_000_000, failure.toString());
            throw FlashstockException.outcomeUnknown(failure);
        }
        while (true) {
            try {
                return QuarkusTransaction.requiringNew().call(lookup::get);
            } catch (RuntimeException e) {
                if (System.nanoTime() - start >= RETRY_WINDOW_NANOS || !Backoff.sleep(PAUSE_NANOS)) {
                    LOG.warnf("Cannot tell whether %s committed (%s); answering outcome-unknown", what, e.toString());
                    failure.addSuppressed(e);
                    throw FlashstockException.outcomeUnknown(failure);
                }
            }
        }
    }
}
