package io.flashstock.events;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import io.flashstock.config.EventsConfig;
import io.flashstock.config.FlashstockConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Publishes the ledger's movements as sale events (docs/events.md), at least once and in order per item, from any
 * number of pods. A round, in one transaction: lock a few buckets of items no other pod holds
 * ({@code FOR UPDATE SKIP LOCKED}), read their pending items' movements after each item's cursor, send their events
 * and wait for the broker's acknowledgements, then move each item's cursor over what was acknowledged and drop its
 * pending mark if nothing was written since. A pod that dies mid-round loses its locks with its connection; the
 * next holder sends again from the cursor, with the same event ids. Purchases never wait for any of it.
 */
@ApplicationScoped
public class EventPublisher {

    private static final Logger LOG = Logger.getLogger(EventPublisher.class);
    /** Buckets one round locks at most: a pod takes a share, and the others find the rest. */
    private static final int BUCKETS_PER_ROUND = 8;
    /** Pending items one round takes at most. */
    private static final int ITEMS_PER_ROUND = 200;
    /**
     * Movements of each item a round takes at least, however many items share the round's {@code batch-size}: a
     * round holds at most 200 x 50 events beyond it.
     */
    private static final int MIN_PER_ITEM = 50;
    /**
     * The longest pause after a round the broker did not acknowledge: with the send timeout, a broker that comes back
     * sees the backlog sent again within about 15 s, and a broker that stays away gets one round per 15 s.
     */
    private static final Duration MAX_PAUSE = Duration.ofSeconds(5);
    /** The delivery histogram's buckets: around the 1 s p99 the events are meant to keep during a sale. */
    private static final Duration[] DELIVERY_BUCKETS = LongStream.of(10, 25, 50, 100, 250, 500,
            1_000, 2_500, 5_000, 10_000, 30_000, 60_000).mapToObj(Duration::ofMillis).toArray(Duration[]::new);

    private final OutboxStore store;
    private final SaleEvents events;
    private final Delivery delivery;
    private final EventsConfig settings;
    private final AtomicLong backlog = new AtomicLong();
    private final AtomicLong lagMillis = new AtomicLong();
    private final Timer delivered;
    private final Semaphore wake = new Semaphore(0);
    private volatile boolean stopping;
    private volatile Thread thread;
    /** After a round the broker did not acknowledge, rounds wait until then (doubling pause, at most 5 s). */
    private volatile long pausedUntilNanos;
    private volatile long pauseNanos;

    EventPublisher(OutboxStore store, SaleEvents events, Delivery delivery, FlashstockConfig config,
            MeterRegistry registry) {
        this.store = store;
        this.events = events;
        this.delivery = delivery;
        this.settings = config.events();
        Gauge.builder("flashstock.events.backlog", backlog, AtomicLong::get)
                .description("Movements of the ledger not published as events yet").register(registry);
        Gauge.builder("flashstock.events.lag.seconds", lagMillis, v -> v.get() / 1000.0)
                .description("Age of the oldest movement not published yet (0: none)").register(registry);
        delivered = Timer.builder("flashstock.events.delivery")
                .description("From a movement's write (its commit) to the broker's acknowledgement of its events")
                .serviceLevelObjectives(DELIVERY_BUCKETS).register(registry);
        Gauge.builder("flashstock.events.backlog.over.limit", this, p -> p.backlog.get() > p.settings.maxBacklog()
                ? 1 : 0).description("1 while the backlog is over flashstock.events.max-backlog").register(registry);
    }

    /** Whether this pod publishes: events on and a broker configured. */
    boolean on() {
        return delivery.on();
    }

    /**
     * Starts the publisher's thread where this pod publishes. A thread of its own rather than a scheduled job: the
     * scheduler runs nothing more often than once a second, and a hot item's events must follow its sales within
     * well under that.
     */
    void start(@Observes StartupEvent event) {
        if (!on()) {
            return;
        }
        refuseARoundLongerThanASession();
        Thread publisher = new Thread(this::loop, "flashstock-event-publisher");
        publisher.setDaemon(true);
        thread = publisher;
        publisher.start();
    }

