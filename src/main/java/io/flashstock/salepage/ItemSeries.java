package io.flashstock.salepage;

import java.util.Map;
import java.util.TreeMap;

import io.flashstock.item.ItemProgress;

/**
 * One tracked item's last minute on the sale page: its purchases and its refusals by problem code per second
 * ({@link PerSecond}), and its counters as last read. Refusal codes are problem codes, a fixed set, so the map is
 * bounded too. Fed by {@link SaleHistory}'s thread only.
 */
final class ItemSeries {

    private final PerSecond purchases = new PerSecond();
    private final Map<String, PerSecond> refusals = new TreeMap<>();
    private ItemProgress latest;

    /** One second passed: the item's progress now. */
    void add(ItemProgress progress) {
        latest = progress;
        purchases.add(progress.purchases());
        for (Map.Entry<String, PerSecond> code : refusals.entrySet()) {
            code.getValue().add(progress.refusals().getOrDefault(code.getKey(), 0L));
        }
        progress.refusals().forEach((code, count) -> refusals.computeIfAbsent(code, c -> {
            PerSecond series = new PerSecond();
            series.add(count);
            return series;
        }));
    }

    /** What the page shows of the item now. */
    SalePageData.Item view() {
        Map<String, long[]> refused = new TreeMap<>();
        refusals.forEach((code, series) -> refused.put(code, series.series()));
        return new SalePageData.Item(latest.sku(), units(latest.available()), units(latest.reserved()),
                units(latest.sold()), purchases.series(), refused);
    }

    /** A counter read from MySQL or Redis; null before the first read (the meters hold NaN until then). */
    private static Long units(double value) {
        return Double.isNaN(value) ? null : Math.round(value);
    }
}
