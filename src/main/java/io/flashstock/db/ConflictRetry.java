package io.flashstock.db;

import java.util.function.Supplier;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.flashstock.support.Backoff;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Runs a unit of work in a NEW transaction per attempt and retries it after a conflict (optimistic version
 * mismatch, MariaDB 1020, deadlock, lock wait timeout, {@link RetryableConflict}). Retrying inside the same
 * transaction would re-read the same snapshot and never succeed. Between attempts it sleeps a random time up
 * to a ceiling that doubles per attempt ("full jitter"), so that colliding requests spread out. Bounded in
 * attempts and in time; exhausted, or the database unreachable, it throws {@link UnavailableException}
 * (503 with Retry-After). Business outcomes ({@link FlashstockException}) pass straight through.
 *
 * <p>Its bounds are {@code flashstock.optimistic.*} ({@code max-attempts}, {@code max-time}, {@code initial-backoff},
 * {@code max-backoff}), named after db-optimistic but applied to every operation that runs here, whatever the
 * strategy: purchases and carts of db-optimistic, order reads, confirm, cancel and extend, restocks and sale-window
 * changes, the expiry job, and redis-lua's order writes. A commit whose answer was lost is not a conflict: it is
 * thrown as 503, for the caller to settle ({@link LostCommit}).
 */
@ApplicationScoped
public class ConflictRetry {

    private final FlashstockConfig.Optimistic settings;
    private final Counter conflicts;
    private final Counter exhausted;

    ConflictRetry(FlashstockConfig config, MeterRegistry registry) {
        this.settings = config.optimistic();
        this.conflicts = Counter.builder("flashstock.db.conflicts")
                .description("Transactions that lost an optimistic or locking conflict and were retried")
                .register(registry);
        this.exhausted = Counter.builder("flashstock.db.conflicts.exhausted")
                .description("Operations answered 503 after running out of conflict retries")
                .register(registry);
    }

    public <T> T inNewTransactions(Supplier<T> work) {
        long start = System.nanoTime();
        long budget = settings.maxTime().toNanos();
        Backoff backoff = new Backoff(settings.initialBackoff(), settings.maxBackoff());
        for (int attempt = 1;; attempt++) {
            try {
                return QuarkusTransaction.requiringNew().call(work::get);
            } catch (RuntimeException e) {
                rethrowUnlessConflict(e);
                conflicts.increment();
                long pause = backoff.nextPauseNanos();
                if (attempt >= settings.maxAttempts() || System.nanoTime() - start + pause > budget) {
                    exhausted.increment();
                    throw new UnavailableException(
                            "Too many concurrent updates of this item; nothing was changed, try again.", e);
                }
                if (!Backoff.sleep(pause)) {
                    throw new UnavailableException("Interrupted while waiting to retry; nothing was changed.", e);
                }
            }
        }
    }

    /**
     * Returns only when {@code e} is a conflict a new transaction may cure; otherwise throws what answers the
     * request: the business outcome itself, 503 when the database cannot be reached, anything else unchanged.
     */
    public static void rethrowUnlessConflict(RuntimeException e) {
        if (e instanceof FlashstockException) {
            throw e;
        }
        if (DbErrors.isUnavailable(e)) {
            throw new UnavailableException("The inventory database cannot be reached; try again.", e);
        }
        if (!(e instanceof RetryableConflict) && !DbErrors.isConflict(e)) {
            throw e;
        }
    }
}
