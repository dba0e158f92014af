package io.flashstock.deduction.lua;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.CartCommand;
import io.flashstock.deduction.CartOutcome;
import io.flashstock.deduction.Combiner;
import io.flashstock.deduction.Combiner.Result;
import io.flashstock.deduction.DeductionStrategy;
import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.deduction.PurchaseOutcome;
import io.flashstock.deduction.Replays;
import io.flashstock.deduction.StoredOrders;
import io.flashstock.deduction.StrategyName;
import io.flashstock.deduction.lua.HotStock.Decision;
import io.flashstock.deduction.lua.PendingOrderWriter.Outcome;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.error.UnavailableException;
import io.flashstock.item.Availability;
import io.flashstock.item.SaleWindow;
import io.flashstock.item.StockMirror;
import io.flashstock.order.OrderIds;
import io.flashstock.order.OrderStatus;
import io.flashstock.order.OrderView;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.order.PurchaseView;
import io.flashstock.redis.StrategyLease;
import io.flashstock.support.Timestamps;
import io.flashstock.support.Workers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * {@code redis-lua}: the hot stock in Redis decides. One script ({@code lua/purchase.lua}) checks the
 * Idempotency-Key, availability and the user's limit, deducts, and records the pending order in the item's stream,
 * atomically; MySQL only sees the winners. How the order reaches MySQL is {@code flashstock.lua.persistence}:
 * <ul>
 * <li>{@code write-through}: the order is committed in MySQL before the 201 (concurrent winners of one item are
 * combined into one transaction). If MySQL cannot be reached the units go back in Redis and the answer is 503; if
 * MySQL has not the units (Redis had stale stock) they leave Redis and the answer is 409 sold-out.</li>
 * <li>{@code write-behind}: 201 as soon as Redis holds the pending order; {@link OrderRelay} persists it.</li>
 * </ul>
 * Either way, MySQL's counters and {@code CHECK (available >= 0)} stay the last word: Redis makes it fast, MySQL
 * makes oversell impossible.
 */
@ApplicationScoped
public class RedisLuaStrategy implements DeductionStrategy {

    private static final Logger LOG = Logger.getLogger(RedisLuaStrategy.class);

    private final HotStock hotStock;
    private final OrderRelay relay;
    private final PendingOrderWriter writer;
    private final PodIdentity pod;
    private final PendingStream stream;
    private final Duration reservationTtl;
    private final boolean writeThrough;
    private final Combiner<PendingOrder, Written> combiner;
    private final Counter busy;
    private final Availability availability;
    private final Carts carts;
    private final IdempotencyKeys keys;
    private final HotStockMirror mirror;
    private final HotStockWarmer warmer;
    private final HotStockWatch watch;

    RedisLuaStrategy(HotStock hotStock, OrderRelay relay, PendingOrderWriter writer, PendingStream stream,
            PodIdentity pod, Availability availability, Carts carts, IdempotencyKeys keys, HotStockMirror mirror,
            HotStockWarmer warmer, HotStockWatch watch, FlashstockConfig config, MeterRegistry registry) {
        this.hotStock = hotStock;
        this.mirror = mirror;
        this.warmer = warmer;
        this.watch = watch;
        this.keys = keys;
        this.carts = carts;
        this.availability = availability;
        this.relay = relay;
        this.writer = writer;
        this.pod = pod;
        this.stream = stream;
        this.reservationTtl = config.reservationTtl();
        this.writeThrough = config.lua().persistence() == FlashstockConfig.Persistence.WRITE_THROUGH;
        this.combiner = new Combiner<>(config.lua().relayBatchSize(), config.optimistic().maxTime(),
                config.decideWithin(),
                DistributionSummary.builder("flashstock.lua.write-through.batch.size")
                        .description("Orders persisted together in one write-through transaction")
                        .register(registry));
        this.busy = Counter.builder("flashstock.lua.busy")
                .description("Write-behind purchases refused with 503 because the item's pending orders reached "
                        + "flashstock.lua.max-pending (the relays lag behind)")
                .register(registry);
    }

    @Override
    public StrategyName name() {
        return StrategyName.REDIS_LUA;
    }

