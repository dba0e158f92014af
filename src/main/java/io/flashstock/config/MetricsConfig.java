package io.flashstock.config;

import io.smallrye.config.WithDefault;

/**
 * {@code flashstock.metrics.*}: a group of {@link FlashstockConfig} ({@link FlashstockConfig#metrics()}), what
 * {@code /q/metrics} reports beyond the service-wide meters (README, "Metrics").
 */
public interface MetricsConfig {
    /**
     * Items this pod reports the sale progress of ({@code flashstock_item_*{sku}}: available, reserved, sold,
     * purchases, refusals by code): the most recently active ones, where active means a purchase of the item was
     * answered here (a 201, or a refusal that shows the item exists). An item pushed out by a newer one has its
     * meters removed. Bounds the series per pod to this many items whatever callers send; 0 turns per-item metrics
     * off.
     */
    @WithDefault("50")
    int maxItems();
}
