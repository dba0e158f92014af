package io.flashstock.deduction.optimistic;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.db.ConflictRetry;
import io.flashstock.db.DbErrors;
import io.flashstock.deduction.CartCommand;
import io.flashstock.deduction.CartOutcome;
import io.flashstock.deduction.Combiner;
import io.flashstock.deduction.Combiner.Result;
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
import io.flashstock.support.Timestamps;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * {@code db-optimistic}: MySQL alone decides, with optimistic locking on the item's {@code @Version}.
 *
 * <p>Plain optimistic locking collapses on one hot row: every concurrent buyer reads the same version and all but
 * one of them conflict and retry. So concurrent purchases of the same item in this pod are <em>combined</em>
 * ({@link Combiner}, up to {@code flashstock.optimistic.max-batch}) into one transaction: read the item and its version once, decide each
 * purchase in order (Idempotency-Key, availability, the user's limit), write one versioned update of the
 * counters and insert the orders. Pods still compete for the row: a version mismatch (or MariaDB 1020, a
 * deadlock, a concurrent insert of the same Idempotency-Key) makes {@link ConflictRetry} run the batch again in a
 * NEW transaction after a jittered pause, bounded; exhausted → 503 for the batch, nothing deducted.
 *
 * <p>Why this is safe: every change of an item's counters (purchase, confirm, cancel, expiry, restock) bumps its
 * version, so the decisions of a batch whose update succeeds were made on the latest committed state. The CHECK
 * {@code available >= 0} backs this up in the schema. A refusal (sold-out, limit, reused key) answers only its own
 * request; the others of the batch go on.
 */
@ApplicationScoped
public class DbOptimisticStrategy implements DeductionStrategy {

    private final ConflictRetry retry;
    private final Duration reservationTtl;
    private final Combiner<PurchaseCommand, PurchaseOutcome> combiner;

    DbOptimisticStrategy(ConflictRetry retry, FlashstockConfig config, MeterRegistry registry) {
        this.retry = retry;
        this.reservationTtl = config.reservationTtl();
        this.combiner = new Combiner<>(config.optimistic().maxBatch(), config.optimistic().maxTime(),
                config.decideWithin(),
                DistributionSummary.builder("flashstock.db.batch.size")
                        .description("Purchases decided together in one db-optimistic transaction")
                        .register(registry));
    }

    @Override
    public StrategyName name() {
        return StrategyName.DB_OPTIMISTIC;
    }

    @Override
    public PurchaseOutcome purchase(PurchaseCommand command) {
        return combiner.submit(command.sku(), command, this::decide);
    }

    /**
     * A cart in its own transaction: its items' rows locked first, in sku order ({@link Item#lockInOrder}), then each
     * line read, checked and its versioned update flushed, then the purchase and its lines inserted. Optimistic alone,
     * concurrent carts over the same few items kept conflicting until their retries ran out (measured: 3 of 100
     * carts answered 503 with two instances); holding the rows for the few statements of one cart, they queue
     * instead. Carts are not combined with single purchases; a single purchases' batch that read an item before a
     * cart changed it conflicts on the version and runs again, as between pods.
     */
    @Override
    public CartOutcome purchase(CartCommand cart) {
        AtomicReference<CartOutcome> committing = new AtomicReference<>();
        AtomicLong attemptStarted = new AtomicLong();
        try {
            return retry.inNewTransactions(() -> {
                attemptStarted.set(System.nanoTime());
                committing.set(null);
                Item.lockInOrder(cart.lines().stream().map(CartCommand.Line::sku).toList());
                CartOutcome decided = DbPurchase.decideCart(cart, reservationTtl, (line, now) -> {
                    Item item = DbPurchase.item(line.sku());
                    DbPurchase.check(item, cart.line(line), DbPurchase.unitsHeld(item, cart.userId()));
                    item.reserve(line.quantity(), now);
                    Item.flush();
                    return item;
                });
                committing.set(decided); // what the commit that follows makes true, if it succeeds
                return decided;
            });
        } catch (RuntimeException e) {
            return DbPurchase.settleCart(committing.get(), e, attemptStarted.get());
        }
    }

    /**
     * Runs the batch until it commits, conflicts being retried. If the database fails after an attempt decided
     * (the commit, whose answer may be lost), the new orders of that attempt are looked up before anything is
     * answered: each one that is stored is a 201, the others took no effect ({@link StoredOrders}).
     */
    private List<Result<PurchaseOutcome>> decide(List<PurchaseCommand> batch) {
        AtomicReference<List<Result<PurchaseOutcome>>> committing = new AtomicReference<>();
        AtomicLong attemptStarted = new AtomicLong();
        try {
            return retry.inNewTransactions(() -> {
                attemptStarted.set(System.nanoTime());
                committing.set(null);
                List<Result<PurchaseOutcome>> decided = attempt(batch);
                committing.set(decided); // what the commit that follows makes true, if it succeeds
                return decided;
            });
        } catch (RuntimeException e) {
            List<Result<PurchaseOutcome>> decided = committing.get();
            if (decided == null || !DbErrors.isUnavailable(e)) {
                throw e;
            }
            return settle(decided, e, attemptStarted.get());
        }
    }

    /** The answers of a batch whose commit failed on the way: stored orders stand, the others are refused. */
    private static List<Result<PurchaseOutcome>> settle(List<Result<PurchaseOutcome>> decided, RuntimeException e,
            long attemptStarted) {
        List<String> fresh = decided.stream().map(Result::value)
                .filter(outcome -> outcome != null && !outcome.replayed()).map(o -> o.order().orderId()).toList();
        Set<String> stored;
        RuntimeException refusal;
        try {
            stored = StoredOrders.among(fresh, e, attemptStarted);
            refusal = new UnavailableException("The inventory database failed; nothing was changed, try again.", e);
        } catch (FlashstockException unknown) {
            stored = Set.of();
            refusal = unknown; // outcome-unknown, for the new orders only: refusals and replays stay definite
        }
        Set<String> kept = stored;
        RuntimeException answer = refusal;
        return decided.stream().map(result -> result.value() == null || result.value().replayed()
                || kept.contains(result.value().order().orderId()) ? result
                        : Result.<PurchaseOutcome>refused(answer)).toList();
    }

    /**
     * One transaction for the batch. Returns, per purchase in order, its {@link PurchaseOutcome} or the
     * {@link FlashstockException} that refuses it.
     */
    private List<Result<PurchaseOutcome>> attempt(List<PurchaseCommand> batch) {
        String sku = batch.get(0).sku();
        Item item = Item.findById(sku);
        List<Result<PurchaseOutcome>> results = new ArrayList<>(batch.size());
        if (item == null) {
            batch.forEach(p -> results.add(Result.refused(FlashstockException.itemNotFound(sku))));
            return results;
        }
        Instant now = Timestamps.now();
        Map<String, PurchaseOrder> byKey = new HashMap<>();
        Map<String, Long> heldByUser = new HashMap<>();
        List<PurchaseOrder> orders = new ArrayList<>();
        for (PurchaseCommand command : batch) {
            try {
                PurchaseOrder sameKey = command.hasIdempotencyKey() ? byKey.get(command.idempotencyKey()) : null;
                PurchaseOutcome replay = sameKey != null
                        ? DbPurchase.replay(command, OrderView.of(sameKey), sameKey.requestFingerprint)
                        : DbPurchase.replayOrNull(command);
                if (replay != null) {
                    results.add(Result.of(replay));
                    continue;
                }
                long held = heldByUser.computeIfAbsent(command.userId(), user -> DbPurchase.unitsHeld(item, user));
                DbPurchase.check(item, command, held);
                item.reserve(command.quantity(), now);
                heldByUser.put(command.userId(), held + command.quantity());
                PurchaseOrder order = DbPurchase.newOrder(command, now, item.reservationTtl(reservationTtl));
                if (command.hasIdempotencyKey()) {
                    byKey.put(command.idempotencyKey(), order);
                }
                orders.add(order);
                results.add(Result.of(new PurchaseOutcome(OrderView.of(order), false)));
            } catch (FlashstockException refused) {
                results.add(Result.refused(refused));
            }
        }
        if (!orders.isEmpty()) {
            // Versioned UPDATE first: it takes the item's row lock before the order inserts' foreign-key checks
            // take shared ones, so two writers never deadlock on the same item.
            Item.flush();
            DbPurchase.insert(orders);
        }
        return results;
    }
}
