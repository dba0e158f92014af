package io.flashstock.deduction.lua;

import static io.flashstock.error.UnavailableException.unlessFailing;

import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import io.flashstock.error.UnavailableException;
import io.flashstock.order.OrderIds;
import io.flashstock.support.Causes;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.inject.Singleton;

/**
 * Readers of write-behind's recent orders: a look-up right after its 201, a listing of an item's orders, the count of
 * orders not yet in MySQL. What was acknowledged before a look-up or listing asked is in MySQL when it reads: the
 * items it names are drained first, through the relay ({@link OrderRelay#drainForReaders}), under the relay's lock.
 *
 * <p>Readers share drains: an item whose drain started after the reader asked and decided every entry it found has in
 * MySQL every order acknowledged before the reader asked, and is skipped. Readers queued together (any buyer may send
 * a listing) then cost one drain, not one each while every item's relay rounds wait behind them. Counted by
 * {@code flashstock.relay.reader-drains}: a {@code @Singleton}, so that it is created (and its counter registered)
 * with the stock mirror that injects it, which the hot-stock watch uses from its first round, not at the first read.
 */
@Singleton
public class RecentOrders {

    /** Most often a look-up of a recent id reads the items other pods announced. */
    static final Duration REFRESH_AT_MOST_EVERY = Duration.ofMillis(100);
    /** Longest a reader waits for a relay round under way before answering 503 (retry). */
    private static final Duration READER_WAIT = Duration.ofSeconds(2);
    /**
     * How long a shared drain is remembered: twice the longest a reader waits. An older one started before every
     * reader still waiting asked, and makes them drain as no memory would; forgetting it keeps the memory to the items
     * drained in the last seconds, not every item ever read while it had pending orders.
     */
    static final long FORGET_DRAINS_AFTER_NANOS = 2 * READER_WAIT.toNanos();
    private static final String UNREADABLE = "Recent orders cannot be read now; try again.";
    private static final String UNCOUNTABLE = "Recent orders cannot be counted now; try again.";

    private final OrderRelay relay;
    private final ActiveItems items;
    private final PendingStream stream;
    /**
     * sku → when its last drain for readers that ended whole started (System.nanoTime): real items only, drained
     * within {@link #FORGET_DRAINS_AFTER_NANOS}.
     */
    private final Map<String, Long> drainedForReaders = new ConcurrentHashMap<>();
    private final Counter readerDrains;
    /** Guards {@link #lastCount} and {@link #nextCount}. */
    private final Object counts = new Object();
    /** The pending count started last (running, or done). */
    private CompletableFuture<Long> lastCount = CompletableFuture.completedFuture(0L);
    /** The count that starts when {@link #lastCount} ends, for the readers that asked since it started; or null. */
    private CompletableFuture<Long> nextCount;
    /** How many pending counts ran. */
    private final AtomicLong countsRun = new AtomicLong();

    RecentOrders(OrderRelay relay, ActiveItems items, PendingStream stream, MeterRegistry registry) {
        this.relay = relay;
        this.items = items;
        this.stream = stream;
        this.readerDrains = Counter.builder("flashstock.relay.reader-drains")
                .description("Items drained for readers (look-ups, listings); readers queued together share one")
                .register(registry);
    }

    /**
     * Whether a look-up of {@code id} found it pending and had its item drained: the order (or the multi-item purchase
     * its first line's id names, {@link OrderIds#ofLine}) is then in MySQL.
     *
     * @throws UnavailableException when Redis cannot be read, or a relay round did not finish in time
     */
    boolean persist(String id) {
        return unlessFailing(UNREADABLE, () -> !drainFor(id, READER_WAIT).isEmpty());
    }

