package io.flashstock.support;

import java.time.Duration;
import java.util.Set;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The latencies the on-call people ask for (purchases, multi-item purchases, confirms, cancels) as Prometheus
 * histograms: {@code _bucket{le=...}} series at fixed bounds around the targets, from 0.5 ms to 10 s, so a p99 per
 * strategy is {@code histogram_quantile(0.99, sum by (le, strategy) (rate(flashstock_purchases_seconds_bucket[1m])))}
 * (README, "Metrics"). Fixed bounds rather than Micrometer's percentile histogram: 15 buckets instead of about 70 per
 * series, and the same bounds in every pod, so the series add up across pods.
 */
@ApplicationScoped
public class LatencyHistograms {

    /** The timers that get buckets; every other timer keeps {@code _count}, {@code _sum} and {@code _max}. */
    public static final Set<String> TIMERS = Set.of("flashstock.purchases", "flashstock.carts", "flashstock.confirms",
            "flashstock.cancels");

    /** The bucket bounds, in milliseconds. */
    static final double[] BOUNDS_MS = { 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000 };

    @Produces
    @Singleton
    MeterFilter latencyBuckets() {
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (id.getType() != Meter.Type.TIMER || !TIMERS.contains(id.getName())) {
                    return config;
                }
                return DistributionStatisticConfig.builder()
                        .serviceLevelObjectives(bounds())
                        .build().merge(config);
            }
        };
    }

    /** {@link #BOUNDS_MS} in nanoseconds, the unit Micrometer keeps timer buckets in. */
    static double[] bounds() {
        double[] nanos = new double[BOUNDS_MS.length];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = BOUNDS_MS[i] * Duration.ofMillis(1).toNanos();
        }
        return nanos;
    }
}
