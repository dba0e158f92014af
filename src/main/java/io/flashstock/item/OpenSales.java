package io.flashstock.item;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * The gauge {@code flashstock.sales.open}: how many items have a sale window open now, so that an alert can tell "a
 * sale is open and nothing sells" from "no sale is on" (the per-item series exist only for items that were bought
 * here). An item counts when its window is scheduled (a start or an end is set: an item without one is catalog, not a
 * sale), has started and not ended, is not paused, the item is not retired and MySQL still has units available. Judged
 * by MySQL's clock and counters (for redis-lua, the hot stock's counters reach MySQL a relay round later), one
 * {@code COUNT} every 10 s per pod, never on a purchase. One series, whatever the catalog; NaN until the first count,
 * and the last count while MySQL cannot be asked.
 */
@Startup
@ApplicationScoped
public class OpenSales {

    private static final Logger LOG = Logger.getLogger(OpenSales.class);
    static final String COUNT = "SELECT COUNT(*) FROM item WHERE retired = FALSE AND paused = FALSE"
            + " AND (sale_starts_at IS NOT NULL OR sale_ends_at IS NOT NULL)"
            + " AND (sale_starts_at IS NULL OR sale_starts_at <= UTC_TIMESTAMP(6))"
            + " AND (sale_ends_at IS NULL OR sale_ends_at > UTC_TIMESTAMP(6)) AND available > 0";

    private volatile double open = Double.NaN;

    @Inject
    OpenSales(MeterRegistry registry) {
        Gauge.builder("flashstock.sales.open", this, sales -> sales.open)
                .description("Items whose scheduled sale window is open now, not paused or retired, with units left")
                .register(registry);
    }

    @Scheduled(identity = "open-sales", every = "10s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void count() {
        try {
            open = QuarkusTransaction.requiringNew().call(() -> ((Number) Item.getEntityManager()
                    .createNativeQuery(COUNT).getSingleResult()).doubleValue());
        } catch (RuntimeException e) {
            LOG.debugf("Could not count the open sales: %s", e.toString());
        }
    }
}
