package io.flashstock.deduction;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.flashstock.support.InUse;
import io.flashstock.support.TrackedItems;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import org.jboss.logging.Logger;

/**
 * Combines concurrent requests for the same key (an item) into batches: each request queues on the key's lane;
 * whichever request holds the lane's lock takes everything queued (up to {@code maxBatch}) and runs it as one
 * batch, then completes every request of it. One MySQL transaction per batch instead of one per request keeps a
 * hot item's row from serializing (or, optimistically, conflicting) request by request.
 *
 * <p>The batch function returns one {@link Result} per request, in order: the answer, or the refusal that answers
 * that request alone. If the batch function itself throws (anything, errors included), every request of the batch
 * is answered with it: no request ever waits for a batch that died. A request that cannot take the lane within
 * {@code maxWait} and was not taken by a batch yet gets 503 (nothing changed). A request taken by another request's
 * batch waits for it at most {@code decideWithin} from its arrival; past it, the batch may still commit it, so the
 * answer is 503 {@code outcome-unknown} (a retry with the same Idempotency-Key gets the truth).
 *
 * @param <C> a request
 * @param <R> its answer
 */
public final class Combiner<C, R> {

    private static final Logger LOG = Logger.getLogger(Combiner.class);

    /** A lane per key with a request in {@link #submit}: made-up skus and idle items leave none. */
    private final InUse<Lane<C, R>> lanes = new InUse<>(Lane::new);
    private final int maxBatch;
    private final long maxWaitNanos;
    private final long decideWithinNanos;
    private final DistributionSummary batchSizes;

    public Combiner(int maxBatch, Duration maxWait, Duration decideWithin, DistributionSummary batchSizes) {
        this.maxBatch = Math.max(1, maxBatch);
        this.maxWaitNanos = maxWait.toNanos();
        this.decideWithinNanos = decideWithin.toNanos();
        this.batchSizes = batchSizes;
    }

    /** Runs {@code request} in a batch of requests for the same key; returns its answer or throws its refusal. */
    public R submit(String key, C request, Function<List<C>, List<Result<R>>> batch) {
        return submit(key, request, (requests, decideBy) -> batch.apply(requests));
    }

    /**
     * As {@link #submit(String, Object, Function)}, for a batch that may wait before it changes anything (a lock):
     * it is told when the first of its requests stops waiting for it, so it can give up while "nothing changed" is
     * still a true answer instead of running into {@code outcome-unknown}.
     */
    public R submit(String key, C request, Batch<C, R> batch) {
        return lanes.use(key, lane -> submit(lane, request, batch));
    }

    /** How many keys have a lane now: one per key with a request in this pod. */
    public int lanes() {
        return lanes.size();
    }

    /**
     * Reports {@link #lanes} as the gauge {@code flashstock.items.tracked{kind=lanes}}: per-item state follows the
     * items being bought now, never made-up skus.
     */
    public Combiner<C, R> tracked(MeterRegistry registry, String strategy) {
        TrackedItems.register(registry, "lanes", strategy, this, Combiner::lanes);
        return this;
    }

    private R submit(Lane<C, R> lane, C request, Batch<C, R> batch) {
        long deadline = System.nanoTime() + decideWithinNanos;
        Pending<C, R> mine = new Pending<>(request, deadline);
        lane.queue.add(mine);
        boolean locked;
        try {
            locked = lane.lock.tryLock(Math.min(maxWaitNanos, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            locked = false;
        }
        if (!locked) {
            if (lane.queue.remove(mine)) {
                throw new UnavailableException("Too many concurrent purchases of this item; nothing was changed, "
                        + "try again.");
            }
            return await(mine, deadline); // a batch has taken it already
        }
        try {
            while (!mine.result.isDone()) {
                runBatch(lane, batch);
            }
        } finally {
            lane.lock.unlock();
        }
        return await(mine, deadline);
    }

    private void runBatch(Lane<C, R> lane, Batch<C, R> batch) {
        List<Pending<C, R>> taken = new ArrayList<>();
        long decideBy = Long.MAX_VALUE;
        for (Pending<C, R> next; taken.size() < maxBatch && (next = lane.queue.poll()) != null;) {
            taken.add(next);
            decideBy = taken.size() == 1 ? next.deadline : earlier(decideBy, next.deadline);
        }
        if (taken.isEmpty()) {
            return;
        }
        batchSizes.record(taken.size());
        try {
            List<Result<R>> results = batch.run(taken.stream().map(p -> p.request).toList(), decideBy);
            for (int i = 0; i < taken.size(); i++) {
                taken.get(i).result.complete(i < results.size() ? results.get(i)
                        : Result.refused(new IllegalStateException("the batch answered " + results.size()
                                + " of " + taken.size() + " requests")));
            }
        } catch (RuntimeException e) {
            taken.forEach(p -> p.result.complete(Result.refused(e)));
        } catch (Throwable e) {
            LOG.error("A combined batch failed", e);
            UnavailableException answer = new UnavailableException("The purchase could not be decided; try again.",
                    e);
            taken.forEach(p -> p.result.complete(Result.refused(answer)));
        }
    }

    /** The earlier of two {@link System#nanoTime} instants (compared by difference, as nanoTime requires). */
    private static long earlier(long a, long b) {
        return a - b <= 0 ? a : b;
    }

    private R await(Pending<C, R> pending, long deadline) {
        Result<R> result;
        try {
            result = pending.result.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw FlashstockException.outcomeUnknown(e);
        } catch (InterruptedException e) { // a batch has taken the request: it is decided all the same
            Thread.currentThread().interrupt();
            throw FlashstockException.outcomeUnknown(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
        if (result.refusal() != null) {
            throw result.refusal();
        }
        return result.value();
    }

    /**
     * Decides a batch of requests of one key.
     *
     * @param <C> a request
     * @param <R> its answer
     */
    @FunctionalInterface
    public interface Batch<C, R> {

        /**
         * One {@link Result} per request, in order. {@code decideBy}: the {@link System#nanoTime} at which the first
         * of these requests stops waiting and is answered {@code outcome-unknown}.
         */
        List<Result<R>> run(List<C> requests, long decideBy);
    }

    /**
     * What one request of a batch gets: its answer, or the refusal that answers it alone.
     *
     * @param <R> the answer type
     */
    public record Result<R>(R value, RuntimeException refusal) {

        public static <R> Result<R> of(R value) {
            return new Result<>(value, null);
        }

        public static <R> Result<R> refused(RuntimeException refusal) {
            return new Result<>(null, refusal);
        }
    }

    /**
     * The requests of one key waiting in this pod, and the lock the current batch runner holds. Every request queued
     * on a lane is inside {@link #submit} until it is answered, so the lane outlives its work ({@link InUse}).
     */
    private static final class Lane<C, R> {
        final ConcurrentLinkedQueue<Pending<C, R>> queue = new ConcurrentLinkedQueue<>();
        final ReentrantLock lock = new ReentrantLock();
    }

    private static final class Pending<C, R> {
        final C request;
        /** When its requester stops waiting ({@link System#nanoTime}). */
        final long deadline;
        final CompletableFuture<Result<R>> result = new CompletableFuture<>();

        Pending(C request, long deadline) {
            this.request = request;
            this.deadline = deadline;
        }
    }
}
