package io.flashstock.report;

import java.util.Map;

import io.flashstock.order.OrderStatus;

/**
 * What MySQL holds of one item, read in one consistent snapshot ({@link BooksReader}): its counters, its orders and
 * their units by status, and the sums of its movement ledger.
 */
record Books(Counters counters, Map<OrderStatus, Tally> orders, LedgerSums ledger) {

    /** The item's row. */
    record Counters(long stock, long available, long reserved, long sold, long version, boolean retired) {
    }

    /** How many orders of one status, and their units. */
    record Tally(long count, long units) {

        static final Tally NONE = new Tally(0, 0);
    }

    /** The item's movement rows: how many, and the sum of each counter's deltas. */
    record LedgerSums(long rows, long stock, long available, long reserved, long sold) {
    }

    Tally tally(OrderStatus status) {
        return orders.getOrDefault(status, Tally.NONE);
    }
}
