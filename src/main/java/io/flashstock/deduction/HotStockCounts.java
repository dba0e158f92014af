package io.flashstock.deduction;

/**
 * An item's counters where a strategy decides purchases outside MySQL (redis-lua's hot stock), read together with the
 * orders acknowledged there and not yet in MySQL, in one atomic step ({@link HotStockAudit}).
 *
 * @param warm whether the item has a hot stock at all (false: not warmed yet, or Redis lost it; the next purchase
 *        warms it from MySQL, so there is nothing to compare)
 * @param current whether the hot stock is of the generation this pod knows (false: it is rebuilt from MySQL before
 *        the next purchase is decided on it)
 * @param pendingOrders orders acknowledged in Redis and not yet settled in MySQL
 * @param pendingUnits their units (each holds them as reserved in Redis, not yet in MySQL)
 */
public record HotStockCounts(boolean warm, boolean current, long stock, long available, long reserved, long sold,
        long pendingOrders, long pendingUnits) {

    /** An item without a hot stock. */
    public static HotStockCounts cold() {
        return new HotStockCounts(false, false, 0, 0, 0, 0, 0, 0);
    }
}
