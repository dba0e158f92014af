package io.flashstock.deduction.lua;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.CartCommand;
import io.flashstock.deduction.CartOutcome;
import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.deduction.Replays;
import io.flashstock.deduction.lua.HotStock.Decision;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.error.UnavailableException;
import io.flashstock.item.Availability;
import io.flashstock.order.OrderIds;
import io.flashstock.order.PurchaseView;
import io.flashstock.support.Timestamps;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * One cart request of {@code redis-lua} through the saga of {@link Carts} (docs/multi-item-purchases.md): its decision
 * record opened (claiming the Idempotency-Key), each line reserved in sku order by the purchase script with the cart's
 * id in its entry, then COMMITTED by compare-and-set and persisted as a whole (write-through: now; write-behind: by the
 * relays). A refused line aborts the cart and gives back the lines reserved before it, before the refusal is answered.
 * Apart from {@link Carts}, whose records and persistence the relays share, so that they need not know the request.
 */
@ApplicationScoped
public class CartPurchases {

    private static final Logger LOG = Logger.getLogger(CartPurchases.class);
    /**
     * A Redis call of the cart's own (its record, not a line) failed: 503 {@code unavailable}, problem+json with a
     * Retry-After, never a bare 500. Opening: no line holds units (a record left PENDING is aborted past its deadline).
     */
    private static final String NOT_OPENED = "The hot stock could not be reached; no units were taken, try again.";
    /** The same on a retry's look at the purchase its key made, which may hold units or be stored. */
    private static final String NOT_LOOKED_UP = "The purchase this Idempotency-Key made could not be looked up now; "
            + "repeat the request with the same key.";

    private final HotStock hotStock;
    private final Carts carts;
    private final OrderRelay relay;
    private final Availability availability;
    private final Refusals refusals;
    private final Checkpoints checkpoints;
    private final Duration reservationTtl;
    private final boolean writeThrough;

    CartPurchases(HotStock hotStock, Carts carts, OrderRelay relay, Availability availability,
            Checkpoints checkpoints, FlashstockConfig config, MeterRegistry registry) {
        this.checkpoints = checkpoints;
        this.hotStock = hotStock;
        this.carts = carts;
        this.relay = relay;
        this.availability = availability;
        this.refusals = new Refusals(registry);
        this.reservationTtl = config.reservationTtl();
        this.writeThrough = config.lua().persistence() == FlashstockConfig.Persistence.WRITE_THROUGH;
    }

    /** The cart, all lines or none ({@link io.flashstock.deduction.DeductionStrategy#purchase(CartCommand)}). */
    public CartOutcome purchase(CartCommand cart) {
        return purchase(cart, true);
    }

