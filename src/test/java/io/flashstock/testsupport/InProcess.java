package io.flashstock.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ArcContainer;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.keys.KeyScanArgs;

/**
 * What a test can see inside the service when the service runs in the test's own JVM ({@code @QuarkusTest}); nothing
 * when it runs as a packaged jar ({@code *IT}): then {@link #running()} is false and the readings are empty.
 */
public final class InProcess {

    private InProcess() {
    }

    /** Whether the service runs in this JVM. */
    public static boolean running() {
        ArcContainer container = Arc.container();
        return container != null && container.isRunning();
    }

    /** The gauges {@code flashstock.items.tracked}, as "kind/strategy" → value. */
    public static Map<String, Double> trackedItems() {
        Map<String, Double> tracked = new TreeMap<>();
        if (running()) {
            MeterRegistry registry = Arc.container().instance(MeterRegistry.class).get();
            for (Gauge gauge : registry.find("flashstock.items.tracked").gauges()) {
                tracked.put(gauge.getId().getTag("kind") + "/" + gauge.getId().getTag("strategy"), gauge.value());
            }
        }
        return tracked;
    }

    /** The count of the counter {@code name} (its first series), or -1 when the service runs elsewhere. */
    public static double counter(String name) {
        if (!running()) {
            return -1;
        }
        var counter = Arc.container().instance(MeterRegistry.class).get().find(name).counter();
        return counter == null ? 0 : counter.count();
    }

    /** The keys matching {@code pattern} in the service's Redis database (SCAN, never KEYS). */
    public static List<String> redisKeys(String pattern) {
        List<String> keys = new ArrayList<>();
        if (running()) {
            RedisDataSource redis = Arc.container().instance(RedisDataSource.class).get();
            redis.key().scan(new KeyScanArgs().match(pattern).count(1000)).toIterable().forEach(keys::add);
        }
        return keys;
    }

    /** Whether {@code member} is in the sorted set {@code key} of the service's Redis. */
    public static boolean inSortedSet(String key, String member) {
        return running() && Arc.container().instance(RedisDataSource.class).get().sortedSet(String.class)
                .zscore(key, member).isPresent();
    }
}
