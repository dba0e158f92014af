package io.flashstock.deduction;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.*;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.InProcess;
import io.flashstock.testsupport.Instances;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.OnePod;
import io.flashstock.testsupport.Pause;
import io.flashstock.testsupport.Tokens;
import io.restassured.http.ContentType;
import io.flashstock.testsupport.Json;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

/**
 * The contract every deduction strategy keeps (docs/design.md): written once, run against each strategy
 * by a subclass that selects it with a test profile, and again against the packaged jar by its {@code *IT}.
 * Concurrency cases assert exact counts, in the answers and in MySQL.
 */
public abstract class StrategyContract extends LedgerContract {

    protected static final int BUYERS = 400;
    protected static final int STOCK = 100;


    // ---- I1 / I5: concurrent sell-out ---------------------------------------------------------------------------

    @Test
    void concurrentBuyersSellOutExactly() {
        String sku = newSku("sellout");
        createItem(sku, STOCK, 0);

        List<Reply> replies = Http.concurrently(BUYERS, 64, i -> Http.post("/items/" + sku + "/purchases",
                "{\"userId\":\"buyer-" + i + "\",\"quantity\":1}").build());

        Map<Integer, Long> statuses = byStatus(replies);
        assertEquals(Map.of(201, (long) STOCK, 409, (long) (BUYERS - STOCK)), statuses, "answers");
        assertTrue(replies.stream().filter(r -> r.status() == 409).allMatch(r -> r.body().contains("sold-out")));
        Set<String> orderIds = replies.stream().filter(r -> r.status() == 201)
                .map(r -> Json.text(r.body(), "orderId")).collect(Collectors.toSet());
        assertEquals(STOCK, orderIds.size(), "distinct order ids");
        assertCounters(sku, STOCK, 0, STOCK, 0);
        assertEquals(STOCK, Db.orderCount(sku), "order rows");
        assertLedgerBalances(sku);
        assertEquals(STOCK, Db.count("SELECT COUNT(*) FROM movement WHERE sku = ? AND kind = 'reserve'"
                + " AND order_id IS NOT NULL", sku), "a reserve movement per order");
    }

    @Test
    void multiUnitPurchasesNeverOversell() {
        String sku = newSku("multi");
        createItem(sku, 50, 0);

        List<Reply> replies = Http.concurrently(120, 40, i -> Http.post("/items/" + sku + "/purchases",
                "{\"userId\":\"m-" + i + "\",\"quantity\":" + (1 + i % 3) + "}").build());

        long unitsSold = 0;
        for (int i = 0; i < replies.size(); i++) {
            if (replies.get(i).status() == 201) {
                unitsSold += 1 + i % 3;
            } else {
                assertEquals(409, replies.get(i).status(), replies.get(i).body());
            }
        }
        assertTrue(unitsSold <= 50 && unitsSold >= 48, "sold out to within one multi-unit purchase: " + unitsSold);
        assertCounters(sku, 50, (int) (50 - unitsSold), (int) unitsSold, 0); // reserved == units in 201 answers
        assertLedgerBalances(sku);
    }

    // ---- hostile callers: made-up skus -----------------------------------------------------------------------------

