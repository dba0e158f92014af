package io.flashstock.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.flashstock.deduction.HotStockCounts;
import io.flashstock.order.OrderStatus;
import io.flashstock.report.SettlementReport.Check;

/**
 * The named checks of the settlement report (docs/api.md lists them): each compares figures read at one instant
 * ({@link Books}: one MySQL snapshot; {@link HotStockCounts}: one atomic Redis read) and says what it compared.
 */
final class SettlementChecks {

    static final String COUNTERS_BALANCE = "counters-balance";
    static final String LEDGER_MATCHES_COUNTERS = "ledger-matches-counters";
    static final String ORDERS_MATCH_COUNTERS = "orders-match-counters";
    static final String HOT_STOCK_MATCHES = "hot-stock-matches";
    static final String NOT_OVERSOLD = "not-oversold";

    private SettlementChecks() {
    }

    /** Every check of the item; {@value #HOT_STOCK_MATCHES} only where the strategy keeps a hot stock. */
    static List<Check> of(Books books, Optional<HotStockCounts> hot) {
        List<Check> checks = new ArrayList<>(5);
        checks.add(countersBalance(books.counters()));
        checks.add(ledgerMatchesCounters(books));
        checks.add(ordersMatchCounters(books));
        hot.ifPresent(counts -> checks.add(hotStockMatches(books.counters(), counts)));
        checks.add(notOversold(books.counters(), hot));
        return checks;
    }

    /** stock == available + reserved + sold. */
    private static Check countersBalance(Books.Counters c) {
        boolean ok = c.stock() == c.available() + c.reserved() + c.sold();
        return new Check(COUNTERS_BALANCE, ok, String.format("stock %d %s available %d + reserved %d + sold %d",
                c.stock(), ok ? "==" : "!=", c.available(), c.reserved(), c.sold()));
    }

    /** Each counter == the sum of its deltas over the item's movements. */
    private static Check ledgerMatchesCounters(Books books) {
        Books.Counters c = books.counters();
        Books.LedgerSums l = books.ledger();
        boolean ok = c.stock() == l.stock() && c.available() == l.available() && c.reserved() == l.reserved()
                && c.sold() == l.sold();
        return new Check(LEDGER_MATCHES_COUNTERS, ok, String.format(
                "counters (stock/available/reserved/sold) %s %s ledger sums %s over %d movements",
                figures(c.stock(), c.available(), c.reserved(), c.sold()), ok ? "==" : "!=",
                figures(l.stock(), l.available(), l.reserved(), l.sold()), l.rows()));
    }

    /** reserved == units of RESERVED orders, sold == units of CONFIRMED orders. */
    private static Check ordersMatchCounters(Books books) {
        Books.Counters c = books.counters();
        long reservedUnits = books.tally(OrderStatus.RESERVED).units();
        long confirmedUnits = books.tally(OrderStatus.CONFIRMED).units();
        boolean ok = c.reserved() == reservedUnits && c.sold() == confirmedUnits;
        return new Check(ORDERS_MATCH_COUNTERS, ok, String.format(
                "reserved %d %s units of RESERVED orders %d; sold %d %s units of CONFIRMED orders %d", c.reserved(),
                c.reserved() == reservedUnits ? "==" : "!=", reservedUnits, c.sold(),
                c.sold() == confirmedUnits ? "==" : "!=", confirmedUnits));
    }

    /**
     * The hot stock == MySQL + the orders pending in Redis: each pending order holds its units as reserved in Redis
     * and not yet in MySQL, so stock and sold are equal, Redis's available is MySQL's less the pending units and its
     * reserved MySQL's plus them. An item without a hot stock, or with one of an older generation, is rebuilt from
     * MySQL before Redis decides on it again: nothing to compare.
     */
    private static Check hotStockMatches(Books.Counters c, HotStockCounts hot) {
        if (!hot.warm()) {
            return new Check(HOT_STOCK_MATCHES, true, "no hot stock in Redis: the next purchase warms it from MySQL");
        }
        if (!hot.current()) {
            return new Check(HOT_STOCK_MATCHES, true,
                    "the hot stock is of an older generation: it is rebuilt from MySQL before the next purchase");
        }
        long pending = hot.pendingUnits();
        boolean ok = hot.stock() == c.stock() && hot.available() == c.available() - pending
                && hot.reserved() == c.reserved() + pending && hot.sold() == c.sold();
        return new Check(HOT_STOCK_MATCHES, ok, String.format(
                "Redis (stock/available/reserved/sold) %s %s MySQL %s with %d pending orders of %d units",
                figures(hot.stock(), hot.available(), hot.reserved(), hot.sold()), ok ? "==" : "!=",
                figures(c.stock(), c.available() - pending, c.reserved() + pending, c.sold()), hot.pendingOrders(),
                pending));
    }

    /** sold + reserved <= stock, and no counter below zero, in MySQL and in the hot stock. */
    private static Check notOversold(Books.Counters c, Optional<HotStockCounts> hot) {
        List<String> problems = new ArrayList<>();
        if (c.sold() + c.reserved() > c.stock()) {
            problems.add(String.format("MySQL sold %d + reserved %d > stock %d", c.sold(), c.reserved(), c.stock()));
        }
        if (Math.min(Math.min(c.stock(), c.available()), Math.min(c.reserved(), c.sold())) < 0) {
            problems.add("a negative MySQL counter " + figures(c.stock(), c.available(), c.reserved(), c.sold()));
        }
        hot.filter(HotStockCounts::warm).ifPresent(h -> {
            if (h.sold() + h.reserved() > h.stock()) {
                problems.add(String.format("Redis sold %d + reserved %d > stock %d", h.sold(), h.reserved(),
                        h.stock()));
            }
            if (Math.min(Math.min(h.stock(), h.available()), Math.min(h.reserved(), h.sold())) < 0) {
                problems.add("a negative Redis counter " + figures(h.stock(), h.available(), h.reserved(), h.sold()));
            }
        });
        return new Check(NOT_OVERSOLD, problems.isEmpty(), problems.isEmpty()
                ? String.format("sold %d + reserved %d <= stock %d, no negative counter", c.sold(), c.reserved(),
                        c.stock())
                : String.join("; ", problems));
    }

    private static String figures(long stock, long available, long reserved, long sold) {
        return stock + "/" + available + "/" + reserved + "/" + sold;
    }
}
