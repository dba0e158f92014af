package io.flashstock.deduction.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.db.ConflictRetry;
import io.flashstock.db.LostCommit;
import io.flashstock.deduction.CartCommand;
import io.flashstock.deduction.CartOutcome;
import io.flashstock.deduction.Combiner;
import io.flashstock.deduction.Combiner.Result;
import io.flashstock.deduction.DbPurchase;
import io.flashstock.deduction.DeductionStrategy;
import io.flashstock.deduction.LostPurchases;
import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.deduction.PurchaseOutcome;
import io.flashstock.deduction.Replays;
import io.flashstock.deduction.StrategyName;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.flashstock.item.Item;
import io.flashstock.redis.Lease;
import io.flashstock.redis.RedisLock;
import io.flashstock.support.InUse;
import io.flashstock.support.TrackedItems;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.instrumentation.annotations.WithSpan;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * {@code redis-lock}: one batch of purchases at a time per item, under one grant of the item's Redis lock; inside it
 * one MySQL transaction claims the item with the grant's fencing token ({@link FencedReservation}), decides each
 * purchase and inserts the orders. The lock only removes contention; safety comes from the fencing token, so a holder
 * paused past its lease cannot write. Lock wait exhausted or Redis unreachable → 503 {@code unavailable}.
 *
 * <p>Within a pod, purchases of one item queue on its lane ({@link Combiner}, up to {@code flashstock.lock.max-batch}
 * at a time), so that each pod has at most one waiter per item in Redis and a hot item costs one lock round and one
 * transaction per batch instead of per purchase (measured one purchase per grant: 900 orders/s on one hot item).
 * Carts queue on a fair local lock per item and take their items' locks one by one, in sku order.
 */
@ApplicationScoped
public class RedisLockStrategy implements DeductionStrategy {

    private static final Logger LOG = Logger.getLogger(RedisLockStrategy.class);
    /** A fenced-out attempt is retried under a new grant this many times in all. */
    private static final int MAX_GRANTS = 3;
    /**
     * What a batch keeps for its transaction once it has the lock: its lock wait ends this long before the first of
     * its buyers stops waiting ({@code flashstock.decide-within}), so a wait that runs out is a definite 503 (nothing
     * changed) and not an {@code outcome-unknown}.
     */
    private static final long TRANSACTION_ALLOWANCE_NANOS = Duration.ofSeconds(1).toNanos();

    private final RedisLock locks;
    private final FencedReservation fenced;
    private final Duration reservationTtl;
    private final Duration maxWait;
    private final Duration leaseLength;
    /** Carts' local queues per item in use (single purchases queue on the combiner's lanes). */
    private final InUse<ReentrantLock> gates = new InUse<>(() -> new ReentrantLock(true));
    private final Combiner<PurchaseCommand, PurchaseOutcome> combiner;

    RedisLockStrategy(RedisLock locks, FencedReservation fenced, FlashstockConfig config, MeterRegistry registry) {
        this.locks = locks;
        this.fenced = fenced;
        this.reservationTtl = config.reservationTtl();
        this.maxWait = config.lock().maxWait();
        this.leaseLength = config.lock().lease();
        this.combiner = new Combiner<PurchaseCommand, PurchaseOutcome>(config.lock().maxBatch(), maxWait, config.decideWithin(),
                DistributionSummary.builder("flashstock.lock.batch.size")
                        .description("Purchases decided together under one grant of an item's redis-lock lock")
                        .register(registry)).tracked(registry, StrategyName.REDIS_LOCK.configValue());
        TrackedItems.register(registry, "cart-gates", StrategyName.REDIS_LOCK.configValue(), gates, InUse::size);
    }

    @Override
    public StrategyName name() {
        return StrategyName.REDIS_LOCK;
    }

    /** Every purchase takes the item's lock in Redis. */
    @Override
    public boolean purchasesNeedRedis() {
        return true;
    }

