package io.flashstock.deduction.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The hot stock's sale-window fields: "0" is "no bound" and nothing else is, so an end at or before the epoch (stored
 * before the input rule) is judged ended here as it is in MySQL, by {@code purchase.lua} as by availability.
 */
class SaleFieldsTest {

    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

    @Test
    void noBoundIsZeroAndNoBoundIsEverZero() {
        assertEquals("0", SaleFields.millis(null));
        assertEquals("1", SaleFields.millis(Instant.EPOCH));
        assertEquals("1", SaleFields.millis(Instant.parse("1970-01-01T00:00:00.000500Z")));
        assertEquals("1", SaleFields.millis(Instant.parse("1969-12-31T23:59:59Z")));
        assertEquals("1", SaleFields.millis(Instant.parse("-0001-01-01T00:00:00Z")));
        assertEquals("1000", SaleFields.millis(Instant.parse("1970-01-01T00:00:01Z")));
        assertEquals(Long.toString(NOW.toEpochMilli()), SaleFields.millis(NOW));
    }

    @Test
    void fieldsReadBackAsPurchaseLuaReadsThem() {
        assertNull(SaleFields.instant(null));
        assertNull(SaleFields.instant("0"));
        assertEquals(Instant.ofEpochMilli(1), SaleFields.instant("1"));
        assertEquals(Instant.ofEpochMilli(-1000), SaleFields.instant("-1000"));
    }

    @Test
    void endsAtOrBeforeTheEpochHaveEnded() {
        for (String end : new String[] { SaleFields.millis(Instant.EPOCH),
                SaleFields.millis(Instant.parse("1969-12-31T23:59:59Z")), "-1000" /* mirrored by an older pod */ }) {
            assertEquals("ended", state("0", end), end);
        }
        assertEquals("on-sale", state("0", "0"));
        assertEquals("on-sale", state(SaleFields.millis(Instant.EPOCH), "0"), "a start at the epoch has passed");
        assertEquals("not-started", state(SaleFields.millis(NOW.plusSeconds(60)), "0"));
    }

    private static String state(String starts, String ends) {
        Map<String, String> fields = new HashMap<>(Map.of("starts", starts, "ends", ends, "paused", "0"));
        return SaleFields.state(fields, () -> NOW);
    }
}
