package io.flashstock.report;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.Pause;
import io.flashstock.testsupport.Settlement;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Each check of the settlement report fails against the real stores when its invariant is broken: an item of the
 * test's own is sold and settles consistent, then one figure is tampered with in the test's MySQL database or Redis
 * index, and the report says {@code "consistent": false} and names the check. redis-lua write-behind, the strategy
 * with all five checks.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteBehind.class)
@WithTestResource(LocalServersResource.class)
class SettlementReportTest {

    @Inject
    RedisDataSource redis;

    @Test
    void anUnbalancedCounterFailsCountersBalance() {
        String sku = settledItem();
        unchecked("UPDATE item SET stock = stock + 1 WHERE sku = ?", sku);
        assertInconsistentUntilUndone(sku, "counters-balance",
                () -> unchecked("UPDATE item SET stock = stock - 1 WHERE sku = ?", sku));
    }

    @Test
    void aMovementTheCountersDoNotShowFailsTheLedgerCheck() {
        String sku = settledItem();
        Db.update("INSERT INTO movement (sku, kind, stock_delta, available_delta, reserved_delta, sold_delta, actor, "
                + "created_at) VALUES (?, 'restock', 1, 1, 0, 0, 'tamper', NOW(6))", sku);
        assertInconsistentUntilUndone(sku, "ledger-matches-counters",
                () -> Db.update("DELETE FROM movement WHERE sku = ? AND actor = 'tamper'", sku));
    }

    @Test
    void anOrderWhoseCountersDidNotMoveFailsTheOrdersCheck() {
        String sku = settledItem();
        assertEquals(1, Db.update("UPDATE purchase_order SET status = 'CANCELLED' WHERE sku = ? AND status = "
                + "'RESERVED'", sku));
        assertInconsistentUntilUndone(sku, "orders-match-counters", () -> Db.update("UPDATE purchase_order SET status "
                + "= 'RESERVED' WHERE sku = ? AND status = 'CANCELLED'", sku));
    }

    @Test
    void aHotStockThatIsNotMySqlPlusPendingFailsTheHotStockCheck() {
        String sku = settledItem();
        // Two units moved from available to reserved in Redis alone; the 'taking' mark of a stock set under way keeps
        // the reconcile from correcting it meanwhile (lua/reconcile.lua).
        redis.hash(String.class).hincrby(RedisKeys.stock(sku), "available", -2);
        redis.hash(String.class).hincrby(RedisKeys.stock(sku), "reserved", 2);
        redis.hash(String.class).hset(RedisKeys.stock(sku), "taking", "tamper " + System.currentTimeMillis());
        assertInconsistentUntilUndone(sku, "hot-stock-matches", () -> {
            redis.hash(String.class).hincrby(RedisKeys.stock(sku), "available", 2);
            redis.hash(String.class).hincrby(RedisKeys.stock(sku), "reserved", -2);
            redis.hash(String.class).hdel(RedisKeys.stock(sku), "taking");
        });
    }

    @Test
    void soldAndReservedAboveTheStockFailNotOversold() {
        String sku = settledItem();
        unchecked("UPDATE item SET available = available - 5, sold = sold + 5 WHERE sku = ?", sku);
        assertInconsistentUntilUndone(sku, "not-oversold",
                () -> unchecked("UPDATE item SET available = available + 5, sold = sold - 5 WHERE sku = ?", sku));
    }

    /**
     * A fresh item of stock 5: one order confirmed (1 unit), one reserved (2 units), write-behind's relay done with
     * both; its report is consistent before anything is tampered with.
     */
    private static String settledItem() {
        String sku = newSku("tamper");
        createItem(sku, 5, 0);
        String confirmed = buy(sku, "t-1", 1);
        buy(sku, "t-2", 2);
        given().post("/orders/" + confirmed + "/confirm").then().statusCode(200);
        Settlement.assertConsistent(sku);
        // A report with an order still pending is consistent too (the hot stock counts it): wait for the relay, so
        // that what the test tampers with is what MySQL holds, and the relay has nothing left to write over it.
        long deadline = System.currentTimeMillis() + 10_000;
        JsonPath report = Settlement.report(sku);
        while (report.getInt("hotStock.pendingOrders") > 0 && System.currentTimeMillis() < deadline) {
            Pause.sleep(50);
            report = Settlement.report(sku);
        }
        assertEquals(0, report.getInt("hotStock.pendingOrders"), "relay settled: " + report.prettify());
        Settlement.assertConsistent(sku);
        return sku;
    }

    /**
     * The report names {@code check} among its failing ones; then the tampering is undone and the report adds up
     * again. The item stays in the test database, where later classes of this JVM run the expiry job over its
     * reserved order: tampered counters there would make every later expiry batch fail.
     */
    private static void assertInconsistentUntilUndone(String sku, String check, Runnable undo) {
        try {
            JsonPath report = Settlement.report(sku);
            assertFalse(report.getBoolean("consistent"), check + ": " + report.prettify());
            List<String> failing = Settlement.failingNames(report);
            assertTrue(failing.contains(check), check + " fails: " + Settlement.failing(report));
        } finally {
            undo.run();
        }
        Settlement.assertConsistent(sku);
    }

    /** A counter update the database's CHECK constraints would refuse: they are off for this one statement. */
    private static void unchecked(String sql, String sku) {
        try (Connection c = Db.connect(); Statement off = c.createStatement()) {
            off.execute("SET SESSION check_constraint_checks = 0");
            try (var update = c.prepareStatement(sql)) {
                update.setString(1, sku);
                assertEquals(1, update.executeUpdate());
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