    @Override
    @WithSpan("redis-lock purchase")
    public PurchaseOutcome purchase(PurchaseCommand command) {
        PurchaseOutcome replay = QuarkusTransaction.requiringNew().call(() -> beforeTheLock(command));
        if (replay != null) {
            return replay;
        }
        // Buyers of one item in this pod queue on its lane: whoever holds it takes the item's Redis lock once for
        // everything queued, so a pod has one waiter per item in Redis and one grant serves a whole batch.
        return combiner.submit(command.sku(), command, this::underLock);
    }

    /**
     * What is answered without the item's lock, with or without an Idempotency-Key, reading the item's row: an unknown
     * sku (404: it never takes a lock, so it leaves no lock or fencing counter in Redis), the replay of a key already
     * stored (an earlier answer, final), and a sold-out item (409: a storm of buyers of a sold-out item, keyed or not,
     * reads its row instead of queueing for the lock). Null: decide it under the lock.
     */
    private static PurchaseOutcome beforeTheLock(PurchaseCommand command) {
        Item item = DbPurchase.item(command.sku());
        PurchaseOutcome replay = Replays.replayOrNull(command);
        if (replay == null && item.available < command.quantity()) {
            throw FlashstockException.soldOut(command.sku(), command.quantity());
        }
        return replay;
    }

