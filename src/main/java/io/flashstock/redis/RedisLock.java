package io.flashstock.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.UnavailableException;
import io.flashstock.support.Backoff;
import io.flashstock.support.MetersByTag;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Per-item locks over Redis lock tokens, done the safe way:
 * <ul>
 * <li>acquire is {@code SET key token NX PX lease} and {@code INCR} of the item's fencing counter in one script,
 * so every grant carries a fencing token larger than any before it;</li>
 * <li>release and extend are token-checked scripts: a holder never deletes or extends another holder's key,
 * and learns when its lock was already lost; extend never re-creates a deleted key;</li>
 * <li>renewal runs every third of the lease while held and stops on release, on shutdown, and as soon as the
 * lock is found lost or the lease ran out without a successful renewal (Redis unreachable); connection errors
 * in between are retried on the next tick, so a reconnect does not kill it;</li>
 * <li>waiting is bounded ({@code flashstock.lock.max-wait}) with exponential backoff and full jitter, never longer
 * than the current holder's remaining lease;</li>
 * <li>every lock key has a TTL (the lease).</li>
 * </ul>
 * Metrics: {@code flashstock.lock.wait}, {@code flashstock.lock.hold}, {@code flashstock.lock.lost}.
 */
@ApplicationScoped
public class RedisLock {

    private static final Logger LOG = Logger.getLogger(RedisLock.class);

    private final RedisDataSource redis;
    private final FlashstockConfig.Lock settings;
    private final LuaScript acquireScript = LuaScript.load("lock_acquire");
    private final LuaScript releaseScript = LuaScript.load("lock_release");
    private final LuaScript extendScript = LuaScript.load("lock_extend");
    private final LuaScript raiseFenceScript = LuaScript.load("fence_raise");
    private final SecureRandom random = new SecureRandom();
    private final ScheduledExecutorService renewals;
    private final Set<Lease> held = ConcurrentHashMap.newKeySet();
    private final MetersByTag<Timer> waits;
    private final Timer hold;
    private final Counter lost;

    RedisLock(RedisDataSource redis, FlashstockConfig config, MeterRegistry registry) {
        this.redis = redis;
        this.settings = config.lock();
        this.waits = new MetersByTag<>(outcome -> registry.timer("flashstock.lock.wait", "outcome", outcome));
        this.renewals = Executors.newScheduledThreadPool(1, runnable -> {
            Thread thread = new Thread(runnable, "flashstock-lock-renewal");
            thread.setDaemon(true);
            return thread;
        });
        this.hold = Timer.builder("flashstock.lock.hold").description("Time an item lock was held")
                .register(registry);
        this.lost = Counter.builder("flashstock.lock.lost")
                .description("Leases found lost (expired or taken) before release").register(registry);
    }

    /**
     * Acquires the item's lock, waiting at most {@code maxWait}. Throws {@link UnavailableException} when the wait
     * is over or Redis cannot be reached.
     */
    public Lease acquire(String sku, Duration lease, Duration maxWait) {
        String key = RedisKeys.lock(sku);
        List<String> keys = List.of(key, RedisKeys.fence(sku));
        long leaseMillis = Math.max(1, lease.toMillis());
        long start = System.nanoTime();
        long deadline = start + maxWait.toNanos();
        Backoff backoff = new Backoff(Math.max(1_000, settings.initialBackoff().toNanos()),
                settings.maxBackoff().toNanos());
        while (true) {
            String token = newToken();
            long answer;
            try {
                answer = acquireScript.run(redis, keys, List.of(token, Long.toString(leaseMillis))).toLong();
            } catch (RuntimeException e) {
                recordWait(start, "error");
                throw new UnavailableException("The lock service cannot be reached; nothing was changed, try again.",
                        e);
            }
            long now = System.nanoTime();
            if (answer > 0) {
                recordWait(start, "acquired");
                Lease granted = new Lease(this, key, token, answer, lease.toNanos(), now);
                held.add(granted);
                long period = Math.max(1, leaseMillis / 3);
                granted.renewal = renewals.scheduleWithFixedDelay(() -> renew(granted), period, period,
                        TimeUnit.MILLISECONDS);
                return granted;
            }
            // Never wait longer than the current holder's lease has left.
            long holderLeftNanos = TimeUnit.MILLISECONDS.toNanos(-answer);
            long pause = backoff.nextPauseNanos(Math.max(holderLeftNanos, 100_000));
            if (now + pause - deadline > 0) {
                recordWait(start, "timeout");
                throw new UnavailableException(
                        "Too many concurrent purchases of this item; nothing was changed, try again.");
            }
            if (!Backoff.sleep(pause)) {
                throw new UnavailableException("Interrupted while waiting for the lock; nothing was changed.");
            }
        }
    }