    /**
     * A round holds its transaction open while the broker acknowledges, up to {@code send-timeout}, and then moves the
     * cursors: {@link #roundTimeout} in all. MySQL closes a session of the pool that is silent for its
     * {@code wait_timeout} (what frees the rows of a pod lost mid-transaction), so a longer round would lose its work
     * each time the broker is slow: a configuration this refuses at startup, with what to change.
     */
    private void refuseARoundLongerThanASession() {
        Duration sessionLimit;
        try {
            sessionLimit = QuarkusTransaction.requiringNew().call(store::sessionIdleLimit);
        } catch (RuntimeException e) {
            LOG.warnf("Could not read MySQL's wait_timeout to check flashstock.events.send-timeout against it: %s",
                    e.toString());
            return;
        }
        requireRoundWithinSession(settings.sendTimeout(), sessionLimit);
    }

    /** Refuses a {@code send-timeout} whose rounds could outlast a silent session (package-private for tests). */
    static void requireRoundWithinSession(Duration sendTimeout, Duration sessionLimit) {
        if (roundTimeout(sendTimeout).compareTo(sessionLimit) >= 0) {
            throw new IllegalStateException("flashstock.events.send-timeout (" + sendTimeout + ") is too long: a"
                    + " publishing round may last send-timeout + 15 s, and MySQL closes a session silent for its"
                    + " wait_timeout (" + sessionLimit.toSeconds() + " s for the pool's sessions,"
                    + " application.properties' sessionVariables). Lower send-timeout, or raise that wait_timeout.");
        }
    }

    /** The longest a round's transaction lasts: the sends, then the cursors. */
    private static Duration roundTimeout(Duration sendTimeout) {
        return sendTimeout.plusSeconds(15);
    }

    /** Lets a running round finish (its sends are bounded by {@code send-timeout}). */
    void stop(@Observes ShutdownEvent event) throws InterruptedException {
        stopping = true;
        wake.release();
        Thread publisher = thread;
        if (publisher != null) {
            publisher.join(settings.sendTimeout().toMillis() + 5_000);
        }
    }

