package io.flashstock.report;

import java.util.List;
import java.util.Map;

import io.flashstock.deduction.HotStockCounts;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * {@code GET /items/{sku}/report}: an item's books and whether they add up (docs/api.md, "Settlement report").
 *
 * @param counters MySQL's counters of the item
 * @param orders the item's orders in MySQL by status (RESERVED, CONFIRMED, CANCELLED, EXPIRED): count and units
 * @param ledger the sums of the item's movement rows
 * @param hotStock redis-lua only (else null): the hot stock's counters in Redis and the orders pending there
 * @param consistent whether every check is ok
 * @param checks the named checks, always in the same order
 */
public record SettlementReport(String sku, Books.Counters counters, Map<String, Books.Tally> orders,
        Books.LedgerSums ledger,
        @Schema(nullable = true, description = "redis-lua only: the hot stock in Redis and its pending orders")
        HotStockCounts hotStock,
        boolean consistent, List<Check> checks) {

    /** One named invariant of the item: whether it holds, and the figures it compared. */
    public record Check(String name, boolean ok, String detail) {
    }
}
