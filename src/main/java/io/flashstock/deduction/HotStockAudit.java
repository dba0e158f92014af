package io.flashstock.deduction;

import java.util.Optional;

/**
 * Reads, for the settlement report, the copy of an item's counters that the chosen strategy decides purchases on
 * outside MySQL, with its orders still pending there. One implementation per strategy, chosen once by
 * {@link ActiveStrategy} ({@link DeductionStrategy#hotStockAudit()}): {@link #NONE} where MySQL alone decides.
 */
public interface HotStockAudit {

    /** The strategies whose counters live in MySQL alone: there is nothing outside it to read. */
    HotStockAudit NONE = sku -> Optional.empty();

    /**
     * The item's hot counters and pending orders, read atomically; empty when the strategy keeps no such copy. Blocks.
     *
     * @throws io.flashstock.error.UnavailableException when the copy cannot be read now
     */
    Optional<HotStockCounts> read(String sku);
}
