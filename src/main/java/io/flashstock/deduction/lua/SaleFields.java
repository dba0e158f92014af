package io.flashstock.deduction.lua;

import java.time.Instant;

import io.flashstock.item.SaleWindow;

/**
 * How a sale window is written into the hot stock ({@code starts}, {@code ends}: epoch ms, 0 for no bound;
 * {@code paused}: 1 or 0), for {@code lua/warm.lua} and {@code lua/sale.lua}; {@code lua/purchase.lua} judges it.
 */
final class SaleFields {

    private SaleFields() {
    }

    static String millis(Instant instant) {
        return instant == null ? "0" : Long.toString(instant.toEpochMilli());
    }

    static String flag(boolean paused) {
        return paused ? "1" : "0";
    }

    /** The window's state as the hot stock's fields hold it; {@code clock} is asked only for a bounded window. */
    static String state(java.util.Map<String, String> fields, java.util.function.Supplier<Instant> clock) {
        SaleWindow window = new SaleWindow(instant(fields.get("starts")), instant(fields.get("ends")),
                "1".equals(fields.get("paused")));
        return window.state(window.bounded() ? clock.get() : Instant.EPOCH);
    }

    private static Instant instant(String millis) {
        return millis == null || "0".equals(millis) ? null : Instant.ofEpochMilli(Long.parseLong(millis));
    }
}
