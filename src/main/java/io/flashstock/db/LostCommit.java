package io.flashstock.db;

import java.util.function.Function;
import java.util.function.Supplier;

import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;

/**
 * The lost-commit rule, for one operation: an attempt marks, inside its transaction, what its commit is about to make
 * true ({@link #committing}); when the operation then fails because MySQL could not be reached
 * ({@link DbErrors#isUnavailable}), the commit may have landed or not, so {@link #settle} asks MySQL
 * ({@link CommitLookup#ask}, a new transaction on a new connection, bounded) before answering: the change as stored,
 * 503 {@code unavailable} (nothing was changed), or 503 {@code outcome-unknown} when MySQL cannot tell in time. A
 * failure before anything was marked is thrown as it is: the transaction rolled back.
 *
 * <p>Used from the thread that runs the attempts (their transactions run on the caller's thread).
 *
 * @param <T> the operation's answer after a lost commit
 */
public final class LostCommit<T> {

    private final boolean clockPerAttempt;
    private long attemptStarted = System.nanoTime();
    private Landing<T> committing;

    private LostCommit(boolean clockPerAttempt) {
        this.clockPerAttempt = clockPerAttempt;
    }

    /** A watch whose lookup bound ({@link CommitLookup#ask}) counts from the start of each {@link #attempt}. */
    public static <T> LostCommit<T> perAttempt() {
        return new LostCommit<>(true);
    }

    /**
     * A watch whose lookup bound counts from now, across all its attempts: what comes before the transaction (a lock
     * wait) or earlier attempts count too.
     */
    public static <T> LostCommit<T> sinceNow() {
        return new LostCommit<>(false);
    }

    /**
     * Runs {@code attempt} in new transactions with {@code retry} (conflicts retried), each attempt watched
     * ({@link #perAttempt}); after a lost commit, the answer is {@link #settle}'s.
     */
    public static <T> T run(ConflictRetry retry, Function<LostCommit<T>, T> attempt) {
        LostCommit<T> commit = perAttempt();
        try {
            return retry.inNewTransactions(() -> {
                commit.attempt();
                return attempt.apply(commit);
            });
        } catch (RuntimeException e) {
            return commit.settle(e);
        }
    }

    /** A new attempt starts, inside its transaction: nothing of it is committing yet. */
    public void attempt() {
        committing = null;
        if (clockPerAttempt) {
            attemptStarted = System.nanoTime();
        }
    }

    /**
     * What follows in this attempt is the commit of a change; {@code landing} tells, if its answer is lost, whether
     * it landed and what to answer.
     */
    public void committing(Landing<T> landing) {
        committing = landing;
    }

    /** Whether {@code failure} may have lost the answer of a commit that was marked {@link #committing}. */
    public boolean lost(RuntimeException failure) {
        return committing != null && DbErrors.isUnavailable(failure);
    }

    /** The answer after {@code failure}: the landing's after a lost commit ({@link #lost}), else {@code failure}. */
    public T settle(RuntimeException failure) {
        if (!lost(failure)) {
            throw failure;
        }
        return committing.settle(failure, attemptStarted);
    }

    /** The 503 {@code unavailable} of a change that MySQL shows did not land. */
    public static UnavailableException nothingChanged(Throwable failure) {
        return new UnavailableException("The inventory database failed; nothing was changed, try again.", failure);
    }

    /** How to answer after the commit of a change lost its answer. */
    @FunctionalInterface
    public interface Landing<T> {

        /**
         * The answer after {@code failure} lost the commit's answer, in an attempt that started at
         * {@code attemptStarted} ({@link System#nanoTime()}).
         */
        T settle(RuntimeException failure, long attemptStarted);

        /**
         * Asks MySQL with {@code lookup} ({@link CommitLookup#ask}: {@code what} names it in the log) and answers
         * {@code answer} of what it found; an answer of {@code null} means the change did not land: 503
         * {@link #nothingChanged}. When MySQL cannot tell in time: 503 {@code outcome-unknown}.
         */
        static <F, T> Landing<T> lookedUp(String what, Supplier<F> lookup, Function<F, T> answer) {
            return (failure, attemptStarted) -> {
                T answered = answer.apply(CommitLookup.ask(what, lookup, failure, attemptStarted));
                if (answered == null) {
                    throw nothingChanged(failure);
                }
                return answered;
            };
        }

        /** A change that is not looked up (repeating it is harmless): 503 {@code outcome-unknown}. */
        static <T> Landing<T> unknown() {
            return (failure, attemptStarted) -> {
                throw FlashstockException.outcomeUnknown(failure);
            };
        }
    }
}
