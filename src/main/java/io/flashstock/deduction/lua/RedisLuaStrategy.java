package io.flashstock.deduction.lua;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.CartCommand;
import io.flashstock.deduction.CartOutcome;
import io.flashstock.deduction.Combiner;
import io.flashstock.deduction.Combiner.Result;
import io.flashstock.deduction.DeductionStrategy;
import io.flashstock.deduction.HotStockAudit;
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
import io.flashstock.item.StockMirror;
import io.flashstock.order.OrderIds;
import io.flashstock.order.OrderStatus;
import io.flashstock.order.OrderView;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.redis.StrategyLease;
import io.flashstock.support.Timestamps;
import io.flashstock.support.Workers;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.instrumentation.annotations.WithSpan;
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
    private final Refusals refusals;
    private final Availability availability;
    private final CartPurchases cartPurchases;
    private final IdempotencyKeys keys;
    private final HotStockMirror mirror;
    private final HotStockWarmer warmer;
    private final HotStockWatch watch;
    private final LuaHotStockAudit audit;

    RedisLuaStrategy(HotStock hotStock, OrderRelay relay, PendingOrderWriter writer, PendingStream stream,
            PodIdentity pod, Availability availability, CartPurchases cartPurchases, IdempotencyKeys keys,
            HotStockMirror mirror, HotStockWarmer warmer, HotStockWatch watch, LuaHotStockAudit audit,
            FlashstockConfig config, MeterRegistry registry) {
        this.hotStock = hotStock;
        this.audit = audit;
        this.mirror = mirror;
        this.warmer = warmer;
        this.watch = watch;
        this.keys = keys;
        this.cartPurchases = cartPurchases;
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
        this.refusals = new Refusals(registry);
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

    /** The settlement report compares the hot stock and its pending orders with MySQL. */
    @Override
    public Optional<HotStockAudit> hotStockAudit() {
        return Optional.of(audit);
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
    @WithSpan("redis-lua purchase")
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
            throw refusals.of(command, decision, now);
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

    /** A cart: {@link CartPurchases}. */
    @Override
    @WithSpan("redis-lua cart")
    public CartOutcome purchase(CartCommand cart) {
        return cartPurchases.purchase(cart);
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
            case INSERTED, PRESENT: // its entry was settled with its batch's
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

    /**
     * One MySQL transaction for the batch, then one Redis call that settles the entries of every order now in MySQL:
     * a batch costs two round trips, whatever its size.
     */
    private List<Result<Written>> persistBatch(List<PendingOrder> batch) {
        String sku = batch.get(0).sku();
        PendingOrderWriter.Persisted persisted = writer.persist(sku, batch);
        List<Result<Written>> results = new ArrayList<>(batch.size());
        List<String> stored = new ArrayList<>(batch.size());
        List<PendingOrder> inserted = new ArrayList<>(batch.size());
        for (PendingOrder order : batch) {
            Outcome outcome = persisted.outcomes().get(order.orderId());
            results.add(outcome != null ? Result.of(new Written(outcome, persisted.version()))
                    : Result.refused(new UnavailableException(
                            "The order could not be stored; nothing was changed, try again.")));
            if (outcome == Outcome.INSERTED || outcome == Outcome.PRESENT) {
                stored.add(order.entryId());
            }
            if (outcome == Outcome.INSERTED) {
                inserted.add(order);
            }
        }
        try {
            stream.settle(sku, stored, inserted, persisted.version());
        } catch (RuntimeException e) {
            // Harmless: the orders are in MySQL; a relay claims the idle entries, finds them PRESENT, settles them.
            LOG.debugf("Could not remove %d persisted entries of %s now: %s", stored.size(), sku, e.toString());
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
