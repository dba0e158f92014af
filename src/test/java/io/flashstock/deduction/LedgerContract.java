package io.flashstock.deduction;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.assertCounters;
import static io.flashstock.testsupport.Shop.assertLedgerBalances;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Instances;
import io.flashstock.testsupport.Tokens;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import org.junit.jupiter.api.Test;

/**
 * The movement ledger part of the contract ({@code GET /items/{sku}/movements}, docs/api.md "Movements"): written
 * once, run by every strategy's suite through {@link StrategyContract}. Every change of an item's counters is one
 * movement with its kind, deltas, order or purchase and actor, and an item's sums of deltas equal its counters.
 * Under write-behind the reserve movements come with the relay: {@code assertCounters} waits for it.
 */
public abstract class LedgerContract extends CartContract {

    /** The subject of {@link Tokens#staff()}, the token every request of {@code Api.given()} carries. */
    private static final String STAFF = "staff";

    @Test
    void everyCounterChangeIsOneMovementWithItsActor() throws InterruptedException {
        String sku = newSku("ledger");
        createItem(sku, 10, 0);
        given().contentType(ContentType.JSON).body("{\"quantity\":5}").post("/items/" + sku + "/restock").then()
                .statusCode(200);
        String paid = buy(sku, "led-a", 2);
        String cancelled = buy(sku, "led-b", 1);
        String expired = buy(sku, "led-c", 3);
        assertCounters(sku, 15, 9, 6, 0); // write-behind: the relay stored the three orders and their movements
        given().post("/orders/" + paid + "/confirm").then().statusCode(200);
        as("led-b", "buyer").post("/orders/" + cancelled + "/cancel").then().statusCode(200);
        Db.makeDue(expired);
        awaitStatus(expired, "EXPIRED");
        assertCounters(sku, 15, 13, 0, 2);
        setStock(sku, 12, etag(sku)).then().statusCode(200);
        given().contentType(ContentType.JSON).body("{\"paused\":false}").put("/items/" + sku + "/sale").then()
                .statusCode(200);
        given().header("If-Match", etag(sku)).post("/items/" + sku + "/retire").then().statusCode(200);
        assertCounters(sku, 12, 10, 0, 2);

        List<Map<String, Object>> rows = movements(sku, 200);
        assertEquals(List.of("created", "restock", "reserve", "reserve", "reserve", "confirm", "cancel", "expire",
                "stock-set", "sale-window", "retire"), rows.stream().map(r -> r.get("kind")).toList(), "kinds");
        assertMovement(rows.get(0), "created", 10, 10, 0, 0, null, STAFF);
        assertMovement(rows.get(1), "restock", 5, 5, 0, 0, (String) rows.get(1).get("orderId"), STAFF);
        assertEquals(36, ((String) rows.get(1).get("orderId")).length(), "a restock's id");
        Map<String, Map<String, Object>> reserves = new HashMap<>();
        rows.subList(2, 5).forEach(r -> reserves.put((String) r.get("orderId"), r));
        assertMovement(reserves.get(paid), "reserve", 0, -2, 2, 0, paid, "led-a");
        assertMovement(reserves.get(cancelled), "reserve", 0, -1, 1, 0, cancelled, "led-b");
        assertMovement(reserves.get(expired), "reserve", 0, -3, 3, 0, expired, "led-c");
        assertMovement(rows.get(5), "confirm", 0, 0, -2, 2, paid, STAFF);
        assertMovement(rows.get(6), "cancel", 0, 1, -1, 0, cancelled, "led-b");
        assertMovement(rows.get(7), "expire", 0, 3, -3, 0, expired, "system");
        assertMovement(rows.get(8), "stock-set", -3, -3, 0, 0, null, STAFF);
        assertMovement(rows.get(9), "sale-window", 0, 0, 0, 0, null, STAFF);
        assertMovement(rows.get(10), "retire", 0, 0, 0, 0, null, STAFF);
        rows.forEach(r -> assertEquals(sku, r.get("sku")));
        rows.forEach(r -> assertNull(r.get("purchaseId"), "single purchases belong to no purchase"));
        rows.forEach(r -> assertNotNull(r.get("at"), "the time of " + r));
        assertLedgerBalances(sku);
        assertEquals(List.of(12, 10, 0, 2), Arrays.stream(new String[] { "stockDelta", "availableDelta",
                "reservedDelta", "soldDelta" }).map(d -> rows.stream().mapToInt(r -> (Integer) r.get(d)).sum())
                .toList(), "the listed deltas add up to the counters");

        // Paged 4 at a time: every movement exactly once, in id order, each page linking to the next.
        List<Object> ids = rows.stream().map(r -> r.get("id")).toList();
        List<Object> paged = new ArrayList<>();
        String after = null;
        for (int page = 1; page <= 3; page++) {
            RequestSpecification request = given().queryParam("limit", 4);
            if (after != null) {
                request.queryParam("after", after);
            }
            Response answer = request.get("/items/" + sku + "/movements");
            answer.then().statusCode(200);
            JsonPath body = answer.jsonPath();
            paged.addAll(body.getList("movements.id"));
            after = body.getString("next");
            if (page < 3) {
                assertEquals(body.getList("movements.id").get(3).toString(), after, "the cursor of page " + page);
                assertEquals("</items/" + sku + "/movements?after=" + after + "&limit=4>; rel=\"next\"",
                        answer.header("Link"), "the Link of page " + page);
            } else {
                assertNull(after, "the last page has no next");
                assertNull(answer.header("Link"), "nor a Link");
            }
        }
        assertEquals(ids, paged, "every movement once, in order");
    }

