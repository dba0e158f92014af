package io.flashstock.item;

import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.flashstock.db.DbErrors;
import io.flashstock.deduction.OrderWriter;
import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.order.OrderIds;
import io.flashstock.order.OrderStatus;
import io.flashstock.order.PurchaseOrder;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

/**
 * The rule db-optimistic's safety rests on: every change of an item's counters bumps its version. Every way the
 * counters can change goes through {@link Item} ({@code LayoutTest} keeps other classes from updating items), and
 * each of them is exercised here against MySQL.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimistic.class)
@WithTestResource(LocalServersResource.class)
class ItemCountersTest {

    @Test
    void reservingOnAManagedItemBumpsTheVersion() {
        assertChange(sku -> {
            Item item = Item.findById(sku);
            item.reserve(2, Instant.now());
        }, Map.of("available", 8L, "reserved", 2L), 1);
    }

    @Test
    void everyBulkChangeBumpsTheVersion() {
        assertChange(sku -> Item.addStock(sku, 5, Instant.now()), Map.of("stock", 15L, "available", 15L), 1);
        assertChange(sku -> Item.reserveUnitsForVersion(sku, 3, Instant.now()), Map.of("available", 7L, "reserved", 3L), 1);
        assertChange(sku -> Item.reserveFenced(sku, 3, 1, Instant.now()), Map.of("available", 7L, "reserved", 3L),
                1);
        assertChange(sku -> {
            Item.reserveUnitsForVersion(sku, 3, Instant.now());
            Item.sellReserved(sku, 2, Instant.now());
        }, Map.of("available", 7L, "reserved", 1L, "sold", 2L), 2);
        assertChange(sku -> {
            Item.reserveUnitsForVersion(sku, 3, Instant.now());
            Item.returnReserved(sku, 3, Instant.now());
        }, Map.of("available", 10L, "reserved", 0L), 2);
    }

    /**
     * The orders' reserve in SQL (write-through, the relay, carts): the version it returns is the one it gave the row,
     * 0 for no such item, and MySQL's CHECK refuses units it has not, as a sold-out, changing nothing.
     */
    @Test
    void reservingUnitsReturnsTheVersionItGaveTheItem() {
        String sku = newSku("counters");
        createItem(sku, 10, 0);
        long before = Db.item(sku).get("version");
        long[] seen = new long[2];
        QuarkusTransaction.requiringNew().run(() -> {
            seen[0] = Item.reserveUnitsForVersion(sku, 3, Instant.now());
            seen[1] = Item.currentVersion(sku);
        });
        assertEquals(before + 1, seen[0]);
        assertEquals(seen[0], seen[1], "what the transaction reads next");
        assertEquals(seen[0], Db.item(sku).get("version"), "what it committed");
        assertEquals(0L, QuarkusTransaction.requiringNew()
                .call(() -> Item.reserveUnitsForVersion(newSku("missing"), 1, Instant.now())));
        RuntimeException refused = assertThrows(RuntimeException.class, () -> QuarkusTransaction.requiringNew()
                .run(() -> Item.reserveUnitsForVersion(sku, 8, Instant.now())));
        assertTrue(DbErrors.isSoldOut(refused), refused.toString());
        Map<String, Long> row = Db.item(sku);
        assertEquals(7L, row.get("available"));
        assertEquals(seen[0], row.get("version"), "a refused reserve leaves the version");
    }

    /**
     * New orders go in with the constants their INSERT writes instead of binding (OrderWriter, Ledger.writeReserves):
     * RESERVED, {@code updated_at} their creation, and one reserve movement each with stock and sold 0 and reserved
     * the units available gave; an order that is not new is refused and nothing of its batch is written.
     */
    @Test
    void newOrdersAreWrittenWithTheirStatementsConstants() {
        String sku = newSku("counters");
        createItem(sku, 10, 0);
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        QuarkusTransaction.requiringNew().run(() -> OrderWriter.insert(List.of(
                PurchaseOrder.reserved(OrderIds.next(sku), sku, "u-1", 2, "k-1", "f-1", now, Duration.ofMinutes(5)),
                PurchaseOrder.reserved(OrderIds.next(sku), sku, "u-2", 1, null, null, now, Duration.ofMinutes(5)))));
        assertEquals(Map.of("RESERVED", 2L, "units:RESERVED", 3L), Db.orders(sku));
        assertEquals(2L, Db.count("SELECT COUNT(*) FROM purchase_order WHERE sku = ? AND updated_at = created_at"
                + " AND expires_at = created_at + INTERVAL 5 MINUTE", sku));
        assertEquals(List.of("0 -1 1 0 u-2", "0 -2 2 0 u-1"), Db.strings("SELECT CONCAT_WS(' ', stock_delta,"
                + " available_delta, reserved_delta, sold_delta, actor) FROM movement"
                + " WHERE sku = ? AND kind = 'reserve' ORDER BY actor DESC", sku));

        PurchaseOrder confirmed = PurchaseOrder.reserved(OrderIds.next(sku), sku, "u-3", 1, null, null, now,
                Duration.ofMinutes(5));
        confirmed.status = OrderStatus.CONFIRMED;
        assertThrows(IllegalArgumentException.class, () -> QuarkusTransaction.requiringNew()
                .run(() -> OrderWriter.insert(List.of(PurchaseOrder.reserved(OrderIds.next(sku), sku, "u-4", 1,
                        null, null, now, Duration.ofMinutes(5)), confirmed))));
        assertEquals(2L, Db.orderCount(sku));
        assertEquals(3L, Db.ledger(sku).get("movements"), "created and two reserves");
    }

    /** redis-lock's batch: the fence claim moves no counter; the reservations decided after it bump the version. */
    @Test
    void aFenceClaimThenReservationsBumpTheVersionOnce() {
        assertChange(sku -> Item.claimFence(sku, 1), Map.of("available", 10L, "reserved", 0L), 0);
        assertChange(sku -> {
            Item.claimFence(sku, 1);
            Item item = Item.findById(sku);
            item.reserve(2, Instant.now());
            item.reserve(1, Instant.now());
        }, Map.of("available", 7L, "reserved", 3L), 1);
    }

    @Test
    void aRefusedChangeLeavesTheVersion() {
        assertChange(sku -> Item.addStock(sku, Integer.MAX_VALUE, Instant.now()), Map.of("stock", 10L), 0);
        assertChange(sku -> Item.reserveFenced(sku, 11, 1, Instant.now()), Map.of("available", 10L), 0);
    }

    /** Runs {@code change} on a fresh item of 10 units in one transaction; checks counters and version steps. */
    private static void assertChange(Consumer<String> change, Map<String, Long> expected, int versionSteps) {
        String sku = newSku("counters");
        createItem(sku, 10, 0);
        long before = Db.item(sku).get("version");
        QuarkusTransaction.requiringNew().run(() -> change.accept(sku));
        Map<String, Long> row = Db.item(sku);
        expected.forEach((column, value) -> assertEquals(value, row.get(column), column + " of " + row));
        assertEquals(row.get("stock"), row.get("available") + row.get("reserved") + row.get("sold"));
        assertEquals(before + versionSteps, row.get("version"), "version of " + row);
    }
}
