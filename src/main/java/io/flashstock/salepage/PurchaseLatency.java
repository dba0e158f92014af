package io.flashstock.salepage;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;

/**
 * The p99 of this pod's purchases over the last minute, from the histogram of {@code flashstock.purchases} (every
 * strategy and outcome; {@code support.LatencyHistograms} gives it fixed buckets): once a second the cumulative bucket
 * counts are kept, at most {@value PerSecond#SECONDS} + 1 of them, and the quantile is taken from the difference
 * between the newest and the oldest, interpolated within its bucket as Prometheus's {@code histogram_quantile} does.
 * Fed by {@link SaleHistory}'s thread only.
 */
final class PurchaseLatency {

    static final String TIMER = "flashstock.purchases";

    /** Cumulative counts at one second: {@code counts[i]} of purchases at most {@code boundsMs[i]}, and all of them. */
    private record Sample(double[] boundsMs, long[] counts, long total) {
    }

    /** What the page shows: the p99 in ms (null without purchases in the window) and how many purchases it covers. */
    record Window(Double p99Ms, long purchases, int seconds) {
    }

    private final MeterRegistry registry;
    private final Deque<Sample> samples = new ArrayDeque<>();

    /**
     * Created as the application starts ({@link SaleHistory} is a startup bean), when every timer counts from zero: that
     * start is the first sample, so purchases answered before the first second's sample are in the window too.
     */
    PurchaseLatency(MeterRegistry registry) {
        this.registry = registry;
        samples.addLast(new Sample(new double[0], new long[0], 0));
    }

    /** Takes this second's counts. */
    void sample() {
        double[] bounds = null;
        long[] counts = null;
        long total = 0;
        for (Timer timer : registry.find(TIMER).timers()) {
            HistogramSnapshot snapshot = timer.takeSnapshot();
            CountAtBucket[] buckets = snapshot.histogramCounts();
            if (bounds == null) {
                bounds = new double[buckets.length];
                counts = new long[buckets.length];
                for (int i = 0; i < buckets.length; i++) {
                    bounds[i] = buckets[i].bucket(TimeUnit.MILLISECONDS);
                }
            }
            for (int i = 0; i < Math.min(buckets.length, counts.length); i++) {
                counts[i] += (long) buckets[i].count();
            }
            total += snapshot.count();
        }
        if (bounds == null) {
            bounds = new double[0];
            counts = new long[0];
        }
        samples.addLast(new Sample(bounds, counts, total));
        while (samples.size() > PerSecond.SECONDS + 1) {
            samples.removeFirst();
        }
    }

    /** The p99 over the samples kept (up to the last minute). */
    Window window() {
        if (samples.size() < 2) {
            return new Window(null, 0, 0);
        }
        Sample oldest = samples.getFirst();
        Sample newest = samples.getLast();
        int seconds = samples.size() - 1;
        long total = newest.total - oldest.total;
        if (total <= 0) {
            return new Window(null, Math.max(0, total), seconds);
        }
        // The oldest sample may predate the first purchase (no timer yet, no buckets): it counted none.
        long[] counts = new long[newest.counts.length];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = newest.counts[i] - (i < oldest.counts.length ? oldest.counts[i] : 0);
        }
        return new Window(quantile(0.99, newest.boundsMs, counts, total), total, seconds);
    }

    /**
     * {@code histogram_quantile}: the bucket holding rank {@code q * total}, interpolated linearly within it (from 0
     * for the first); past the last finite bound, that bound. {@code counts} are cumulative.
     */
    static Double quantile(double q, double[] boundsMs, long[] counts, long total) {
        if (boundsMs.length == 0) {
            return null;
        }
        double rank = q * total;
        double lower = 0;
        long below = 0;
        for (int i = 0; i < boundsMs.length; i++) {
            if (counts[i] >= rank) {
                long inBucket = counts[i] - below;
                double share = inBucket == 0 ? 1 : (rank - below) / inBucket;
                return lower + (boundsMs[i] - lower) * share;
            }
            lower = boundsMs[i];
            below = counts[i];
        }
        return boundsMs[boundsMs.length - 1];
    }
}
