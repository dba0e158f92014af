package io.flashstock.order;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.db.ConflictRetry;
import io.flashstock.db.DbErrors;
import io.flashstock.item.Item;
import io.flashstock.item.Ledger;
import io.flashstock.item.StockEvent;
import io.flashstock.item.Availability;
import io.flashstock.item.StockMirror;
import io.flashstock.redis.StrategyLease;
import io.flashstock.support.Timestamps;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;
import org.jboss.logging.Logger;

/**
 * Expires RESERVED orders whose reservation TTL has passed and returns their units, exactly once, with any
 * number of pods running it: each batch claims due orders with {@code FOR UPDATE SKIP LOCKED} (another pod, or
 * a concurrent cancel, holding a row makes this pod skip it), flips them to EXPIRED and returns their units in
 * the same transaction. Whether an order is due is judged by MySQL's clock ({@code UTC_TIMESTAMP}), the one clock
 * all pods share: a pod whose own clock runs ahead never expires a reservation early. An order whose units MySQL
 * refuses to take back (a CHECK constraint: its item's counters were tampered with or are corrupt) is set aside for a
 * while instead of failing every batch that claims it, and with it the expiry of every order behind it.
 */
@Startup // created with the application, so its meters are served from the start, not from its first round
@ApplicationScoped
public class ReservationExpiryJob {

    private static final Logger LOG = Logger.getLogger(ReservationExpiryJob.class);
    /** Bounds one run; the next run picks up where this one stopped. */
    private static final int MAX_BATCHES_PER_RUN = 50;

    private final EntityManager em;
    private final StockMirror mirror;
    private final Availability availability;
    private final StrategyLease lease;
    private final ConflictRetry retry;
    private final FlashstockConfig.Expiry settings;
    private final Counter expired;
    private volatile Instant lastRun;
    private final SetAsideOrders setAside;

    ReservationExpiryJob(EntityManager em, ConflictRetry retry, FlashstockConfig config, MeterRegistry registry,
            StockMirror mirror, Availability availability, StrategyLease lease) {
        this.em = em;
        this.lease = lease;
        this.mirror = mirror;
        this.availability = availability;
        this.retry = retry;
        this.settings = config.expiry();
        this.expired = Counter.builder("flashstock.orders.expired")
                .description("RESERVED orders expired and their units returned").register(registry);
        this.setAside = new SetAsideOrders(registry);
    }

