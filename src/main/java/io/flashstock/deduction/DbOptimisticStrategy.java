package io.flashstock.deduction;

import java.time.Duration;
import java.time.Instant;

import io.flashstock.Timestamps;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.FlashstockException;
import io.flashstock.item.Item;
import io.flashstock.order.OrderIds;
import io.flashstock.order.OrderView;
import io.flashstock.order.PurchaseOrder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.PersistenceException;

/**
 * {@code db-optimistic}: MySQL alone decides. Each attempt, in its own transaction, reads the item with its
 * version, checks the Idempotency-Key, availability and the user's limit, then writes the versioned update of
 * the item's counters and inserts the order. A concurrent change of the item makes the versioned update match
 * no row; {@link ConflictRetry} then starts a new transaction after a jittered pause.
 *
 * <p>Why this is safe: every change of an item's counters (purchase, confirm, cancel, expiry, restock) bumps its
 * version, so the checks of an attempt whose update succeeds were made on the latest committed state. The CHECK
 * {@code available >= 0} backs this up in the schema.
 */
@ApplicationScoped
public class DbOptimisticStrategy implements DeductionStrategy {

    private final ConflictRetry retry;
    private final Duration reservationTtl;

    DbOptimisticStrategy(ConflictRetry retry, FlashstockConfig config) {
        this.retry = retry;
        this.reservationTtl = config.reservationTtl();
    }

    @Override
    public StrategyName name() {
        return StrategyName.DB_OPTIMISTIC;
    }

    @Override
    public PurchaseOutcome purchase(PurchaseCommand command) {
        return retry.inNewTransactions(() -> attempt(command));
    }

    private PurchaseOutcome attempt(PurchaseCommand command) {
        if (command.hasIdempotencyKey()) {
            PurchaseOrder earlier = PurchaseOrder.findByIdempotencyKey(command.sku(), command.idempotencyKey());
            if (earlier != null) {
                return replay(earlier, command);
            }
        }
        Item item = Item.findById(command.sku());
        if (item == null) {
            throw FlashstockException.itemNotFound(command.sku());
        }
        if (item.available < command.quantity()) {
            throw FlashstockException.soldOut(command.sku(), command.quantity());
        }
        if (item.hasUserLimit()
                && PurchaseOrder.unitsHeld(command.sku(), command.userId()) + command.quantity() > item.perUserLimit) {
            throw FlashstockException.purchaseLimit(command.sku(), item.perUserLimit);
        }
        Instant now = Timestamps.now();
        item.reserve(command.quantity(), now);
        // Versioned UPDATE first: it takes the item's row lock before the order insert's foreign-key check
        // takes a shared one, so two buyers never deadlock on the same item.
        Item.flush();
        PurchaseOrder order = PurchaseOrder.reserved(OrderIds.next(), command.sku(), command.userId(),
                command.quantity(), command.idempotencyKey(), command.fingerprint(), now, reservationTtl);
        order.persist();
        try {
            PurchaseOrder.flush();
        } catch (PersistenceException e) {
            if (DbErrors.isDuplicateKey(e)) {
                throw new RetryableConflict("Idempotency-Key inserted concurrently", e);
            }
            throw e;
        }
        return new PurchaseOutcome(OrderView.of(order), false);
    }

    static PurchaseOutcome replay(PurchaseOrder earlier, PurchaseCommand command) {
        if (!earlier.requestFingerprint.equals(command.fingerprint())) {
            throw FlashstockException.keyReused();
        }
        return new PurchaseOutcome(OrderView.of(earlier), true);
    }
}
