package io.flashstock.redis;

import java.util.concurrent.ScheduledFuture;

/**
 * One grant of a Redis lock: the random token that proves ownership, the fencing token MySQL checks, and the
 * renewal that keeps the lease alive while held. {@link #close()} releases it. A lease can be lost (expired
 * during a pause, Redis restarted or lost the key); {@link #isHeld()} then turns false and the renewal stops,
 * and only the fencing token keeps a late write out of MySQL.
 */
public final class Lease implements AutoCloseable {

    final String key;
    final String token;
    final long fence;
    final long leaseNanos;
    final long acquiredAtNanos;
    private final RedisLock owner;
    volatile long expiresAtNanos;
    volatile boolean lost;
    volatile boolean released;
    volatile ScheduledFuture<?> renewal;

    Lease(RedisLock owner, String key, String token, long fence, long leaseNanos, long now) {
        this.owner = owner;
        this.key = key;
        this.token = token;
        this.fence = fence;
        this.leaseNanos = leaseNanos;
        this.acquiredAtNanos = now;
        this.expiresAtNanos = now + leaseNanos;
    }

    /** Monotonically increasing per item: the SQL update rejects a fence older than the last it accepted. */
    public long fence() {
        return fence;
    }

    /** Whether this holder still owns the lock, as far as it can tell without asking Redis. */
    public boolean isHeld() {
        return !lost && !released && System.nanoTime() - expiresAtNanos < 0;
    }

    public boolean isLost() {
        return lost;
    }

    /** Whether a renewal is still scheduled. */
    public boolean isRenewing() {
        ScheduledFuture<?> r = renewal;
        return r != null && !r.isDone();
    }

    /**
     * Stops the renewal and deletes the lock key if this holder still owns it. Returns false when the lock had
     * already been lost, in which case another holder's key is left alone.
     */
    public boolean release() {
        return owner.release(this);
    }

    @Override
    public void close() {
        release();
    }
}