    @Scheduled(identity = "reservation-expiry", every = "${flashstock.expiry.interval:5s}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Disabled.class)
    void run() {
        lastRun = Instant.now(); // wall clock for the liveness check, not stored
        if (!lease.held()) {
            return; // the strategy serving elsewhere expires reservations; this pod would return units behind its back
        }
        try {
            expireDue();
        } catch (RuntimeException e) {
            LOG.warnf("Reservation expiry run failed; the next run retries: %s", e.toString());
        }
    }

    /** Expires everything due now, batch by batch. Returns the number of orders expired by this call. */
    public int expireDue() {
        int total = 0;
        for (int batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
            if (batch > 0) {
                lastRun = Instant.now(); // a long run that moves on is alive: the liveness check reads this
                if (!lease.held()) {
                    break; // lost meanwhile: the strategy serving elsewhere expires the rest
                }
            }
            Batch expiredBatch = expireNextBatch();
            mirror.apply(expiredBatch.events());
            expiredBatch.returnedAt().forEach(availability::changed);
            int count = expiredBatch.expired();
            total += count;
            if (count < settings.batchSize()) {
                break;
            }
        }
        if (total > 0) {
            LOG.infof("Expired %d reservation(s)", total);
        }
        return total;
    }

    /** When the job last started in this pod, or began another batch of a run ({@code null} before the first run). */
    public Instant lastRun() {
        return lastRun;
    }

    /**
     * Orders expired by one transaction, their RETURNED events for the mirror (none when there is no copy to keep in
     * step), and each item's version after its units came back where the mirror leaves announcing it to the caller.
     */
    private record Batch(int expired, List<StockEvent> events, Map<String, Long> returnedAt) {
    }

    private Batch expireNextBatch() {
        Set<String> skip = setAside.now();
        try {
            return retry.inNewTransactions(() -> expireOneBatch(skip, null));
        } catch (RuntimeException e) {
            if (!DbErrors.isCheckViolation(e)) {
                throw e;
            }
            return expireOneByOne(skip);
        }
    }

    /**
     * A batch failed on a CHECK constraint: its due orders are expired again one purchase (or lone order) per
     * transaction, and those MySQL still refuses are set aside.
     */
    private Batch expireOneByOne(Set<String> skip) {
        @SuppressWarnings("unchecked")
        List<Object[]> due = retry.inNewTransactions(() -> due("id, sku, purchase_id", skip, null, false)
                .getResultList());
        Map<String, List<Object[]>> groups = new LinkedHashMap<>();
        for (Object[] row : due) {
            groups.computeIfAbsent(row[2] != null ? (String) row[2] : (String) row[0], g -> new ArrayList<>()).add(row);
        }
        int expiredNow = 0;
        List<StockEvent> events = new ArrayList<>();
        Map<String, Long> returnedAt = new TreeMap<>();
        for (List<Object[]> group : groups.values()) {
            List<String> ids = group.stream().map(row -> (String) row[0]).toList();
            try {
                Batch one = retry.inNewTransactions(() -> expireOneBatch(skip, ids));
                expiredNow += one.expired();
                events.addAll(one.events());
                one.returnedAt().forEach((sku, version) -> returnedAt.merge(sku, version, Math::max));
            } catch (RuntimeException e) {
                if (!DbErrors.isCheckViolation(e)) {
                    throw e;
                }
                setAside.add(ids, group.stream().map(row -> (String) row[1]).collect(Collectors.toSet()), e);
            }
        }
        return new Batch(expiredNow, events, returnedAt);
    }

    /**
     * The due RESERVED orders' {@code columns}, oldest first, a batch at most: without those in {@code skip}, only
     * those in {@code only} (when not null), and claimed ({@code FOR UPDATE SKIP LOCKED}) when {@code claim}.
     */
    private Query due(String columns, Set<String> skip, List<String> only, boolean claim) {
        Query query = em.createNativeQuery("SELECT " + columns + " FROM purchase_order"
                + " WHERE status = 'RESERVED' AND expires_at <= UTC_TIMESTAMP(6)"
                + (skip.isEmpty() ? "" : " AND id NOT IN (:skip)") + (only == null ? "" : " AND id IN (:only)")
                + " ORDER BY expires_at LIMIT :limit" + (claim ? " FOR UPDATE SKIP LOCKED" : ""))
                .setParameter("limit", settings.batchSize());
        if (!skip.isEmpty()) {
            query.setParameter("skip", skip);
        }
        if (only != null) {
            query.setParameter("only", only);
        }
        return query;
    }

    private Batch expireOneBatch(Set<String> skip, List<String> only) {
        Instant now = Timestamps.now();
        @SuppressWarnings("unchecked")
        List<Object[]> due = wholePurchases(due("id, sku, quantity, purchase_id", skip, only, true).getResultList(),
                skip);
        if (due.isEmpty()) {
            return new Batch(0, List.of(), Map.of());
        }
        List<String> ids = due.stream().map(row -> (String) row[0]).toList();
        int flipped = em.createQuery("update PurchaseOrder set status = :expired, updatedAt = :now"
                + " where id in :ids and status = :reserved")
                .setParameter("expired", OrderStatus.EXPIRED)
                .setParameter("now", now)
                .setParameter("ids", ids)
                .setParameter("reserved", OrderStatus.RESERVED)
                .executeUpdate();
        if (flipped != ids.size()) {
            // Cannot happen while we hold the row locks; refuse to return units we cannot account for.
            throw new IllegalStateException("Claimed " + ids.size() + " orders but expired " + flipped);
        }
        Map<String, Integer> unitsBySku = new TreeMap<>(); // sorted: items are locked in one global order
        for (Object[] row : due) {
            unitsBySku.merge((String) row[1], ((Number) row[2]).intValue(), Integer::sum);
        }
        Map<String, Long> returnedAt = new TreeMap<>();
        unitsBySku.forEach((sku, units) -> {
            Item.returnReserved(sku, units, now);
            long version = mirror.returnedAtVersion(sku);
            if (version >= 0) {
                returnedAt.put(sku, version);
            }
        });
        List<Ledger.Entry> movements = new ArrayList<>(due.size());
        for (Object[] row : due) {
            movements.add(Ledger.Entry.settled((String) row[1], Ledger.Kind.EXPIRE, ((Number) row[2]).intValue(),
                    (String) row[0], (String) row[3], Ledger.SYSTEM));
        }
        Ledger.record(movements);
        List<StockEvent> events = new ArrayList<>(due.size());
        for (Object[] row : due) {
            StockEvent event = mirror.record(StockEvent.Kind.RETURNED, (String) row[1], (String) row[0],
                    ((Number) row[2]).intValue(), now);
            if (event != null) {
                events.add(event);
            }
        }
        expired.increment(ids.size());
        return new Batch(ids.size(), events, returnedAt);
    }

    /**
     * The claimed rows, with the lines of a multi-item purchase expiring together: a purchase whose every RESERVED line
     * this transaction could claim as due has all of them expired in this batch (also lines past the batch's LIMIT);
     * one with a line held by another transaction (a confirm or cancel of the purchase under way, another pod's batch)
     * or not due is left for a later run. Otherwise a confirm that had moved one line would meet the other one expired,
     * and a cancel would answer with lines CANCELLED and EXPIRED.
     */
    @SuppressWarnings("unchecked")
    private List<Object[]> wholePurchases(List<Object[]> claimed, Set<String> skip) {
        Set<String> purchases = claimed.stream().map(row -> (String) row[3]).filter(Objects::nonNull)
                .collect(Collectors.toSet());
        if (purchases.isEmpty()) {
            return claimed;
        }
        Query linesQuery = em.createNativeQuery("SELECT id, sku, quantity, purchase_id"
                + " FROM purchase_order WHERE purchase_id IN (:purchases) AND status = 'RESERVED'"
                + " AND expires_at <= UTC_TIMESTAMP(6)" + (skip.isEmpty() ? "" : " AND id NOT IN (:skip)")
                + " FOR UPDATE SKIP LOCKED").setParameter("purchases", purchases);
        if (!skip.isEmpty()) {
            linesQuery.setParameter("skip", skip); // a purchase with a line set aside is left whole
        }
        List<Object[]> lines = linesQuery.getResultList();
        Map<String, Long> reserved = new HashMap<>();
        for (Object[] row : (List<Object[]>) em.createNativeQuery("SELECT purchase_id, COUNT(*) FROM purchase_order"
                + " WHERE purchase_id IN (:purchases) AND status = 'RESERVED' GROUP BY purchase_id")
                .setParameter("purchases", purchases).getResultList()) {
            reserved.put((String) row[0], ((Number) row[1]).longValue());
        }
        Map<String, List<Object[]>> linesByPurchase = lines.stream()
                .collect(Collectors.groupingBy(row -> (String) row[3]));
        List<Object[]> whole = new ArrayList<>(claimed.stream().filter(row -> row[3] == null).toList());
        linesByPurchase.forEach((purchase, its) -> {
            if (its.size() == reserved.getOrDefault(purchase, -1L)) {
                whole.addAll(its);
            }
        });
        return whole;
    }

    /** Lets operators switch the job off in a pod with {@code flashstock.expiry.enabled=false}. */
    @ApplicationScoped
    public static class Disabled implements Scheduled.SkipPredicate {
        private final boolean enabled;

        Disabled(FlashstockConfig config) {
            this.enabled = config.expiry().enabled();
        }

        @Override
        public boolean test(io.quarkus.scheduler.ScheduledExecution execution) {
            return !enabled;
        }
    }
}
