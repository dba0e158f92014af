package io.flashstock.support;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Exponential backoff with full jitter: each pause is random between zero and a ceiling that doubles per attempt up
 * to a maximum, so that colliding callers spread out instead of colliding again in step. One instance per retry
 * loop (not thread-safe).
 */
public final class Backoff {

    private long ceilingNanos;
    private final long maxCeilingNanos;

    public Backoff(Duration initial, Duration max) {
        this(initial.toNanos(), max.toNanos());
    }

    public Backoff(long initialNanos, long maxNanos) {
        this.ceilingNanos = Math.max(1, initialNanos);
        this.maxCeilingNanos = Math.max(ceilingNanos, maxNanos);
    }

    /** The next pause, at most {@code cap} nanoseconds; doubles the ceiling for the one after. */
    public long nextPauseNanos(long cap) {
        long pause = Math.min(ThreadLocalRandom.current().nextLong(ceilingNanos + 1), Math.max(0, cap));
        ceilingNanos = Math.min(maxCeilingNanos, ceilingNanos * 2);
        return pause;
    }

    /** The next pause; doubles the ceiling for the one after. */
    public long nextPauseNanos() {
        return nextPauseNanos(Long.MAX_VALUE);
    }

    /** Sleeps {@code nanos}; false if interrupted (the interrupt flag is set again). */
    public static boolean sleep(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
