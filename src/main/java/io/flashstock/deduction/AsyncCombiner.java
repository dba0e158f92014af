package io.flashstock.deduction;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.flashstock.deduction.Combiner.Result;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.UnavailableException;
import io.micrometer.core.instrument.DistributionSummary;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import org.jboss.logging.Logger;

/**
 * {@link Combiner}'s batches without a thread per waiting request: the same per-key batches of blocking work (one
 * MySQL transaction for the requests of an item that wait together), the same bounds and the same answers, but a
 * request waits as a {@link Uni}, not as a blocked worker thread. Per key one batch runs at a time, on one worker
 * thread, which takes the key's next batch from what queued meanwhile until nothing is left; an idle key's request
 * goes at once, alone. Each answer is delivered on its request's own Vert.x context.
 *
 * <p>A request still queued {@code maxWait} after its arrival is answered 503 (nothing changed: no batch will take
 * it); one taken by a batch that has not ended {@code decideWithin} after its arrival is answered
 * {@code outcome-unknown} (the batch may still commit it). If the batch function throws, every request of that
 * batch is answered with it. A key has state here only while it has requests: made-up keys and idle items leave
 * nothing.
 *
 * @param <C> a request
 * @param <R> its answer
 */
public final class AsyncCombiner<C, R> {

    private static final Logger LOG = Logger.getLogger(AsyncCombiner.class);

    private static final int QUEUED = 0;
    private static final int TAKEN = 1;
    private static final int OVER = 2;

    private final ConcurrentHashMap<String, Lane<C, R>> lanes = new ConcurrentHashMap<>();
    private final Function<List<C>, List<Result<R>>> batch;
    private final Executor workers;
    private final Vertx vertx;
    private final int maxBatch;
    private final long maxWaitMillis;
    private final long decideWithinMillis;
    private final DistributionSummary batchSizes;

    /**
     * @param batch   the blocking work of one batch: one {@link Result} per request, in order
     * @param workers where batches run (worker threads: the batch blocks)
     * @param vertx   whose timers bound each request's wait
     */
    public AsyncCombiner(Function<List<C>, List<Result<R>>> batch, Executor workers, Vertx vertx, int maxBatch,
            Duration maxWait, Duration decideWithin, DistributionSummary batchSizes) {
        this.batch = batch;
        this.workers = workers;
        this.vertx = vertx;
        this.maxBatch = Math.max(1, maxBatch);
        this.maxWaitMillis = Math.max(1, maxWait.toMillis());
        this.decideWithinMillis = Math.max(this.maxWaitMillis + 1, decideWithin.toMillis());
        this.batchSizes = batchSizes;
    }

    /** The answer of {@code request} from a batch of requests for the same key, or its refusal as a failure. */
    public Uni<R> submit(String key, C request) {
        return Uni.createFrom().emitter(emitter -> {
            Waiting<C, R> waiting = new Waiting<>(request, emitter, Vertx.currentContext());
            waiting.timer = vertx.setTimer(maxWaitMillis, id -> waitedTooLong(key, waiting));
            enqueue(key, waiting);
        });
    }

    /** How many keys have requests here now. */
    public int lanes() {
        return lanes.size();
    }

    private void enqueue(String key, Waiting<C, R> waiting) {
        while (true) {
            Lane<C, R> lane = lanes.computeIfAbsent(key, k -> new Lane<>());
            synchronized (lane) {
                if (lane.closed) {
                    continue; // it was just emptied and dropped: take the key's new one
                }
                lane.queued.add(waiting);
                if (lane.busy) {
                    return; // the running batch's thread takes it next
                }
                lane.busy = true;
            }
            try {
                workers.execute(() -> drain(key, lane));
            } catch (RuntimeException e) { // shutting down: nothing runs, nothing changed
                for (List<Waiting<C, R>> taken; (taken = take(key, lane)) != null;) {
                    answer(taken, null, new UnavailableException("The service is stopping; nothing was changed, "
                            + "try again.", e));
                }
            }
            return;
        }
    }

