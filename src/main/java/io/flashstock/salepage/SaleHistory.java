package io.flashstock.salepage;

import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.flashstock.item.ItemProgress;
import io.flashstock.item.SaleProgress;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The last minute of the sale, kept once a second for the sale page: per tracked item ({@link SaleProgress}, at most
 * {@code flashstock.metrics.max-items}) its purchases and refusals per second ({@link ItemSeries}), and the p99 of
 * purchases ({@link PurchaseLatency}). An item no longer tracked loses its history at the next second. Reads only this
 * pod's meters (no MySQL, no Redis: {@link SaleProgress} reads the counters), so it costs the same whether anyone
 * looks or not, and its memory is bounded by the items tracked, never by requests.
 */
@Startup // created with the application, so that its latency window starts when the timers do
@ApplicationScoped
public class SaleHistory {

    private final SaleProgress progress;
    private final PurchaseLatency latency;
    private final Map<String, ItemSeries> series = new HashMap<>();
    private volatile List<SalePageData.Item> items = List.of();
    private volatile PurchaseLatency.Window window = new PurchaseLatency.Window(null, 0, 0);

    SaleHistory(SaleProgress progress, MeterRegistry registry) {
        this.progress = progress;
        this.latency = new PurchaseLatency(registry);
    }

    @Scheduled(identity = "sale-page-history", every = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    synchronized void tick() {
        Set<String> tracked = new HashSet<>();
        for (ItemProgress item : progress.snapshot()) {
            tracked.add(item.sku());
            series.computeIfAbsent(item.sku(), sku -> new ItemSeries()).add(item);
        }
        series.keySet().retainAll(tracked);
        latency.sample();
        items = series.values().stream().map(ItemSeries::view)
                .sorted(Comparator.comparing(SalePageData.Item::sku)).toList();
        window = latency.window();
    }

    /** The tracked items as of the last second, by sku. */
    List<SalePageData.Item> items() {
        return items;
    }

    /** The p99 of purchases as of the last second. */
    PurchaseLatency.Window latency() {
        return window;
    }
}
