package io.flashstock.deduction.lua;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.assertCounters;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import io.flashstock.deduction.CartContract;
import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.OwnRedisResource;
import io.flashstock.testsupport.Pause;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * redis-lua multi-item purchases whose request dies at each point of the cart's saga (docs/multi-item-purchases.md,
 * "Crash points"), one subclass per persistence mode. {@link Crashes}, the tests' {@link Checkpoints}, makes every
 * cart request die at one point by an Error that no cleanup on the way catches, as a killed pod would leave things.
 * Whatever the point, afterwards every line's units are back (or the whole purchase is in MySQL), within the bound:
 * {@code cart-decide-within} (1 s here) plus a relay round, and in write-through {@code claim-after} (2 s here) before
 * a relay takes over a dead request's entries. No purchase is ever in MySQL with only some of its lines.
 */
abstract class CartCrashes {

    /** cart-decide-within + claim-after + relay rounds, with room for a loaded machine. */
    static final Duration BOUND = Duration.ofSeconds(15);

    @Inject
    Crashes crashes;

    @Inject
    RedisDataSource redis;

    @AfterEach
    void noMoreCrashes() {
        crashes.none();
    }

    /** The test profiles: the strategy's own, with a short decision deadline so that the bound is short. */
    static Map<String, String> shortDeadline(Map<String, String> settings) {
        Map<String, String> copy = new java.util.HashMap<>(settings);
        copy.put("flashstock.lua.cart-decide-within", "1s");
        return copy;
    }

    @Test
    void diedAfterOpeningHoldsNothingAndItsKeyRunsAnew() {
        String[] skus = CartContract.items("open", 10, 10);
        String key = "crash-" + UUID.randomUUID();
        crashes.crashAt(Checkpoints.Step.CART_OPENED);
        cart("u-open", key, skus).then().statusCode(500);
        crashes.none();
        assertCounters(skus[0], 10, 10, 0, 0);
        assertCounters(skus[1], 10, 10, 0, 0);
        // The retry finds the key held by a cart nobody decides; once past its deadline the cart is aborted, the key
        // released, and the retry runs as a new purchase.
        Response retried = awaitAnswer(() -> cart("u-open", key, skus), 201);
        retried.then().body("orders", hasSize(2));
        assertCounters(skus[0], 10, 9, 1, 0);
        assertCounters(skus[1], 10, 9, 1, 0);
    }

    @Test
    void diedAfterItsFirstLineGivesThatLineBack() {
        String[] skus = CartContract.items("first", 10, 10, 10);
        crashes.crashAt(Checkpoints.Step.CART_FIRST_LINE);
        cart("u-first", null, skus).then().statusCode(500);
        crashes.none();
        assertEquals("9", redis.hash(String.class).hget(RedisKeys.stock(skus[0]), "available"),
                "the first line's unit, held in Redis by the dead request");
        awaitCounters(skus[0], 10, 10, 0, 0);
        assertCounters(skus[1], 10, 10, 0, 0);
        assertCounters(skus[2], 10, 10, 0, 0);
        assertEquals(0, Db.count("SELECT COUNT(*) FROM purchase WHERE user_id = ?", "u-first"), "purchase rows");
        assertNothingPending(skus);
    }

    @Test
    void diedAfterAbortingGivesEveryReservedLineBack() {
        String[] skus = CartContract.items("abort", 10, 10, 1);
        crashes.crashAt(Checkpoints.Step.CART_ABORTED);
        // The last line asks for more than there is: refused, the cart ABORTED, then the request dies before it gives
        // the first two lines back.
        given().contentType(ContentType.JSON).body("{\"userId\":\"u-abort\",\"lines\":[{\"sku\":\"" + skus[0]
                + "\",\"quantity\":1},{\"sku\":\"" + skus[1] + "\",\"quantity\":2},{\"sku\":\"" + skus[2]
                + "\",\"quantity\":5}]}").post("/purchases").then().statusCode(500);
        crashes.none();
        awaitCounters(skus[0], 10, 10, 0, 0);
        awaitCounters(skus[1], 10, 10, 0, 0);
        assertCounters(skus[2], 1, 1, 0, 0);
        assertEquals(0, Db.count("SELECT COUNT(*) FROM purchase WHERE user_id = ?", "u-abort"), "purchase rows");
        assertNothingPending(skus);
    }