    /** On a worker: the key's batches, one after the other, until none is queued. */
    private void drain(String key, Lane<C, R> lane) {
        for (List<Waiting<C, R>> taken; (taken = take(key, lane)) != null;) {
            batchSizes.record(taken.size());
            List<Result<R>> results;
            try {
                results = batch.apply(taken.stream().map(w -> w.request).toList());
            } catch (RuntimeException e) {
                answer(taken, null, e);
                continue;
            } catch (Throwable e) {
                LOG.error("A combined batch failed", e);
                answer(taken, null, new UnavailableException("The purchase could not be decided; try again.", e));
                continue;
            }
            answer(taken, results, null);
        }
    }

    /** The key's next batch, or null (and the lane dropped) when nothing is queued. */
    private List<Waiting<C, R>> take(String key, Lane<C, R> lane) {
        List<Waiting<C, R>> taken = new ArrayList<>();
        synchronized (lane) {
            for (Waiting<C, R> next; taken.size() < maxBatch && (next = lane.queued.poll()) != null;) {
                if (next.state.compareAndSet(QUEUED, TAKEN)) { // else answered already: it waited too long
                    taken.add(next);
                }
            }
            if (taken.isEmpty()) {
                lane.busy = false;
                lane.closed = true;
                lanes.remove(key, lane);
                return null;
            }
        }
        return taken;
    }

    private void answer(List<Waiting<C, R>> taken, List<Result<R>> results, RuntimeException failure) {
        for (int i = 0; i < taken.size(); i++) {
            Waiting<C, R> waiting = taken.get(i);
            if (!waiting.state.compareAndSet(TAKEN, OVER)) {
                continue; // answered outcome-unknown already
            }
            vertx.cancelTimer(waiting.timer);
            if (failure != null) {
                waiting.deliver(null, failure);
            } else if (i >= results.size()) {
                waiting.deliver(null, new IllegalStateException("the batch answered " + results.size() + " of "
                        + taken.size() + " requests"));
            } else {
                waiting.deliver(results.get(i).value(), results.get(i).refusal());
            }
        }
    }

    /**
     * {@code maxWait} after its arrival: still queued, the request is answered 503 and no batch takes it; taken, it
     * waits for its batch until {@code decideWithin} after its arrival, and past that is answered outcome-unknown.
     */
    private void waitedTooLong(String key, Waiting<C, R> waiting) {
        if (waiting.state.compareAndSet(QUEUED, OVER)) {
            Lane<C, R> lane = lanes.get(key);
            if (lane != null) {
                synchronized (lane) {
                    lane.queued.remove(waiting);
                }
            }
            waiting.deliver(null, new UnavailableException("Too many concurrent purchases of this item; nothing was "
                    + "changed, try again."));
        } else if (waiting.state.get() == TAKEN) {
            waiting.timer = vertx.setTimer(decideWithinMillis - maxWaitMillis, id -> {
                if (waiting.state.compareAndSet(TAKEN, OVER)) {
                    waiting.deliver(null, FlashstockException.outcomeUnknown(new TimeoutException(
                            "its batch did not end within " + decideWithinMillis + " ms")));
                }
            });
        }
    }

    /** The requests of one key waiting for its running batch. */
    private static final class Lane<C, R> {
        final ArrayDeque<Waiting<C, R>> queued = new ArrayDeque<>();
        /** A worker runs the key's batches. */
        boolean busy;
        /** Emptied and removed from {@link #lanes}: a request takes a new lane. */
        boolean closed;
    }

    /** One request, where its answer goes, and whether it is queued, in a batch, or answered. */
    private static final class Waiting<C, R> {
        final C request;
        final UniEmitter<? super R> emitter;
        final Context context;
        final AtomicInteger state = new AtomicInteger(QUEUED);
        /** The Vert.x timer bounding its wait now. */
        volatile long timer;

        Waiting(C request, UniEmitter<? super R> emitter, Context context) {
            this.request = request;
            this.emitter = emitter;
            this.context = context;
        }

        void deliver(R value, Throwable failure) {
            Runnable answer = failure != null ? () -> emitter.fail(failure) : () -> emitter.complete(value);
            if (context == null || context == Vertx.currentContext()) {
                answer.run();
            } else {
                context.runOnContext(ignored -> answer.run());
            }
        }
    }
}
