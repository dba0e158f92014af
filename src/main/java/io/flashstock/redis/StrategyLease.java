package io.flashstock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.flashstock.config.FlashstockConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Keeps pods of {@code redis-lua} (the stock decided in Redis) and pods of the MySQL strategies
 * ({@code db-optimistic}, {@code redis-lock}) from serving at the same time, which a rolling update from one to the
 * other would otherwise do: a redis-lua pod sells from its hot stock while a MySQL pod changes MySQL behind it, and
 * write-behind orders still pending in Redis meet a MySQL that has sold their units again.
 *
 * <p>Each serving pod holds a lease in Redis ({@link RedisKeys#strategyLeases()}, {@code lua/strategy_lease.lua}),
 * renewed every third of {@code flashstock.strategy-lease.ttl}. A pod gets one only while no pod of the other family
 * holds one, so pods that start while the other family serves wait (readiness DOWN, state-changing requests 503,
 * background jobs idle) until those pods are gone: shut down (the lease is released) or dead for one TTL. Pods of one
 * family overlap freely. A MySQL-strategy pod also waits while write-behind orders are pending in Redis (only
 * redis-lua relays persist them), and once it holds the lease it removes the hot-stock generation at every renewal,
 * so that redis-lua pods started later rebuild every item from MySQL.
 *
 * <p>When Redis does not answer: a redis-lua pod serves only until its own copy of the lease runs out (measured from
 * before its last renewal was sent, so it never outlives the one in Redis); a MySQL-strategy pod, which does not need
 * Redis to decide, keeps serving unless Redis last told it to wait, and removes the generation when Redis answers
 * again, since it changed MySQL behind the hot stock meanwhile.
 */
@Startup // created with the application, so its meters are served from the start, not from its first round
@ApplicationScoped
public class StrategyLease {

    private static final Logger LOG = Logger.getLogger(StrategyLease.class);

    /** Which stores decide: pods of different families never serve at once. */
    public enum Family {
        /** redis-lua: the hot stock in Redis decides. */
        REDIS("redis"),
        /** db-optimistic, redis-lock: MySQL's counters decide. */
        MYSQL("mysql");

        private final String id;

        Family(String id) {
            this.id = id;
        }
    }

    private final RedisDataSource redis;
    private final LuaScript script = LuaScript.load("strategy_lease");
    private final Duration ttl;
    private final String pod = UUID.randomUUID().toString();

    /** Run when this pod gets its lease back after it was told to wait, before it serves again. */
    private final List<Runnable> regained = new CopyOnWriteArrayList<>();
    private volatile Family family;
    private volatile String field;
    /** {@link System#nanoTime()} until which this pod may serve on the strength of Redis's last answer. */
    private volatile long heldUntil;
    /** When the last renewal that Redis granted was sent ({@link System#nanoTime()}). */
    private volatile long renewedAt;
    private volatile boolean held;
    /**
     * MySQL family only: serving though Redis did not answer, on the strength of a lease Redis granted before; the hot
     * stock must be dropped once it does.
     */
    private volatile boolean unconfirmed;
    /** Whether Redis's last answer was "wait": then a MySQL-family pod does not serve on a Redis failure. */
    private volatile boolean toldToWait;
    private volatile String waitingFor = "the strategy lease was not tried yet";
    private volatile boolean stopped;
    /** The pending orders last reported by {@link #waitForPendingOrders()}, so that each count is logged once. */
    private long pendingLogged;

    StrategyLease(RedisDataSource redis, FlashstockConfig config, MeterRegistry registry) {
        this.redis = redis;
        this.ttl = config.strategyLease().ttl();
        Gauge.builder("flashstock.strategy.lease.held", this, lease -> lease.held() ? 1 : 0)
                .description("1 while this pod holds its strategy lease and serves; 0 while it waits for pods of the "
                        + "other strategy family (or for Redis)")
                .register(registry);
    }

    /** Starts this pod's lease for {@code strategy} of {@code family}: tries at once, then keeps at it. */
    public synchronized void begin(String strategy, Family family) {
        this.family = family;
        this.field = family.id + "|" + strategy + "|" + pod;
        renewOrClaim();
    }

    /**
     * {@code action} runs each time this pod gets its lease back after it did not hold it, before it serves again
     * (a failure counts as Redis not answering: the pod keeps waiting and tries again).
     */
    public void whenRegained(Runnable action) {
        regained.add(action);
    }

    /** Whether this pod may serve now: change stock, run its strategy's background jobs. */
    public boolean held() {
        return !stopped && (unconfirmed || held && System.nanoTime() - heldUntil < 0);
    }

    /** Why this pod does not serve (for readiness), or null when it does. */
    public String waitingFor() {
        return held() ? null : stopped ? "shutting down" : waitingFor;
    }

    /** This pod's random id in its lease's field ({@link LeaseHolders.Holder#pod()}): how the sale page finds itself. */
    public String pod() {
        return pod;
    }

    /** Whether this pod serves without Redis having confirmed its lease (MySQL family, Redis not answering). */
    public boolean unconfirmed() {
        return unconfirmed;
    }

    @Scheduled(identity = "strategy-lease", every = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void tick() {
        if (family == null || stopped) {
            return;
        }
        boolean renewalDue = System.nanoTime() - renewedAt >= ttl.toNanos() / 3;
        if (!held() || unconfirmed || renewalDue) {
            renewOrClaim();
        }
    }

    /** Releases the lease, so that pods of the other family waiting for it need not wait for it to expire. */
    void onStop(@Observes ShutdownEvent event) {
        synchronized (this) {
            stopped = true;
            if (field == null || !held) {
                return;
            }
            try {
                redis.hash(String.class).hdel(RedisKeys.strategyLeases(), field);
            } catch (RuntimeException e) {
                LOG.debugf("Could not release the strategy lease (it expires by itself): %s", e.toString());
            }
        }
    }

    synchronized void renewOrClaim() {
        if (stopped) {
            return;
        }
        long sent = System.nanoTime();
        try {
            boolean claiming = !held() || unconfirmed;
            if (family == Family.MYSQL && claiming && waitForPendingOrders()) {
                return;
            }
            Response reply = script.run(redis, List.of(RedisKeys.strategyLeases()),
                    List.of(field, family.id, Long.toString(ttl.toMillis())));
            if (reply.get(0).toLong() != 1) {
                stopServing(reply.get(1).toString());
                return;
            }
            if (family == Family.MYSQL) {
                // Checked again now that no redis-lua pod can start serving: one that ended between the first check
                // and the claim may have left orders behind.
                if (claiming && waitForPendingOrders()) {
                    redis.hash(String.class).hdel(RedisKeys.strategyLeases(), field);
                    return;
                }
                dropHotStock();
            }
            if (claiming) {
                regained.forEach(Runnable::run);
                LOG.infof("Strategy lease held: this pod serves (%s)", field.substring(0, field.lastIndexOf('|')));
            }
            heldUntil = sent + ttl.toNanos();
            renewedAt = sent;
            held = true;
            unconfirmed = false;
            toldToWait = false;
        } catch (RuntimeException e) {
            redisFailed(e);
        }
    }

    private void stopServing(String holder) {
        String[] parts = holder.split("\\|");
        String other = parts.length > 1 ? parts[1] : holder;
        String reason = "pods of strategy " + other + " are serving; this pod serves once they are gone (scale them "
                + "to zero, or they expire " + ttl.toSeconds() + " s after they stop renewing)";
        if (held) {
            LOG.warnf("Strategy lease lost: pods of strategy %s serve; this pod stops serving until they are gone",
                    other);
        } else if (!(toldToWait && reason.equals(waitingFor))) {
            LOG.infof("Waiting for pods of strategy %s to end before serving", other);
        }
        waitFor(reason);
    }

    /** MySQL family: whether write-behind orders are pending in Redis (then this pod waits, and says why). */
    private boolean waitForPendingOrders() {
        long pending = 0;
        int items = 0;
        for (String sku : redis.sortedSet(String.class).zrange(RedisKeys.activeItems(), 0, -1)) {
            long entries = redis.stream(String.class).xlen(RedisKeys.orders(sku));
            if (entries > 0) {
                pending += entries;
                items++;
            }
        }
        if (pending == 0) {
            return false;
        }
        if (pending != pendingLogged) {
            pendingLogged = pending;
            LOG.warnf("%d order(s) of %d item(s) acknowledged by redis-lua are still pending in Redis; this pod "
                    + "serves once a redis-lua pod has persisted them", pending, items);
        }
        waitFor(pending + " order(s) of " + items + " item(s) acknowledged by redis-lua are still pending in "
                + "Redis: run a redis-lua pod until they are persisted (flashstock_relay_pending 0)");
        return true;
    }

    /**
     * Redis told this pod to wait, for {@code reason}: it stops serving. A MySQL-strategy pod that served while Redis
     * did not answer changed MySQL behind the hot stock meanwhile, so it drops the generation first.
     */
    private void waitFor(String reason) {
        if (unconfirmed) {
            dropHotStock();
        }
        waitingFor = reason;
        toldToWait = true;
        held = false;
        unconfirmed = false;
    }

    /** Removes the hot-stock generation: redis-lua pods started later rebuild each item from MySQL. */
    private void dropHotStock() {
        if (redis.key().del(RedisKeys.generation()) > 0) {
            LOG.infof("The redis-lua hot stock in Redis is stale from now on; redis-lua pods will rebuild it from "
                    + "MySQL");
        }
    }

    /**
     * Redis did not answer. A MySQL-family pod that Redis granted its lease serves on (its strategy needs no Redis to
     * decide) unless Redis last told it to wait; one that never held it waits: it cannot know that no redis-lua pod
     * serves, or that none left orders pending.
     */
    private void redisFailed(RuntimeException e) {
        if (family == Family.MYSQL && !toldToWait && held) {
            if (!unconfirmed) {
                LOG.warnf("Redis does not answer for the strategy lease; this pod (%s) serves on, as its strategy "
                        + "needs no Redis to decide: %s", family, e.toString());
            }
            unconfirmed = true;
            return;
        }
        waitingFor = "Redis does not answer for the strategy lease";
        if (held && !held()) {
            held = false;
            LOG.warnf("Strategy lease ran out: Redis did not answer for %s; this pod stops serving until it does: %s",
                    ttl, e.toString());
        } else {
            LOG.debugf("Strategy lease not renewed: %s", e.toString());
        }
    }
}