    /** {@code mayRetry}: whether a key held by a dead request's cart may be released and the cart run anew, once. */
    private CartOutcome purchase(CartCommand cart, boolean mayRetry) {
        if (cart.hasIdempotencyKey()) {
            // MySQL keeps every key for good; Redis only for idempotency-ttl: a late retry is found here.
            CartOutcome stored = QuarkusTransaction.requiringNew().call(() -> Replays.cartReplayOrNull(cart));
            if (stored != null) {
                return stored;
            }
        }
        String purchaseId = OrderIds.next(cart.lines().get(0).sku());
        Carts.Opened opened = UnavailableException.unlessFailing(NOT_OPENED, () -> carts.open(cart, purchaseId));
        switch (opened.reply()) {
            case "KEY_REUSED" -> throw FlashstockException.keyReused();
            case "REPLAY" -> {
                return replayCart(cart, opened.purchaseId(), mayRetry);
            }
            default -> checkpoints.passed(Checkpoints.Step.CART_OPENED); // opened: PENDING
        }
        refuseKnownSoldOut(cart, purchaseId);
        Instant now = Timestamps.now();
        List<CartLine> reserved = new ArrayList<>(cart.lines().size());
        Instant expires = null;
        try {
            for (CartCommand.Line line : cart.lines()) {
                PurchaseCommand command = cart.line(line);
                String orderId = OrderIds.ofLine(purchaseId, reserved.size(), line.sku());
                Decision decision;
                try {
                    decision = hotStock.purchase(command, orderId, now, now.plus(reservationTtl), purchaseId);
                } catch (FlashstockException e) {
                    throw e.code() == ProblemCode.ITEM_NOT_FOUND ? e.forLine(line.sku()) : e; // found warming it
                }
                if (decision.seq() >= 0) {
                    availability.observed(line.sku(), decision.available(), decision.seq());
                }
                if (!decision.tookUnits()) {
                    throw refusals.of(command, decision, now).forLine(line.sku());
                }
                reserved.add(new CartLine(line.sku(), line.quantity(), orderId, decision.entryId(),
                        decision.epoch()));
                if (reserved.size() == 1) {
                    checkpoints.passed(Checkpoints.Step.CART_FIRST_LINE);
                }
                expires = expires == null || decision.expiresAt().isBefore(expires) ? decision.expiresAt() : expires;
            }
        } catch (RuntimeException e) {
            carts.abandon(cart.userId(), purchaseId, cart.idempotencyKey(), reserved);
            throw e;
        }
        CommittedCart committed = new CommittedCart(purchaseId, cart.userId(), cart.idempotencyKey(),
                cart.fingerprint(), now, expires, reserved);
        Carts.State state;
        try {
            state = carts.commit(committed);
        } catch (RuntimeException e) {
            throw FlashstockException.outcomeUnknown(e); // decided or not, a relay finishes it after the deadline
        }
        if (state != Carts.State.COMMITTED) {
            try {
                carts.giveBack(reserved); // a relay aborted it past its deadline and gives them back too: once each
            } catch (RuntimeException e) {
                LOG.debugf("Lines of aborted cart %s left to the relays: %s", purchaseId, e.toString());
            }
            throw new UnavailableException("The purchase took too long and was given up; nothing was changed, "
                    + "try again.");
        }
        checkpoints.passed(Checkpoints.Step.CART_COMMITTED);
        if (!writeThrough) {
            reserved.forEach(line -> relay.wake(line.sku()));
            return new CartOutcome(committed.view(), false);
        }
        PendingOrderWriter.CartWrite written;
        try {
            written = carts.persist(committed);
        } catch (RuntimeException e) {
            // COMMITTED in Redis: a relay persists it once claim-after has passed; a retry with the same
            // Idempotency-Key gets it.
            throw FlashstockException.outcomeUnknown(e);
        }
        return switch (written.outcome()) {
            case INSERTED, PRESENT -> new CartOutcome(committed.view(), false);
            case DUPLICATE_KEY -> QuarkusTransaction.requiringNew().call(() -> Replays.cartReplayOrNull(cart));
            case SOLD_OUT -> throw shortLine(reserved, written.shortSku());
        };
    }

    /** The 409 of a cart MySQL refused: the line it was short of (the first, when not known). */
    private static FlashstockException shortLine(List<CartLine> lines, String shortSku) {
        CartLine line = lines.stream().filter(l -> l.sku().equals(shortSku)).findFirst().orElse(lines.get(0));
        return FlashstockException.soldOut(line.sku(), line.quantity()).forLine(line.sku());
    }

    /**
     * A cart with a line this pod knows to be sold out is refused before any line takes units. A key-less cart is
     * refused so before its record opens (PurchaseService); a keyed one only now, once its key proved new (not a
     * replay). Before, the lines in sku order ahead of it were reserved, then given back: up to 19 purchases and 19
     * undos, every pod told of the units coming back, for one 409.
     */
    private void refuseKnownSoldOut(CartCommand cart, String purchaseId) {
        for (CartCommand.Line line : cart.lines()) {
            if (availability.soldOut(line.sku(), line.quantity())) {
                carts.abandon(cart.userId(), purchaseId, cart.idempotencyKey(), List.of()); // its key released
                throw FlashstockException.soldOut(line.sku(), line.quantity()).forLine(line.sku());
            }
        }
    }

    /**
     * The purchase an Idempotency-Key made: from MySQL, or (write-behind) from its COMMITTED record on its way there.
     * Still being decided or stored → 409 request-in-progress.
     */
    private CartOutcome replayCart(CartCommand cart, String purchaseId, boolean mayRetry) {
        PurchaseView stored = QuarkusTransaction.requiringNew().call(() -> Replays.cartView(purchaseId));
        if (stored != null) {
            return new CartOutcome(stored, true);
        }
        CommittedCart committed = writeThrough ? null
                : UnavailableException.unlessFailing(NOT_LOOKED_UP, () -> carts.committed(cart.userId(), purchaseId));
        if (committed != null) {
            return new CartOutcome(committed.view(), true);
        }
        if (mayRetry && UnavailableException.unlessFailing(NOT_LOOKED_UP,
                () -> carts.abortIfDue(cart.userId(), purchaseId)) == Carts.State.ABORTED) {
            // The first request died before deciding (or was refused): nothing is held for the key; run anew.
            return purchase(cart, false);
        }
        throw FlashstockException.requestInProgress();
    }
}
