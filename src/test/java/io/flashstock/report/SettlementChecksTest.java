package io.flashstock.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.flashstock.deduction.HotStockCounts;
import io.flashstock.order.OrderStatus;
import io.flashstock.report.SettlementReport.Check;
import org.junit.jupiter.api.Test;

/**
 * Each check of the settlement report fails when, and only when, its invariant is broken: books that add up pass
 * every check, and each broken figure fails the checks that read it. A plain unit test over {@link SettlementChecks}
 * (the same checks against the real stores: {@code SettlementReportTest}).
 */
class SettlementChecksTest {

    /** stock 10 = available 4 + reserved 3 + sold 3; one RESERVED order of 3, two CONFIRMED of 3 units. */
    private static final Books.Counters COUNTERS = new Books.Counters(10, 4, 3, 3, 7, false);
    private static final Books.LedgerSums LEDGER = new Books.LedgerSums(6, 10, 4, 3, 3);
    /** Redis with one pending order of 2 units: available 2, reserved 5. */
    private static final HotStockCounts HOT = new HotStockCounts(true, true, 10, 2, 5, 3, 1, 2);

    @Test
    void booksThatAddUpPassEveryCheck() {
        assertEquals(List.of(), failing(books(COUNTERS, LEDGER, 3, 3), Optional.of(HOT)));
        assertEquals(List.of("counters-balance", "ledger-matches-counters", "orders-match-counters",
                "hot-stock-matches", "not-oversold"), SettlementChecks.of(books(COUNTERS, LEDGER, 3, 3),
                        Optional.of(HOT)).stream().map(Check::name).toList());
        assertEquals(List.of("counters-balance", "ledger-matches-counters", "orders-match-counters", "not-oversold"),
                SettlementChecks.of(books(COUNTERS, LEDGER, 3, 3), Optional.empty()).stream().map(Check::name)
                        .toList(), "no hot-stock check without a hot stock");
    }

    @Test
    void countersThatDoNotBalanceFail() {
        Books.Counters unbalanced = new Books.Counters(11, 4, 3, 3, 7, false);
        assertEquals(List.of("counters-balance", "ledger-matches-counters"),
                failing(books(unbalanced, LEDGER, 3, 3), Optional.empty()));
    }

    @Test
    void aLedgerThatDiffersFromTheCountersFails() {
        for (Books.LedgerSums off : List.of(new Books.LedgerSums(6, 11, 5, 3, 3), new Books.LedgerSums(6, 10, 5, 2, 3),
                new Books.LedgerSums(6, 10, 3, 3, 4))) {
            assertEquals(List.of("ledger-matches-counters"), failing(books(COUNTERS, off, 3, 3), Optional.of(HOT)),
                    off.toString());
        }
    }

    @Test
    void ordersThatDifferFromTheCountersFail() {
        assertEquals(List.of("orders-match-counters"), failing(books(COUNTERS, LEDGER, 2, 3), Optional.of(HOT)));
        assertEquals(List.of("orders-match-counters"), failing(books(COUNTERS, LEDGER, 3, 4), Optional.of(HOT)));
    }

    @Test
    void aHotStockThatIsNotMySqlPlusPendingFails() {
        for (HotStockCounts off : List.of(new HotStockCounts(true, true, 11, 3, 5, 3, 1, 2),
                new HotStockCounts(true, true, 10, 3, 4, 3, 1, 2), new HotStockCounts(true, true, 10, 2, 5, 3, 1, 1),
                new HotStockCounts(true, true, 10, 2, 4, 4, 1, 2))) {
            assertEquals(List.of("hot-stock-matches"), failing(books(COUNTERS, LEDGER, 3, 3), Optional.of(off)),
                    off.toString());
        }
    }

    @Test
    void aHotStockMissingOrOfAnOlderGenerationHasNothingToCompare() {
        assertEquals(List.of(), failing(books(COUNTERS, LEDGER, 3, 3), Optional.of(HotStockCounts.cold())));
        assertEquals(List.of(), failing(books(COUNTERS, LEDGER, 3, 3),
                Optional.of(new HotStockCounts(true, false, 99, 99, 0, 0, 0, 0))));
    }

    @Test
    void anOversoldItemFails() {
        Books.Counters oversold = new Books.Counters(10, -2, 3, 9, 7, false);
        assertEquals(List.of("ledger-matches-counters", "orders-match-counters", "not-oversold"),
                failing(books(oversold, LEDGER, 3, 3), Optional.empty()));
        HotStockCounts hotOversold = new HotStockCounts(true, true, 10, -1, 5, 6, 1, 2);
        assertEquals(List.of("hot-stock-matches", "not-oversold"),
                failing(books(COUNTERS, LEDGER, 3, 3), Optional.of(hotOversold)));
    }

    private static Books books(Books.Counters counters, Books.LedgerSums ledger, long reservedUnits,
            long confirmedUnits) {
        Map<OrderStatus, Books.Tally> orders = new EnumMap<>(OrderStatus.class);
        orders.put(OrderStatus.RESERVED, new Books.Tally(1, reservedUnits));
        orders.put(OrderStatus.CONFIRMED, new Books.Tally(2, confirmedUnits));
        orders.put(OrderStatus.CANCELLED, new Books.Tally(1, 1));
        return new Books(counters, orders, ledger);
    }

    private static List<String> failing(Books books, Optional<HotStockCounts> hot) {
        return SettlementChecks.of(books, hot).stream().filter(check -> !check.ok()).map(Check::name).toList();
    }
}