    /**
     * Raises the item's fencing counter to at least {@code floor}: after Redis lost the counter it would issue
     * tokens that MySQL rightly refuses. Returns the counter afterwards. Throws {@link UnavailableException} when
     * Redis cannot be reached (the caller's transaction rolled back for its stale grant: nothing was changed).
     */
    public long raiseFence(String sku, long floor) {
        try {
            return raiseFenceScript.run(redis, List.of(RedisKeys.fence(sku)), List.of(Long.toString(floor))).toLong();
        } catch (RuntimeException e) {
            throw new UnavailableException("The lock service cannot be reached; nothing was changed, try again.", e);
        }
    }

    boolean release(Lease lease) {
        synchronized (lease) {
            if (lease.released) {
                return !lease.lost;
            }
            lease.released = true;
        }
        stopRenewal(lease);
        hold.record(System.nanoTime() - lease.acquiredAtNanos, TimeUnit.NANOSECONDS);
        boolean deleted;
        try {
            deleted = releaseScript.run(redis, List.of(lease.key), List.of(lease.token)).toLong() == 1;
        } catch (RuntimeException e) {
            // The key expires by itself at the end of its lease; nobody else's key was touched.
            LOG.warnf("Could not release lock %s (it expires with its lease): %s", lease.key, e.toString());
            return false;
        }
        if (!deleted) {
            markLost(lease, "already expired or taken at release");
        }
        return deleted;
    }

    private void renew(Lease lease) {
        if (lease.released || lease.lost) {
            stopRenewal(lease);
            return;
        }
        long now = System.nanoTime();
        try {
            long extended = extendScript.run(redis, List.of(lease.key),
                    List.of(lease.token, Long.toString(TimeUnit.NANOSECONDS.toMillis(lease.leaseNanos)))).toLong();
            if (extended == 1) {
                lease.expiresAtNanos = now + lease.leaseNanos;
            } else {
                markLost(lease, "gone at renewal");
            }
        } catch (RuntimeException e) {
            if (System.nanoTime() - lease.expiresAtNanos >= 0) {
                markLost(lease, "lease ran out while Redis was unreachable");
            } else {
                LOG.debugf("Renewal of %s failed, retrying: %s", lease.key, e.toString());
            }
        }
    }

    private void markLost(Lease lease, String why) {
        if (!lease.lost) {
            lease.lost = true;
            lost.increment();
            LOG.warnf("Lock %s lost (%s); its fencing token %d is now stale", lease.key, why, lease.fence);
        }
        stopRenewal(lease);
    }

    private void stopRenewal(Lease lease) {
        held.remove(lease);
        if (lease.renewal != null) {
            lease.renewal.cancel(false);
        }
    }

    /** Leases this pod holds now. */
    public int heldCount() {
        return held.size();
    }

    void onShutdown(@Observes ShutdownEvent event) {
        shutdown();
    }

    @PreDestroy
    void shutdown() {
        held.forEach(this::stopRenewal);
        renewals.shutdownNow();
    }

    private void recordWait(long start, String outcome) {
        waits.get(outcome).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }

    private String newToken() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
