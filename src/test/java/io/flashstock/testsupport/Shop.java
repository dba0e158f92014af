package io.flashstock.testsupport;

import static io.flashstock.testsupport.Api.given;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import io.flashstock.testsupport.Http.Reply;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;

/** Drives the service over REST the way a shop would, and checks its counters against MySQL. */
public final class Shop {

    private Shop() {
    }


    public static String newSku(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 13);
    }

    /** Creates the item (201) and tracks it for the suites' end-of-test settlement check ({@link Settlement}). */
    public static void createItem(String sku, int stock, int perUserLimit) {
        Settlement.track(sku);
        given().contentType(ContentType.JSON)
                .body(Map.of("sku", sku, "name", "Item " + sku, "stock", stock, "perUserLimit", perUserLimit))
                .post("/items")
                .then().statusCode(201)
                .header("Location", endsWith("/items/" + sku))
                .body("stock", equalTo(stock)).body("available", equalTo(stock))
                .body("reserved", equalTo(0)).body("sold", equalTo(0));
    }

    public static JsonPath item(String sku) {
        return given().get("/items/" + sku).then().statusCode(200).extract().jsonPath();
    }

    public static Response purchase(String sku, String userId, int quantity, String key) {
        var request = given().contentType(ContentType.JSON)
                .body("{\"userId\":\"" + userId + "\",\"quantity\":" + quantity + "}");
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return request.post("/items/" + sku + "/purchases");
    }

    public static String buy(String sku, String userId, int quantity) {
        return purchase(sku, userId, quantity, null).then().statusCode(201)
                .header("Location", startsWith("http")).body("status", equalTo("RESERVED"))
                .extract().path("orderId");
    }

    /**
     * The item's counters, through the API and in MySQL, and the units of its orders. Waits up to 3 s for them
     * (write-behind persists acknowledged orders a moment after the 201); the synchronous strategies match at once.
     */
    public static void assertCounters(String sku, int stock, int available, int reserved, int sold) {
        long deadline = System.currentTimeMillis() + 3_000;
        while (true) {
            try {
                checkCounters(sku, stock, available, reserved, sold);
                return;
            } catch (AssertionError e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Pause.sleep(50);
            }
        }
    }

    private static void checkCounters(String sku, int stock, int available, int reserved, int sold) {
        JsonPath item = item(sku);
        assertEquals(List.of(stock, available, reserved, sold), List.of(item.getInt("stock"),
                item.getInt("available"), item.getInt("reserved"), item.getInt("sold")), "API counters of " + sku);
        Map<String, Long> row = Db.item(sku);
        assertEquals(List.of((long) stock, (long) available, (long) reserved, (long) sold),
                List.of(row.get("stock"), row.get("available"), row.get("reserved"), row.get("sold")),
                "MySQL counters of " + sku);
        Map<String, Long> orders = Db.orders(sku);
        assertEquals(reserved, orders.getOrDefault("units:RESERVED", 0L), "units in RESERVED orders");
        assertEquals(sold, orders.getOrDefault("units:CONFIRMED", 0L), "units in CONFIRMED orders");
    }

    /**
     * The sums of the item's movement ledger equal its MySQL counters. Call it once {@link #assertCounters} passed:
     * the movements are written in the transactions that change the counters.
     */
    public static void assertLedgerBalances(String sku) {
        Map<String, Long> row = Db.item(sku);
        Map<String, Long> sums = Db.ledger(sku);
        assertEquals(List.of(row.get("stock"), row.get("available"), row.get("reserved"), row.get("sold")),
                List.of(sums.get("stock"), sums.get("available"), sums.get("reserved"), sums.get("sold")),
                "the ledger's sums of " + sku + " against its counters");
    }

    /** The order ids of the 201s among {@code replies}, per item, where buyer {@code i} bought {@code skus[i % n]}. */
    public static Map<String, java.util.Set<String>> soldBySku(List<Reply> replies, List<String> skus) {
        Map<String, java.util.Set<String>> sold = new java.util.HashMap<>();
        skus.forEach(sku -> sold.put(sku, new java.util.HashSet<>()));
        for (int i = 0; i < replies.size(); i++) {
            if (replies.get(i).status() == 201) {
                sold.get(skus.get(i % skus.size())).add(Json.text(replies.get(i).body(), "orderId"));
            }
        }
        return sold;
    }

    public static Map<Integer, Long> byStatus(List<Reply> replies) {
        return replies.stream().collect(Collectors.groupingBy(Reply::status, Collectors.counting()));
    }

    /**
     * {@code buyers} purchases of one unit of {@code sku}, each by its own user, sent at once from {@code threads}
     * threads; the answers counted by status.
     */
    public static Map<Integer, Long> burst(String sku, int buyers, int threads) {
        return byStatus(Http.concurrently(buyers, threads, i -> Http.post("/items/" + sku + "/purchases",
                "{\"userId\":\"burst-" + i + "\",\"quantity\":1}").build()));
    }

    /** How many times this pod was granted an item's lock so far ({@code flashstock.lock.wait}, acquired). */
    public static double lockGrants(MeterRegistry meters) {
        Timer timer = meters.find("flashstock.lock.wait").tag("outcome", "acquired").timer();
        return timer == null ? 0 : timer.count();
    }
}
