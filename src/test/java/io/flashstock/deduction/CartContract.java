package io.flashstock.deduction;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.assertCounters;
import static io.flashstock.testsupport.Shop.assertLedgerBalances;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.byStatus;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.OnePod;
import io.flashstock.testsupport.Tokens;
import io.restassured.http.ContentType;
import io.flashstock.testsupport.Json;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

/**
 * The multi-item part of the contract ("Reservations" in docs/design.md, docs/multi-item-purchases.md): written
 * once, run by every strategy's suite through {@link StrategyContract}, on the packaged jar, with two instances and
 * on the Redis Cluster. All or nothing: a purchase holds units on every line or on none, MySQL holds it with all its
 * lines or not at all, and its lines move together. Concurrency cases assert exact counts.
 */
public abstract class CartContract extends SettlementContract {

    // ---- a purchase of several items ----------------------------------------------------------------------------

    @Test
    void aCartBuysEveryLineTogether() {
        String[] skus = items("cart", 10, 10, 10);
        Response bought = cart("u-cart", null, line(skus[2], 3), line(skus[0], 1), line(skus[1], 2));
        bought.then().statusCode(201).header("Location", endsWith("/purchases/" + bought.path("purchaseId")))
                .body("userId", equalTo("u-cart")).body("status", equalTo("RESERVED"));
        String purchaseId = bought.path("purchaseId");
        JsonPath body = bought.jsonPath();
        assertEquals(List.of(skus[0], skus[1], skus[2]), body.getList("orders.sku"), "lines in sku order");
        assertEquals(List.of(1, 2, 3), body.getList("orders.quantity"));
        assertEquals(List.of(purchaseId, purchaseId, purchaseId), body.getList("orders.purchaseId"));
        assertEquals(Set.of(body.getString("expiresAt")), new HashSet<>(body.getList("orders.expiresAt")),
                "one expiry for every line");
        assertCounters(skus[0], 10, 9, 1, 0);
        assertCounters(skus[1], 10, 8, 2, 0);
        assertCounters(skus[2], 10, 7, 3, 0);
        assertEquals(1, Db.count("SELECT COUNT(*) FROM purchase WHERE id = ?", purchaseId));
        assertEquals(3, Db.count("SELECT COUNT(*) FROM purchase_order WHERE purchase_id = ?", purchaseId));

        JsonPath read = given().get("/purchases/" + purchaseId).then().statusCode(200).extract().jsonPath();
        assertEquals(body.getList("orders.orderId"), read.getList("orders.orderId"));
        assertEquals(body.getString("expiresAt"), read.getString("expiresAt"));
        given().get("/orders/" + body.getString("orders[1].orderId")).then().statusCode(200)
                .body("purchaseId", equalTo(purchaseId)).body("sku", equalTo(skus[1]));
        String single = buy(skus[0], "u-single", 1);
        given().get("/orders/" + single).then().statusCode(200).body("purchaseId", nullValue());
        given().get("/purchases/" + UUID.randomUUID()).then().statusCode(404)
                .body("type", endsWith("purchase-not-found"));
        given().get("/purchases/not-an-id").then().statusCode(404).body("type", endsWith("purchase-not-found"));
    }

    @Test
    void aCartRefusedOnAnyLineHoldsNothingOnAnyLine() {
        String[] skus = items("refused", 10, 10, 1);
        String user = "u-r-" + UUID.randomUUID().toString().substring(0, 8);
        // Sold out on the last line (in sku order), whatever order the body lists the lines in.
        assertRefusedLine(cart(user, null, line(skus[2], 2), line(skus[0], 1), line(skus[1], 1)), 409, "sold-out",
                skus[2]);
        // Over the user's limit on the middle line.
        String limited = newSku("refused-limit");
        createItem(limited, 10, 1);
        assertRefusedLine(cart(user, null, line(skus[0], 1), line(limited, 2), line(skus[1], 1)), 409,
                "purchase-limit", limited);
        // An unknown sku, wherever it sorts.
        assertRefusedLine(cart(user, null, line(skus[0], 1), line("0-no-such-" + skus[1], 1)), 404,
                "item-not-found", "0-no-such-" + skus[1]);
        assertRefusedLine(cart(user, null, line(skus[0], 1), line("zz-no-such-" + skus[1], 1)), 404,
                "item-not-found", "zz-no-such-" + skus[1]);
        // A paused sale.
        String paused = newSku("refused-paused");
        createItem(paused, 10, 0);
        given().header("Authorization", Tokens.bearer("admin-1", "admin")).contentType(ContentType.JSON)
                .body("{\"paused\":true}").put("/items/" + paused + "/sale").then().statusCode(200);
        assertRefusedLine(cart(user, null, line(skus[1], 1), line(paused, 1)), 409, "sale-paused", paused);

        assertCounters(skus[0], 10, 10, 0, 0);
        assertCounters(skus[1], 10, 10, 0, 0);
        assertCounters(skus[2], 1, 1, 0, 0);
        assertCounters(limited, 10, 10, 0, 0);
        assertEquals(0, Db.count("SELECT COUNT(*) FROM purchase WHERE user_id = ?", user), "purchase rows");
        // The same items still sell, all together.
        cart(user, null, line(skus[0], 1), line(skus[2], 1)).then().statusCode(201);
        assertCounters(skus[2], 1, 0, 1, 0);
    }

