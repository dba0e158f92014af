package io.flashstock.deduction.lua;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.assertCounters;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import io.flashstock.deduction.CartContract;
import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.OwnRedisResource;
import io.flashstock.testsupport.Pause;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

/** {@link CartCrashes} with write-through persistence. */
@QuarkusTest
@TestProfile(CartCrashes.WriteThroughProfile.class)
@WithTestResource(OwnRedisResource.class)
class CartCrashWriteThroughTest extends CartCrashes {

    /**
     * MySQL refuses a cart for want of its second line's unit (Redis had one MySQL had not, as after a failover), and
     * the request dies once the cart is REFUSED, before it takes its lines back. The relays that take the lines over
     * then drop the short line's unit from Redis's stock, as the request would have (the decision record names the
     * line), and give the other line's back. Before, they gave both back: Redis offered a unit MySQL had not.
     */
    @Test
    void diedAfterMySqlRefusedItTheRelaysDropTheShortLine() {
        String[] skus = CartContract.items("refused", 10, 1);
        given().get("/items/" + skus[1] + "/availability").then().statusCode(200); // warm: Redis holds its 1 unit
        assertEquals(1, Db.update("UPDATE item SET available = 0, stock = 0 WHERE sku = ?", skus[1]));
        crashes.crashAt(Checkpoints.Step.CART_REFUSED);
        cart("u-refused", null, skus).then().statusCode(500);
        crashes.none();

        awaitCounters(skus[0], 10, 10, 0, 0); // given back
        long deadline = System.nanoTime() + BOUND.toNanos();
        Map<String, String> shortLine = hot(skus[1]);
        while (!"0".equals(shortLine.get("reserved")) && System.nanoTime() < deadline) {
            Pause.sleep(20);
            shortLine = hot(skus[1]);
        }
        // Dropped, Redis now agrees with MySQL at once; given back, it would hold 1 available until the reconcile.
        assertEquals(Map.of("stock", "0", "available", "0", "reserved", "0"), shortLine, "the short line's item");
        assertCounters(skus[1], 0, 0, 0, 0);
        assertEquals(0, Db.count("SELECT COUNT(*) FROM purchase WHERE user_id = ?", "u-refused"), "purchase rows");
        assertNothingPending(skus);
    }

    private Map<String, String> hot(String sku) {
        return redis.hash(String.class).hmget(RedisKeys.stock(sku), "stock", "available", "reserved");
    }
}
