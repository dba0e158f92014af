package io.flashstock.salepage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.Arrays;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * The sale page's history without Quarkus: per-second series from cumulative counters in a ring of fixed size, and the
 * p99 of purchases over the window from a Prometheus registry's histogram, as {@code histogram_quantile} computes it.
 */
class SaleHistoryTest {

    @Test
    void perSecondKeepsTheLastMinuteOfGrowth() {
        PerSecond series = new PerSecond();
        series.add(3); // the first second counts everything since the meter began
        series.add(10);
        series.add(10);
        long[] shown = series.series();
        assertEquals(PerSecond.SECONDS, shown.length);
        assertArrayEquals(new long[] { 3, 7, 0 }, Arrays.copyOfRange(shown, 57, 60));
        for (int i = 0; i < 100; i++) {
            series.add(10 + 2L * (i + 1));
        }
        assertEquals(2, series.series()[0], "only the last minute is kept, the ring never grows");
        series.add(5); // the meter began again (the item was pushed out and admitted anew)
        assertEquals(5, series.series()[59]);
    }

    @Test
    void p99ComesFromTheBucketsOfTheWindowOnly() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Timer timer = Timer.builder(PurchaseLatency.TIMER).tag("outcome", "reserved")
                .serviceLevelObjectives(Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10),
                        Duration.ofMillis(100))
                .register(registry);
        PurchaseLatency latency = new PurchaseLatency(registry); // the application's start: the first sample
        assertNull(latency.window().p99Ms(), "one sample is no window");
        for (int i = 0; i < 1_000; i++) {
            timer.record(Duration.ofMillis(50)); // more than a minute before the window below: must not count
        }
        for (int i = 0; i <= PerSecond.SECONDS; i++) {
            latency.sample();
        }
        assertEquals(0, latency.window().purchases(), "a minute later, none");
        for (int i = 0; i < 100; i++) {
            timer.record(Duration.ofMillis(3));
        }
        latency.sample();
        PurchaseLatency.Window window = latency.window();
        assertEquals(100, window.purchases());
        assertEquals(PerSecond.SECONDS, window.seconds());
        // rank 99 of 100, all in (1 ms, 5 ms]: 1 + 4 * 99/100
        assertEquals(4.96, window.p99Ms(), 1e-9);
        for (int i = 0; i < PerSecond.SECONDS + 5; i++) {
            latency.sample();
        }
        assertEquals(PerSecond.SECONDS, latency.window().seconds(), "at most a minute is kept");
        assertEquals(0, latency.window().purchases());
    }

    @Test
    void aWindowThatBeganBeforeTheFirstPurchaseCountsFromZero() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        PurchaseLatency latency = new PurchaseLatency(registry);
        latency.sample(); // no timer yet: the service answered no purchase so far
        Timer timer = Timer.builder(PurchaseLatency.TIMER).serviceLevelObjectives(Duration.ofMillis(10))
                .register(registry);
        timer.record(Duration.ofMillis(4));
        latency.sample();
        assertEquals(1, latency.window().purchases());
        assertEquals(9.9, latency.window().p99Ms(), 1e-9);
    }

    @Test
    void purchasesBeforeTheFirstSecondCountFromTheStart() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        PurchaseLatency latency = new PurchaseLatency(registry); // the application's start
        Timer timer = Timer.builder(PurchaseLatency.TIMER).serviceLevelObjectives(Duration.ofMillis(10))
                .register(registry);
        timer.record(Duration.ofMillis(4));
        timer.record(Duration.ofMillis(6));
        latency.sample(); // the first second's sample comes after both
        assertEquals(2, latency.window().purchases());
        assertEquals(1, latency.window().seconds());
    }

    @Test
    void quantileBeyondTheLastBoundIsThatBound() {
        assertEquals(100.0, PurchaseLatency.quantile(0.99, new double[] { 10, 100 }, new long[] { 0, 0 }, 10));
        assertNull(PurchaseLatency.quantile(0.99, new double[0], new long[0], 10));
    }
}
