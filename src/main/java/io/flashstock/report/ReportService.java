package io.flashstock.report;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.flashstock.deduction.HotStockAudit;
import io.flashstock.deduction.HotStockCounts;
import io.flashstock.order.OrderStatus;
import io.flashstock.report.SettlementReport.Check;
import io.flashstock.support.Backoff;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Builds the settlement report of an item: MySQL's books in one snapshot ({@link BooksReader}), then what the
 * strategy holds outside MySQL in one atomic read ({@link HotStockAudit}, chosen once per strategy), and the named
 * checks over both ({@link SettlementChecks}).
 *
 * <p>MySQL is read first: a purchase acknowledged between the two reads is then pending in Redis and not in MySQL,
 * which the hot-stock check expects. What the two reads cannot order is a change that is in MySQL and in Redis at
 * two moments (a relay's batch committed but not yet settled in Redis; a confirm, cancel, expiry or stock change
 * committed but not yet mirrored): when a check fails, the report is read once more after {@link #REREAD_AFTER} and
 * that reading is the answer. A check still failing then is a real disagreement, or changes keep coming.
 */
@ApplicationScoped
public class ReportService {

    /** How long a failing reading waits before the one re-read: a mirror's or relay's step takes milliseconds. */
    static final Duration REREAD_AFTER = Duration.ofMillis(200);

    private final BooksReader books;
    private final HotStockAudit hotStock;

    ReportService(BooksReader books, HotStockAudit hotStock) {
        this.books = books;
        this.hotStock = hotStock;
    }

    /**
     * The item's report.
     *
     * @throws io.flashstock.error.FlashstockException item-not-found for an unknown sku
     * @throws io.flashstock.error.UnavailableException when MySQL or Redis cannot be read now
     */
    public SettlementReport report(String sku) {
        SettlementReport first = read(sku);
        if (first.consistent()) {
            return first;
        }
        Backoff.sleep(REREAD_AFTER.toNanos());
        return read(sku);
    }

    private SettlementReport read(String sku) {
        Books mysql = books.read(sku);
        Optional<HotStockCounts> hot = hotStock.read(sku);
        List<Check> checks = SettlementChecks.of(mysql, hot);
        Map<String, Books.Tally> orders = new LinkedHashMap<>();
        for (OrderStatus status : OrderStatus.values()) {
            orders.put(status.name(), mysql.tally(status));
        }
        return new SettlementReport(sku, mysql.counters(), orders, mysql.ledger(), hot.orElse(null),
                checks.stream().allMatch(Check::ok), checks);
    }
}
