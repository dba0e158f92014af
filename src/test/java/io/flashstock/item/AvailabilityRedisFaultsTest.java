package io.flashstock.item;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.assertCounters;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static io.flashstock.testsupport.Shop.purchase;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.redis.RedisKeys;
import io.flashstock.testsupport.Db;
import io.flashstock.testsupport.OwnRedisResource;
import io.flashstock.testsupport.Pause;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The pod's sold-out memory and its units-back messages when Redis misbehaves, under db-optimistic (which needs Redis
 * for nothing else). Runs on a Redis of its own (it cuts the pod's subscription, it freezes the server) with a long
 * cache TTL, so that only the subscription can make the pod forget.
 */
@QuarkusTest
@TestProfile(AvailabilityRedisFaultsTest.LongCache.class)
@WithTestResource(OwnRedisResource.class)
class AvailabilityRedisFaultsTest {

    /**
     * db-optimistic, with what a pod knows kept for 30 s unless a units-back message says otherwise, and a Redis
     * timeout of 10 s: a cancel that waited for a hung Redis would take that long, far from what two busy cores add.
     */
    public static class LongCache extends StrategyProfiles.DbOptimistic {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(super.getConfigOverrides());
            settings.put("flashstock.availability.cache-ttl", "30s");
            settings.put("quarkus.redis.timeout", REDIS_TIMEOUT_MILLIS + "ms");
            return settings;
        }
    }

    private static final long REDIS_TIMEOUT_MILLIS = 10_000;

    @Inject
    Availability availability;

    @Inject
    UnitsBackChannel unitsBack;

    @Inject
    RedisDataSource redis;

    /**
     * What a pod learned while its subscription was down is not answered from once it listens again: a message sent
     * in between was missed.
     */
    @Test
    void levelsLearnedWhileNotListeningAreNotAnsweredFromAfterwards() {
        String sku = soldOutFromMemory("resubscribe");

        // The pod's subscription is cut: nothing is answered from memory until it listens again.
        redis.execute("CLIENT", "KILL", "TYPE", "pubsub");
        assertTrue(Pause.until(() -> !availability.listening(), 5_000), "the pod noticed that its subscription ended");
        assertFalse(availability.soldOut(sku, 1));

        // Meanwhile a read learns the item sold out, then another pod gives a unit back: its message is missed.
        given().get("/items/" + sku + "/availability").then().statusCode(200);
        Db.update("UPDATE item SET available = available + 1, reserved = reserved - 1, version = version + 1"
                + " WHERE sku = ?", sku);
        Db.update("UPDATE purchase_order SET status = 'CANCELLED' WHERE sku = ?", sku);
        long version = Db.count("SELECT version FROM item WHERE sku = ?", sku);
        redis.pubsub(String.class).publish(RedisKeys.unitsBackChannel(), sku + " " + version);

        availability.upkeep(); // subscribes again
        assertTrue(availability.listening());
        assertEquals(1, subscribers(RedisKeys.unitsBackChannel()), "the pod listens again");
        assertFalse(availability.soldOut(sku, 1), "what was learned unsubscribed is not answered from");
        given().get("/items/" + sku + "/availability").then().statusCode(200)
                .body("available", org.hamcrest.Matchers.equalTo(1));
        purchase(sku, "after", 1, null).then().statusCode(201);
    }

    /**
     * Announcing units back never waits for Redis: a hung Redis does not slow a cancel (before: the Redis timeout). The
     * bound is half the profile's Redis timeout, so a busy machine does not fail it while a wait for Redis would.
     */
    @Test
    void aHungRedisDoesNotSlowACancel() {
        String sku = newSku("hung");
        createItem(sku, 2, 0);
        String orderId = buy(sku, "hung", 1);
        OwnRedisResource.server().pause();
        long took;
        try {
            long start = System.nanoTime();
            given().post("/orders/" + orderId + "/cancel").then().statusCode(200).body("status",
                    org.hamcrest.Matchers.equalTo("CANCELLED"));
            took = (System.nanoTime() - start) / 1_000_000;
        } finally {
            OwnRedisResource.server().resume();
        }
        assertTrue(took < REDIS_TIMEOUT_MILLIS / 2, "the cancel took " + took + " ms while Redis hung");
        assertCounters(sku, 2, 2, 0, 0);
    }

    /**
     * A subscription that stops hearing (its connection died without a word: a Redis host gone, a half-open TCP
     * connection) is noticed by its heartbeat within two upkeep rounds and replaced, and nothing learned on it is
     * answered from. The test makes it deaf by unsubscribing its heartbeat channel alone: the units-back channel stays
     * subscribed, as it looks on a dead connection.
     */
    @Test
    void aSubscriptionThatStopsHearingIsReplaced() {
        String sku = soldOutFromMemory("deaf");
        String heartbeats = unitsBack.heartbeatChannel();
        assertEquals(1, subscribers(heartbeats));

        unitsBack.subscriber().unsubscribe(heartbeats).await().indefinitely();
        assertTrue(Pause.until(() -> subscribers(heartbeats) == 0, 5_000), "the subscription no longer hears its "
                + "heartbeat");
        availability.upkeep(); // a heartbeat goes out, and is not heard
        availability.upkeep(); // noticed: a new subscription
        assertTrue(availability.listening());
        assertEquals(1, subscribers(heartbeats), "the new subscription hears its heartbeat");
        assertEquals(1, subscribers(RedisKeys.unitsBackChannel()), "the deaf subscription is gone");
        assertFalse(availability.soldOut(sku, 1), "nothing learned on the deaf subscription is answered from");
        purchase(sku, "late", 1, null).then().statusCode(409); // learned again, from MySQL
    }

    /** An item whose one unit is sold, which this pod answers sold-out from memory. */
    private String soldOutFromMemory(String prefix) {
        String sku = newSku(prefix);
        createItem(sku, 1, 0);
        buy(sku, "first", 1);
        given().get("/items/" + sku + "/availability").then().statusCode(200);
        assertTrue(availability.soldOut(sku, 1), "sold out, from memory");
        return sku;
    }

    private long subscribers(String channel) {
        return redis.execute("PUBSUB", "NUMSUB", channel).get(1).toLong();
    }
}
