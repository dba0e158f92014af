package io.flashstock.item;

/**
 * An item's available units at one change number ({@code seq} of the hot stock, the row's {@code version}), and its
 * sale window's state then ({@code on-sale}, {@code not-started}, {@code ended}, {@code paused}, or {@code retired});
 * {@link #NONE} for an unknown item.
 */
public record StockLevel(int available, long version, String state) {

    /** The state of an item inside its sale window. */
    public static final String ON_SALE = "on-sale";

    /** The state of a retired item: it sells no more. */
    public static final String RETIRED = "retired";

    public static final StockLevel NONE = new StockLevel(-1, -1, "unknown");

    public StockLevel(int available, long version) {
        this(available, version, ON_SALE);
    }
}