    @Test
    void cartLinesCarryTheirOrderAndPurchase() {
        String[] skus = items("ledger-cart", 5, 5);
        String paid = cart("led-cart", null, line(skus[0], 1), line(skus[1], 2)).then().statusCode(201).extract()
                .path("purchaseId");
        String cancelled = cart("led-cart", null, line(skus[0], 2), line(skus[1], 1)).then().statusCode(201)
                .extract().path("purchaseId");
        assertCounters(skus[0], 5, 2, 3, 0);
        assertCounters(skus[1], 5, 2, 3, 0);
        given().post("/purchases/" + paid + "/confirm").then().statusCode(200);
        as("led-cart", "buyer").post("/purchases/" + cancelled + "/cancel").then().statusCode(200);
        assertCounters(skus[0], 5, 4, 0, 1);
        assertCounters(skus[1], 5, 3, 0, 2);

        for (int i = 0; i < skus.length; i++) {
            List<Map<String, Object>> rows = movements(skus[i], 50);
            assertEquals(List.of("created", "reserve", "reserve", "confirm", "cancel"),
                    rows.stream().map(r -> r.get("kind")).toList(), "kinds of " + skus[i]);
            int paidUnits = i == 0 ? 1 : 2;
            int cancelledUnits = 3 - paidUnits;
            Map<String, Map<String, Object>> byPurchase = new HashMap<>();
            rows.subList(1, 3).forEach(r -> byPurchase.put((String) r.get("purchaseId"), r));
            String paidLine = lineOf(paid, skus[i]);
            String cancelledLine = lineOf(cancelled, skus[i]);
            assertMovement(byPurchase.get(paid), "reserve", 0, -paidUnits, paidUnits, 0, paidLine, "led-cart");
            assertMovement(byPurchase.get(cancelled), "reserve", 0, -cancelledUnits, cancelledUnits, 0,
                    cancelledLine, "led-cart");
            assertMovement(rows.get(3), "confirm", 0, 0, -paidUnits, paidUnits, paidLine, STAFF);
            assertEquals(paid, rows.get(3).get("purchaseId"));
            assertMovement(rows.get(4), "cancel", 0, cancelledUnits, -cancelledUnits, 0, cancelledLine, "led-cart");
            assertEquals(cancelled, rows.get(4).get("purchaseId"));
            assertLedgerBalances(skus[i]);
        }
    }