    /** The hot stock: every change MySQL commits outside a purchase is mirrored into it. */
    @Override
    public Optional<StockMirror> stockMirror() {
        return Optional.of(mirror);
    }

    @Override
    public StrategyLease.Family leaseFamily() {
        return StrategyLease.Family.REDIS;
    }

    /** In write-behind a purchase does not touch MySQL: the pod sells on, and its relay catches up. */
    @Override
    public boolean purchasesNeedDatabase() {
        return writeThrough;
    }

    /** The hot stock's generation, the relay and the watch: nothing of them runs under another strategy. */
    @Override
    public void start() {
        warmer.activate();
        relay.start();
        watch.start();
    }

    @Override
    public PurchaseOutcome purchase(PurchaseCommand command) {
        Instant now = Timestamps.now();
        Decision decision = hotStock.purchase(command, OrderIds.next(command.sku()), now, now.plus(reservationTtl));
        return decided(command, decision, now);
    }

    /**
     * The purchase without a worker thread where nothing blocks: the script runs on the reactive client, and a
     * write-behind 201 or any refusal is answered on the event loop. A replay (MySQL), a write-through order (stored
     * before the 201), an item to warm and a failed call continue on a worker, as {@link #purchase} would.
     */
    @Override
    public Uni<PurchaseOutcome> purchaseAsync(PurchaseCommand command) {
        Instant now = Timestamps.now();
        return hotStock.purchaseAsync(command, OrderIds.next(command.sku()), now, now.plus(reservationTtl))
                .flatMap(decision -> blocksAfter(decision) ? Workers.call(() -> decided(command, decision, now))
                        : Uni.createFrom().item(() -> decided(command, decision, now)));
    }

    /** Whether what follows the script's decision blocks: a replay reads MySQL, write-through stores the order. */
    private boolean blocksAfter(Decision decision) {
        return decision.reply() == PurchaseReply.REPLAY || decision.reply() == PurchaseReply.OK && writeThrough;
    }

    /** The answer to the script's decision for {@code command}, made at {@code now}. */
    private PurchaseOutcome decided(PurchaseCommand command, Decision decision, Instant now) {
        if (decision.seq() >= 0) {
            availability.observed(command.sku(), decision.available(), decision.seq());
        }
        if (decision.reply() == PurchaseReply.REPLAY) {
            return replay(command, decision);
        }
        if (decision.reply() != PurchaseReply.OK) {
            throw refusal(command, decision, now);
        }
        PendingOrder order = new PendingOrder(decision.entryId(), decision.orderId(), command.sku(), command.userId(),
                command.quantity(), command.idempotencyKey(), command.fingerprint(), now, decision.expiresAt(),
                pod.id(), decision.epoch(), null);
        if (!writeThrough) {
            relay.wake(command.sku());
            return new PurchaseOutcome(order.view(), false);
        }
        return persistNow(command, order);
    }

    /** Why the purchase script refused {@code command} (any reply but OK and REPLAY). */
    private FlashstockException refusal(PurchaseCommand command, Decision decision, Instant now) {
        return switch (decision.reply()) {
            case KEY_REUSED -> FlashstockException.keyReused();
            case SOLD_OUT -> FlashstockException.soldOut(command.sku(), command.quantity());
            case LIMIT -> FlashstockException.purchaseLimit(command.sku(), (int) decision.limit());
            case PAUSED -> FlashstockException.salePaused(command.sku());
            case ENDED -> FlashstockException.saleEnded(command.sku(), null);
            case NOT_STARTED -> FlashstockException.saleNotStarted(command.sku(), now.plusMillis(decision.limit()),
                    SaleWindow.secondsUntil(decision.limit()));
            case BUSY -> {
                busy.increment();
                yield new UnavailableException("Orders of this item are still being recorded; nothing was changed, "
                        + "try again.");
            }
            // VOID: this order id was given up on already, which cannot happen for a fresh id; COLD and STALE never
            // return (the item is warmed and asked again); OK and REPLAY are not refusals.
            case OK, REPLAY, VOID, COLD, STALE -> new UnavailableException(
                    "The purchase was abandoned; nothing was changed, try again.");
        };
    }

