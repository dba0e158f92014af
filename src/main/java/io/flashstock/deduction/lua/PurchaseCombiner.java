package io.flashstock.deduction.lua;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import io.flashstock.config.FlashstockConfig;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Combines the purchases of one item that wait at the same moment into one script call ({@code lua/purchase_batch.lua},
 * which decides each as {@code lua/purchase.lua} would, in arrival order). Per item and pod, one call is in flight at
 * a time: a purchase of an idle item goes at once, alone, as {@code purchase.lua}; purchases that arrive while a call
 * is in flight go together in the next one, at most {@code flashstock.lua.batch-max} of them. So there is no added
 * wait when the item is idle, and under load one round trip, parse and script start-up serve many purchases.
 * <p>
 * Each purchase keeps its own answer, and its own bound: a purchase is never sent after {@code quarkus.redis.timeout}
 * from its arrival, and a call waits at most until its earliest purchase's bound. A call that fails or times out
 * fails every purchase in it; each is then looked up and voided by its order id, as a single call's would be
 * ({@link HotStock}). An item has state here only while one of its calls is in flight: nothing outlives its
 * purchases.
 */
@ApplicationScoped
class PurchaseCombiner {

    private static final Logger LOG = Logger.getLogger(PurchaseCombiner.class);

    /**
     * Most purchases one call takes, whatever {@code flashstock.lua.batch-max} says: purchase_batch.lua hands its
     * reply's 6 values per purchase to Lua's {@code unpack} at once, which takes at most 8000.
     */
    private static final int MAX_BATCH = 1000;

    private final ConcurrentHashMap<String, Lane> lanes = new ConcurrentHashMap<>();
    private final ReactiveRedisDataSource redis;
    private final HotStockScripts scripts;
    private final long timeoutNanos;
    /**
     * The least time a queued purchase must have left to be sent: a quarter of the timeout (1 ms at least: Vert.x
     * timers take whole milliseconds). A call waits as long as its earliest purchase may, so one nearly out of time
     * would otherwise make its whole batch fail early when Redis is slow.
     */
    private final long minWaitNanos;
    private final int batchMax;
    private final DistributionSummary sizes;

    PurchaseCombiner(ReactiveRedisDataSource redis, HotStockScripts scripts,
            @ConfigProperty(name = "quarkus.redis.timeout") Duration timeout, FlashstockConfig config,
            MeterRegistry registry) {
        this.redis = redis;
        this.scripts = scripts;
        this.timeoutNanos = timeout.toNanos();
        this.minWaitNanos = Math.max(1_000_000, timeoutNanos / 4);
        this.batchMax = Math.min(MAX_BATCH, Math.max(1, config.lua().batchMax()));
        this.sizes = DistributionSummary.builder("flashstock.lua.purchase.batch.size")
                .description("Purchases of one item decided by one script call (redis-lua)")
                .register(registry);
    }

    /**
     * Decides one purchase: {@code keys} and {@code args} are purchase.lua's for it (a single purchase, not a cart's
     * line). {@code answer} is told once: purchase.lua's reply for it (in a combined call, its part of
     * purchase_batch.lua's), or the failure of the call it went in: Redis's error, or a {@link TimeoutException}; or
     * {@link NotSent} when its time ran out before a call could take it. It is told on the purchase's own Vert.x
     * context when it has one, and must not throw. A callback, not a {@link Uni}: a purchase on the event loop then
     * pays for one Mutiny operator in all ({@code RedisLuaStrategy#purchaseAsync}), not one per layer.
     *
     * @return what cancels the purchase while it is queued: it is then not sent, and {@code answer} may never be told
     */
    Runnable decide(String sku, List<String> keys, List<String> args, BiConsumer<ScriptAnswer, Throwable> answer) {
        Waiting purchase = new Waiting(keys, args, System.nanoTime() + timeoutNanos, Vertx.currentContext(), answer);
        submit(sku, purchase);
        return purchase::cancel;
    }

    /** {@link #decide(String, List, List, BiConsumer)} as a {@link Uni}; cancelling it cancels the purchase. */
    Uni<ScriptAnswer> decide(String sku, List<String> keys, List<String> args) {
        return Uni.createFrom().emitter(emitter -> emitter.onTermination(decide(sku, keys, args, (reply, failure) -> {
            if (failure == null) {
                emitter.complete(reply);
            } else {
                emitter.fail(failure);
            }
        })));
    }

    /** The purchase never went to Redis: its time ran out while it waited for its item's call. Nothing changed. */
    static final class NotSent extends RuntimeException {
        NotSent() {
            super("The purchase waited past its timeout for its item's call in flight; it was not sent", null, false,
                    false);
        }
    }

    private void submit(String sku, Waiting purchase) {
        while (true) {
            Lane lane = lanes.computeIfAbsent(sku, s -> new Lane());
            synchronized (lane) {
                if (lane.closed) {
                    continue; // it was just emptied and dropped: take the item's new one
                }
                if (lane.busy) {
                    lane.queued.add(purchase);
                    return;
                }
                lane.busy = true;
            }
            if (!send(sku, lane, List.of(purchase))) {
                next(sku, lane);
            }
            return;
        }
    }

    /**
     * Sends the item's next batches until one is in flight, or (nothing queued) drops the item's lane. A loop, not a
     * recursion: calls that end before {@link #send} returns (a failure to send) hand the lane back here.
     */
    private void next(String sku, Lane lane) {
        List<Waiting> batch;
        do {
            batch = take(sku, lane);
        } while (batch != null && !send(sku, lane, batch));
    }