    /** Every {@code interval} (or after a pause), rounds one after the other for as long as they find work. */
    private void loop() {
        while (!stopping) {
            long napNanos = Math.max(settings.interval().toNanos(), pausedUntilNanos - System.nanoTime());
            try {
                if (wake.tryAcquire(napNanos, TimeUnit.NANOSECONDS)) {
                    continue; // stopping
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            boolean more = true;
            while (more && !stopping) {
                try {
                    more = publishRound();
                } catch (RuntimeException e) {
                    LOG.warnf("Event publishing failed; the publisher retries after a pause: %s", e.toString());
                    pause();
                    more = false;
                }
            }
        }
    }

    @Scheduled(identity = "event-backlog", every = "5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void measure() {
        if (!on()) {
            return; // nothing publishes here: no backlog to watch, and no scan of the ledger for it
        }
        try {
            OutboxStore.Backlog now = QuarkusTransaction.requiringNew().call(store::backlog);
            backlog.set(now.movements());
            lagMillis.set(now.oldest() == null ? 0 : Math.max(0, Duration.between(now.oldest(), Instant.now())
                    .toMillis()));
        } catch (RuntimeException e) {
            LOG.debugf("Event backlog not measured: %s", e.toString());
        }
    }

    /** Where publishing stands, as last measured: for the readiness data. */
    public record Status(boolean publishing, long backlog, long lagSeconds, boolean overMaxBacklog) {
    }

    public Status status() {
        long movements = backlog.get();
        return new Status(on(), movements, lagMillis.get() / 1000, movements > settings.maxBacklog());
    }

    /**
     * One round. Answers whether it found a full round of work (another round should follow at once). Public for the
     * tests, which drive rounds themselves.
     */
    public boolean publishRound() {
        int timeoutSeconds = (int) roundTimeout(settings.sendTimeout()).toSeconds();
        return QuarkusTransaction.requiringNew().timeout(timeoutSeconds).call(() -> {
            List<Integer> candidates = new ArrayList<>(store.bucketsWithWork()); // a plain read: no lock yet
            if (candidates.isEmpty()) {
                return false;
            }
            Collections.shuffle(candidates); // pods start from different buckets
            List<Integer> wanted = candidates.subList(0, Math.min(BUCKETS_PER_ROUND, candidates.size()));
            List<Integer> locked = store.lock(wanted);
            if (locked.isEmpty()) {
                return false;
            }
            List<OutboxStore.Pending> pending = store.pending(locked, ITEMS_PER_ROUND);
            int perItem = Math.max(MIN_PER_ITEM, settings.batchSize() / Math.max(1, pending.size()));
            Map<OutboxStore.Pending, ItemRound> rounds = new LinkedHashMap<>();
            List<SaleEvent> outgoing = new ArrayList<>();
            boolean itemsLeft = pending.size() >= ITEMS_PER_ROUND || locked.size() < candidates.size();
            for (OutboxStore.Pending item : pending) {
                ItemRound round = read(item, outgoing.size(), perItem);
                rounds.put(item, round);
                outgoing.addAll(round.events);
                itemsLeft |= !round.readAll; // a busy item has more movements than a round takes
            }
            boolean[] acked = outgoing.isEmpty() ? new boolean[0] : delivery.deliver(outgoing);
            boolean allAcked = true;
            for (Map.Entry<OutboxStore.Pending, ItemRound> entry : rounds.entrySet()) {
                allAcked &= settle(entry.getKey(), entry.getValue(), acked);
            }
            if (!allAcked) {
                pause();
            } else {
                pauseNanos = 0;
            }
            return allAcked && itemsLeft;
        });
    }

    /** What one item sends this round: its movements after the cursor, their events, and the cursor after each. */
    private ItemRound read(OutboxStore.Pending item, int firstEvent, int limit) {
        OutboxStore.Cursor cursor = store.cursor(item.sku());
        List<OutboxMovement> movements = store.movements(item.sku(), cursor.movementId(), limit);
        ItemRound round = new ItemRound(firstEvent, movements.size() < limit);
        ItemCounters counters = cursor.counters();
        for (OutboxMovement movement : movements) {
            ItemCounters after = counters.after(movement);
            round.events.addAll(events.of(movement, counters, after));
            round.cursors.add(new OutboxStore.Cursor(movement.id(), after));
            round.written.add(movement.at());
            round.lastEventOf.add(firstEvent + round.events.size()); // exclusive end of this movement's events
            counters = after;
        }
        return round;
    }

    /**
     * Moves the item's cursor over its movements whose events were all acknowledged, up to the first that was not
     * (what follows it is sent again, in order, next time), and drops its pending mark when it got through
     * everything it read. Answers whether everything was acknowledged.
     */
    private boolean settle(OutboxStore.Pending item, ItemRound round, boolean[] acked) {
        int done = 0;
        int event = round.firstEvent;
        for (int i = 0; i < round.cursors.size(); i++) {
            boolean all = true;
            for (; event < round.lastEventOf.get(i); event++) {
                all &= acked[event];
            }
            if (!all) {
                break;
            }
            done++;
        }
        if (done > 0) {
            store.advance(item.sku(), round.cursors.get(done - 1));
            Instant now = Instant.now();
            for (Instant written : round.written.subList(0, done)) {
                delivered.record(Math.max(0, Duration.between(written, now).toMillis()), TimeUnit.MILLISECONDS);
            }
        }
        if (done == round.cursors.size() && round.readAll) {
            store.release(item);
        }
        return done == round.cursors.size();
    }

    private void pause() {
        long next = pauseNanos == 0 ? Duration.ofSeconds(1).toNanos()
                : Math.min(pauseNanos * 2, MAX_PAUSE.toNanos());
        pauseNanos = next;
        pausedUntilNanos = System.nanoTime() + next;
    }

    /** One item's part of a round. */
    private static final class ItemRound {
        final int firstEvent;
        final boolean readAll;
        final List<SaleEvent> events = new ArrayList<>();
        final List<OutboxStore.Cursor> cursors = new ArrayList<>();
        final List<Integer> lastEventOf = new ArrayList<>();
        final List<Instant> written = new ArrayList<>();

        ItemRound(int firstEvent, boolean readAll) {
            this.firstEvent = firstEvent;
            this.readAll = readAll;
        }
    }
}
