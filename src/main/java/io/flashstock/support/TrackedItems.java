package io.flashstock.support;

import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The gauge {@code flashstock.items.tracked{kind, strategy}}: how many items (or skus) one kind of per-item state in
 * this pod holds now. Every such state is bounded by the items in use or by a fixed size, never by requests, so a
 * storm of made-up skus leaves these where they were; the abuse tests and operators watch them.
 */
public final class TrackedItems {

    private TrackedItems() {
    }

    /** Reports {@code size} of {@code state} as the kind {@code kind} of {@code strategy} ("any": every strategy's). */
    public static <T> void register(MeterRegistry registry, String kind, String strategy, T state,
            ToDoubleFunction<T> size) {
        Gauge.builder("flashstock.items.tracked", state, size)
                .description("Items or skus this pod holds per-item state of, by kind: bounded by the items in use "
                        + "or a fixed size, not by requests")
                .tags("kind", kind, "strategy", strategy).register(registry);
    }
}
