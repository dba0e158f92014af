package io.flashstock.salepage;

/**
 * A cumulative count (a counter of this pod's meters) turned into what it grew by in each of the last
 * {@value #SECONDS} seconds: a ring of fixed size, fed once a second by {@link SaleHistory}. Its memory is the same
 * whatever callers send.
 */
final class PerSecond {

    /** How far back the series go: the page's charts span one minute. */
    static final int SECONDS = 60;

    private final long[] slots = new long[SECONDS];
    /** The slot the next second goes to; the oldest second is there too. */
    private int next;
    /** The cumulative count at the previous second; -1 before the first. */
    private long last = -1;

    /**
     * One second passed and the count is {@code cumulative} now. The first second counts everything since the meter
     * began (it began less than a second earlier: an item is admitted by a purchase); a count that went down began
     * again (the item was pushed out and admitted anew), so the second counts it whole.
     */
    void add(long cumulative) {
        long grown = last < 0 || cumulative < last ? cumulative : cumulative - last;
        last = cumulative;
        slots[next] = grown;
        next = (next + 1) % SECONDS;
    }

    /** The last {@value #SECONDS} seconds, the oldest first (zero for seconds before the first). */
    long[] series() {
        long[] series = new long[SECONDS];
        for (int i = 0; i < SECONDS; i++) {
            series[i] = slots[(next + i) % SECONDS];
        }
        return series;
    }
}
