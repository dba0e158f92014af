package io.flashstock.events;

/** An item's counters right after a movement: the running sums of the ledger's deltas ({@code event_cursor}). */
record ItemCounters(int stock, int available, int reserved, int sold) {

    static final ItemCounters NONE = new ItemCounters(0, 0, 0, 0);

    ItemCounters after(OutboxMovement movement) {
        return new ItemCounters(stock + movement.stockDelta(), available + movement.availableDelta(),
                reserved + movement.reservedDelta(), sold + movement.soldDelta());
    }
}
