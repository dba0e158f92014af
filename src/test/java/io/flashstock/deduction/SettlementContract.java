package io.flashstock.deduction;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.Settlement;
import io.flashstock.testsupport.Tokens;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The settlement report's part of the contract ({@code GET /items/{sku}/report}, docs/api.md), run by every
 * strategy's suite through {@link StrategyContract}: after every test, the report of each item the test created is
 * {@code "consistent": true}; and the report itself counts exactly.
 */
public abstract class SettlementContract {

    /**
     * At the end of every contract test, in every strategy: the settlement report of each item the test created adds
     * up ({@code "consistent": true}; write-behind's relay and the hot stock's mirror settle first).
     */
    @BeforeEach
    void noItemUsedYet() {
        Settlement.forgetTracked();
    }

    @AfterEach
    void everyItemUsedSettles() {
        Settlement.assertTrackedConsistent();
    }

    @Test
    void theReportCountsOrdersByStatusAndAddsUp() {
        String sku = newSku("report");
        createItem(sku, 10, 0);
        String confirmed = buy(sku, "rep-1", 2);
        String cancelled = buy(sku, "rep-2", 1);
        buy(sku, "rep-3", 3);
        given().post("/orders/" + confirmed + "/confirm").then().statusCode(200);
        given().post("/orders/" + cancelled + "/cancel").then().statusCode(200);

        Settlement.assertConsistent(sku);
        JsonPath report = Settlement.report(sku);
        assertEquals(sku, report.getString("sku"));
        assertEquals(List.of(10, 5, 3, 2), List.of(report.getInt("counters.stock"), report.getInt("counters.available"),
                report.getInt("counters.reserved"), report.getInt("counters.sold")), "counters");
        assertEquals(false, report.getBoolean("counters.retired"));
        assertEquals(Map.of("count", 1, "units", 3), report.getMap("orders.RESERVED"));
        assertEquals(Map.of("count", 1, "units", 2), report.getMap("orders.CONFIRMED"));
        assertEquals(Map.of("count", 1, "units", 1), report.getMap("orders.CANCELLED"));
        assertEquals(Map.of("count", 0, "units", 0), report.getMap("orders.EXPIRED"));
        assertEquals(List.of(10, 5, 3, 2), List.of(report.getInt("ledger.stock"), report.getInt("ledger.available"),
                report.getInt("ledger.reserved"), report.getInt("ledger.sold")), "ledger sums");
        assertEquals(6, report.getInt("ledger.rows"), "a movement per change: created, 3 reserves, confirm, cancel");

        List<String> names = report.getList("checks.name");
        boolean hot = report.get("hotStock") != null;
        List<String> expected = new ArrayList<>(List.of("counters-balance", "ledger-matches-counters",
                "orders-match-counters", "not-oversold"));
        if (hot) {
            expected.add(3, "hot-stock-matches"); // redis-lua only
            assertEquals(List.of(10, 2), List.of(report.getInt("hotStock.stock"), report.getInt("hotStock.sold")),
                    "the hot stock's stock and sold are MySQL's");
            assertEquals(5, report.getInt("hotStock.available") + report.getInt("hotStock.pendingUnits"),
                    "Redis's available == MySQL's less the units pending in Redis");
        }
        assertEquals(expected, names, "the checks, in their order");
        assertEquals(List.of(), Settlement.failing(report));
    }

    @Test
    void theReportIsForAdminsOnly() {
        String sku = newSku("report-roles");
        createItem(sku, 1, 0);
        String path = "/items/" + sku + "/report";
        for (String token : List.of(Tokens.bearer("shop-1", "shop"), Tokens.bearer("buyer-1", "buyer"),
                Tokens.bearer("pay-1", "payment"))) {
            Reply reply = Http.send(Http.get(path, token));
            assertEquals(403, reply.status(), reply.body());
            assertTrue(reply.body().contains("forbidden"), reply.body());
        }
        assertEquals(401, Http.send(Http.get(path, null)).status());
        assertEquals(200, Http.send(Http.get(path, Tokens.bearer("admin-1", "admin"))).status());
    }

    @Test
    void theReportOfAnUnknownItemIsNotFound() {
        given().get("/items/" + newSku("no-such") + "/report").then().statusCode(404)
                .contentType("application/problem+json").body("type", org.hamcrest.Matchers.endsWith("item-not-found"));
        given().get("/items/bad%20sku/report").then().statusCode(400)
                .contentType("application/problem+json").body("type", org.hamcrest.Matchers.endsWith("invalid-request"));
    }
}
