package io.flashstock.deduction.lua;

import java.time.Instant;

import io.flashstock.item.SaleWindow;

/**
 * How a sale window is written into the hot stock, for {@code lua/warm.lua} and {@code lua/sale.lua};
 * {@code lua/purchase.lua} judges it. {@code starts}, {@code ends}: {@code "0"} means no bound and nothing else does;
 * a bound is its epoch ms, never 0: a bound at or before the epoch (a window stored before the input rule, say an end
 * in 1969) is written as 1, which every clock after 1970-01-01T00:00:00.001Z judges as that bound (a start passed,
 * an end passed). Pods running an older {@code purchase.lua} (which took 0 and less as "none") judge 1 the same way.
 * {@code paused}: 1 or 0.
 */
final class SaleFields {

    /** The field value of "no bound". */
    static final String NONE = "0";

    private SaleFields() {
    }

    static String millis(Instant instant) {
        return instant == null ? NONE : Long.toString(Math.max(1, instant.toEpochMilli()));
    }

    static String flag(boolean paused) {
        return paused ? "1" : "0";
    }

    /**
     * The window's state as the hot stock's fields hold it ({@code retired} for a retired item); {@code clock} is
     * asked only for a bounded window.
     */
    static String state(java.util.Map<String, String> fields, java.util.function.Supplier<Instant> clock) {
        if ("1".equals(fields.get("retired"))) {
            return io.flashstock.item.StockLevel.RETIRED;
        }
        SaleWindow window = new SaleWindow(instant(fields.get("starts")), instant(fields.get("ends")),
                "1".equals(fields.get("paused")));
        return window.state(window.bounded() ? clock.get() : Instant.EPOCH);
    }

    /** As {@code purchase.lua} reads a bound: absent or {@code "0"}: none; any other number (negative too): a bound. */
    static Instant instant(String millis) {
        return millis == null || NONE.equals(millis) ? null : Instant.ofEpochMilli(Long.parseLong(millis));
    }
}
