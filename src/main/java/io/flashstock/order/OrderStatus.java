package io.flashstock.order;

import java.util.Arrays;
import java.util.List;

/**
 * Lifecycle of an order. RESERVED holds units; CONFIRMED (paid) sells them; CANCELLED and EXPIRED return
 * them to available, exactly once, because only the RESERVED → CANCELLED/EXPIRED transition returns units.
 */
public enum OrderStatus {
    RESERVED,
    CONFIRMED,
    CANCELLED,
    EXPIRED;

    /** The statuses whose orders hold units: they count toward the user's per-item limit. */
    public static final List<OrderStatus> HOLDING = Arrays.stream(values()).filter(OrderStatus::holdsUnits).toList();

    /** Whether an order in this status holds units (and counts toward the user's per-item limit). */
    public boolean holdsUnits() {
        return this == RESERVED || this == CONFIRMED;
    }
}
