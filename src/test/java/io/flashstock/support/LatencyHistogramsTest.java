package io.flashstock.support;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The four latency timers get the fixed buckets, 0.5 ms to 10 s; other timers get none. */
class LatencyHistogramsTest {

    @Test
    void latencyTimersHaveTheBucketsOthersNone() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        registry.config().meterFilter(new LatencyHistograms().latencyBuckets());
        for (String name : LatencyHistograms.TIMERS) {
            Timer timer = registry.timer(name, "strategy", "redis-lua", "outcome", "reserved");
            timer.record(Duration.ofMillis(3));
            CountAtBucket[] buckets = timer.takeSnapshot().histogramCounts();
            double[] bounds = Arrays.stream(buckets).mapToDouble(b -> b.bucket(TimeUnit.MILLISECONDS)).toArray();
            assertArrayEquals(LatencyHistograms.BOUNDS_MS, bounds, 1e-9, name);
            assertEquals(0.0, buckets[2].count(), name + ": 3 ms is not within 2.5 ms");
            assertEquals(1.0, buckets[3].count(), name + ": 3 ms is within 5 ms");
        }
        Timer other = registry.timer("flashstock.lock.wait", "outcome", "granted");
        other.record(Duration.ofMillis(3));
        assertEquals(0, other.takeSnapshot().histogramCounts().length);
    }
}