    /**
     * The item's next batch, or null (the lane dropped) when nothing is queued. Purchases cancelled while queued are
     * dropped; those with less than {@link #minWaitNanos} of their time left fail unsent ({@link NotSent}): sending
     * them would give the whole batch their short time. A batch ends before a purchase that does not share its
     * first's call ({@link CombinedCall#mayJoin}), which then leads the next batch.
     */
    private List<Waiting> take(String sku, Lane lane) {
        List<Waiting> batch = new ArrayList<>();
        List<Waiting> late = new ArrayList<>();
        long now = System.nanoTime();
        synchronized (lane) {
            while (batch.size() < batchMax && !lane.queued.isEmpty()) {
                Waiting purchase = lane.queued.peek();
                if (!purchase.over && purchase.deadline - now >= minWaitNanos) {
                    if (!batch.isEmpty() && !CombinedCall.mayJoin(batch.get(0).args, purchase.args)) {
                        break;
                    }
                    batch.add(purchase);
                } else if (!purchase.over) {
                    late.add(purchase);
                }
                lane.queued.poll();
            }
            if (batch.isEmpty()) { // then nothing is queued either
                lane.busy = false;
                lane.closed = true;
                lanes.remove(sku, lane);
            }
        }
        for (Waiting purchase : late) {
            purchase.fail(new NotSent());
        }
        return batch.isEmpty() ? null : batch;
    }

    /**
     * Sends the batch; its answers, or its failure, go to each of its purchases, and then the item's next batch goes.
     * True: in flight, its outcome moves the lane on. False: it ended before this returned (it could not even be
     * sent: its purchases failed as in a failed call), and the caller takes the next batch.
     */
    private boolean send(String sku, Lane lane, List<Waiting> batch) {
        long wait = batch.stream().mapToLong(w -> w.deadline).min().orElseThrow() - System.nanoTime();
        Duration timeout = Duration.ofNanos(Math.max(minWaitNanos, wait));
        sizes.record(batch.size());
        // 0 sending, 1 in flight (this returned true), 2 ended while sending (this returns false)
        AtomicInteger state = new AtomicInteger();
        AtomicBoolean over = new AtomicBoolean(); // the call's outcome is handled once
        try {
            Uni<Response> call = batch.size() == 1
                    ? scripts.purchase.runAsync(redis, batch.get(0).keys, batch.get(0).args, timeout)
                    : scripts.purchaseBatch.runAsync(redis, CombinedCall.keys(batch, w -> w.keys),
                            CombinedCall.args(batch, w -> w.args), timeout);
            call.subscribe().with(reply -> {
                if (over.compareAndSet(false, true)) {
                    if (!state.compareAndSet(0, 2)) {
                        next(sku, lane); // the next batch is on its way before these answers are written
                    }
                    answer(batch, reply);
                }
            }, failure -> {
                if (over.compareAndSet(false, true)) {
                    if (!state.compareAndSet(0, 2)) {
                        next(sku, lane);
                    }
                    batch.forEach(purchase -> purchase.fail(failure));
                }
            });
        } catch (Throwable e) { // nothing may leave the lane busy: a failure to send fails the batch
            if (over.compareAndSet(false, true)) {
                state.set(2);
                batch.forEach(purchase -> purchase.fail(e));
            }
        }
        return state.compareAndSet(0, 1);
    }

    private static void answer(List<Waiting> batch, Response reply) {
        if (batch.size() == 1) {
            batch.get(0).complete(ScriptAnswer.single(reply));
        } else if (reply.size() != ScriptAnswer.WIDTH * batch.size()) { // never: the script answers each purchase
            IllegalStateException wrong = new IllegalStateException("purchase_batch.lua answered " + reply.size()
                    + " values for " + batch.size() + " purchases");
            batch.forEach(purchase -> purchase.fail(wrong));
        } else {
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).complete(new ScriptAnswer(reply, ScriptAnswer.WIDTH * i));
            }
        }
    }

    /** The purchases of one item waiting for its call in flight. */
    private static final class Lane {
        final ArrayDeque<Waiting> queued = new ArrayDeque<>();
        /** A call of the item is in flight. */
        boolean busy;
        /** Emptied and removed from {@link #lanes}: a purchase takes a new lane. */
        boolean closed;
    }

    /**
     * One purchase and where its answer goes: on its request's own Vert.x context when it has one, so that writing
     * the answers of a batch is spread over the event loops instead of the Redis connection's.
     */
    private static final class Waiting {
        final List<String> keys;
        final List<String> args;
        final long deadline;
        final Context context;
        final BiConsumer<ScriptAnswer, Throwable> answer;
        /** Answered, or cancelled by its caller while queued: not to be sent. */
        volatile boolean over;

        Waiting(List<String> keys, List<String> args, long deadline, Context context,
                BiConsumer<ScriptAnswer, Throwable> answer) {
            this.keys = keys;
            this.args = args;
            this.deadline = deadline;
            this.context = context;
            this.answer = answer;
        }

        void cancel() {
            over = true;
        }

        void complete(ScriptAnswer reply) {
            deliver(reply, null);
        }

        void fail(Throwable failure) {
            deliver(null, failure);
        }

        private void deliver(ScriptAnswer reply, Throwable failure) {
            over = true;
            if (context == null || context == Vertx.currentContext()) {
                tell(reply, failure);
            } else {
                context.runOnContext(ignored -> tell(reply, failure));
            }
        }

        /** The answer's callback must not throw; if it does, the other purchases of its batch are still answered. */
        private void tell(ScriptAnswer reply, Throwable failure) {
            try {
                answer.accept(reply, failure);
            } catch (RuntimeException e) {
                LOG.error("A purchase's answer could not be handed on", e);
            }
        }
    }
}