    /**
     * Persists every pending order of the items {@code id} can belong to (those whose tag it carries: one, or a few
     * that share a tag; none for an id that is not ours), waiting at most {@code wait} for a relay round under way.
     * Returns those items.
     *
     * <p>What a made-up id costs: an id is drained for only if an item of its tag holds it as a RESERVED order
     * ({@link PendingStream#holds}: one HEXISTS per item of the tag), so an id with the tag of the hot item, made up
     * from one of its real ids, costs that look-up and never relay work. The items announced by other pods are read
     * again ({@link ActiveItems#refresh}) at most every {@link #REFRESH_AT_MOST_EVERY}, however many ids are asked
     * for.
     *
     * @throws UnavailableException when a round did not finish within {@code wait}
     */
    Set<String> drainFor(String id, Duration wait) {
        OptionalInt tag = OrderIds.itemTagOf(id);
        if (tag.isEmpty()) {
            return Set.of();
        }
        Set<String> candidates = items.withTag(tag.getAsInt());
        if (candidates.isEmpty() && items.refreshIfDue(REFRESH_AT_MOST_EVERY)) {
            candidates = items.withTag(tag.getAsInt()); // bought through another pod, before this pod's watch read it
        }
        candidates = candidates.stream().filter(sku -> stream.holds(sku, id)).collect(Collectors.toSet());
        if (!candidates.isEmpty()) {
            drainForReader(candidates, wait);
        }
        return Set.copyOf(candidates);
    }

    /**
     * Persists every pending order of {@code sku} for a listing of its orders. An item with an empty stream (or none:
     * an unknown sku) costs one XLEN and no lock.
     *
     * @throws UnavailableException when Redis cannot be read, or a relay round did not finish in time
     */
    void drain(String sku) {
        unlessFailing(UNREADABLE, () -> {
            if (!stream.isEmpty(sku)) {
                drainForReader(Set.of(sku), READER_WAIT);
            }
            return null;
        });
    }

    /**
     * The entries in the streams of every item with work (an item with pending orders never leaves them), one XLEN
     * each, after reading the items other pods announced (at most every {@link #REFRESH_AT_MOST_EVERY}). An entry
     * persisted but not yet removed counts too: never too few.
     *
     * <p>Readers share counts: each gets the first count that starts after it asked, so at most one count runs and one
     * waits, however many listings arrive (any buyer may send one, and a count costs a command per item with work).
     *
     * @throws UnavailableException when Redis cannot be read, or no count ended within the reader's wait
     */
    long pendingOrders() {
        CompletableFuture<Long> mine;
        CompletableFuture<Long> after = null;
        synchronized (counts) {
            if (nextCount == null) {
                nextCount = new CompletableFuture<>();
                after = lastCount;
            }
            mine = nextCount;
        }
        if (after != null) { // this reader queued the next count: it starts when the last one ends
            after.whenComplete((done, failed) -> startCount(mine));
        }
        return unlessFailing(UNCOUNTABLE, () -> {
            try {
                return mine.get(READER_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw Causes.unchecked(e.getCause());
            } catch (TimeoutException e) {
                throw new UnavailableException(UNCOUNTABLE, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UnavailableException(UNCOUNTABLE, e);
            }
        });
    }

    /** Starts {@code next} on a worker (where none can be had, here): readers who ask from now on wait for another. */
    private void startCount(CompletableFuture<Long> next) {
        Runnable count = () -> {
            synchronized (counts) {
                lastCount = next;
                nextCount = null;
            }
            try {
                next.complete(countPending());
            } catch (Throwable e) { // completed whatever happens: every later count waits for this one to end
                next.completeExceptionally(e);
            }
        };
        try {
            Infrastructure.getDefaultWorkerPool().execute(count);
        } catch (RuntimeException rejected) {
            count.run();
        }
    }

    /** How many pending counts ran since the start. */
    long countsRun() {
        return countsRun.get();
    }

    private long countPending() {
        countsRun.incrementAndGet();
        items.refreshIfDue(REFRESH_AT_MOST_EVERY);
        long pending = 0;
        for (String sku : items.all()) {
            pending += stream.length(sku);
        }
        return pending;
    }

    private void drainForReader(Set<String> skus, Duration wait) {
        long asked = System.nanoTime();
        relay.drainForReaders(skus, wait, sku -> {
            Long drained = drainedForReaders.get(sku);
            boolean due = drained == null || drained - asked < 0;
            if (due) {
                readerDrains.increment();
            }
            return due;
        }, this::remember);
    }

    /** A drain that started at {@code started} ended whole: remembered, and the drains too old to matter forgotten. */
    void remember(String sku, long started) {
        drainedForReaders.put(sku, started);
        drainedForReaders.values().removeIf(drained -> started - drained > FORGET_DRAINS_AFTER_NANOS);
    }

    /** The items whose last shared drain is remembered. */
    Set<String> rememberedDrains() {
        return Set.copyOf(drainedForReaders.keySet());
    }
}
