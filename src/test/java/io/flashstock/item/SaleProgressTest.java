package io.flashstock.item;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The per-item meters: bounded, most recently active first, real items only, removed when pushed out. */
class SaleProgressTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<List<String>> reads = new ArrayList<>();

    private SaleProgress progress(int maxItems) {
        return new SaleProgress(maxItems, registry, skus -> {
            reads.add(skus);
            return skus.stream().map(sku -> new ItemView(sku, sku, 10, 7, 2, 1, 0, 0, null, null, false, null, false))
                    .toList();
        });
    }

    @Test
    void keepsTheMostRecentlyActiveItemsAndRemovesTheMetersOfThoseItPushesOut() throws InterruptedException {
        SaleProgress progress = progress(2);
        progress.purchased("a");
        progress.refused("b", "sold-out");
        progress.refused("b", "too-many-requests");
        Thread.sleep(ItemMeters.TOUCH_GRAIN_NANOS / 1_000_000 + 50);
        progress.purchased("a");
        progress.purchased("c");

        assertEquals(Set.of("a", "c"), skus());
        assertEquals(2.0, registry.get("flashstock.item.purchases").tag("sku", "a").counter().count());
        assertNull(registry.find("flashstock.item.refusals").tag("sku", "b").counter(), "b's meters are gone");
        assertNull(registry.find("flashstock.item.available").tag("sku", "b").gauge());

        progress.refused("b", "unavailable"); // not admitted by a refusal any sku may get
        assertEquals(Set.of("a", "c"), skus());
        assertEquals(2.0, registry.get("flashstock.items.tracked").tag("kind", "sale-progress").gauge().value());
    }

    @Test
    void onlyRefusalsThatProveTheItemExistsAdmitIt() {
        SaleProgress progress = progress(5);
        progress.refused("made-up", "item-not-found");
        progress.refused("made-up", "too-many-requests");
        progress.refused("made-up", "invalid-request");
        progress.refused(null, "sold-out");
        assertEquals(Set.of(), skus());

        progress.refused("real", "sale-not-started");
        progress.refused("real", "too-many-requests");
        assertEquals(1.0, registry.get("flashstock.item.refusals").tags("sku", "real", "code", "too-many-requests")
                .counter().count());
    }

    @Test
    void refreshReadsTheCountersOfEveryItemAtOnce() {
        SaleProgress progress = progress(5);
        progress.refresh();
        assertTrue(reads.isEmpty(), "nothing to read, nothing read");
        progress.purchased("a");
        progress.purchased("b");
        assertTrue(Double.isNaN(registry.get("flashstock.item.sold").tag("sku", "a").gauge().value()));
        progress.refresh();
        assertEquals(1, reads.size());
        assertEquals(Set.of("a", "b"), Set.copyOf(reads.get(0)));
        assertEquals(7.0, registry.get("flashstock.item.available").tag("sku", "b").gauge().value());
        assertEquals(2.0, registry.get("flashstock.item.reserved").tag("sku", "b").gauge().value());
        assertEquals(1.0, registry.get("flashstock.item.sold").tag("sku", "a").gauge().value());
    }

    @Test
    void zeroTurnsThemOff() {
        SaleProgress progress = progress(0);
        progress.purchased("a");
        progress.refused("a", "sold-out");
        assertEquals(Set.of(), skus());
    }

    private Set<String> skus() {
        Set<String> skus = new TreeSet<>();
        for (Meter meter : registry.getMeters()) {
            if (meter.getId().getName().startsWith("flashstock.item.")) {
                skus.add(meter.getId().getTag("sku"));
            }
        }
        return skus;
    }
}
