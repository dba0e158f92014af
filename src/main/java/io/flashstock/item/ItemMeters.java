package io.flashstock.item;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The sale-progress meters of one item ({@link SaleProgress}): gauges {@code flashstock.item.available},
 * {@code .reserved}, {@code .sold} (NaN until the first refresh), counters {@code flashstock.item.purchases} and
 * {@code flashstock.item.refusals{code}}, all tagged {@code sku}. Registered when the item is admitted, removed, all of
 * them, when it is pushed out; a refusal counter first needed after that is not registered again.
 */
final class ItemMeters {

    /** The grain of {@link #lastActive}. */
    static final long TOUCH_GRAIN_NANOS = 100_000_000L;

    private final String sku;
    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final Map<String, Counter> refusals = new ConcurrentHashMap<>();
    private final Counter purchases;
    private volatile double available = Double.NaN;
    private volatile double reserved = Double.NaN;
    private volatile double sold = Double.NaN;
    /** System.nanoTime of the last purchase answered for the item here. */
    private volatile long lastActive = System.nanoTime();
    private boolean removed;

    ItemMeters(String sku, MeterRegistry registry) {
        this.sku = sku;
        this.registry = registry;
        meters.add(gauge("flashstock.item.available", m -> m.available, "Units of the item available now"));
        meters.add(gauge("flashstock.item.reserved", m -> m.reserved, "Units of the item in RESERVED orders"));
        meters.add(gauge("flashstock.item.sold", m -> m.sold, "Units of the item in CONFIRMED orders"));
        purchases = Counter.builder("flashstock.item.purchases").tag("sku", sku)
                .description("Orders of the item reserved by purchases answered here (lines of multi-item ones too)")
                .register(registry);
        meters.add(purchases);
    }

    private Gauge gauge(String name, java.util.function.ToDoubleFunction<ItemMeters> value, String description) {
        return Gauge.builder(name, this, value).tag("sku", sku).description(description).register(registry);
    }

    String sku() {
        return sku;
    }

    long lastActive() {
        return lastActive;
    }

    /**
     * Marks the item active now. Written at most every 100 ms: on a hot item every purchase would otherwise store
     * into the same field from every core; the order of items needs no finer grain.
     */
    void touch() {
        long now = System.nanoTime();
        if (now - lastActive > TOUCH_GRAIN_NANOS) {
            lastActive = now;
        }
    }

    void purchased() {
        purchases.increment();
    }

    /** {@code code}: a problem code (a fixed set), never client input. */
    void refused(String code) {
        Counter counter = refusals.get(code);
        if (counter == null) {
            counter = register(code);
        }
        if (counter != null) {
            counter.increment();
        }
    }

    private synchronized Counter register(String code) {
        if (removed) {
            return null;
        }
        return refusals.computeIfAbsent(code, c -> {
            Counter counter = Counter.builder("flashstock.item.refusals").tags("sku", sku, "code", c)
                    .description("Purchases of the item refused here, by problem code").register(registry);
            meters.add(counter);
            return counter;
        });
    }

    /** What the meters hold now: the counters of the last refresh and the counts since the item was admitted. */
    ItemProgress progress() {
        Map<String, Long> refused = new TreeMap<>();
        refusals.forEach((code, counter) -> refused.put(code, (long) counter.count()));
        return new ItemProgress(sku, available, reserved, sold, (long) purchases.count(), Map.copyOf(refused));
    }

    void counters(ItemView item) {
        available = item.available();
        reserved = item.reserved();
        sold = item.sold();
    }

    /** Removes every meter of the item from the registry; nothing is registered for it afterwards. */
    synchronized void remove() {
        removed = true;
        meters.forEach(registry::remove);
        meters.clear();
    }
}
