package io.flashstock.deduction;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import io.flashstock.error.UnavailableException;
import io.micrometer.core.instrument.DistributionSummary;

/**
 * Combines concurrent requests for the same key (an item) into batches: each request queues on the key's lane;
 * whichever request holds the lane's lock takes everything queued (up to {@code maxBatch}) and runs it as one
 * batch, then completes every request of it. One MySQL transaction per batch instead of one per request keeps a
 * hot item's row from serializing (or, optimistically, conflicting) request by request.
 *
 * <p>The batch function returns one result per request, in order: the answer, or the {@link RuntimeException} that
 * answers that request alone. If the batch function itself throws, every request of the batch gets that exception.
 * A request that cannot take the lane within {@code maxWait} and was not taken by a batch yet gets 503.
 *
 * @param <C> a request
 * @param <R> its answer
 */
public final class Combiner<C, R> {

    private final Map<String, Lane<C>> lanes = new ConcurrentHashMap<>();
    private final int maxBatch;
    private final long maxWaitNanos;
    private final DistributionSummary batchSizes;

    public Combiner(int maxBatch, Duration maxWait, DistributionSummary batchSizes) {
        this.maxBatch = Math.max(1, maxBatch);
        this.maxWaitNanos = maxWait.toNanos();
        this.batchSizes = batchSizes;
    }

    /** Runs {@code request} in a batch of requests for the same key; returns its answer or throws its refusal. */
    public R submit(String key, C request, Function<List<C>, List<Object>> batch) {
        Lane<C> lane = lanes.computeIfAbsent(key, k -> new Lane<>());
        Pending<C> mine = new Pending<>(request);
        lane.queue.add(mine);
        boolean locked;
        try {
            locked = lane.lock.tryLock(maxWaitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            locked = false;
        }
        if (!locked) {
            if (lane.queue.remove(mine)) {
                throw new UnavailableException("Too many concurrent purchases of this item; nothing was changed, "
                        + "try again.");
            }
            return await(mine); // a batch has taken it already
        }
        try {
            while (!mine.result.isDone()) {
                runBatch(lane, batch);
            }
        } finally {
            lane.lock.unlock();
        }
        return await(mine);
    }

    private void runBatch(Lane<C> lane, Function<List<C>, List<Object>> batch) {
        List<Pending<C>> taken = new ArrayList<>();
        for (Pending<C> next; taken.size() < maxBatch && (next = lane.queue.poll()) != null;) {
            taken.add(next);
        }
        if (taken.isEmpty()) {
            return;
        }
        batchSizes.record(taken.size());
        try {
            List<Object> results = batch.apply(taken.stream().map(p -> p.request).toList());
            for (int i = 0; i < taken.size(); i++) {
                taken.get(i).result.complete(results.get(i));
            }
        } catch (RuntimeException e) {
            taken.forEach(p -> p.result.complete(e));
        }
    }

    @SuppressWarnings("unchecked")
    private R await(Pending<C> pending) {
        Object result;
        try {
            result = pending.result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException("Interrupted while waiting for the purchase; try again.", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
        if (result instanceof RuntimeException refused) {
            throw refused;
        }
        return (R) result;
    }

    /** The requests of one key waiting in this pod, and the lock the current batch runner holds. */
    private static final class Lane<C> {
        final ConcurrentLinkedQueue<Pending<C>> queue = new ConcurrentLinkedQueue<>();
        final ReentrantLock lock = new ReentrantLock();
    }

    private static final class Pending<C> {
        final C request;
        /** The answer, or the {@link RuntimeException} that answers the request. */
        final CompletableFuture<Object> result = new CompletableFuture<>();

        Pending(C request) {
            this.request = request;
        }
    }
}
