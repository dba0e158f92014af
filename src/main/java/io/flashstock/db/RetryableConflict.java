package io.flashstock.db;

/**
 * Thrown inside a transaction when a concurrent transaction won a race that a fresh attempt will see the
 * result of (for example the same Idempotency-Key inserted first). {@link ConflictRetry} retries it.
 */
public class RetryableConflict extends RuntimeException {

    public RetryableConflict(String message, Throwable cause) {
        super(message, cause, false, false);
    }
}
