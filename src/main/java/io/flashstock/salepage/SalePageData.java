package io.flashstock.salepage;

import java.util.List;
import java.util.Map;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The sale page's JSON ({@code GET /sale/data} on the management port; docs/operations.md, "The sale page"): what this
 * pod knows of the sale, rebuilt at most once a second whoever asks. Jackson writes it outside Quarkus REST, so the
 * records are registered for reflection here (a native image would not find them otherwise).
 *
 * @param at when it was built (ISO-8601, UTC)
 * @param strategy this pod's deduction strategy
 * @param pod this pod: host name and lease id
 * @param pods the pods serving now, by their strategy leases in Redis; null when Redis did not answer
 * @param latency the p99 of this pod's purchases over the last minute
 * @param relay redis-lua's relay: lag and pending orders; null for the other strategies
 * @param events the event publisher's lag and backlog; null where events are off
 * @param maxItems {@code flashstock.metrics.max-items}: at most this many items are shown
 * @param items the items this pod answered purchases for lately, by sku
 */
@RegisterForReflection(targets = { SalePageData.class, SalePageData.Pod.class, SalePageData.Relay.class,
        SalePageData.Events.class, SalePageData.Item.class, PurchaseLatency.Window.class })
record SalePageData(String at, String strategy, Pod pod, List<Pod> pods, PurchaseLatency.Window latency, Relay relay,
        Events events, int maxItems, List<Item> items) {

    /** A serving pod: host name (this pod's only), lease id, strategy, ms its lease runs on, whether it is this. */
    record Pod(String name, String lease, String strategy, Long leaseMs, boolean self) {
    }

    /** {@code flashstock_relay_lag_seconds} and {@code flashstock_relay_pending} of this pod. */
    record Relay(double lagSeconds, long pending) {
    }

    /** {@code flashstock_events_lag_seconds} and {@code flashstock_events_backlog} of this pod. */
    record Events(double lagSeconds, long backlog) {
    }

    /**
     * One item: its counters as {@code GET /items/{sku}} reads them (null before the first read, at most a second
     * old), and the last 60 seconds of its purchases and refusals (by problem code) answered here, oldest first.
     */
    record Item(String sku, Long available, Long reserved, Long sold, long[] purchasesPerSecond,
            Map<String, long[]> refusalsPerSecond) {
    }
}