    /**
     * One batch of purchases of an item under one grant of its lock: one transaction claims the item with the grant's
     * fencing token ({@link FencedReservation#claim}: row lock, stale grant refused before anything is decided), then
     * decides the batch as db-optimistic does ({@link DbPurchase#decideBatch}). A stale grant or a conflict runs the
     * batch again under a new grant; a commit that failed on the way is settled by asking MySQL which orders it has
     * ({@link LostCommit}).
     * The lock waits, together, end at {@code flashstock.lock.max-wait} or shortly before the first buyer of the
     * batch stops waiting ({@code decideBy}), whichever comes first.
     */
    private List<Result<PurchaseOutcome>> underLock(List<PurchaseCommand> batch, long decideBy) {
        String sku = batch.get(0).sku();
        long now = System.nanoTime();
        long deadline = now + Math.min(maxWait.toNanos(), decideBy - TRANSACTION_ALLOWANCE_NANOS - now);
        for (int grant = 1; grant <= MAX_GRANTS; grant++) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            LostCommit<List<Result<PurchaseOutcome>>> commit = LostCommit.sinceNow(); // the lock wait counts
            try (Lease lease = locks.acquire(sku, leaseLength, left)) {
                try {
                    return QuarkusTransaction.requiringNew().call(() -> {
                        if (!fenced.claim(sku, lease.fence())) {
                            throw new FencedOut(sku);
                        }
                        List<Result<PurchaseOutcome>> decided = DbPurchase.decideBatch(batch, reservationTtl);
                        commit.committing(LostPurchases.batch(decided)); // what the commit that follows makes true
                        return decided;
                    });
                } catch (FencedOut e) {
                    afterStaleGrant(sku, lease);
                }
            } catch (RuntimeException e) {
                if (commit.lost(e)) {
                    return commit.settle(e); // did the commit happen?
                }
                ConflictRetry.rethrowUnlessConflict(e); // a conflict: try again under a new grant
            }
        }
        throw new UnavailableException("Could not get a current lock grant for this item; nothing was changed, "
                + "try again.");
    }

    /**
     * The transaction rolled back for a stale grant. Either this lease was lost, or Redis lost the counter (restart
     * without persistence) and issues tokens MySQL has seen: lift the counter, so that the next grant is current.
     */
    private void afterStaleGrant(String sku, Lease lease) {
        long accepted = fenced.accepted(sku);
        if (lease.fence() <= accepted) {
            long now = locks.raiseFence(sku, accepted);
            LOG.infof("Fencing counter of %s raised to %d after a stale grant", sku, now);
        }
    }

    /**
     * A cart: the pod's gates, then the Redis locks of its items, all in sku order (as every cart takes them, so two
     * carts never wait for each other in a circle), held until one transaction made a fenced reservation per line and
     * inserted the purchase. A stale grant on any line rolls everything back and the cart runs again under new
     * grants. The wait for all of it is bounded by {@code flashstock.lock.max-wait}.
     */
    @Override
    @WithSpan("redis-lock cart")
    public CartOutcome purchase(CartCommand cart) {
        QuarkusTransaction.requiringNew().run(() -> cart.lines().forEach(line -> {
            if (Item.findById(line.sku()) == null) { // before any gate or lock: an unknown sku leaves nothing
                throw FlashstockException.itemNotFound(line.sku()).forLine(line.sku());
            }
        }));
        return throughGates(cart, 0, System.nanoTime() + maxWait.toNanos());
    }

    /** Enters the gates of the cart's lines from {@code index} on, in sku order, then takes their Redis locks. */
    private CartOutcome throughGates(CartCommand cart, int index, long deadline) {
        if (index == cart.lines().size()) {
            return cartUnderLocks(cart, deadline);
        }
        return gates.use(cart.lines().get(index).sku(), gate -> {
            try {
                if (!gate.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    throw new UnavailableException("Too many concurrent purchases of these items; nothing was "
                            + "changed, try again.");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UnavailableException("Interrupted while waiting; nothing was changed, try again.", e);
            }
            try {
                return throughGates(cart, index + 1, deadline);
            } finally {
                gate.unlock();
            }
        });
    }

    private CartOutcome cartUnderLocks(CartCommand cart, long deadline) {
        for (int grant = 1; grant <= MAX_GRANTS; grant++) {
            Map<String, Lease> leases = new LinkedHashMap<>();
            LostCommit<CartOutcome> commit = LostCommit.sinceNow(); // the lock waits count
            try {
                for (CartCommand.Line line : cart.lines()) {
                    leases.put(line.sku(), locks.acquire(line.sku(), leaseLength,
                            Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
                }
                return QuarkusTransaction.requiringNew().call(() -> {
                    CartOutcome decided = DbPurchase.decideCart(cart, reservationTtl,
                            (line, now) -> reserveLine(cart, line, leases.get(line.sku()), now));
                    commit.committing(LostPurchases.cart(decided)); // what the commit that follows makes true
                    return decided;
                });
            } catch (FencedOut e) {
                afterStaleGrant(e.sku, leases.get(e.sku));
            } catch (RuntimeException e) {
                if (commit.lost(e)) {
                    return commit.settle(e); // did the commit happen?
                }
                ConflictRetry.rethrowUnlessConflict(e); // a conflict: try again under new grants
            } finally {
                List<Lease> held = new ArrayList<>(leases.values());
                for (int i = held.size() - 1; i >= 0; i--) {
                    held.get(i).close();
                }
            }
        }
        throw new UnavailableException("Could not get current lock grants for these items; nothing was changed, "
                + "try again.");
    }

    /** One line of a cart under its item's grant: as {@link #attempt}, without the order insert. */
    private Item reserveLine(CartCommand cart, CartCommand.Line line, Lease lease, Instant now) {
        switch (fenced.reserve(line.sku(), line.quantity(), lease.fence(), now)) {
            case FENCED_OUT -> throw new FencedOut(line.sku());
            case SOLD_OUT -> {
                DbPurchase.item(line.sku()); // 404 for an unknown sku
                throw FlashstockException.soldOut(line.sku(), line.quantity());
            }
            case RESERVED -> {
                // units reserved under a current grant; now the window and the user's limit, under the row lock
            }
        }
        Item item = DbPurchase.item(line.sku());
        DbPurchase.checkWindow(item);
        DbPurchase.checkLimit(item, cart.line(line), DbPurchase.unitsHeld(item, cart.userId()));
        return item;
    }

    /** A write refused for a stale fencing token; thrown inside the transaction so that it rolls back. */
    private static final class FencedOut extends RuntimeException {
        final String sku;

        FencedOut(String sku) {
            super("fenced out", null, false, false);
            this.sku = sku;
        }
    }
}