    @Test
    void diedAfterCommittingIsStoredWholeAndItsKeyFindsIt() {
        String[] skus = CartContract.items("commit", 10, 10);
        String key = "crash-" + UUID.randomUUID();
        crashes.crashAt(Checkpoints.Step.CART_COMMITTED);
        cart("u-commit", key, skus).then().statusCode(500);
        crashes.none();
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (Db.count("SELECT COUNT(*) FROM purchase WHERE user_id = ?", "u-commit") == 0
                && System.nanoTime() < deadline) {
            Pause.sleep(100);
        }
        assertEquals(1, Db.count("SELECT COUNT(*) FROM purchase WHERE user_id = ?", "u-commit"), "purchase rows");
        assertEquals(2, Db.count("SELECT COUNT(*) FROM purchase_order o JOIN purchase p ON o.purchase_id = p.id"
                + " WHERE p.user_id = ?", "u-commit"), "its lines, all of them");
        awaitCounters(skus[0], 10, 9, 1, 0);
        awaitCounters(skus[1], 10, 9, 1, 0);
        Response replay = cart("u-commit", key, skus);
        replay.then().statusCode(201).header("Idempotent-Replayed", "true").body("orders", hasSize(2));
        given().get("/purchases/" + replay.path("purchaseId")).then().statusCode(200)
                .body("status", equalTo("RESERVED"));
        assertNothingPending(skus);
    }

    /**
     * Redis hangs past the client's timeout as a cart opens its record: 503 {@code unavailable} as problem+json with
     * a Retry-After, never a bare 500 (the cart's own Redis calls were not mapped before), and no unit is taken. Once
     * Redis is back and the cart's deadline has passed, a retry with its key runs as a new purchase.
     */
    @Test
    void aCartWhileRedisHangsIs503ProblemJsonAndTakesNothing() {
        String[] skus = CartContract.items("hung", 10, 10);
        String key = "hung-" + UUID.randomUUID();
        Response answer;
        OwnRedisResource.server().pause();
        try {
            answer = cart("u-hung", key, skus);
        } finally {
            OwnRedisResource.server().resume();
        }
        answer.then().statusCode(503).contentType(startsWith("application/problem+json"))
                .header("Retry-After", notNullValue()).body("type", endsWith("unavailable"));
        assertCounters(skus[0], 10, 10, 0, 0);
        assertCounters(skus[1], 10, 10, 0, 0);
        awaitAnswer(() -> cart("u-hung", key, skus), 201).then().body("orders", hasSize(2));
        assertCounters(skus[0], 10, 9, 1, 0);
        assertCounters(skus[1], 10, 9, 1, 0);
    }

    // ---- helpers ----------------------------------------------------------------------------------------------------

    static Response cart(String userId, String key, String... skus) {
        StringBuilder body = new StringBuilder("{\"userId\":\"" + userId + "\",\"lines\":[");
        for (int i = 0; i < skus.length; i++) {
            body.append(i == 0 ? "" : ",").append("{\"sku\":\"").append(skus[i]).append("\",\"quantity\":1}");
        }
        var request = given().contentType(ContentType.JSON).body(body.append("]}").toString());
        if (key != null) {
            request = request.header("Idempotency-Key", key);
        }
        return request.post("/purchases");
    }

    private static Response awaitAnswer(java.util.function.Supplier<Response> call, int status) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        Response response = call.get();
        while (response.statusCode() != status && System.nanoTime() < deadline) {
            Pause.sleep(200);
            response = call.get();
        }
        assertEquals(status, response.statusCode(), response.asString());
        return response;
    }

    /** Waits, within {@link #BOUND}, for MySQL's and Redis's counters to be these. */
    void awaitCounters(String sku, int stock, int available, int reserved, int sold) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                assertCounters(sku, stock, available, reserved, sold);
                if (String.valueOf(available).equals(redis.hash(String.class).hget(RedisKeys.stock(sku), "available"))) {
                    return;
                }
            } catch (AssertionError notYet) {
                // not yet
            }
            Pause.sleep(100);
        }
        assertCounters(sku, stock, available, reserved, sold);
        assertEquals(String.valueOf(available), redis.hash(String.class).hget(RedisKeys.stock(sku), "available"),
                "Redis's available units of " + sku);
    }

    void assertNothingPending(String... skus) {
        for (String sku : skus) {
            long deadline = System.nanoTime() + BOUND.toNanos();
            while (redis.stream(String.class).xlen(RedisKeys.orders(sku)) > 0 && System.nanoTime() < deadline) {
                Pause.sleep(100);
            }
            assertEquals(0, redis.stream(String.class).xlen(RedisKeys.orders(sku)), "pending entries of " + sku);
        }
    }

    /** redis-lua write-behind with a 1 s cart deadline. */
    public static class WriteBehindProfile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return shortDeadline(new StrategyProfiles.RedisLuaWriteBehind().getConfigOverrides());
        }
    }

    /** redis-lua write-through with a 1 s cart deadline. */
    public static class WriteThroughProfile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return shortDeadline(new StrategyProfiles.RedisLuaWriteThrough().getConfigOverrides());
        }
    }
}