    @Test
    @OnePod
    void invalidCartsAreRefusedAndChangeNothing() {
        String[] skus = items("invalid", 10, 10);
        String sku = skus[0];
        List<String> bodies = new ArrayList<>(List.of(
                "{\"userId\":\"u-i\"}",
                "{\"userId\":\"u-i\",\"lines\":[]}",
                "{\"userId\":\"u-i\",\"lines\":null}",
                "{\"userId\":\"u-i\",\"lines\":[null]}",
                "{\"userId\":\"u-i\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":1},{\"sku\":\"" + sku
                        + "\",\"quantity\":2}]}",
                "{\"userId\":\"u-i\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":0}]}",
                "{\"userId\":\"u-i\",\"lines\":[{\"sku\":\"" + sku + "\"}]}",
                "{\"userId\":\"u-i\",\"lines\":[{\"quantity\":1}]}",
                "{\"userId\":\"u-i\",\"lines\":[{\"sku\":\"bad sku!\",\"quantity\":1}]}",
                "{\"userId\":\"u i\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":1}]}",
                "{\"userId\":\"u-i\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":\"1\"}]}",
                "{\"userId\":\"u-i\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":1,\"extra\":1}]}"));
        StringBuilder tooMany = new StringBuilder("{\"userId\":\"u-i\",\"lines\":[");
        for (int i = 0; i < 21; i++) {
            tooMany.append(i == 0 ? "" : ",").append("{\"sku\":\"").append(sku).append("-").append(i)
                    .append("\",\"quantity\":1}");
        }
        bodies.add(tooMany.append("]}").toString());
        for (String body : bodies) {
            Response refused = given().contentType(ContentType.JSON).body(body).post("/purchases");
            StrategyContract.assertProblem(refused, 400, "invalid-request", body);
        }
        StrategyContract.assertProblem(given().contentType(ContentType.JSON).post("/purchases"), 400,
                "invalid-request", "no body");
        assertCounters(skus[0], 10, 10, 0, 0);
        assertCounters(skus[1], 10, 10, 0, 0);
        assertEquals(0, Db.count("SELECT COUNT(*) FROM purchase WHERE user_id = 'u-i'"), "purchase rows");
    }

    @Test
    void aRepeatedIdempotencyKeyAnswersTheFirstPurchase() {
        String[] skus = items("cart-idem", 10, 10);
        String key = "cart-" + UUID.randomUUID();
        Response first = cart("u-k", key, line(skus[0], 1), line(skus[1], 2));
        first.then().statusCode(201);
        String purchaseId = first.path("purchaseId");
        cart("u-k", key, line(skus[1], 2), line(skus[0], 1)).then().statusCode(201)
                .header("Idempotent-Replayed", "true").body("purchaseId", equalTo(purchaseId));
        StrategyContract.assertProblem(cart("u-k", key, line(skus[0], 1), line(skus[1], 1)), 422,
                "idempotency-key-reused", "other lines");
        StrategyContract.assertProblem(cart("u-k", key, line(skus[0], 1)), 422, "idempotency-key-reused",
                "fewer lines");
        // The key is the user's: another user's purchase with the same key is another purchase.
        cart("u-k2", key, line(skus[0], 1), line(skus[1], 2)).then().statusCode(201)
                .body("purchaseId", org.hamcrest.Matchers.not(purchaseId));
        assertCounters(skus[0], 10, 8, 2, 0);
        assertCounters(skus[1], 10, 6, 4, 0);

        // Parallel identical requests make one purchase.
        String parallelKey = "cart-par-" + UUID.randomUUID();
        List<Reply> replies = Http.concurrently(20, 20, i -> Http.post("/purchases", body("u-par",
                line(skus[0], 1), line(skus[1], 1))).header("Idempotency-Key", parallelKey).build());
        Set<String> ids = new HashSet<>();
        for (Reply reply : replies) {
            if (reply.status() == 201) {
                ids.add(Json.text(reply.body(), "purchaseId"));
            } else {
                assertEquals(409, reply.status(), reply.body()); // still being decided: request-in-progress
                assertTrue(reply.body().contains("request-in-progress"), reply.body());
            }
        }
        assertEquals(1, ids.size(), "one purchase id across all 2xx answers");
        assertCounters(skus[0], 10, 7, 3, 0);
        assertCounters(skus[1], 10, 5, 5, 0);
    }

    // ---- concurrency: exact counts ----------------------------------------------------------------------------------

    @Test
    void concurrentCartsSharingItemsSellOutExactly() {
        String[] skus = items("cart-sellout", 30, 30, 1000);
        String a = skus[0];
        String b = skus[1];
        String c = skus[2];
        List<Reply> replies = Http.concurrently(100, 32, i -> Http.post("/purchases", i % 2 == 0
                ? body("cs-" + i, line(a, 1), line(b, 1))
                : body("cs-" + i, line(b, 1), line(c, 1), line(a, 1))).build());

        assertEquals(Map.of(201, 30L, 409, 70L), byStatus(replies), "answers");
        int threeLines = 0;
        for (int i = 0; i < replies.size(); i++) {
            Reply reply = replies.get(i);
            if (reply.status() == 201) {
                int lines = Json.read(reply.body()).get("orders").size();
                assertEquals(i % 2 == 0 ? 2 : 3, lines, "every line in the answer");
                threeLines += lines == 3 ? 1 : 0;
            } else {
                assertTrue(reply.body().contains("sold-out"), reply.body());
                String refused = Json.text(reply.body(), "sku");
                assertTrue(refused.equals(a) || refused.equals(b), "the refused line: " + refused);
            }
        }
        assertCounters(a, 30, 0, 30, 0);
        assertCounters(b, 30, 0, 30, 0);
        assertCounters(c, 1000, 1000 - threeLines, threeLines, 0);
        assertNoPartialPurchase(a);
        for (String sku : List.of(a, b, c)) { // a reserve movement per stored line, none of a refused cart
            assertLedgerBalances(sku);
            assertEquals(Db.orderCount(sku), Db.count("SELECT COUNT(*) FROM movement WHERE sku = ?"
                    + " AND kind = 'reserve'", sku), "reserve movements of " + sku);
        }
    }

    @Test
    void cartsAndSinglePurchasesOfOneItemSellItOutExactly() {
        String[] skus = items("cart-mixed", 20, 1000);
        String a = skus[0];
        String b = skus[1];
        List<Reply> replies = Http.concurrently(80, 32, i -> i % 2 == 0
                ? Http.post("/purchases", body("cm-" + i, line(a, 1), line(b, 1))).build()
                : Http.post("/items/" + a + "/purchases", "{\"userId\":\"cm-" + i + "\",\"quantity\":1}").build());
        assertEquals(Map.of(201, 20L, 409, 60L), byStatus(replies), "answers");
        long carts = 0;
        for (int i = 0; i < replies.size(); i += 2) {
            carts += replies.get(i).status() == 201 ? 1 : 0;
        }
        assertCounters(a, 20, 0, 20, 0);
        assertCounters(b, 1000, (int) (1000 - carts), (int) carts, 0);
        assertLedgerBalances(a);
        assertLedgerBalances(b);
        assertEquals(20, Db.orderCount(a), "order rows of the shared item");
        assertNoPartialPurchase(a);
    }

    @Test
    void aUsersLimitHoldsAcrossConcurrentCarts() {
        String limited = newSku("cart-limit");
        createItem(limited, 100, 2);
        String other = newSku("cart-limit-other");
        createItem(other, 100, 0);
        List<Reply> replies = Http.concurrently(10, 10, i -> Http.post("/purchases",
                body("greedy-cart", line(limited, 1), line(other, 1))).build());
        assertEquals(Map.of(201, 2L, 409, 8L), byStatus(replies));
        assertCounters(limited, 100, 98, 2, 0);
        assertCounters(other, 100, 98, 2, 0);
    }

    // ---- the lines move together ------------------------------------------------------------------------------------

    @Test
    void cancelAndConfirmMoveEveryLineOnce() {
        String[] skus = items("cart-move", 10, 10);
        String cancelled = cart("u-m", null, line(skus[0], 2), line(skus[1], 3)).path("purchaseId");
        String confirmed = cart("u-m", null, line(skus[0], 1), line(skus[1], 1)).path("purchaseId");
        assertCounters(skus[0], 10, 7, 3, 0);

        given().post("/purchases/" + cancelled + "/cancel").then().statusCode(200).body("status", equalTo("CANCELLED"))
                .body("orders.status", equalTo(List.of("CANCELLED", "CANCELLED")));
        given().post("/purchases/" + cancelled + "/cancel").then().statusCode(200).body("status", equalTo("CANCELLED"));
        StrategyContract.assertProblem(given().post("/purchases/" + cancelled + "/confirm"), 409,
                "order-not-reserved", "confirming a cancelled purchase");
        assertCounters(skus[0], 10, 9, 1, 0);
        assertCounters(skus[1], 10, 9, 1, 0);

        given().post("/purchases/" + confirmed + "/confirm").then().statusCode(200)
                .body("orders.status", equalTo(List.of("CONFIRMED", "CONFIRMED")));
        given().post("/purchases/" + confirmed + "/confirm").then().statusCode(200);
        StrategyContract.assertProblem(given().post("/purchases/" + confirmed + "/cancel"), 409,
                "order-not-reserved", "cancelling a confirmed purchase");
        assertCounters(skus[0], 10, 9, 0, 1);
        assertCounters(skus[1], 10, 9, 0, 1);

        // One line's own cancel moves the whole purchase.
        JsonPath third = cart("u-m", null, line(skus[0], 1), line(skus[1], 1)).jsonPath();
        given().post("/orders/" + third.getString("orders[0].orderId") + "/cancel").then().statusCode(200)
                .body("status", equalTo("CANCELLED"));
        given().get("/purchases/" + third.getString("purchaseId")).then().statusCode(200)
                .body("orders.status", equalTo(List.of("CANCELLED", "CANCELLED")));
        assertCounters(skus[0], 10, 9, 0, 1);
        assertCounters(skus[1], 10, 9, 0, 1);
    }

    @Test
    void linesExtendAndExpireTogether() throws InterruptedException {
        String[] skus = items("cart-expiry", 10, 10);
        JsonPath bought = cart("u-e", null, line(skus[0], 1), line(skus[1], 2)).jsonPath();
        String purchaseId = bought.getString("purchaseId");
        String first = bought.getString("orders[0].orderId");
        String second = bought.getString("orders[1].orderId");
        assertCounters(skus[1], 10, 8, 2, 0); // in MySQL (write-behind stores it a moment after the 201)

        JsonPath extended = given().contentType(ContentType.JSON).body("{\"seconds\":600}")
                .post("/orders/" + second + "/extend").then().statusCode(200).extract().jsonPath();
        JsonPath read = given().get("/purchases/" + purchaseId).then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(extended.getString("expiresAt"), extended.getString("expiresAt")),
                read.getList("orders.expiresAt"), "every line extended");
        assertTrue(Instant.parse(read.getString("expiresAt")).isAfter(Instant.now().plusSeconds(500)));

        Db.makeDue(first);
        Db.makeDue(second);
        StrategyContract.awaitStatus(first, "EXPIRED");
        StrategyContract.awaitStatus(second, "EXPIRED");
        given().get("/purchases/" + purchaseId).then().statusCode(200).body("status", equalTo("EXPIRED"));
        assertCounters(skus[0], 10, 10, 0, 0);
        assertCounters(skus[1], 10, 10, 0, 0);
        StrategyContract.assertProblem(given().contentType(ContentType.JSON).body("{\"seconds\":60}")
                .post("/orders/" + first + "/extend"), 409, "order-not-reserved", "extending an expired line");
    }

    @Test
    void linesExpireAtTheShortestReservationOfTheirItems() {
        String shortHold = newSku("cart-ttl-a");
        given().header("Authorization", Tokens.bearer("admin-1", "admin")).contentType(ContentType.JSON)
                .body("{\"sku\":\"" + shortHold + "\",\"name\":\"short\",\"stock\":5,\"reservationTtlSeconds\":60}")
                .post("/items").then().statusCode(201);
        String longHold = newSku("cart-ttl-b");
        createItem(longHold, 5, 0);
        JsonPath bought = cart("u-ttl", null, line(shortHold, 1), line(longHold, 1)).then().statusCode(201)
                .extract().jsonPath();
        long seconds = java.time.Duration.between(Instant.parse(bought.getString("createdAt")),
                Instant.parse(bought.getString("expiresAt"))).toSeconds();
        assertEquals(60, seconds, "the shorter of the items' reservation TTLs");
        assertEquals(List.of(bought.getString("expiresAt"), bought.getString("expiresAt")),
                bought.getList("orders.expiresAt"));
    }

    // ---- access -----------------------------------------------------------------------------------------------------

    @Test
    void buyersBuyAsThemselvesAndSeeOnlyTheirOwnPurchases() {
        String[] skus = items("cart-buyer", 10, 10);
        String buyer = "b-" + UUID.randomUUID().toString().substring(0, 8);
        String asBuyer = Tokens.bearer(buyer, "buyer");
        String asOther = Tokens.bearer("someone-else", "buyer");
        Reply bought = Http.send(Http.request("POST", "/purchases", "{\"lines\":[" + line(skus[0], 1) + ","
                + line(skus[1], 1) + "]}", asBuyer));
        assertEquals(201, bought.status(), bought.body());
        assertEquals(buyer, Json.text(bought.body(), "userId"));
        String purchaseId = Json.text(bought.body(), "purchaseId");
        assertEquals(200, Http.send(Http.request("GET", "/purchases/" + purchaseId, null, asBuyer)).status());
        assertRefused(Http.send(Http.request("GET", "/purchases/" + purchaseId, null, asOther)), 404,
                "purchase-not-found", "another buyer's purchase");
        assertRefused(Http.send(Http.request("POST", "/purchases/" + purchaseId + "/cancel", null, asOther)), 404,
                "purchase-not-found", "another buyer's cancel");
        assertRefused(Http.send(Http.request("POST", "/purchases", body("someone-else", line(skus[0], 1)),
                asBuyer)), 403, "forbidden", "buying for another user");
        assertRefused(Http.send(Http.request("POST", "/purchases/" + purchaseId + "/confirm", null, asBuyer)), 403,
                "forbidden", "a buyer confirming");
        Reply cancelled = Http.send(Http.request("POST", "/purchases/" + purchaseId + "/cancel", null, asBuyer));
        assertEquals(200, cancelled.status(), cancelled.body());
        assertEquals("CANCELLED", Json.text(cancelled.body(), "status"));
        assertCounters(skus[0], 10, 10, 0, 0);
        assertCounters(skus[1], 10, 10, 0, 0);
    }

    private static void assertRefused(Reply reply, int status, String code, String what) {
        assertEquals(status, reply.status(), what + ": " + reply.body());
        assertTrue(reply.contentType().startsWith("application/problem+json"), what + ": " + reply.contentType());
        assertTrue(reply.body().contains("\"type\":\"urn:flashstock:problem:" + code + "\""), what + ": "
                + reply.body());
    }

    // ---- helpers ----------------------------------------------------------------------------------------------------

    /** Items whose skus sort in the order given (one prefix, then -a, -b, ...), each with its stock. */
    public static String[] items(String name, int... stocks) {
        String prefix = newSku(name);
        String[] skus = new String[stocks.length];
        for (int i = 0; i < stocks.length; i++) {
            skus[i] = prefix + "-" + (char) ('a' + i);
            createItem(skus[i], stocks[i], 0);
        }
        return skus;
    }

    protected static String line(String sku, int quantity) {
        return "{\"sku\":\"" + sku + "\",\"quantity\":" + quantity + "}";
    }

    protected static String body(String userId, String... lines) {
        return "{\"userId\":\"" + userId + "\",\"lines\":[" + String.join(",", lines) + "]}";
    }

    protected static Response cart(String userId, String key, String... lines) {
        var request = given().contentType(ContentType.JSON).body(body(userId, lines));
        if (key != null) {
            request = request.header("Idempotency-Key", key);
        }
        return request.post("/purchases");
    }

    private static void assertRefusedLine(Response response, int status, String code, String sku) {
        StrategyContract.assertProblem(response, status, code, code + " on " + sku);
        assertEquals(sku, response.jsonPath().getString("sku"), "the refused line");
    }

    /** No purchase holding a line of {@code sku} is in MySQL with fewer lines than it was made with. */
    private static void assertNoPartialPurchase(String sku) {
        assertEquals(0, Db.count("SELECT COUNT(*) FROM purchase p WHERE p.id IN (SELECT purchase_id FROM"
                + " purchase_order WHERE sku = ?) AND (SELECT COUNT(*) FROM purchase_order o WHERE"
                + " o.purchase_id = p.id) <> p.line_count", sku), "purchases with only some of their lines");
    }
}
