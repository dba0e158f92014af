package io.flashstock.deduction.lua;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.flashstock.config.FlashstockConfig;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

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

    /** Keys of purchase.lua that are the item's (the rest are the purchase's own). */
    private static final int ITEM_KEYS = 4;
    /** purchase.lua's ARGV indexes (from 0) that are the same for every purchase of a pod: sent once per batch. */
    private static final int[] SHARED_ARGS = {6, 8, 9, 10, 11};
    /** purchase.lua's ARGV indexes of each purchase's own values, in purchase_batch.lua's order. */
    private static final int[] OWN_ARGS = {0, 1, 2, 3, 4, 5, 7};

    /** The shortest wait a call is sent with: Vert.x timers take whole milliseconds. */
    private static final long MIN_WAIT_NANOS = 1_000_000;

    private final ConcurrentHashMap<String, Lane> lanes = new ConcurrentHashMap<>();
    private final ReactiveRedisDataSource redis;
    private final HotStockScripts scripts;
    private final long timeoutNanos;
    private final int batchMax;
    private final DistributionSummary sizes;

    PurchaseCombiner(ReactiveRedisDataSource redis, HotStockScripts scripts,
            @ConfigProperty(name = "quarkus.redis.timeout") Duration timeout, FlashstockConfig config,
            MeterRegistry registry) {
        this.redis = redis;
        this.scripts = scripts;
        this.timeoutNanos = timeout.toNanos();
        this.batchMax = Math.max(1, config.lua().batchMax());
        this.sizes = DistributionSummary.builder("flashstock.lua.purchase.batch.size")
                .description("Purchases of one item decided by one script call (redis-lua)")
                .register(registry);
    }

    /**
     * Decides one purchase: {@code keys} and {@code args} are purchase.lua's for it (a single purchase, not a cart's
     * line). The reply is purchase.lua's, or the failure of the call it went in: Redis's error, or a
     * {@link TimeoutException}.
     */
    Uni<Response> decide(String sku, List<String> keys, List<String> args) {
        return Uni.createFrom().emitter(emitter -> submit(sku,
                new Waiting(keys, args, System.nanoTime() + timeoutNanos, Vertx.currentContext(), emitter)));
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
            send(sku, lane, List.of(purchase));
            return;
        }
    }

    /** The next batch of the item, or (nothing queued) the item's lane dropped. */
    private void next(String sku, Lane lane) {
        List<Waiting> batch = new ArrayList<>();
        long now = System.nanoTime();
        List<Waiting> late = new ArrayList<>();
        synchronized (lane) {
            while (batch.size() < batchMax && !lane.queued.isEmpty()) {
                Waiting purchase = lane.queued.poll();
                (purchase.deadline - now >= MIN_WAIT_NANOS ? batch : late).add(purchase);
            }
            if (batch.isEmpty() && lane.queued.isEmpty()) {
                lane.busy = false;
                lane.closed = true;
                lanes.remove(sku, lane);
            }
        }
        for (Waiting purchase : late) {
            purchase.fail(new TimeoutException("Redis did not take the purchase within its timeout"));
        }
        if (!batch.isEmpty()) {
            send(sku, lane, batch);
        } else if (!late.isEmpty()) {
            next(sku, lane);
        }
    }

    /**
     * Sends the batch; its answers, or its failure, go to each of its purchases, and then the item's next batch goes.
     * Whatever happens, the lane moves on: a call that cannot even be sent fails its purchases, as a call that failed.
     */
    private void send(String sku, Lane lane, List<Waiting> batch) {
        long wait = batch.stream().mapToLong(w -> w.deadline).min().orElseThrow() - System.nanoTime();
        Duration timeout = Duration.ofNanos(Math.max(MIN_WAIT_NANOS, wait)); // a timer takes 1 ms at least
        sizes.record(batch.size());
        AtomicBoolean over = new AtomicBoolean(); // the call's outcome is handled once
        try {
            Uni<Response> call = batch.size() == 1
                    ? scripts.purchase.runAsync(redis, batch.get(0).keys, batch.get(0).args, timeout)
                    : scripts.purchaseBatch.runAsync(redis, batchKeys(batch), batchArgs(batch), timeout);
            call.subscribe().with(reply -> {
                if (over.compareAndSet(false, true)) {
                    next(sku, lane); // the next batch is on its way before these answers are written
                    answer(batch, reply);
                }
            }, failure -> failed(sku, lane, batch, over, failure));
        } catch (RuntimeException e) {
            failed(sku, lane, batch, over, e);
        }
    }

    private void failed(String sku, Lane lane, List<Waiting> batch, AtomicBoolean over, Throwable failure) {
        if (over.compareAndSet(false, true)) {
            next(sku, lane);
            batch.forEach(purchase -> purchase.fail(failure));
        }
    }

    private static void answer(List<Waiting> batch, Response reply) {
        if (batch.size() == 1) {
            batch.get(0).complete(reply);
        } else if (reply.size() != batch.size()) { // never: the script answers each purchase
            IllegalStateException wrong = new IllegalStateException(
                    "purchase_batch.lua answered " + reply.size() + " purchases of " + batch.size());
            batch.forEach(purchase -> purchase.fail(wrong));
        } else {
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).complete(reply.get(i));
            }
        }
    }

    private static List<String> batchKeys(List<Waiting> batch) {
        List<String> keys = new ArrayList<>(ITEM_KEYS + 3 * batch.size());
        keys.addAll(batch.get(0).keys.subList(0, ITEM_KEYS));
        for (Waiting purchase : batch) {
            keys.addAll(purchase.keys.subList(ITEM_KEYS, purchase.keys.size()));
        }
        return keys;
    }

    private static List<String> batchArgs(List<Waiting> batch) {
        List<String> first = batch.get(0).args;
        List<String> args = new ArrayList<>(1 + SHARED_ARGS.length + OWN_ARGS.length * batch.size());
        args.add(Integer.toString(batch.size()));
        for (int index : SHARED_ARGS) {
            args.add(first.get(index));
        }
        for (Waiting purchase : batch) {
            for (int index : OWN_ARGS) {
                args.add(purchase.args.get(index));
            }
        }
        return args;
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
    private record Waiting(List<String> keys, List<String> args, long deadline, Context context,
            UniEmitter<? super Response> emitter) {

        void complete(Response reply) {
            deliver(() -> emitter.complete(reply));
        }

        void fail(Throwable failure) {
            deliver(() -> emitter.fail(failure));
        }

        private void deliver(Runnable answer) {
            if (context == null || context == Vertx.currentContext()) {
                answer.run();
            } else {
                context.runOnContext(ignored -> answer.run());
            }
        }
    }
}
