package io.flashstock.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;

import io.flashstock.web.InputRules;
import org.junit.jupiter.api.Test;

class OrderIdsTest {

    @Test
    void idsAreVersion7UuidsThatSortByTime() {
        String earlier = OrderIds.next("sku-1", 1_700_000_000_000L);
        String later = OrderIds.next("sku-1", 1_700_000_000_001L);
        assertEquals(7, UUID.fromString(earlier).version());
        assertEquals(2, UUID.fromString(earlier).variant());
        assertTrue(earlier.compareTo(later) < 0, earlier + " sorts before " + later);
        assertTrue(earlier.matches(InputRules.ORDER_ID), "an issued id passes the path check");
    }

    @Test
    void idsAreUnique() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            assertTrue(ids.add(OrderIds.next("same-sku")));
        }
    }

    @Test
    void onlyOurRecentIdsAreRecent() {
        assertTrue(OrderIds.isRecent(OrderIds.next("sku-1"), Duration.ofMinutes(10)));
        assertFalse(OrderIds.isRecent(OrderIds.next("sku-1", System.currentTimeMillis() - 3_600_000), Duration.ofMinutes(10)));
        assertFalse(OrderIds.isRecent(UUID.randomUUID().toString(), Duration.ofMinutes(10)), "version 4");
        assertFalse(OrderIds.isRecent("not-a-uuid", Duration.ofMinutes(10)));
        assertFalse(OrderIds.isRecent(OrderIds.next("sku-1", System.currentTimeMillis() + 60_000), Duration.ofMinutes(10)),
                "from the future");
    }

    @Test
    void anIdNamesItsItemsTag() {
        for (String sku : List.of("sku-1", "phone-13", "a", "\u00e9t\u00e9-2026")) {
            String id = OrderIds.next(sku);
            assertEquals(OptionalInt.of(OrderIds.itemTag(sku)), OrderIds.itemTagOf(id), sku);
            assertEquals(7, UUID.fromString(id).version());
            assertEquals(2, UUID.fromString(id).variant());
        }
        assertTrue(OrderIds.itemTag("sku-1") != OrderIds.itemTag("sku-2"), "neighbouring skus, different tags");
        assertEquals(OptionalInt.empty(), OrderIds.itemTagOf(UUID.randomUUID().toString()), "not one of ours");
        assertEquals(OptionalInt.empty(), OrderIds.itemTagOf("not-a-uuid"));
    }
}
