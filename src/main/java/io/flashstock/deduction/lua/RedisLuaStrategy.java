package io.flashstock.deduction.lua;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.CartCommand;
import io.flashstock.deduction.CartOutcome;
import io.flashstock.deduction.DeductionStrategy;
import io.flashstock.deduction.HotStockAudit;
import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.deduction.PurchaseOutcome;
import io.flashstock.deduction.StrategyName;
import io.flashstock.deduction.lua.HotStock.Decision;
import io.flashstock.error.FlashstockException;
import io.flashstock.item.Availability;
import io.flashstock.item.StockMirror;
import io.flashstock.order.OrderIds;
import io.flashstock.order.OrderStatus;
import io.flashstock.order.OrderView;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.redis.StrategyLease;
import io.flashstock.support.Forward;
import io.flashstock.support.Timestamps;
import io.flashstock.support.Workers;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.instrumentation.annotations.WithSpan;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

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

    private final HotStock hotStock;
    private final OrderRelay relay;
    private final PodIdentity pod;
    private final Duration reservationTtl;
    private final boolean writeThrough;
    private final WriteThrough writeThroughOrders;
    private final Refusals refusals;
    private final Availability availability;
    private final CartPurchases cartPurchases;
    private final HotStockMirror mirror;
    private final HotStockWarmer warmer;
    private final HotStockWatch watch;
    private final LuaHotStockAudit audit;

    RedisLuaStrategy(HotStock hotStock, OrderRelay relay, WriteThrough writeThroughOrders, PodIdentity pod,
            Availability availability, CartPurchases cartPurchases, HotStockMirror mirror, HotStockWarmer warmer,
            HotStockWatch watch, LuaHotStockAudit audit, FlashstockConfig config, MeterRegistry registry) {
        this.hotStock = hotStock;
        this.audit = audit;
        this.mirror = mirror;
        this.warmer = warmer;
        this.watch = watch;
        this.cartPurchases = cartPurchases;
        this.availability = availability;
        this.relay = relay;
        this.writeThroughOrders = writeThroughOrders;
        this.pod = pod;
        this.reservationTtl = config.reservationTtl();
        this.writeThrough = config.lua().persistence() == FlashstockConfig.Persistence.WRITE_THROUGH;
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

    /** The hot stock is in Redis. */
    @Override
    public boolean purchasesNeedRedis() {
        return true;
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
     * The purchase without a worker thread where nothing blocks: the script runs on the reactive client, a
     * write-behind 201 or any refusal is answered on the event loop, and a write-through order waits for its item's
     * MySQL batch without holding a thread. A replay (MySQL), an item to warm, a failed call and a write-through
     * order that was not stored continue on a worker, as {@link #purchase} would. One emitter, not a chain of operators
     * ({@link HotStock#purchaseAsync} and the combiner answer callbacks): Mutiny decorates each operator's callback
     * with a capture and a restore of the request's context, per purchase.
     */
    @Override
    @WithSpan("redis-lua purchase")
    public Uni<PurchaseOutcome> purchaseAsync(PurchaseCommand command) {
        return Uni.createFrom().emitter(emitter -> {
            Instant now = Timestamps.now();
            emitter.onTermination(hotStock.purchaseAsync(command, OrderIds.next(command.sku()), now,
                    now.plus(reservationTtl), (decision, failure) -> {
                        if (failure != null) {
                            emitter.fail(failure);
                            return;
                        }
                        try {
                            if (decision.reply() == PurchaseReply.REPLAY) { // reads MySQL
                                Workers.call(() -> decided(command, decision, now)).subscribe()
                                        .withSubscriber(Forward.to(emitter));
                            } else if (decision.tookUnits() && writeThrough) {
                                observed(command, decision);
                                writeThroughOrders.store(command, pendingOrder(command, decision, now)).subscribe()
                                        .withSubscriber(Forward.to(emitter));
                            } else {
                                emitter.complete(decided(command, decision, now));
                            }
                        } catch (RuntimeException e) { // a refusal, mostly
                            emitter.fail(e);
                        }
                    }));
        });
    }

    /** The answer to the script's decision for {@code command}, made at {@code now}; blocks in write-through. */
    private PurchaseOutcome decided(PurchaseCommand command, Decision decision, Instant now) {
        observed(command, decision);
        if (decision.reply() == PurchaseReply.REPLAY) {
            return replay(command, decision);
        }
        if (!decision.tookUnits()) {
            throw refusals.of(command, decision, now);
        }
        PendingOrder order = pendingOrder(command, decision, now);
        if (!writeThrough) {
            relay.wake(command.sku());
            return new PurchaseOutcome(order.view(), false);
        }
        return writeThroughOrders.store(command, order).await().indefinitely(); // bounded by decide-within
    }

    /** What the script's answer says of the item's availability, for the refusals answered from memory. */
    private void observed(PurchaseCommand command, Decision decision) {
        if (decision.seq() >= 0) {
            availability.observed(command.sku(), decision.available(), decision.seq());
        }
    }

    private PendingOrder pendingOrder(PurchaseCommand command, Decision decision, Instant now) {
        return new PendingOrder(decision.entryId(), decision.orderId(), command.sku(), command.userId(),
                command.quantity(), command.idempotencyKey(), command.fingerprint(), now, decision.expiresAt(),
                pod.id(), decision.epoch(), null);
    }

    /** A cart: {@link CartPurchases}. */
    @Override
    @WithSpan("redis-lua cart")
    public CartOutcome purchase(CartCommand cart) {
        return cartPurchases.purchase(cart);
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
