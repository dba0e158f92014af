package io.flashstock.purchase;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.assertCounters;
import static io.flashstock.testsupport.Shop.byStatus;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.Http;
import io.flashstock.testsupport.Http.Reply;
import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

/**
 * Per-user and per-address purchase rate limits ({@code lua/rate_limit.lua}): over a limit the answer is 429
 * {@code too-many-requests} with Retry-After, and nothing is deducted; the allowed purchases are exactly the
 * burst plus what the pace refills meanwhile.
 */
@QuarkusTest
@TestProfile(RateLimitTest.Limited.class)
@WithTestResource(LocalServersResource.class)
class RateLimitTest {

    /**
     * 2 units a second per user, 3 at once; 5 purchases a second per address, 30 at once; the address a trusted proxy
     * forwards (as behind an ingress), so that each test buys from an address of its own; 4 units per user of an item
     * created without a limit.
     */
    public static class Limited implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("flashstock.strategy", "redis-lua", "flashstock.rate-limit.per-user", "2",
                    "flashstock.rate-limit.per-user-burst", "3", "flashstock.rate-limit.per-address", "5",
                    "flashstock.rate-limit.per-address-burst", "30", "flashstock.default-per-user-limit", "4",
                    "quarkus.http.proxy.proxy-address-forwarding", "true",
                    "quarkus.http.proxy.allow-x-forwarded", "true",
                    "quarkus.http.proxy.trusted-proxies", "127.0.0.1");
        }
    }

    /** An address of this run's own: 10.x.y.z. */
    private static String newAddress() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        return "10." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(1, 255);
    }

    /** What a burst of purchases got: only 201s and 429s, how many 201s, over how long. */
    private record Burst(List<Reply> replies, long allowed, double seconds) {
    }

    private static Burst burst(String sku, int requests, int threads, java.util.function.IntFunction<String> userOf,
            String address) {
        long started = System.nanoTime();
        List<Reply> replies = Http.concurrently(requests, threads, i -> Http.post("/items/" + sku + "/purchases",
                "{\"userId\":\"" + userOf.apply(i) + "\",\"quantity\":1}").header("X-Forwarded-For", address).build());
        double seconds = (System.nanoTime() - started) / 1e9;
        Map<Integer, Long> statuses = byStatus(replies);
        long allowed = statuses.getOrDefault(201, 0L);
        assertEquals(requests, allowed + statuses.getOrDefault(429, 0L), "only 201 and 429: " + statuses);
        return new Burst(replies, allowed, seconds);
    }

    @Test
    void aUserOverTheLimitGets429AndOnlyTheAllowedPurchasesDeduct() {
        String sku = newSku("rate");
        createItem(sku, 100, 0);
        String user = "rapid-" + UUID.randomUUID().toString().substring(0, 8);
        Burst burst = burst(sku, 20, 4, i -> user, newAddress());
        long allowed = burst.allowed();
        assertTrue(allowed >= 3 && allowed <= 3 + Math.ceil(burst.seconds() * 2),
                allowed + " allowed in " + burst.seconds() + " s");
        for (Reply reply : burst.replies()) {
            if (reply.status() == 429) {
                assertTrue(reply.body().contains("too-many-requests") && reply.body().contains("this user"),
                        reply.body());
                assertTrue(reply.contentType().startsWith("application/problem+json"), reply.contentType());
            }
        }
        // Rapid purchases go on being refused, with Retry-After (a refill may let one through in between).
        io.restassured.response.Response refused = null;
        for (int i = 0; i < 5 && refused == null; i++) {
            io.restassured.response.Response next = given().contentType("application/json")
                    .body("{\"userId\":\"" + user + "\",\"quantity\":1}").post("/items/" + sku + "/purchases");
            if (next.statusCode() == 429) {
                refused = next;
            } else {
                assertEquals(201, next.statusCode(), next.asString());
                allowed++;
            }
        }
        assertTrue(refused != null, "refused again");
        assertTrue(Integer.parseInt(refused.header("Retry-After")) >= 1, "Retry-After " + refused.header("Retry-After"));
        assertCounters(sku, 100, 100 - (int) allowed, (int) allowed, 0);
        assertEquals(allowed, Db.orderCount(sku), "an order per 201, none per 429");

        // Another user is not slowed down by this one.
        Reply other = Http.send(Http.post("/items/" + sku + "/purchases", "{\"userId\":\"calm-" + user
                + "\",\"quantity\":1}").build());
        assertEquals(201, other.status(), other.body());
    }

    @Test
    void oneAddressOverItsLimitGets429WhateverTheUser() {
        String sku = newSku("rate-addr");
        createItem(sku, 1_000, 0);
        String address = newAddress();
        Burst burst = burst(sku, 150, 8, i -> "addr-" + i, address);
        long allowed = burst.allowed();
        assertTrue(allowed >= 30 && allowed <= 30 + Math.ceil(burst.seconds() * 5) && allowed < 150,
                allowed + " allowed in " + burst.seconds() + " s");
        // Another address is not slowed down by this one.
        Reply other = Http.send(Http.post("/items/" + sku + "/purchases", "{\"userId\":\"elsewhere\",\"quantity\":1}")
                .header("X-Forwarded-For", newAddress()).build());
        assertEquals(201, other.status(), other.body());
        allowed++;
        assertTrue(burst.replies().stream().filter(r -> r.status() == 429).allMatch(r -> r.body().contains("client address")));
        assertCounters(sku, 1_000, 1_000 - (int) allowed, (int) allowed, 0);
    }

    /**
     * The per-user limit counts units: a cart of 20 units (over the burst of 3) passes only because the user was idle,
     * and then the user's next purchase and a reservation extension are refused 429 until the pace allows them: for
     * 8.5 s at 2 units a second, so that a slow minute of the machine between the requests cannot let them through
     * (with a cart of 4 the window was 1 s, and a loaded CI run once took longer). An
     * item created without a limit gets {@code flashstock.default-per-user-limit}; one created with 0 has none.
     */
    @Test
    void aCartCostsItsUnitsAndAnExtensionCountsToo() {
        String first = newSku("rate-cart-a");
        String second = newSku("rate-cart-b");
        createItem(first, 100, 0);
        createItem(second, 100, 0);
        String user = "hoarder-" + UUID.randomUUID().toString().substring(0, 8);
        String address = newAddress();
        String bearer = io.flashstock.testsupport.Tokens.bearer(user, "buyer");
        String orderId = io.restassured.RestAssured.given().header("Authorization", bearer)
                .header("X-Forwarded-For", address).contentType(io.restassured.http.ContentType.JSON)
                .body("{\"lines\":[{\"sku\":\"" + first + "\",\"quantity\":10},{\"sku\":\"" + second
                        + "\",\"quantity\":10}]}")
                .post("/purchases").then().statusCode(201).extract().path("orders[0].orderId");
        io.restassured.RestAssured.given().header("Authorization", bearer).header("X-Forwarded-For", address)
                .contentType(io.restassured.http.ContentType.JSON).body("{\"quantity\":1}")
                .post("/items/" + first + "/purchases").then().statusCode(429);
        io.restassured.RestAssured.given().header("Authorization", bearer).header("X-Forwarded-For", address)
                .contentType(io.restassured.http.ContentType.JSON).body("{\"seconds\":600}")
                .post("/orders/" + orderId + "/extend").then().statusCode(429);
        assertCounters(first, 100, 90, 10, 0);

        String unlimited = newSku("rate-default");
        given().contentType(io.restassured.http.ContentType.JSON)
                .body(Map.of("sku", unlimited, "name", "No limit given", "stock", 10)).post("/items")
                .then().statusCode(201).body("perUserLimit", org.hamcrest.Matchers.equalTo(4));
        given().get("/items/" + first).then().statusCode(200).body("perUserLimit", org.hamcrest.Matchers.equalTo(0));
    }
}
