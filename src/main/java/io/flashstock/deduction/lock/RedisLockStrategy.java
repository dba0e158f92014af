package io.flashstock.deduction.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.db.ConflictRetry;
import io.flashstock.db.DbErrors;
import io.flashstock.deduction.DbPurchase;
import io.flashstock.deduction.DeductionStrategy;
import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.deduction.PurchaseOutcome;
import io.flashstock.deduction.StoredOrders;
import io.flashstock.deduction.StrategyName;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.flashstock.item.Item;
import io.flashstock.order.OrderView;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.redis.Lease;
import io.flashstock.redis.RedisLock;
import io.flashstock.support.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * {@code redis-lock}: one purchase at a time per item, under the item's Redis lock; inside it one MySQL
 * transaction checks, makes the fenced reservation ({@link FencedReservation}) and inserts the order. The lock
 * only removes contention; safety comes from the fencing token, so a holder paused past its lease cannot write.
 * Lock wait exhausted or Redis unreachable → 503 {@code unavailable}. Within a pod, purchases of one item first
 * queue on a local fair lock, so that each pod has at most one waiter per item in Redis.
 */
@ApplicationScoped
public class RedisLockStrategy implements DeductionStrategy {

    private static final Logger LOG = Logger.getLogger(RedisLockStrategy.class);
    /** A fenced-out attempt is retried under a new grant this many times in all. */
    private static final int MAX_GRANTS = 3;

    private final RedisLock locks;
    private final FencedReservation fenced;
    private final Duration reservationTtl;
    private final Duration maxWait;
    private final Duration leaseLength;
    private final Map<String, ReentrantLock> gates = new ConcurrentHashMap<>();

    RedisLockStrategy(RedisLock locks, FencedReservation fenced, FlashstockConfig config) {
        this.locks = locks;
        this.fenced = fenced;
        this.reservationTtl = config.reservationTtl();
        this.maxWait = config.lock().maxWait();
        this.leaseLength = config.lock().lease();
    }

    @Override
    public StrategyName name() {
        return StrategyName.REDIS_LOCK;
    }

    @Override
    public PurchaseOutcome purchase(PurchaseCommand command) {
        // A sold-out item (or an unknown sku) needs no lock: once an item is sold out, a storm of buyers reads
        // its row instead of queueing for the lock. A replay of an earlier Idempotency-Key still goes through.
        if (!command.hasIdempotencyKey()) {
            QuarkusTransaction.requiringNew().run(() -> {
                if (DbPurchase.item(command.sku()).available < command.quantity()) {
                    throw FlashstockException.soldOut(command.sku(), command.quantity());
                }
            });
        }
        // Threads of this pod queue for the item in FIFO order here, so only one of them at a time waits in
        // Redis: no pile of pods' threads polling the same key, and the grant passes on without a backoff gap.
        ReentrantLock gate = gates.computeIfAbsent(command.sku(), sku -> new ReentrantLock(true));
        long start = System.nanoTime();
        boolean entered;
        try {
            entered = gate.tryLock(maxWait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            entered = false;
        }
        if (!entered) {
            throw new UnavailableException("Too many concurrent purchases of this item; nothing was changed, "
                    + "try again.");
        }
        try {
            Duration left = maxWait.minusNanos(System.nanoTime() - start);
            return underLock(command, left.isNegative() ? Duration.ZERO : left);
        } finally {
            gate.unlock();
        }
    }

    private PurchaseOutcome underLock(PurchaseCommand command, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        for (int grant = 1; grant <= MAX_GRANTS; grant++) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            AtomicReference<PurchaseOutcome> committing = new AtomicReference<>();
            long attemptStarted = System.nanoTime();
            try (Lease lease = locks.acquire(command.sku(), leaseLength, left)) {
                try {
                    return QuarkusTransaction.requiringNew().call(() -> {
                        PurchaseOutcome decided = attempt(command, lease);
                        committing.set(decided); // what the commit that follows makes true, if it succeeds
                        return decided;
                    });
                } catch (FencedOut e) {
                    // The transaction rolled back. Either this lease was lost, or Redis lost the counter (restart
                    // without persistence) and issues tokens MySQL has seen: lift the counter and try a new grant.
                    long accepted = fenced.accepted(command.sku());
                    if (lease.fence() <= accepted) {
                        long now = locks.raiseFence(command.sku(), accepted);
                        LOG.infof("Fencing counter of %s raised to %d after a stale grant", command.sku(), now);
                    }
                }
            } catch (RuntimeException e) {
                PurchaseOutcome decided = committing.get();
                if (decided != null && !decided.replayed() && DbErrors.isUnavailable(e)) {
                    return settle(decided, e, attemptStarted); // the commit failed on the way: did it happen?
                }
                ConflictRetry.rethrowUnlessConflict(e); // a conflict: try again under a new grant
            }
        }
        throw new UnavailableException("Could not get a current lock grant for this item; nothing was changed, "
                + "try again.");
    }

    /** A purchase whose commit failed on the way: its order stands if MySQL has it, else nothing was changed. */
    private static PurchaseOutcome settle(PurchaseOutcome decided, RuntimeException e, long attemptStarted) {
        String orderId = decided.order().orderId();
        if (StoredOrders.among(List.of(orderId), e, attemptStarted).contains(orderId)) {
            return decided;
        }
        throw new UnavailableException("The inventory database failed; nothing was changed, try again.", e);
    }

    /**
     * One transaction under the lock. The fenced reservation comes first: it takes the item's row lock and refuses a
     * stale grant before anything is decided, so the per-user limit is then checked against every order committed
     * for the item, including those of a holder that came after a paused one. A stale grant throws
     * {@link FencedOut}, which rolls the transaction back.
     */
    private PurchaseOutcome attempt(PurchaseCommand command, Lease lease) {
        PurchaseOutcome replay = DbPurchase.replayOrNull(command);
        if (replay != null) {
            return replay;
        }
        Instant now = Timestamps.now();
        switch (fenced.reserve(command.sku(), command.quantity(), lease.fence(), now)) {
            case FENCED_OUT -> throw new FencedOut();
            case SOLD_OUT -> {
                DbPurchase.item(command.sku()); // 404 for an unknown sku
                throw FlashstockException.soldOut(command.sku(), command.quantity());
            }
            case RESERVED -> {
                // units reserved under a current grant; now the user's limit, under the item's row lock
            }
        }
        Item item = DbPurchase.item(command.sku());
        DbPurchase.checkWindow(item); // refused: the rollback gives the reserved units back
        DbPurchase.checkLimit(item, command, DbPurchase.unitsHeld(item, command.userId()));
        PurchaseOrder order = DbPurchase.insertOrder(command, now, item.reservationTtl(reservationTtl));
        return new PurchaseOutcome(OrderView.of(order), false);
    }

    /** A write refused for a stale fencing token; thrown inside the transaction so that it rolls back. */
    private static final class FencedOut extends RuntimeException {
        FencedOut() {
            super("fenced out", null, false, false);
        }
    }
}
