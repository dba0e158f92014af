package io.flashstock.order;

/**
 * Lifecycle of an order. RESERVED holds units; CONFIRMED (paid) sells them; CANCELLED and EXPIRED return
 * them to available, exactly once, because only the RESERVED → CANCELLED/EXPIRED transition returns units.
 */
public enum OrderStatus {
    RESERVED,
    CONFIRMED,
    CANCELLED,
    EXPIRED;

    /** Whether an order in this status counts toward the user's per-item limit. */
    public boolean holdsUnits() {
        return this == RESERVED || this == CONFIRMED;
    }
}