    /**
     * A cart ({@link Carts}): its decision record opened (claiming the Idempotency-Key), each line reserved in sku
     * order by the purchase script with the cart's id in its entry, then COMMITTED by compare-and-set and persisted
     * as a whole (write-through: now; write-behind: by the relays). A refused line aborts the cart and gives back the
     * lines reserved before it, before the refusal is answered.
     */
    @Override
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
        Carts.Opened opened = carts.open(cart, purchaseId);
        switch (opened.reply()) {
            case "KEY_REUSED" -> throw FlashstockException.keyReused();
            case "REPLAY" -> {
                return replayCart(cart, opened.purchaseId(), mayRetry);
            }
            default -> carts.checkpoint(Carts.Crash.AFTER_OPEN); // opened: PENDING
        }
        Instant now = Timestamps.now();
        List<Carts.Line> reserved = new ArrayList<>(cart.lines().size());
        Instant expires = null;
        try {
            for (CartCommand.Line line : cart.lines()) {
                PurchaseCommand command = cart.line(line);
                String orderId = OrderIds.next(line.sku());
                Decision decision;
                try {
                    decision = hotStock.purchase(command, orderId, now, now.plus(reservationTtl), purchaseId);
                } catch (FlashstockException e) {
                    throw e.code() == ProblemCode.ITEM_NOT_FOUND ? e.forLine(line.sku()) : e; // found warming it
                }
                if (decision.seq() >= 0) {
                    availability.observed(line.sku(), decision.available(), decision.seq());
                }
                if (decision.reply() != PurchaseReply.OK) {
                    throw refusal(command, decision, now).forLine(line.sku());
                }
                reserved.add(new Carts.Line(line.sku(), line.quantity(), orderId, decision.entryId(),
                        decision.epoch()));
                if (reserved.size() == 1) {
                    carts.checkpoint(Carts.Crash.AFTER_FIRST_LINE);
                }
                expires = expires == null || decision.expiresAt().isBefore(expires) ? decision.expiresAt() : expires;
            }
        } catch (RuntimeException e) {
            carts.abandon(cart.userId(), purchaseId, cart.idempotencyKey(), reserved);
            throw e;
        }
        Carts.Committed committed = new Carts.Committed(purchaseId, cart.userId(), cart.idempotencyKey(),
                cart.fingerprint(), now, expires, reserved);
        Carts.State state;
        try {
            state = carts.commit(committed);
        } catch (RuntimeException e) {
            throw FlashstockException.outcomeUnknown(e); // decided or not, a relay finishes it after the deadline
        }
        if (state != Carts.State.COMMITTED) {
            carts.giveBack(reserved); // a relay aborted it past its deadline and gives the lines back too: once each
            throw new UnavailableException("The purchase took too long and was given up; nothing was changed, "
                    + "try again.");
        }
        carts.checkpoint(Carts.Crash.AFTER_COMMIT);
        if (!writeThrough) {
            reserved.forEach(line -> relay.wake(line.sku()));
            return new CartOutcome(committed.view(), false);
        }
        Outcome outcome;
        try {
            outcome = carts.persist(committed);
        } catch (RuntimeException e) {
            // COMMITTED in Redis: a relay persists it once claim-after has passed; a retry with the same
            // Idempotency-Key gets it.
            throw FlashstockException.outcomeUnknown(e);
        }
        return switch (outcome) {
            case INSERTED, PRESENT -> new CartOutcome(committed.view(), false);
            case DUPLICATE_KEY -> QuarkusTransaction.requiringNew().call(() -> Replays.cartReplayOrNull(cart));
            case SOLD_OUT -> throw FlashstockException.soldOut(reserved.get(0).sku(), reserved.get(0).quantity())
                    .forLine(reserved.get(0).sku());
        };
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
        Carts.Committed committed = writeThrough ? null : carts.committed(cart.userId(), purchaseId);
        if (committed != null) {
            return new CartOutcome(committed.view(), true);
        }
        if (mayRetry && carts.abortIfDue(cart.userId(), purchaseId) == Carts.State.ABORTED) {
            // The first request died before deciding (or was refused): nothing is held for the key; run anew.
            return purchase(cart, false);
        }
        throw FlashstockException.requestInProgress();
    }

    /** Write-through: the order in MySQL before answering, or the purchase taken back. */
    private PurchaseOutcome persistNow(PurchaseCommand command, PendingOrder order) {
        Written written;
        long submitted = System.nanoTime();
        try {
            written = combiner.submit(order.sku(), order, this::persistBatch);
        } catch (RuntimeException e) {
            if (e instanceof FlashstockException f && f.code() == ProblemCode.OUTCOME_UNKNOWN) {
                throw f; // its batch is still running and may commit it: the entry stays for a relay
            }
            // The commit may have happened with its answer lost, or another pod's relay stored the order: look
            // first, and take the purchase back only if the order is known not to be in MySQL. If MySQL cannot
            // tell, the answer is outcome-unknown and the entry stays pending: the relay persists it (or finds it
            // stored), and a retry with the same Idempotency-Key gets the order.
            if (StoredOrders.among(List.of(order.orderId()), e, submitted).contains(order.orderId())) {
                return new PurchaseOutcome(order.view(), false);
            }
            if (takenBack(order, true) != PendingStream.Undo.UNDONE) {
                // A relay took the entry over (this request was slower than claim-after) and persists it.
                throw FlashstockException.outcomeUnknown(e);
            }
            throw e instanceof FlashstockException f ? f
                    : new UnavailableException("The order could not be stored; nothing was changed, try again.", e);
        }
        switch (written.outcome()) {
            case INSERTED, PRESENT:
                try {
                    stream.settle(order.sku(), List.of(order.entryId()),
                            written.outcome() == Outcome.INSERTED ? List.of(order) : List.of(), written.version());
                } catch (RuntimeException e) {
                    // Harmless: the order is in MySQL; a relay claims the idle entry, finds it PRESENT, settles it.
                    LOG.debugf("Could not remove persisted entry %s now: %s", order.entryId(), e.toString());
                }
                return new PurchaseOutcome(order.view(), false);
            case DUPLICATE_KEY:
                takenBack(order, true);
                keys.rememberOwner(order);
                return QuarkusTransaction.requiringNew().call(() -> Replays.replayOrNull(command));
            default: // SOLD_OUT: MySQL has not the units; Redis was too high
                takenBack(order, false);
                throw FlashstockException.soldOut(command.sku(), command.quantity());
        }
    }

    /**
     * Undoes the purchase in Redis, unless a relay has taken its entry over. Redis unreachable: outcome unknown, and
     * the entry stays for a relay, which persists it after {@code claim-after}.
     */
    private PendingStream.Undo takenBack(PendingOrder order, boolean returnUnits) {
        try {
            return stream.undo(order, returnUnits, pod.id());
        } catch (RuntimeException e) {
            throw FlashstockException.outcomeUnknown(e);
        }
    }

    /** What became of one order of a write-through batch, and the item's MySQL version after the batch's commit. */
    private record Written(Outcome outcome, long version) {
    }

    private List<Result<Written>> persistBatch(List<PendingOrder> batch) {
        PendingOrderWriter.Persisted persisted = writer.persist(batch.get(0).sku(), batch);
        List<Result<Written>> results = new ArrayList<>(batch.size());
        for (PendingOrder order : batch) {
            Outcome outcome = persisted.outcomes().get(order.orderId());
            results.add(outcome != null ? Result.of(new Written(outcome, persisted.version()))
                    : Result.refused(new UnavailableException(
                            "The order could not be stored; nothing was changed, try again.")));
        }
        return results;
    }

    /**
     * The order as it is now in MySQL. Not there yet: in write-through the first request is still storing it (409
     * request-in-progress: it may yet fail and be taken back); in write-behind it was acknowledged and is on its
     * way, so the first answer is repeated.
     */
    private PurchaseOutcome replay(PurchaseCommand command, Decision decision) {
        PurchaseOrder stored = QuarkusTransaction.requiringNew().call(() -> PurchaseOrder.findById(decision.orderId()));
        if (stored == null && writeThrough) {
            throw FlashstockException.requestInProgress();
        }
        OrderView view = stored != null ? OrderView.of(stored)
                : new OrderView(decision.orderId(), command.sku(), command.userId(), command.quantity(),
                        OrderStatus.RESERVED, decision.createdAt(), decision.expiresAt(), null);
        return new PurchaseOutcome(view, true);
    }
}