    /**
     * Purchases (with and without an Idempotency-Key), carts and availability reads of made-up skus are 404 and leave
     * nothing behind: no per-item state in the pod ({@code flashstock.items.tracked} does not grow), no Redis key of
     * theirs, no entry in the active items. Repeats are answered from memory; creating the sku sells it at once.
     */
    @Test
    void madeUpSkusLeaveNothingBehindAndANewItemSellsAtOnce() {
        Map<String, Double> before = InProcess.trackedItems();
        String ghost = newSku("ghost");
        int skus = 60;
        for (int i = 0; i < skus; i++) {
            String sku = ghost + "-" + i;
            purchase(sku, "ghost-buyer", 1, i % 2 == 0 ? null : "ghost-key-" + i).then().statusCode(404)
                    .body("type", endsWith("item-not-found"));
            given().get("/items/" + sku + "/availability").then().statusCode(404);
            given().contentType(ContentType.JSON).body("{\"userId\":\"ghost-buyer\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":1}]}")
                    .post("/purchases").then().statusCode(404).body("sku", equalTo(sku));
        }
        Map<String, Double> after = InProcess.trackedItems();
        for (Map.Entry<String, Double> kind : after.entrySet()) {
            if (!kind.getKey().startsWith("unknown-skus/")) {
                // Real items of earlier cases may come in meanwhile (an expiry, a cancel's units back): a few. Each of
                // the 60 made-up skus kept would be one more.
                assertTrue(kind.getValue() <= before.getOrDefault(kind.getKey(), 0.0) + 10,
                        "per-item state grew with made-up skus: " + before + " -> " + after);
            }
        }
        assertEquals(List.of(), InProcess.redisKeys("fs:{" + ghost + "*"), "Redis keys of made-up skus");
        assertFalse(InProcess.inSortedSet("fs:active", ghost + "-1"), "a made-up sku among the active items");

        String sku = ghost + "-0"; // found missing a moment ago, in every pod that was asked
        createItem(sku, 1, 0);
        if (Instances.several()) {
            // The creating pod forgets at once; the other (the next request may go to either) when the creation's
            // announcement reaches it over Redis (Availability#created): a moment, not the unknown-sku TTL.
            awaitNotRememberedMissing(sku, Duration.ofSeconds(3));
        }
        buy(sku, "ghost-buyer", 1);
    }

    /** Until no pod answers the new item 404 from its memory of made-up skus (availability reads: no side effect). */
    private static void awaitNotRememberedMissing(String sku, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        int found = 0;
        while (found < 2) { // two 200s in a row: both pods, as requests alternate
            int status = given().get("/items/" + sku + "/availability").statusCode();
            found = status == 200 ? found + 1 : 0;
            assertTrue(status == 200 || status == 404, "availability of the new item: " + status);
            assertTrue(System.nanoTime() - deadline < 0, "a pod still answers 404 for the item created " + within
                    + " ago");
        }
    }

    /**
     * A sold-out item refuses keyed purchases from the pod's memory once it has loaded the item's successful keys,
     * never the retry of a key that succeeded: that one is still answered with its order.
     */
    @Test
    void keyedPurchasesOfASoldOutItemAreRefusedFromMemoryButNeverASuccessfulKey() {
        String sku = newSku("keyed-soldout");
        createItem(sku, 2, 0);
        String key = "won-" + UUID.randomUUID();
        String orderId = purchase(sku, "winner", 2, key).then().statusCode(201).extract().path("orderId");
        double before = InProcess.counter("flashstock.purchases.sold-out.from-memory");
        boolean fromMemory = !InProcess.running();
        for (int i = 0; i < 50 && !fromMemory; i++) { // the first refusals teach the pod the level and the keys
            purchase(sku, "late-" + i, 1, "late-key-" + UUID.randomUUID()).then().statusCode(409)
                    .body("type", endsWith("sold-out"));
            fromMemory = InProcess.counter("flashstock.purchases.sold-out.from-memory") > before;
            if (!fromMemory) {
                Pause.sleep(20);
            }
        }
        assertTrue(fromMemory, "keyed sold-out purchases answered from memory");
        for (int i = 0; i < 3; i++) {
            purchase(sku, "winner", 2, key).then().statusCode(201).header("Idempotent-Replayed", "true")
                    .body("orderId", equalTo(orderId));
        }
        assertEquals(1, Db.orderCount(sku));
    }

    // ---- per-user limit -------------------------------------------------------------------------------------------

    @Test
    void perUserLimitHoldsUnderConcurrency() {
        String sku = newSku("limit");
        createItem(sku, STOCK, 2);

        List<Reply> replies = Http.concurrently(20, 20, i -> Http.post("/items/" + sku + "/purchases",
                "{\"userId\":\"greedy\",\"quantity\":1}").build());

        assertEquals(Map.of(201, 2L, 409, 18L), byStatus(replies));
        assertTrue(replies.stream().filter(r -> r.status() == 409).allMatch(r -> r.body().contains("purchase-limit")));
        assertCounters(sku, STOCK, STOCK - 2, 2, 0);
        assertEquals(2, Db.count("SELECT COUNT(*) FROM purchase_order WHERE sku = ? AND user_id = 'greedy'", sku));

        // Another user is not affected; quantity over the limit in one go is refused.
        buy(sku, "modest", 2);
        purchase(sku, "bulk", 3, null).then().statusCode(409).body("type", endsWith("purchase-limit"));
        // Cancelled units no longer count toward the limit; confirmed ones do.
        String first = Db.firstOrderOf(sku, "greedy");
        given().post("/orders/" + first + "/cancel").then().statusCode(200).body("status", equalTo("CANCELLED"));
        buy(sku, "greedy", 1);
        purchase(sku, "greedy", 1, null).then().statusCode(409).body("type", endsWith("purchase-limit"));
    }

    // ---- idempotency ------------------------------------------------------------------------------------------------

    @Test
    void idempotentReplayReturnsTheFirstOrder() {
        String sku = newSku("idem");
        createItem(sku, 10, 0);
        String key = "key-" + UUID.randomUUID();

        String orderId = purchase(sku, "u-1", 2, key).then().statusCode(201).extract().path("orderId");
        purchase(sku, "u-1", 2, key).then().statusCode(201)
                .header("Idempotent-Replayed", "true").body("orderId", equalTo(orderId));
        assertCounters(sku, 10, 8, 2, 0);

        purchase(sku, "u-1", 3, key).then().statusCode(422)
                .contentType("application/problem+json").body("type", endsWith("idempotency-key-reused"));
        assertCounters(sku, 10, 8, 2, 0);
        assertEquals(1, Db.orderCount(sku));

        // The same key on another item is another purchase.
        String other = newSku("idem2");
        createItem(other, 10, 0);
        purchase(other, "u-1", 2, key).then().statusCode(201).body("orderId", org.hamcrest.Matchers.not(orderId));
    }

    /**
     * An Idempotency-Key is its caller's own (design, "Hostile callers"): another buyer sending the same key on the
     * same item makes a purchase of its own, learns nothing of the first, and cannot take the key from its owner,
     * whose retry is still the replay of its first order. Nor can a buyer squat a predictable key before its owner
     * uses it (issue 32: the owner's purchase used to be refused 422 for good): the owner's first use is its own 201.
     */
    @Test
    void anotherUsersKeyIsAnotherRequest() {
        String sku = newSku("idem-users");
        createItem(sku, 10, 0);
        String key = "shared-" + UUID.randomUUID();
        String owner = Tokens.bearer("key-owner", "buyer");
        String other = Tokens.bearer("key-other", "buyer");

        Reply first = keyed(sku, 1, key, owner);
        assertEquals(201, first.status(), first.body());
        String orderId = Json.text(first.body(), "orderId");
        Reply another = keyed(sku, 1, key, other);
        assertEquals(201, another.status(), "another user's key is another request: " + another.body());
        assertEquals(null, another.header("Idempotent-Replayed"), "not a replay");
        assertEquals("key-other", Json.text(another.body(), "userId"));
        String otherId = Json.text(another.body(), "orderId");
        assertFalse(orderId.equals(otherId), "its own order");
        assertCounters(sku, 10, 8, 2, 0);

        Reply retry = keyed(sku, 1, key, owner);
        assertEquals(201, retry.status(), retry.body());
        assertEquals("true", retry.header("Idempotent-Replayed"));
        assertEquals(orderId, Json.text(retry.body(), "orderId"), "the owner's retry replays its order");
        Reply reused = keyed(sku, 2, key, other);
        assertEquals(422, reused.status(), reused.body());
        assertTrue(reused.body().contains("idempotency-key-reused"), reused.body());
        assertCounters(sku, 10, 8, 2, 0);
        assertEquals(2, Db.orderCount(sku));

        String predictable = "order-1-" + UUID.randomUUID(); // the key the owner will send, used by the squatter first
        Reply squat = keyed(sku, 1, predictable, other);
        assertEquals(201, squat.status(), squat.body());
        Reply owners = keyed(sku, 1, predictable, owner);
        assertEquals(201, owners.status(), "a squatted key is still its owner's: " + owners.body());
        assertEquals(null, owners.header("Idempotent-Replayed"), "not the squatter's order replayed");
        assertEquals("key-owner", Json.text(owners.body(), "userId"));
        assertFalse(Json.text(squat.body(), "orderId").equals(
                Json.text(owners.body(), "orderId")), "its own order");
        assertCounters(sku, 10, 6, 4, 0);
        assertEquals(4, Db.orderCount(sku));
    }

    /** A buyer's purchase of {@code quantity} with Idempotency-Key {@code key}. */
    private static Reply keyed(String sku, int quantity, String key, String token) {
        return Http.send(Http.post("/items/" + sku + "/purchases", "{\"quantity\":" + quantity + "}", token)
                .header("Idempotency-Key", key).build());
    }

    @Test
    void parallelIdenticalRequestsMakeOneOrder() {
        String sku = newSku("idem-par");
        createItem(sku, 100, 0);
        String key = "par-" + UUID.randomUUID();

        List<Reply> replies = Http.concurrently(30, 30, i -> Http.post("/items/" + sku + "/purchases",
                "{\"userId\":\"same\",\"quantity\":1}").header("Idempotency-Key", key).build());

        Set<String> orderIds = replies.stream().filter(r -> r.status() == 201)
                .map(r -> Json.text(r.body(), "orderId")).collect(Collectors.toSet());
        assertEquals(1, orderIds.size(), "one order id across all 2xx answers");
        assertTrue(replies.stream().allMatch(r -> r.status() == 201
                || (r.status() == 409 && r.body().contains("request-in-progress"))), "only 201 or in-progress");
        assertCounters(sku, 100, 99, 1, 0);
        assertEquals(1, Db.orderCount(sku));
    }

    // ---- order lifecycle --------------------------------------------------------------------------------------------

    @Test
    void confirmMovesUnitsToSold() {
        String sku = newSku("confirm");
        createItem(sku, 5, 0);
        String orderId = buy(sku, "payer", 2);

        given().get("/orders/" + orderId).then().statusCode(200).body("status", equalTo("RESERVED"))
                .body("sku", equalTo(sku)).body("userId", equalTo("payer")).body("quantity", equalTo(2));
        given().post("/orders/" + orderId + "/confirm").then().statusCode(200).body("status", equalTo("CONFIRMED"));
        given().post("/orders/" + orderId + "/confirm").then().statusCode(200).body("status", equalTo("CONFIRMED"));
        assertCounters(sku, 5, 3, 0, 2);
        // every counter change stamps the item with the time in UTC, as every other row's times are
        long behind = Db.count("SELECT TIMESTAMPDIFF(SECOND, updated_at, UTC_TIMESTAMP(6)) FROM item WHERE sku = ?",
                sku);
        assertTrue(behind >= -2 && behind <= 60, "the item's updated_at is " + behind + " s behind UTC");

        given().post("/orders/" + orderId + "/cancel").then().statusCode(409)
                .contentType("application/problem+json").body("type", endsWith("order-not-reserved"));
        assertCounters(sku, 5, 3, 0, 2);
    }

    @Test
    void cancelReturnsUnitsExactlyOnce() {
        String sku = newSku("cancel");
        createItem(sku, 5, 0);
        String orderId = buy(sku, "canceller", 3);
        assertCounters(sku, 5, 2, 3, 0);

        List<Reply> replies = Http.concurrently(10, 10,
                i -> Http.post("/orders/" + orderId + "/cancel", "").build());
        assertTrue(replies.stream().allMatch(r -> r.status() == 200 && r.body().contains("CANCELLED")),
                "every cancel answers 200 CANCELLED");
        given().post("/orders/" + orderId + "/cancel").then().statusCode(200).body("status", equalTo("CANCELLED"));
        assertCounters(sku, 5, 5, 0, 0);

        given().post("/orders/" + orderId + "/confirm").then().statusCode(409).body("type", endsWith("order-not-reserved"));
        assertCounters(sku, 5, 5, 0, 0);
        assertEquals(1, Db.count("SELECT COUNT(*) FROM movement WHERE order_id = ? AND kind = 'cancel'", orderId),
                "one cancel movement of eleven cancels");
        assertLedgerBalances(sku);
    }

    // ---- Reads: availability from memory or the hot stock, counters that count every acknowledged purchase ------

    @Test
    void availabilityFollowsEverySaleAndReturn() {
        String sku = newSku("avail");
        createItem(sku, 2, 0);
        Response first = given().get("/items/" + sku + "/availability");
        first.then().statusCode(200).contentType(ContentType.JSON).header("Cache-Control", "max-age=1")
                .body("sku", equalTo(sku)).body("available", equalTo(2)).body("state", equalTo("on-sale"));
        String etag = first.header("ETag");
        assertTrue(etag != null && !etag.isBlank(), "an ETag");
        given().header("If-None-Match", etag).get("/items/" + sku + "/availability").then().statusCode(304);
        given().header("If-Match", etag).get("/items/" + sku + "/availability").then().statusCode(200);
        given().header("If-Match", "\"1-ended\"").get("/items/" + sku + "/availability").then().statusCode(412)
                .contentType("application/problem+json").body("type", endsWith("version-mismatch"));

        String kept = buy(sku, "avail-1", 1);
        // Every acknowledged purchase counts at once, in every strategy and mode (write-behind included).
        assertEquals(1, item(sku).getInt("available"), "GET /items right after the 201");
        String returned = buy(sku, "avail-2", 1);
        assertEquals(List.of(0, 2), List.of(item(sku).getInt("available"), item(sku).getInt("reserved")));
        awaitAvailability(sku, 0, "sold-out");
        // Each pod may answer from what it read up to max-age ago: every pod shows the change within that.
        long until = System.nanoTime() + 3_000_000_000L;
        boolean changed = false;
        while (!changed && System.nanoTime() < until) {
            changed = !etag.equals(given().get("/items/" + sku + "/availability").header("ETag"))
                    && !etag.equals(given().get("/items/" + sku + "/availability").header("ETag"));
        }
        assertTrue(changed, "a new ETag");

        // Sold out: refused again and again (from memory once known), and nothing changes.
        for (int i = 0; i < 10; i++) {
            assertProblem(purchase(sku, "late-" + i, 1, null), 409, "sold-out", "sold-out storm");
        }
        // A retry of a 201 with its Idempotency-Key is never answered sold-out from memory.
        String key = UUID.randomUUID().toString();
        given().post("/orders/" + kept + "/cancel").then().statusCode(200);
        awaitEveryPodSees(sku, 1); // another pod hears of the unit back within the message's delivery, not at once
        String keyed = purchase(sku, "keyed", 1, key).then().statusCode(201).extract().path("orderId");
        assertProblem(purchase(sku, "late-x", 1, null), 409, "sold-out", "sold out again");
        purchase(sku, "keyed", 1, key).then().statusCode(201).header("Idempotent-Replayed", "true")
                .body("orderId", equalTo(keyed));

        // Units come back: the next purchase gets them (no pod keeps answering sold-out from memory).
        given().post("/orders/" + returned + "/cancel").then().statusCode(200);
        purchaseOnceUnitsAreBack(sku, "after-cancel");
        given().contentType(ContentType.JSON).body("{\"quantity\":1}").post("/items/" + sku + "/restock")
                .then().statusCode(200);
        purchaseOnceUnitsAreBack(sku, "after-restock");
        assertProblem(purchase(sku, "late-y", 1, null), 409, "sold-out", "sold out after the restock");
        assertCounters(sku, 3, 0, 3, 0);
        assertEquals(5, Db.orderCount(sku), "two cancelled orders and three reserved ones");

        assertProblem(given().get("/items/no-such-" + sku + "/availability"), 404, "item-not-found", "unknown sku");
        Response badSku = given().urlEncodingEnabled(false).get("/items/bad%7Bsku%7D/availability");
        assertProblem(badSku, 400, "invalid-request", "bad sku");
        assertEquals("sku: " + io.flashstock.web.InputRules.SKU_MESSAGE, badSku.jsonPath().getString("detail"));
    }

    // ---- Sale window: judged at purchase by one clock for all pods ---------------------------------------------

    @Test
    void saleWindowIsJudgedAtPurchase() throws InterruptedException {
        String sku = newSku("window");
        java.time.Instant start = java.time.Instant.now().plusSeconds(2);
        given().contentType(ContentType.JSON).body("{\"sku\":\"" + sku + "\",\"name\":\"W\",\"stock\":5,"
                + "\"startsAt\":\"" + start + "\"}").post("/items").then().statusCode(201)
                .body("saleStartsAt", org.hamcrest.Matchers.notNullValue()).body("paused", equalTo(false));

        Response early = purchase(sku, "early", 1, null);
        assertProblem(early, 409, "sale-not-started", "before the start");
        int retryAfter = Integer.parseInt(early.header("Retry-After"));
        assertTrue(retryAfter >= 1 && retryAfter <= 3, "Retry-After " + retryAfter);
        awaitAvailability(sku, 5, "not-started");
        assertCounters(sku, 5, 5, 0, 0);

        Thread.sleep(Math.max(0, java.time.Duration.between(java.time.Instant.now(), start).toMillis()) + 300);
        String onTime = buy(sku, "on-time", 1);

        // Paused: refused, and shown; resumed with an end two seconds away.
        given().contentType(ContentType.JSON).body("{\"startsAt\":\"" + start + "\",\"paused\":true}")
                .put("/items/" + sku + "/sale").then().statusCode(200).body("paused", equalTo(true));
        assertProblem(purchase(sku, "paused", 1, null), 409, "sale-paused", "paused");
        awaitAvailability(sku, 4, "paused");
        java.time.Instant end = java.time.Instant.now().plusSeconds(2);
        given().contentType(ContentType.JSON).body("{\"endsAt\":\"" + end + "\"}").put("/items/" + sku + "/sale")
                .then().statusCode(200).body("paused", equalTo(false)).body("saleStartsAt", equalTo(null));
        buy(sku, "resumed", 1);

        // Ended: refused; confirm (and cancel) keep working.
        Thread.sleep(Math.max(0, java.time.Duration.between(java.time.Instant.now(), end).toMillis()) + 300);
        assertProblem(purchase(sku, "late", 1, null), 409, "sale-ended", "after the end");
        awaitAvailability(sku, 3, "ended");
        given().post("/orders/" + onTime + "/confirm").then().statusCode(200).body("status", equalTo("CONFIRMED"));
        assertCounters(sku, 5, 3, 1, 1);

        assertProblem(given().contentType(ContentType.JSON).body("{\"startsAt\":\"" + end + "\",\"endsAt\":\""
                + start + "\"}").put("/items/" + sku + "/sale"), 400, "invalid-request", "ends before it starts");
        assertProblem(given().contentType(ContentType.JSON).body("{\"paused\":true}")
                .put("/items/no-such-" + sku + "/sale"), 404, "item-not-found", "unknown sku");
    }

    /**
     * Sale-window instants outside 1970-01-01T00:00:01Z..9999-12-31 are 400 and change nothing, in both bodies that
     * carry them. A window stored before that rule (an end at or before the epoch, written straight into MySQL) has
     * ended for every strategy: redis-lua warms the item from MySQL at its first purchase (creating it puts nothing
     * in Redis) and must not read such an end as "no end".
     */
    @Test
    void outOfRangeSaleInstantsAreRefusedAndStoredOnesHaveEnded() {
        String sku = newSku("window-range");
        given().contentType(ContentType.JSON).body("{\"sku\":\"" + sku + "\",\"name\":\"R\",\"stock\":5,"
                + "\"endsAt\":\"2999-01-01T00:00:00Z\"}").post("/items").then().statusCode(201)
                .body("saleEndsAt", org.hamcrest.Matchers.notNullValue());
        JsonPath before = item(sku);

        for (String body : List.of("{\"endsAt\":\"1969-12-31T23:59:59Z\"}", "{\"endsAt\":\"1970-01-01T00:00:00Z\"}",
                "{\"startsAt\":\"1970-01-01T00:00:00.999Z\"}", "{\"endsAt\":\"+10000-01-01T00:00:00Z\"}",
                "{\"endsAt\":\"10000-01-01T00:00:00Z\"}", "{\"endsAt\":-1}",
                "{\"startsAt\":\"2026-12-01T12:00:00Z\",\"endsAt\":\"1969-12-31T23:59:59Z\"}")) {
            Response refused = given().contentType(ContentType.JSON).body(body).put("/items/" + sku + "/sale");
            assertProblem(refused, 400, "invalid-request", body);
            String field = body.contains("endsAt") ? "endsAt" : "startsAt";
            assertTrue(refused.jsonPath().getString("detail").contains(field), body + ": "
                    + refused.jsonPath().getString("detail"));
        }
        String unborn = "no-" + sku;
        for (String window : List.of("\"endsAt\":\"1969-12-31T23:59:59Z\"", "\"startsAt\":\"1970-01-01T00:00:00Z\"",
                "\"endsAt\":\"+10000-01-01T00:00:00Z\"")) {
            String body = "{\"sku\":\"" + unborn + "\",\"name\":\"n\",\"stock\":5," + window + "}";
            assertProblem(given().contentType(ContentType.JSON).body(body).post("/items"), 400, "invalid-request", body);
        }
        given().get("/items/" + unborn).then().statusCode(404).body("type", endsWith("item-not-found"));
        assertEquals(before.getMap(""), item(sku).getMap(""), "item and window unchanged");
        buy(sku, "in-window", 1); // the window still in force: on sale until 2999
        assertCounters(sku, 5, 4, 1, 0);

        // The last instants accepted, at both ends of the range.
        given().contentType(ContentType.JSON).body("{\"startsAt\":\"1970-01-01T00:00:01Z\","
                + "\"endsAt\":\"9999-12-31T23:59:59Z\"}").put("/items/" + sku + "/sale").then().statusCode(200)
                .body("saleStartsAt", org.hamcrest.Matchers.notNullValue())
                .body("saleEndsAt", org.hamcrest.Matchers.notNullValue());
        buy(sku, "in-wide-window", 1);

        // Stored before the rule: an end in 1969, and one at the epoch itself (the hot stock's old "no end").
        for (String storedEnd : List.of("1969-12-31 23:59:59", "1970-01-01 00:00:00")) {
            String old = newSku("window-stored");
            createItem(old, 5, 0);
            assertEquals(1, Db.update("UPDATE item SET sale_ends_at = ?, version = version + 1 WHERE sku = ?",
                    storedEnd, old));
            assertProblem(purchase(old, "after-the-end", 1, null), 409, "sale-ended", "stored end " + storedEnd);
            assertProblem(purchase(old, "keyed-after-the-end", 1, "stored-" + old), 409, "sale-ended",
                    "stored end " + storedEnd + ", keyed");
            awaitAvailability(old, 5, "ended");
            assertCounters(old, 5, 5, 0, 0);
            assertEquals(0, Db.orderCount(old));
        }
    }

    /**
     * A key-less purchase of one unit right after units came back: 201 at once from the pod that gave them back. With
     * two pods the request may go to the other one, which learns it from the units-back message (within ~100 ms,
     * "Reads" in the design), and may refuse until then; a refusal changes nothing, so it is asked again, for 1 s
     * at most.
     */
    private static void purchaseOnceUnitsAreBack(String sku, String userId) {
        long deadline = System.nanoTime() + (Instances.several() ? 1_000_000_000L : 0);
        Response answer = purchase(sku, userId, 1, null);
        while (answer.statusCode() == 409 && System.nanoTime() < deadline) {
            Pause.sleep(10);
            answer = purchase(sku, userId, 1, null);
        }
        answer.then().statusCode(201);
    }

    /**
     * Every pod answers {@code available} for the item: with two instances, two reads in a row (one per pod) agree.
     * A pod that has not yet heard the units-back message may still answer from what it knew until then.
     */
    private static void awaitEveryPodSees(String sku, int available) {
        int pods = Instances.several() ? 2 : 1;
        long deadline = System.currentTimeMillis() + 3_000;
        int agreeing = 0;
        while (agreeing < pods) {
            int seen = given().get("/items/" + sku + "/availability").then().statusCode(200).extract().path("available");
            agreeing = seen == available ? agreeing + 1 : 0;
            assertTrue(agreeing > 0 || System.currentTimeMillis() < deadline, "every pod sees " + available + " units");
        }
    }

    /** The availability read reaches {@code available} within the cache's TTL (1 s) plus slack. */
    protected static void awaitAvailability(String sku, int available, String state) {
        long deadline = System.currentTimeMillis() + 3_000;
        while (true) {
            JsonPath view = given().get("/items/" + sku + "/availability").then().statusCode(200).extract().jsonPath();
            if (view.getInt("available") == available && state.equals(view.getString("state"))) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                assertEquals(List.of(available, state), List.of(view.getInt("available"), view.getString("state")),
                        "availability of " + sku);
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void expiredReservationsReturnUnitsExactlyOnce() throws InterruptedException {
        String sku = newSku("expiry");
        createItem(sku, 4, 0);
        String due = buy(sku, "slow-payer", 3);
        String kept = buy(sku, "fast-payer", 1);
        assertCounters(sku, 4, 0, 4, 0); // both orders in MySQL (write-behind stores them a moment after the 201)
        Db.makeDue(due);

        awaitStatus(due, "EXPIRED");
        assertCounters(sku, 4, 3, 1, 0);
        assertEquals("RESERVED", given().get("/orders/" + kept).then().extract().path("status"));

        given().post("/orders/" + due + "/cancel").then().statusCode(200).body("status", equalTo("EXPIRED"));
        given().post("/orders/" + due + "/confirm").then().statusCode(409).body("type", endsWith("order-not-reserved"));
        Thread.sleep(1500); // further expiry runs must not return the units again
        assertCounters(sku, 4, 3, 1, 0);
        assertEquals(1, Db.count("SELECT COUNT(*) FROM movement WHERE order_id = ? AND kind = 'expire'", due),
                "one expire movement");
        assertLedgerBalances(sku);
    }

    // ---- Stock control: set stock and retire, guarded by the item's version (If-Match) ------------------------------

    @Test
    void itemAnswersItsVersionAsETag() {
        String sku = newSku("etag");
        createItem(sku, 5, 0);
        Response read = given().get("/items/" + sku);
        read.then().statusCode(200);
        assertEquals("\"" + read.jsonPath().getLong("version") + "\"", read.header("ETag"), "ETag");
        buy(sku, "etag-buyer", 1);
        assertCounters(sku, 5, 4, 1, 0); // in MySQL (write-behind stores the order a moment after the 201)
        assertEquals(etag(sku), "\"" + item(sku).getLong("version") + "\"", "ETag follows the version");
    }

    @Test
    void stockSetNeedsTheCurrentVersionAndKeepsCommittedUnits() {
        String sku = newSku("setstock");
        createItem(sku, 10, 0);
        String paid = buy(sku, "set-1", 1);
        buy(sku, "set-2", 2);
        given().post("/orders/" + paid + "/confirm").then().statusCode(200);
        assertCounters(sku, 10, 7, 2, 1); // every order in MySQL (write-behind): no relay moves the version after the ETag
        String tag = etag(sku);

        assertProblem(setStock(sku, 5, null), 428, "precondition-required", "no If-Match");
        assertProblem(setStock(sku, 5, "\"999999\""), 412, "version-mismatch", "stale If-Match");
        assertProblem(setStock(sku, 2, tag), 409, "stock-below-committed", "below reserved + sold");
        given().contentType(ContentType.JSON).header("If-Match", tag).body("{\"stock\":-1}")
                .put("/items/" + sku + "/stock").then().statusCode(400);
        assertCounters(sku, 10, 7, 2, 1); // nothing changed

        Response set = setStock(sku, 5, tag);
        set.then().statusCode(200).body("stock", equalTo(5)).body("available", equalTo(2));
        assertEquals("\"" + set.jsonPath().getLong("version") + "\"", set.header("ETag"), "the new ETag");
        assertCounters(sku, 5, 2, 2, 1);
        assertProblem(setStock(sku, 6, tag), 412, "version-mismatch", "the ETag before the change");

        setStock(sku, 3, set.header("ETag")).then().statusCode(200).body("available", equalTo(0));
        assertProblem(purchase(sku, "set-3", 1, null), 409, "sold-out", "after lowering to reserved + sold");
        setStock(sku, 4, etag(sku)).then().statusCode(200).body("available", equalTo(1));
        buy(sku, "set-3", 1);
        assertCounters(sku, 4, 0, 3, 1);
    }

    @Test
    void saleWindowWithAStaleIfMatchIs412() {
        String sku = newSku("sale-match");
        createItem(sku, 3, 0);
        assertProblem(given().contentType(ContentType.JSON).header("If-Match", "\"999999\"")
                .body("{\"paused\":true}").put("/items/" + sku + "/sale"), 412, "version-mismatch", "stale");
        buy(sku, "sale-match-1", 1); // still on sale
        assertCounters(sku, 3, 2, 1, 0); // in MySQL, so that the ETag read next is the version the PUT meets
        given().contentType(ContentType.JSON).header("If-Match", etag(sku)).body("{\"paused\":true}")
                .put("/items/" + sku + "/sale").then().statusCode(200).body("paused", equalTo(true));
    }

    @Test
    void retiredItemSellsNoMoreWhileItsReservationsStillConfirmAndCancel() {
        String sku = newSku("retire");
        createItem(sku, 10, 0);
        String toPay = buy(sku, "ret-1", 1);
        String toCancel = buy(sku, "ret-2", 2);
        assertCounters(sku, 10, 7, 3, 0); // every order in MySQL (write-behind): no relay moves the version after the ETag
        assertProblem(given().post("/items/" + sku + "/retire"), 428, "precondition-required", "no If-Match");
        assertProblem(given().header("If-Match", "\"999999\"").post("/items/" + sku + "/retire"), 412,
                "version-mismatch", "stale If-Match");

        Response retired = given().header("If-Match", etag(sku)).post("/items/" + sku + "/retire");
        retired.then().statusCode(200).body("retired", equalTo(true));
        assertEquals("\"" + retired.jsonPath().getLong("version") + "\"", retired.header("ETag"), "the new ETag");

        assertProblem(purchase(sku, "ret-3", 1, null), 409, "item-retired", "purchase");
        assertProblem(purchase(sku, "ret-3", 1, "ret-key-" + UUID.randomUUID()), 409, "item-retired", "keyed");
        Response cart = given().contentType(ContentType.JSON)
                .body("{\"userId\":\"ret-3\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":1}]}").post("/purchases");
        assertProblem(cart, 409, "item-retired", "cart line");
        cart.then().body("sku", equalTo(sku));

        given().post("/orders/" + toPay + "/confirm").then().statusCode(200).body("status", equalTo("CONFIRMED"));
        given().post("/orders/" + toCancel + "/cancel").then().statusCode(200).body("status", equalTo("CANCELLED"));
        assertTrue(item(sku).getBoolean("retired"), "still readable, retired");
        assertCounters(sku, 10, 9, 0, 1);
        assertProblem(purchase(sku, "ret-4", 1, null), 409, "item-retired", "after units came back");
    }

    /**
     * Stock sets racing purchases: each set names the version read just before it (412 when a purchase or another
     * set came in between, as expected); none makes available negative, none loses a purchase.
     */
    @Test
    void stockSetsRacingPurchasesLoseNoPurchaseAndNeverOversell() {
        String sku = newSku("setrace");
        int purchases = Lane.size(200, 1000); // the 50 stock changes racing 1,000 purchases in the full lane
        int sets = Lane.size(10, 50);
        createItem(sku, purchases / 2, 0);
        List<Reply> replies = Http.concurrently(purchases + sets, 32, i -> {
            if (i % ((purchases + sets) / sets) != 7) {
                return Http.post("/items/" + sku + "/purchases", "{\"userId\":\"race-" + i + "\",\"quantity\":1}")
                        .build();
            }
            Reply read = Http.send(Http.get("/items/" + sku, Tokens.staff()));
            return HttpRequest.newBuilder(Http.uri("/items/" + sku + "/stock")).timeout(Duration.ofSeconds(30))
                    .header("Authorization", Tokens.staff()).header("Content-Type", "application/json")
                    .header("If-Match", read.headers().firstValue("ETag").orElse("\"-1\""))
                    .PUT(HttpRequest.BodyPublishers.ofString("{\"stock\":"
                            + (purchases * 3 / 10 + purchases / 20 * (i % 11)) + "}")).build();
        });
        long bought = 0;
        for (Reply reply : replies) {
            if (reply.body().contains("\"orderId\"")) {
                assertEquals(201, reply.status(), reply.body());
                bought++;
            } else if (reply.body().contains("\"sku\"") && reply.status() == 200) {
                assertTrue(Json.read(reply.body()).get("available").asInt() >= 0, reply.body());
            } else {
                assertTrue(Set.of(409, 412).contains(reply.status()), reply.status() + " " + reply.body());
                assertTrue(reply.body().contains("sold-out") || reply.body().contains("version-mismatch")
                        || reply.body().contains("stock-below-committed"), reply.body());
            }
        }
        assertTrue(bought >= purchases * 3 / 10, "purchases went through: " + bought);
        JsonPath after = item(sku);
        int stock = after.getInt("stock");
        assertTrue(stock >= bought, "stock " + stock + " below the " + bought + " units bought");
        assertCounters(sku, stock, stock - (int) bought, (int) bought, 0);
        assertEquals(bought, Db.orderCount(sku), "an order per 201");
        assertLedgerBalances(sku);
    }

    // ---- bad input: 4xx problem+json, nothing changed ---------------------------------------------------------------

    @Test
    @OnePod
    void badPurchaseInputIsRefusedAndChangesNothing() {
        String sku = newSku("bad");
        createItem(sku, 10, 0);
        String orderId = buy(sku, "ok-user", 1);
        assertCounters(sku, 10, 9, 1, 0);
        JsonPath before = item(sku);

        String path = "/items/" + sku + "/purchases";
        Map<String, Integer> bodies = new java.util.LinkedHashMap<>();
        bodies.put("{\"userId\":\"u\",\"quantity\":\"1\"}", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":1.9}", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":1.0}", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":true}", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":null}", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":0}", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":-1}", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":11}", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":2147483648}", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":99999999999999999999}", 400);
        bodies.put("{\"userId\":\"u\"}", 400);
        bodies.put("{\"quantity\":1}", 400);
        bodies.put("{\"userId\":7,\"quantity\":1}", 400);
        bodies.put("{\"userId\":\"\",\"quantity\":1}", 400);
        bodies.put("{\"userId\":\"has space\",\"quantity\":1}", 400);
        bodies.put("{\"userId\":\"" + "x".repeat(65) + "\",\"quantity\":1}", 400);
        bodies.put("{\"userId\":\"u{1}\",\"quantity\":1}", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":1,\"price\":0}", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":1,\"quantity\":2}", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":1", 400);
        bodies.put("{\"userId\":\"u\",\"quantity\":1} trailing", 400);
        bodies.put("[1]", 400);
        bodies.put("\"text\"", 400);
        bodies.put("null", 400);
        bodies.put("", 400);
        bodies.forEach((body, status) -> assertProblem(given().contentType(ContentType.JSON).body(body).post(path),
                status, "invalid-request", body));

        assertProblem(given().contentType(ContentType.TEXT).body("{\"userId\":\"u\",\"quantity\":1}").post(path),
                415, "unsupported-media-type", "text/plain");
        assertProblem(given().contentType(ContentType.JSON)
                .body("{\"userId\":\"u\",\"quantity\":1,\"pad\":\"" + "x".repeat(17 * 1024) + "\"}").post(path),
                413, "payload-too-large", "17 KiB body");
        assertProblem(given().contentType(ContentType.JSON).header("Idempotency-Key", "k".repeat(65))
                .body("{\"userId\":\"u\",\"quantity\":1}").post(path), 400, "invalid-request", "long key");
        assertProblem(given().contentType(ContentType.JSON).header("Idempotency-Key", "has space")
                .body("{\"userId\":\"u\",\"quantity\":1}").post(path), 400, "invalid-request", "key with space");
        assertProblem(given().urlEncodingEnabled(false).contentType(ContentType.JSON)
                .body("{\"userId\":\"u\",\"quantity\":1}").post("/items/bad%7Bsku%7D/purchases"), 400, "invalid-request", "bad sku");
        assertProblem(given().contentType(ContentType.JSON).body("{\"userId\":\"u\",\"quantity\":1}")
                .post("/items/" + sku + "-missing/purchases"), 404, "item-not-found", "unknown sku");
        assertProblem(purchase(sku, "u", 10, null), 409, "sold-out", "more than available");

        assertEquals(before.getMap(""), item(sku).getMap(""), "item unchanged by refused requests");
        assertEquals(1, Db.orderCount(sku), "no order from refused requests");
        given().get("/orders/" + orderId).then().statusCode(200).body("status", equalTo("RESERVED"));
    }

    @Test
    @OnePod
    void aBodyWithoutContentLengthIsCountedAsItArrives() {
        String sku = newSku("chunked");
        createItem(sku, 10, 0);
        JsonPath before = item(sku);
        String path = "/items/" + sku + "/purchases";

        Reply tooLarge = Http.send(chunked(path, "{\"userId\":\"u\",\"quantity\":1,\"pad\":\""
                + "x".repeat(17 * 1024) + "\"}"));
        assertEquals(413, tooLarge.status(), tooLarge.body());
        assertTrue(tooLarge.contentType().startsWith("application/problem+json"), tooLarge.contentType());
        assertEquals("urn:flashstock:problem:payload-too-large", Json.text(tooLarge.body(), "type"));
        assertEquals(before.getMap(""), item(sku).getMap(""), "item unchanged by the 17 KiB chunked body");
        assertEquals(0, Db.orderCount(sku), "no order from the 17 KiB chunked body");

        Reply small = Http.send(chunked(path, "{\"userId\":\"u\",\"quantity\":1}"));
        assertEquals(201, small.status(), "a chunked body within the limit is a purchase like any other: "
                + small.body());
        assertCounters(sku, 10, 9, 1, 0); // waits for write-behind to persist the order
        assertEquals(1, Db.orderCount(sku), "one order from the chunked purchase");
    }

    /** A JSON POST whose body is sent chunked, without Content-Length (the JDK client does so for a stream). */
    private static HttpRequest chunked(String path, String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return HttpRequest.newBuilder(Http.uri(path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Authorization", Tokens.staff())
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))).build();
    }

    @Test
    @OnePod
    void badItemAndOrderInputIsRefusedAndChangesNothing() {
        String sku = newSku("bad-item");
        createItem(sku, 10, 1);
        JsonPath before = item(sku);

        for (String body : List.of(
                "{\"sku\":\"" + sku + "\",\"name\":\"again\",\"stock\":1}",
                "{\"sku\":\"new-1\",\"name\":\"n\",\"stock\":-1}",
                "{\"sku\":\"new-1\",\"name\":\"n\",\"stock\":\"5\"}",
                "{\"sku\":\"new-1\",\"name\":\"n\",\"stock\":5.5}",
                "{\"sku\":\"new-1\",\"name\":\"n\",\"stock\":2147483648}",
                "{\"sku\":\"new-1\",\"name\":\"n\",\"stock\":5,\"perUserLimit\":-1}",
                "{\"sku\":\"new 1\",\"name\":\"n\",\"stock\":5}",
                "{\"sku\":\"-new\",\"name\":\"n\",\"stock\":5}",
                "{\"sku\":\"new-1\",\"name\":\"\",\"stock\":5}",
                "{\"sku\":\"new-1\",\"stock\":5}",
                "{\"sku\":\"new-1\",\"name\":\"n\",\"stock\":5,\"color\":\"red\"}")) {
            int expected = body.contains("again") ? 409 : 400;
            assertProblem(given().contentType(ContentType.JSON).body(body).post("/items"), expected,
                    expected == 409 ? "item-exists" : "invalid-request", body);
        }
        given().get("/items/new-1").then().statusCode(404).body("type", endsWith("item-not-found"));

        for (String body : List.of("{\"quantity\":0}", "{\"quantity\":-5}", "{\"quantity\":\"5\"}",
                "{\"quantity\":2147483647}", "{}", "{\"quantity\":1,\"x\":1}")) {
            assertProblem(given().contentType(ContentType.JSON).body(body).post("/items/" + sku + "/restock"), 400,
                    "invalid-request", body);
        }
        assertProblem(given().contentType(ContentType.JSON).body("{\"quantity\":1}").post("/items/nope-" + sku
                + "/restock"), 404, "item-not-found", "restock unknown");
        assertEquals(before.getMap(""), item(sku).getMap(""), "item unchanged");

        assertProblem(given().get("/orders/0190a1b2-0000-7000-8000-000000000000"), 404, "order-not-found", "order");
        assertProblem(given().get("/orders/not-an-id"), 404, "order-not-found", "bad order id");
        assertProblem(given().post("/orders/0190a1b2-0000-7000-8000-000000000000/cancel"), 404, "order-not-found",
                "cancel unknown");
        assertProblem(given().get("/no-such-path"), 404, "not-found", "unknown path");
        assertProblem(given().delete("/items/" + sku), 405, "method-not-allowed", "DELETE item");
        assertEquals(0, Db.orderCount(sku));

        given().contentType(ContentType.JSON).body("{\"quantity\":5}").post("/items/" + sku + "/restock")
                .then().statusCode(200).body("stock", equalTo(15)).body("available", equalTo(15));
        assertCounters(sku, 15, 15, 0, 0);
    }

    // ---- Access: roles from the token, buyers limited to themselves, bad tokens refused -----------------------------

    private static final String ADMIN = Tokens.bearer("admin-1", "admin");
    private static final String SHOP = Tokens.bearer("shop-1", "shop");
    private static final String PAYMENT = Tokens.bearer("psp-1", "payment");

    /** One request with this token (null: none). */
    private static Reply call(String method, String path, String json, String token) {
        return Http.send(Http.request(method, path, json, token));
    }

    private static void assertRefused(Reply reply, int status, String code, String what) {
        assertEquals(status, reply.status(), what + ": " + reply.body());
        assertTrue(reply.contentType().startsWith("application/problem+json"), what + ": " + reply.contentType());
        assertTrue(reply.body().contains("\"type\":\"urn:flashstock:problem:" + code + "\""), what + ": "
                + reply.body());
        if (status == 401) {
            assertTrue(String.valueOf(reply.header("WWW-Authenticate")).startsWith("Bearer"),
                    what + ": WWW-Authenticate " + reply.header("WWW-Authenticate"));
        }
    }

    @Test
    @OnePod
    void eachRoleCallsOnlyWhatItMay() {
        String sku = newSku("roles");
        String buyer = "u-" + UUID.randomUUID().toString().substring(0, 8);
        String other = "u-" + UUID.randomUUID().toString().substring(0, 8);
        String asBuyer = Tokens.bearer(buyer, "buyer");
        String asOther = Tokens.bearer(other, "buyer");
        String item = "{\"sku\":\"" + sku + "\",\"name\":\"Roles\",\"stock\":10,\"perUserLimit\":0}";

        // the catalog: admin only
        for (String token : List.of(SHOP, PAYMENT, asBuyer)) {
            assertRefused(call("POST", "/items", item, token), 403, "forbidden", "create by a non-admin");
        }
        assertEquals(404, call("GET", "/items/" + sku, null, ADMIN).status(), "nothing was created");
        assertEquals(201, call("POST", "/items", item, ADMIN).status(), "admin creates");
        for (String token : List.of(SHOP, PAYMENT, asBuyer)) {
            assertRefused(call("POST", "/items/" + sku + "/restock", "{\"quantity\":5}", token), 403, "forbidden",
                    "restock by a non-admin");
            assertRefused(call("PUT", "/items/" + sku + "/sale", "{\"paused\":true}", token), 403, "forbidden",
                    "sale window by a non-admin");
        }
        assertEquals(200, call("POST", "/items/" + sku + "/restock", "{\"quantity\":2}", ADMIN).status());
        for (String token : List.of(ADMIN, SHOP, PAYMENT, asBuyer)) {
            assertEquals(200, call("GET", "/items/" + sku, null, token).status(), "every role reads the item");
            assertEquals(200, call("GET", "/items/" + sku + "/availability", null, token).status(),
                    "every role reads availability");
        }

        // purchases: a shop names the user, a buyer is its token's user
        String purchases = "/items/" + sku + "/purchases";
        for (String token : List.of(ADMIN, PAYMENT)) {
            assertRefused(call("POST", purchases, "{\"userId\":\"x\",\"quantity\":1}", token), 403, "forbidden",
                    "purchase by admin or payment");
        }
        assertRefused(call("POST", purchases, "{\"quantity\":1}", SHOP), 400, "invalid-request",
                "a shop must name the user");
        assertRefused(call("POST", purchases, "{\"userId\":\"" + other + "\",\"quantity\":1}", asBuyer), 403,
                "forbidden", "a buyer buying as another user");
        Reply own = call("POST", purchases, "{\"quantity\":1}", asBuyer);
        assertEquals(201, own.status(), own.body());
        assertTrue(own.body().contains("\"userId\":\"" + buyer + "\""), "bought as the token's user: " + own.body());
        Reply named = call("POST", purchases, "{\"userId\":\"" + buyer + "\",\"quantity\":1}", asBuyer);
        assertEquals(201, named.status(), "a buyer may name itself: " + named.body());
        Reply forOther = call("POST", purchases, "{\"userId\":\"" + other + "\",\"quantity\":2}", SHOP);
        assertEquals(201, forOther.status(), "a shop buys for any user: " + forOther.body());
        String ownOrder = Json.text(own.body(), "orderId");
        String namedOrder = Json.text(named.body(), "orderId");
        String otherOrder = Json.text(forOther.body(), "orderId");

        // orders: a buyer sees and cancels only its own; payment confirms; admin reads
        for (String token : List.of(ADMIN, SHOP, PAYMENT, asBuyer)) {
            assertEquals(200, call("GET", "/orders/" + ownOrder, null, token).status(), "reads the buyer's order");
        }
        assertRefused(call("GET", "/orders/" + ownOrder, null, asOther), 404, "order-not-found",
                "another buyer's order");
        assertRefused(call("POST", "/orders/" + ownOrder + "/cancel", null, asOther), 404, "order-not-found",
                "cancelling another buyer's order");
        for (String token : List.of(ADMIN, asBuyer)) {
            assertRefused(call("POST", "/orders/" + ownOrder + "/confirm", null, token), 403, "forbidden",
                    "confirm by admin or buyer");
        }
        for (String token : List.of(ADMIN, PAYMENT)) {
            assertRefused(call("POST", "/orders/" + ownOrder + "/cancel", null, token), 403, "forbidden",
                    "cancel by admin or payment");
        }
        assertCounters(sku, 12, 8, 4, 0);
        assertEquals(200, call("POST", "/orders/" + ownOrder + "/confirm", null, PAYMENT).status(), "payment confirms");
        assertEquals(200, call("POST", "/orders/" + namedOrder + "/cancel", null, asBuyer).status(),
                "the buyer cancels its own");
        assertEquals(200, call("POST", "/orders/" + otherOrder + "/cancel", null, SHOP).status(),
                "a shop cancels any order");
        assertCounters(sku, 12, 11, 0, 1);
    }

    @Test
    @OnePod
    void badTokensAreRefusedAndChangeNothing() {
        String sku = newSku("tokens");
        createItem(sku, 5, 0);
        String orderId = buy(sku, "holder", 1);
        List<String> tokens = new java.util.ArrayList<>();
        tokens.add(null);
        for (Tokens.Bad bad : Tokens.Bad.values()) {
            tokens.add(Tokens.bearer(bad));
        }
        for (String token : tokens) {
            String what = token == null ? "no token" : "token " + token.substring(0, Math.min(40, token.length()));
            assertRefused(call("POST", "/items/" + sku + "/purchases", "{\"userId\":\"u-1\",\"quantity\":1}",
                    token), 401, "unauthenticated", what + ", purchase");
            assertRefused(call("POST", "/items/" + sku + "/purchases", "{not json", token), 401, "unauthenticated",
                    what + ", purchase with a broken body");
            assertRefused(call("POST", "/items/" + sku + "/restock", "{\"quantity\":5}", token), 401,
                    "unauthenticated", what + ", restock");
            assertRefused(call("POST", "/items", "{\"sku\":\"" + sku + "-x\",\"name\":\"x\",\"stock\":1}", token),
                    401, "unauthenticated", what + ", create");
            assertRefused(call("POST", "/orders/" + orderId + "/cancel", null, token), 401, "unauthenticated",
                    what + ", cancel");
            assertRefused(call("GET", "/orders/" + orderId, null, token), 401, "unauthenticated", what + ", read");
            assertRefused(call("GET", "/items/" + sku + "/availability", null, token), 401, "unauthenticated",
                    what + ", availability");
        }
        assertEquals(404, call("GET", "/items/" + sku + "-x", null, ADMIN).status(), "nothing was created");
        assertCounters(sku, 5, 4, 1, 0);
        assertEquals(1, Db.orderCount(sku));
        assertEquals(200, call("GET", "/q/health/live", null, null).status(), "liveness needs no token");
        assertEquals(200, call("GET", "/q/health/ready", null, null).status(), "readiness needs no token");
    }

    /**
     * An extended order outlives its old expiry; the expiry never shrinks and never passes the purchase plus
     * {@code reservation-max-ttl} (2 h by default); only RESERVED orders extend; buyers only their own.
     */
    @Test
    void extendedReservationsOutliveTheirOldExpiry() throws InterruptedException {
        String sku = newSku("extend");
        createItem(sku, 4, 0);
        String buyer = "u-" + UUID.randomUUID().toString().substring(0, 8);
        Reply bought = call("POST", "/items/" + sku + "/purchases", "{\"quantity\":2}", Tokens.bearer(buyer, "buyer"));
        assertEquals(201, bought.status(), bought.body());
        String orderId = Json.text(bought.body(), "orderId");
        String other = buy(sku, "not-extended", 1);
        assertCounters(sku, 4, 1, 3, 0); // both in MySQL (write-behind stores them a moment after the 201)
        Db.expireIn(orderId, 2);
        Db.expireIn(other, 2);

        Reply extended = call("POST", "/orders/" + orderId + "/extend", "{\"seconds\":60}",
                Tokens.bearer(buyer, "buyer"));
        assertEquals(200, extended.status(), extended.body());
        Instant expiresAt = Instant.parse(Json.text(extended.body(), "expiresAt"));
        Instant createdAt = Instant.parse(Json.text(extended.body(), "createdAt"));
        assertTrue(expiresAt.isAfter(Instant.now().plusSeconds(50)), "about a minute from now: " + expiresAt);
        for (int i = 0; i < 4; i++) { // repeats within a step record nothing more (at most one step passes meanwhile)
            expiresAt = Instant.parse(Json.text(call("POST", "/orders/" + orderId + "/extend", "{\"seconds\":60}",
                    PAYMENT).body(), "expiresAt"));
        }
        assertEquals(List.of(0L, 0), List.of(expiresAt.getEpochSecond() % 30, expiresAt.getNano()),
                expiresAt.toString());
        long moves = Db.count("SELECT COUNT(*) FROM movement WHERE order_id = ? AND kind = 'extend'", orderId);
        assertTrue(moves == 1 || moves == 2, "five extensions in a moment moved the expiry " + moves + " times");
        Reply shorter = call("POST", "/orders/" + orderId + "/extend", "{\"seconds\":5}", PAYMENT);
        assertEquals(expiresAt, Instant.parse(Json.text(shorter.body(), "expiresAt")),
                "never shortened");
        Reply capped = call("POST", "/orders/" + orderId + "/extend", "{\"seconds\":7200}", SHOP);
        assertEquals(createdAt.plusSeconds(7200), Instant.parse(Json.text(capped.body(), "expiresAt")),
                "capped at the purchase + reservation-max-ttl");

        assertRefused(call("POST", "/orders/" + orderId + "/extend", "{\"seconds\":7201}", SHOP), 400,
                "invalid-request", "beyond the cap");
        assertRefused(call("POST", "/orders/" + orderId + "/extend", "{\"seconds\":0}", SHOP), 400,
                "invalid-request", "zero seconds");
        assertRefused(call("POST", "/orders/" + orderId + "/extend", "{\"seconds\":60}",
                Tokens.bearer("someone-else", "buyer")), 404, "order-not-found", "another buyer's order");
        assertRefused(call("POST", "/orders/" + orderId + "/extend", "{\"seconds\":60}", ADMIN), 403, "forbidden",
                "admin");

        awaitStatus(other, "EXPIRED"); // the old expiry passed: the other order went, the extended one stays
        assertEquals("RESERVED", given().get("/orders/" + orderId).then().extract().path("status"));
        assertCounters(sku, 4, 2, 2, 0);
        assertRefused(call("POST", "/orders/" + other + "/extend", "{\"seconds\":60}", SHOP), 409,
                "order-not-reserved", "an expired order");
        given().post("/orders/" + orderId + "/confirm").then().statusCode(200);
        assertRefused(call("POST", "/orders/" + orderId + "/extend", "{\"seconds\":60}", SHOP), 409,
                "order-not-reserved", "a confirmed order");
        assertCounters(sku, 4, 2, 0, 2);
    }

    /** An item's own reservation TTL sets its orders' expiry in every strategy; out-of-range TTLs are 400. */
    @Test
    void itemsKeepTheirOwnReservationTtl() throws InterruptedException {
        String sku = newSku("ttl");
        for (String ttl : List.of("0", "-5", "7201", "\"60\"")) {
            assertRefused(call("POST", "/items", "{\"sku\":\"" + sku + "\",\"name\":\"TTL\",\"stock\":3,"
                    + "\"reservationTtlSeconds\":" + ttl + "}", ADMIN), 400, "invalid-request", "TTL " + ttl);
        }
        Reply created = call("POST", "/items", "{\"sku\":\"" + sku + "\",\"name\":\"TTL\",\"stock\":3,"
                + "\"reservationTtlSeconds\":3}", ADMIN);
        assertEquals(201, created.status(), created.body());
        assertEquals(3, Json.read(created.body()).get("reservationTtlSeconds").asInt());
        assertEquals(3, item(sku).getInt("reservationTtlSeconds"));

        Response bought = purchase(sku, "short-hold", 2, null);
        bought.then().statusCode(201);
        Instant createdAt = Instant.parse(bought.jsonPath().getString("createdAt"));
        Instant expiresAt = Instant.parse(bought.jsonPath().getString("expiresAt"));
        long seconds = java.time.Duration.between(createdAt, expiresAt).toSeconds();
        assertTrue(seconds >= 2 && seconds <= 3, "expires about 3 s after the purchase: " + createdAt + " " + expiresAt);
        String orderId = bought.jsonPath().getString("orderId");
        assertEquals(expiresAt.toString(), Instant.parse(given().get("/orders/" + orderId).then().statusCode(200)
                .extract().path("expiresAt")).toString(), "MySQL holds the same expiry");

        awaitStatus(orderId, "EXPIRED");
        assertCounters(sku, 3, 3, 0, 0);
    }

    // ---- listings --------------------------------------------------------------------------------------------------

    /**
     * {@code GET /orders?sku=} pages through the item's orders in id order, each exactly once, following {@code next}
     * (and the Link header) until null, right after the 201s (write-behind: the listing persists the item's pending
     * orders first); a buyer lists only its own, whatever {@code userId} it asks for; bad queries are 400.
     */
    @Test
    void ordersArePagedInIdOrderAndABuyerListsOnlyItsOwn() {
        String sku = newSku("list");
        int orders = Lane.size(120, 1000); // the full lane pages through 1,000 orders (issue 33)
        int limit = Lane.size(50, 200);
        createItem(sku, orders, 0);
        List<String> users = List.of(sku + "-a", sku + "-b", sku + "-c");
        List<Reply> replies = Http.concurrently(orders, 12, i -> Http.post("/items/" + sku + "/purchases",
                "{\"userId\":\"" + users.get(i % 3) + "\",\"quantity\":1}").build());
        assertEquals(Map.of(201, (long) orders), byStatus(replies), "answers");
        List<String> bought = replies.stream().map(r -> Json.text(r.body(), "orderId")).sorted().toList();

        List<String> listed = new java.util.ArrayList<>();
        String after = null;
        int pages = 0;
        int expectedPages = (orders + limit - 1) / limit;
        do {
            var request = given().queryParam("sku", sku).queryParam("limit", limit);
            Response page = after == null ? request.get("/orders") : request.queryParam("after", after).get("/orders");
            page.then().statusCode(200).body("pendingInRedis", equalTo(0));
            List<String> ids = page.jsonPath().getList("orders.orderId");
            after = page.jsonPath().getString("next");
            if (after != null) {
                assertEquals(ids.get(ids.size() - 1), after, "next is the page's last id");
                String link = page.header("Link");
                assertTrue(link != null && link.contains("after=" + after) && link.contains("sku=" + sku)
                        && link.endsWith("rel=\"next\""), "Link: " + link);
            } else {
                assertEquals(null, page.header("Link"), "no Link on the last page");
            }
            listed.addAll(ids);
            pages++;
        } while (after != null && pages <= expectedPages);
        assertEquals(bought, listed, "every order once, in id order");
        assertEquals(expectedPages, pages, orders + " orders in pages of " + limit);

        int own = (orders + 1) / 3; // users.get(1) bought every third order from the second on
        Response mine = io.restassured.RestAssured.given().port(Instances.nextPort())
                .header("Authorization", Tokens.bearer(users.get(1), "buyer"))
                .queryParam("sku", sku).queryParam("userId", users.get(0)).queryParam("limit", 200).get("/orders");
        mine.then().statusCode(200).body("next", own > 200 ? org.hamcrest.Matchers.notNullValue() : equalTo(null));
        assertEquals(Math.min(own, 200), mine.jsonPath().getList("orders").size(), mine.asString());
        assertEquals(Set.of(users.get(1)), Set.copyOf(mine.jsonPath().getList("orders.userId")), "a buyer's own");
        given().queryParam("userId", users.get(2)).queryParam("status", "RESERVED").queryParam("limit", 200)
                .get("/orders").then().statusCode(200).body("orders.size()", equalTo(Math.min(orders / 3, 200)));

        for (String query : List.of("limit=0", "limit=201", "limit=x", "status=PAID", "after=nope", "sku=bad%20sku")) {
            assertProblem(given().get("/orders?" + query), 400, "invalid-request", "GET /orders?" + query);
        }
    }

    /** {@code GET /items} pages in sku order from {@code after}; other tests' items share the table. */
    @Test
    void itemsArePagedInSkuOrder() {
        String prefix = newSku("lst");
        for (String suffix : List.of("c", "a", "b")) {
            createItem(prefix + "-" + suffix, 5, 0);
        }
        Response first = given().queryParam("after", prefix).queryParam("limit", 2).get("/items");
        first.then().statusCode(200).body("items.sku", equalTo(List.of(prefix + "-a", prefix + "-b")))
                .body("items[0].stock", equalTo(5)).body("items[0].available", equalTo(5))
                .body("next", equalTo(prefix + "-b"));
        assertTrue(first.header("Link").contains("after=" + prefix + "-b"), first.header("Link"));
        given().queryParam("after", prefix + "-b").queryParam("limit", 2).get("/items").then().statusCode(200)
                .body("items[0].sku", equalTo(prefix + "-c"));
        assertProblem(given().get("/items?limit=500"), 400, "invalid-request", "GET /items?limit=500");
        assertProblem(given().get("/items?after=bad%20sku"), 400, "invalid-request", "GET /items?after=bad sku");
    }

    protected static void assertProblem(Response response, int status, String code, String what) {
        response.then().statusCode(status);
        assertTrue(response.contentType().startsWith("application/problem+json"),
                what + ": content type " + response.contentType());
        JsonPath problem = response.jsonPath();
        assertTrue(problem.getString("type").endsWith(code), what + ": type " + problem.getString("type"));
        assertEquals(status, problem.getInt("status"), what);
        assertFalse(problem.getString("title").isBlank(), what);
        String detail = problem.getString("detail");
        assertFalse(detail == null || detail.isBlank(), what + ": detail");
        for (String leak : List.of("Exception", "java.", "io.flashstock", "SQL", "select ", "insert ", "127.0.0.1",
                "\tat ")) {
            assertFalse(response.asString().contains(leak), what + " leaks '" + leak + "': " + response.asString());
        }
        if (status == 503) {
            assertTrue(response.header("Retry-After") != null, what + ": Retry-After");
        }
    }
}
