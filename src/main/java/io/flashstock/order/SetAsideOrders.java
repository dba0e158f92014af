package io.flashstock.order;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.jboss.logging.Logger;

/**
 * Due orders whose units MySQL refused to take back (a CHECK constraint: their item's counters were tampered with or
 * are corrupt), which {@link ReservationExpiryJob} leaves out of its batches for a while, so that one of them does not
 * fail every batch that claims it, and stop the expiry of every order behind it. Bounded: at most
 * {@link #MAX_ORDERS}, each tried again after {@link #FOR}.
 */
final class SetAsideOrders {

    private static final Logger LOG = Logger.getLogger(SetAsideOrders.class);
    /** How long an order is left out before it is tried again (the counters may have been repaired meanwhile). */
    static final Duration FOR = Duration.ofMinutes(10);
    /** The most orders remembered; past it, the one due to be tried soonest is forgotten (tried again). */
    static final int MAX_ORDERS = 1_000;

    /** Order id to the {@link System#nanoTime()} from which it is tried again. */
    private final Map<String, Long> orders = new ConcurrentHashMap<>();

    SetAsideOrders(MeterRegistry registry) {
        Gauge.builder("flashstock.orders.expiry.stuck", orders, Map::size)
                .description("Due RESERVED orders left unexpired because MySQL refused to take their units back (their "
                        + "item's counters break a CHECK constraint); each is named in the log")
                .register(registry);
    }

    /** Leaves the orders {@code ids} (of the items {@code skus}) out for {@link #FOR}, and says so in the log. */
    void add(List<String> ids, Set<String> skus, RuntimeException refusal) {
        long retryFrom = System.nanoTime() + FOR.toNanos();
        for (String id : ids) {
            if (orders.size() >= MAX_ORDERS) {
                orders.entrySet().stream().min(Map.Entry.comparingByValue())
                        .ifPresent(soonest -> orders.remove(soonest.getKey()));
            }
            orders.put(id, retryFrom);
        }
        LOG.errorf("MySQL refused to take back the units of due order(s) %s of item(s) %s: a CHECK constraint (GET "
                + "/items/{sku}/report shows which counters). Left RESERVED and out of expiry for %s: %s", ids, skus,
                FOR, refusal.toString());
    }

    /** The orders left out now; those due to be tried again are forgotten. */
    Set<String> now() {
        long now = System.nanoTime();
        orders.values().removeIf(retryFrom -> now - retryFrom >= 0);
        return Set.copyOf(orders.keySet());
    }
}