    @Test
    void movementsAreForAdminsOnlyAndCheckTheirInput() {
        String sku = newSku("ledger-access");
        createItem(sku, 1, 0);
        as("led-buyer", "buyer").get("/items/" + sku + "/movements").then().statusCode(403);
        as("led-shop", "shop").get("/items/" + sku + "/movements").then().statusCode(403);
        as("led-payment", "payment").get("/items/" + sku + "/movements").then().statusCode(403);
        RestAssured.given().port(Instances.nextPort()).get("/items/" + sku + "/movements").then().statusCode(401);
        as("led-admin", "admin").get("/items/" + sku + "/movements").then().statusCode(200);
        StrategyContract.assertProblem(given().get("/items/" + newSku("ledger-ghost") + "/movements"), 404,
                "item-not-found", "unknown sku");
        for (String query : List.of("limit=0", "limit=201", "limit=x", "after=x", "after=-1")) {
            StrategyContract.assertProblem(given().get("/items/" + sku + "/movements?" + query), 400,
                    "invalid-request", query);
        }
        given().get("/items/" + sku + "/movements?limit=200").then().statusCode(200)
                .body("movements[0].kind", org.hamcrest.Matchers.equalTo("created"))
                .body("next", org.hamcrest.Matchers.nullValue());
    }

    // ---- helpers ----------------------------------------------------------------------------------------------------

    /** Every movement of the item, paged {@code limit} at a time. */
    private static List<Map<String, Object>> movements(String sku, int limit) {
        List<Map<String, Object>> all = new ArrayList<>();
        String after = null;
        do {
            RequestSpecification request = given().queryParam("limit", limit);
            if (after != null) {
                request.queryParam("after", after);
            }
            JsonPath page = request.get("/items/" + sku + "/movements").then().statusCode(200).extract().jsonPath();
            all.addAll(page.getList("movements"));
            after = page.getString("next");
        } while (after != null);
        return all;
    }

    private static void assertMovement(Map<String, Object> row, String kind, int stock, int available, int reserved,
            int sold, String orderId, String actor) {
        assertNotNull(row, kind + " movement");
        assertEquals(List.of(kind, stock, available, reserved, sold, actor), List.of(row.get("kind"),
                row.get("stockDelta"), row.get("availableDelta"), row.get("reservedDelta"), row.get("soldDelta"),
                row.get("actor")), "movement " + row);
        assertEquals(orderId, row.get("orderId"), "order of " + row);
    }

    /** The order id of the line of {@code purchaseId} for {@code sku}. */
    private static String lineOf(String purchaseId, String sku) {
        List<String> ids = Db.strings("SELECT id FROM purchase_order WHERE purchase_id = ? AND sku = ?", purchaseId,
                sku);
        assertEquals(1, ids.size(), "the line of " + sku);
        return ids.get(0);
    }

    /** A request with a token of {@code subject} holding {@code groups}. */
    protected static RequestSpecification as(String subject, String... groups) {
        return RestAssured.given().port(Instances.nextPort()).header("Authorization", Tokens.bearer(subject, groups));
    }

    protected static String etag(String sku) {
        Response read = given().get("/items/" + sku);
        read.then().statusCode(200);
        return read.header("ETag");
    }

    protected static Response setStock(String sku, int stock, String ifMatch) {
        var request = given().contentType(ContentType.JSON).body("{\"stock\":" + stock + "}");
        if (ifMatch != null) {
            request.header("If-Match", ifMatch);
        }
        return request.put("/items/" + sku + "/stock");
    }

    protected static void awaitStatus(String orderId, String status) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 15_000;
        String seen = null;
        while (System.currentTimeMillis() < deadline) {
            seen = given().get("/orders/" + orderId).then().statusCode(200).extract().path("status");
            if (status.equals(seen)) {
                return;
            }
            Thread.sleep(100);
        }
        assertEquals(status, seen, "status of " + orderId + " within 15 s");
    }
}
