package io.flashstock.deduction.lua;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ObjLongConsumer;
import java.util.function.Predicate;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.UnavailableException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Reception;
import org.jboss.logging.Logger;

/**
 * Moves acknowledged orders from the items' pending streams into MySQL ({@code redis-lua}), each exactly once:
 * {@link PendingOrderWriter} skips orders already there, and a stream entry is removed only after its order
 * committed. A crash anywhere in between leaves the entry, and the next round persists it (or finds it present).
 *
 * <p>This class decides when and which items: a thread of its own wakes on a purchase (write-behind) or every
 * {@code flashstock.lua.relay-interval}, relays the items bought through this pod and, once a second, every item with
 * work; one round or drain at a time. Which entries of an item a pod's relay takes, and their persisting, is
 * {@link ItemRelay}'s. {@link #drain} and {@link #drainForReaders} take everything of one item at once (a hot stock
 * about to be rebuilt; an order looked up right after its 201, or a listing: {@link RecentOrders}).
 *
 * <p>Metrics: {@code flashstock.relay.pending} (entries seen unpersisted in the last round),
 * {@code flashstock.relay.lag} (age of the oldest, seconds);
 * {@link RelaySettler} counts what was persisted and rejected.
 */
@ApplicationScoped
public class OrderRelay {

    private static final Logger LOG = Logger.getLogger(OrderRelay.class);
    /** How often a relay looks at every item with work, not only those bought through its pod. */
    static final Duration FULL_ROUND = Duration.ofSeconds(1);

    private final ItemRelay itemRelay;
    private final FlashstockConfig.Lua settings;
    private final ActiveItems items;
    /** When the last round over every item with work ran (System.nanoTime). */
    private long lastFullRound;
    /** One round or drain at a time; a lookup waits for it only so long. */
    private final ReentrantLock rounds = new ReentrantLock();
    private final Semaphore wake = new Semaphore(0);
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong oldestMillis = new AtomicLong();
    private volatile Thread thread;
    private volatile boolean stopping;

    OrderRelay(ItemRelay itemRelay, ActiveItems items, FlashstockConfig config, MeterRegistry registry) {
        this.itemRelay = itemRelay;
        this.items = items;
        this.settings = config.lua();
        Gauge.builder("flashstock.relay.pending", pending, AtomicLong::get)
                .description("Pending orders seen not yet in MySQL in the relay's last round").register(registry);
        Gauge.builder("flashstock.relay.lag", oldestMillis,
                o -> o.get() == 0 ? 0 : Math.max(0, System.currentTimeMillis() - o.get()) / 1000.0)
                .description("Age in seconds of the oldest pending order seen in the relay's last round")
                .baseUnit("seconds").register(registry);
    }

    /** Starts the relay's thread: redis-lua was chosen ({@link RedisLuaStrategy#start()}). */
    void start() {
        stopping = false;
        Thread relay = new Thread(this::loop, "flashstock-order-relay");
        relay.setDaemon(true);
        thread = relay;
        relay.start();
    }

    /**
     * Lets the relay finish with a last full round ({@link #loop}); a relay never created (another strategy) is not
     * created for this.
     */
    void onStop(@Observes(notifyObserver = Reception.IF_EXISTS) ShutdownEvent event) {
        stopping = true;
        wake.release();
        Thread relay = thread;
        if (relay != null) {
            try {
                relay.join(5_000); // nothing is lost if it takes longer: the entries stay for the next relay
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A purchase of {@code sku} acknowledged by this pod (write-behind): persist soon. */
    public void wake(String sku) {
        items.dirty(sku);
        if (wake.availablePermits() == 0) {
            wake.release();
        }
    }

    /**
     * Drains, for readers ({@link RecentOrders}), each of {@code skus} that {@code due} accepts once the relay's lock
     * is held, waiting at most {@code wait} for the round or drain under way; tells {@code whole} of each drain that
     * decided every entry it found, with when it started (System.nanoTime), before the lock is let go.
     *
     * @throws UnavailableException when a round did not finish within {@code wait}
     */
    void drainForReaders(Collection<String> skus, Duration wait, Predicate<String> due,
            ObjLongConsumer<String> whole) {
        lockRounds(wait);
        try {
            for (String sku : skus) {
                if (due.test(sku)) {
                    long started = System.nanoTime();
                    if (itemRelay.relay(sku, true, new RelayTally())) {
                        whole.accept(sku, started);
                    }
                }
            }
        } finally {
            rounds.unlock();
        }
    }

    /** How many threads wait for the round or drain under way (readers, the relay). */
    int waitingForRounds() {
        return rounds.getQueueLength();
    }

    private void lockRounds(Duration wait) {
        try {
            if (!rounds.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new UnavailableException("Recent orders cannot be read now; try again.");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException("Recent orders cannot be read now; try again.", e);
        }
    }

    /**
     * Rounds until the pod stops, then a last full one: a pod that shuts down persists what it acknowledged (and what
     * other pods left, idle ones) now, so that the last redis-lua pod of a strategy switch leaves no order pending
     * for the MySQL-strategy pods to wait for ({@code StrategyLease}).
     */
    private void loop() {
        long interval = Math.max(1, settings.relayInterval().toMillis());
        while (!stopping) {
            try {
                wake.tryAcquire(interval, TimeUnit.MILLISECONDS);
                wake.drainPermits();
                round();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.warnf("Relay round failed; the next round retries: %s", e.toString());
                sleepQuietly(interval);
            }
        }
        try {
            round();
            if (pending.get() > 0) {
                LOG.warnf("This pod stops with %d acknowledged order(s) not yet in MySQL; they stay pending in Redis "
                        + "until another redis-lua pod persists them", pending.get());
            }
        } catch (RuntimeException e) {
            LOG.warnf("The relay's last round failed; the pending orders wait for another redis-lua pod: %s",
                    e.toString());
        }
    }

    /** Persists every pending order of one item now, whoever wrote it (before its hot stock is rebuilt). */
    public void drain(String sku) {
        rounds.lock();
        try {
            itemRelay.relay(sku, true, new RelayTally());
        } finally {
            rounds.unlock();
        }
    }

    /**
     * One round: the items bought through this pod since the last one, and once every {@link #FULL_ROUND} (and when
     * the pod stops) every item with work (new entries of other pods, idle entries to claim). Quiet items cost one
     * XLEN per full round.
     */
    private void round() {
        long now = System.nanoTime();
        boolean full = stopping || now - lastFullRound >= FULL_ROUND.toNanos();
        Set<String> due = items.takeDirty();
        if (full) {
            lastFullRound = now;
            due = items.all();
        }
        RelayTally tally = new RelayTally();
        int failed = 0;
        RuntimeException first = null;
        rounds.lock();
        try {
            for (String sku : due) {
                try {
                    itemRelay.relay(sku, false, tally);
                } catch (RuntimeException e) {
                    // One item's failure (MySQL down, or an item MySQL no longer has) must not hold up the others:
                    // its entries stay pending, and the next round tries again.
                    failed++;
                    first = first == null ? e : first;
                }
            }
        } finally {
            rounds.unlock();
        }
        if (first != null) {
            LOG.warnf("Relay could not persist the pending orders of %d item(s); the next round retries: %s", failed,
                    first.toString());
        }
        if (full) {
            pending.set(tally.unsettled());
            oldestMillis.set(tally.oldestMillis());
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
