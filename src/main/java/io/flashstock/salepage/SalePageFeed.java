package io.flashstock.salepage;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.events.EventSink;
import io.flashstock.redis.LeaseHolders;
import io.flashstock.redis.StrategyLease;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * What {@code GET /sale/data} answers ({@link SalePageData}): the last minute from {@link SaleHistory}, relay and event
 * lag from this pod's gauges, and the serving pods from the strategy leases in Redis ({@link LeaseHolders}). Built at
 * most once per {@link #FRESH_FOR_MILLIS} and shared by every caller, so ten open pages cost what one does: one Redis
 * read a second at most, none while nobody looks.
 */
@ApplicationScoped
public class SalePageFeed {

    private static final Logger LOG = Logger.getLogger(SalePageFeed.class);
    /** How long one answer is served again: the page asks once a second. */
    static final long FRESH_FOR_MILLIS = 900;

    private final SaleHistory history;
    private final LeaseHolders holders;
    private final StrategyLease lease;
    private final MeterRegistry registry;
    private final FlashstockConfig config;
    private final EventSink eventSink;
    private final String hostName = hostName();
    private SalePageData last;
    private long lastBuilt;

    SalePageFeed(SaleHistory history, LeaseHolders holders, StrategyLease lease, MeterRegistry registry,
            FlashstockConfig config, EventSink eventSink) {
        this.history = history;
        this.holders = holders;
        this.lease = lease;
        this.registry = registry;
        this.config = config;
        this.eventSink = eventSink;
    }

    /** The page's data now, at most {@link #FRESH_FOR_MILLIS} old. Blocks (a Redis read). */
    synchronized SalePageData current() {
        long now = System.currentTimeMillis();
        if (last == null || now - lastBuilt >= FRESH_FOR_MILLIS) {
            last = build(now);
            lastBuilt = now;
        }
        return last;
    }

    private SalePageData build(long now) {
        Double relayLag = gauge("flashstock.relay.lag");
        Double eventsLag = eventSink.enabled() ? gauge("flashstock.events.lag.seconds") : null;
        SalePageData.Relay relay = relayLag == null ? null
                : new SalePageData.Relay(relayLag, count(gauge("flashstock.relay.pending")));
        SalePageData.Events events = eventsLag == null ? null
                : new SalePageData.Events(eventsLag, count(gauge("flashstock.events.backlog")));
        String self = shortId(lease.pod());
        return new SalePageData(Instant.ofEpochMilli(now).toString(), config.strategy(),
                new SalePageData.Pod(hostName, self, config.strategy(), null, true), pods(self), history.latency(),
                relay, events, config.metrics().maxItems(), history.items());
    }

    /** The pods holding a strategy lease; null when Redis does not answer (the page says so). */
    private List<SalePageData.Pod> pods(String self) {
        try {
            List<SalePageData.Pod> pods = new ArrayList<>();
            for (LeaseHolders.Holder holder : holders.now()) {
                String id = shortId(holder.pod());
                boolean mine = id.equals(self);
                pods.add(new SalePageData.Pod(mine ? hostName : null, id, holder.strategy(),
                        holder.expiresInMillis(), mine));
            }
            return pods;
        } catch (RuntimeException e) {
            LOG.debugf("Could not read the strategy leases for the sale page: %s", e.toString());
            return null;
        }
    }

    /** A gauge's value, or null when this pod has no such gauge (another strategy, events off). */
    private Double gauge(String name) {
        Gauge gauge = registry.find(name).gauge();
        return gauge == null ? null : gauge.value();
    }

    private static long count(Double value) {
        return value == null || value.isNaN() ? 0 : value.longValue();
    }

    /** The first 8 characters of a lease's random pod id: enough to tell a few pods apart. */
    private static String shortId(String pod) {
        return pod.length() > 8 ? pod.substring(0, 8) : pod;
    }

    /** The pod's name in Kubernetes (HOSTNAME), else the machine's host name. */
    private static String hostName() {
        String name = System.getenv("HOSTNAME");
        if (name != null && !name.isBlank()) {
            return name;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown";
        }
    }
}
