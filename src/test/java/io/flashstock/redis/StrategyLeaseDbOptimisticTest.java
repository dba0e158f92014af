package io.flashstock.redis;

import static io.flashstock.testsupport.Api.given;
import static io.flashstock.testsupport.Shop.assertCounters;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static io.flashstock.testsupport.Shop.purchase;
import static org.hamcrest.Matchers.endsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.OwnRedisResource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A pod of a MySQL strategy (db-optimistic) and the strategy lease: it changes nothing while redis-lua pods serve or
 * while orders they acknowledged are pending in Redis, drops the hot-stock generation once it serves, and serves on
 * when Redis does not answer. On a Redis of its own, with a 3 s lease.
 */
@QuarkusTest
@TestProfile(StrategyLeaseDbOptimisticTest.ShortLease.class)
@WithTestResource(OwnRedisResource.class)
class StrategyLeaseDbOptimisticTest {

    public static class ShortLease extends StrategyProfiles.DbOptimistic {
        @Override
        public Map<String, String> getConfigOverrides() {
            return OtherLease.withShortLease(super.getConfigOverrides());
        }
    }

    @Inject
    StrategyLease lease;

    @Inject
    RedisDataSource redis;

    @Inject
    MeterRegistry meters;

    @Inject
    FlashstockConfig config;

    /**
     * A rolling update from redis-lua to db-optimistic: the new pod changes no stock while the old ones serve (reads
     * are served), and once they are gone it drops the generation they sold under. Before, both sold at once.
     */
    /**
     * The Redis data sources exist before the scheduler starts the jobs. Created at once by the lease's first claim and
     * a job's first run, one of them failed (the lease's claim counted as Redis not answering).
     */
    @Test
    void theRedisClientsExistBeforeTheJobsStart() {
        assertEquals(Set.of(RedisDataSource.class, ReactiveRedisDataSource.class),
                RedisClientsAtStartup.createdBeforeTheScheduler);
    }

    @Test
    void whileRedisLuaServesThisPodChangesNothing() {
        String sku = newSku("lease-db");
        createItem(sku, 10, 0);

        OtherLease other = OtherLease.of(redis, "redis", "redis-lua").hold();
        lease.renewOrClaim();
        assertFalse(lease.held());
        assertEquals(0, meters.get("flashstock.strategy.lease.held").gauge().value());
        purchase(sku, "buyer", 1, null).then().statusCode(503).contentType("application/problem+json")
                .body("type", endsWith("unavailable"));
        given().contentType("application/json").body("{\"quantity\":5}").post("/items/" + sku + "/restock")
                .then().statusCode(503);
        given().get("/items/" + sku).then().statusCode(200);
        assertCounters(sku, 10, 10, 0, 0);
        assertTrue(OtherLease.readiness(503).contains("redis-lua"), "readiness says whom it waits for");

        redis.value(String.class).set(RedisKeys.generation(), "what-redis-lua-sold-under");
        other.release();
        lease.renewOrClaim();
        assertTrue(lease.held());
        assertEquals(1, meters.get("flashstock.strategy.lease.held").gauge().value());
        assertFalse(redis.key().exists(RedisKeys.generation()), "redis-lua pods started later rebuild from MySQL");
        OtherLease.readiness(200);
        buy(sku, "buyer", 1);
        assertCounters(sku, 10, 9, 1, 0);
    }

    /** Only redis-lua relays persist write-behind orders: a MySQL pod does not sell their units again meanwhile. */
    @Test
    void ordersRedisLuaLeftPendingKeepThisPodWaiting() {
        OtherLease other = OtherLease.of(redis, "redis", "redis-lua").hold();
        lease.renewOrClaim();
        String sku = newSku("lease-pending");
        redis.sortedSet(String.class).zadd(RedisKeys.activeItems(), System.currentTimeMillis(), sku);
        redis.stream(String.class).xadd(RedisKeys.orders(sku), Map.of("order", "acknowledged"));
        other.release();

        lease.renewOrClaim();
        assertFalse(lease.held(), "an acknowledged order is still pending in Redis");
        assertTrue(lease.waitingFor().startsWith("1 order(s) of 1 item(s)"), lease.waitingFor());
        assertFalse(redis.hash(String.class).hgetall(RedisKeys.strategyLeases()).keySet().stream()
                .anyMatch(field -> field.startsWith("mysql|")), "a redis-lua pod may still start to persist it");

        redis.key().del(RedisKeys.orders(sku));
        lease.renewOrClaim();
        assertTrue(lease.held());
    }

    /** A pod that died without releasing its lease keeps the other family waiting no longer than the lease. */
    @Test
    void aLeaseThatRanOutIsNoLongerWaitedFor() {
        OtherLease dead = OtherLease.of(redis, "redis", "redis-lua").holdFor(-1);
        lease.renewOrClaim();
        assertTrue(lease.held());
        assertFalse(dead.present(), "removed on the way");
    }

    /**
     * A pod Redis never granted its lease does not serve while Redis does not answer: it cannot know that no redis-lua
     * pod serves, or that none left orders pending. Before, it served at once, unconfirmed.
     */
    @Test
    void aPodThatNeverHeldItsLeaseWaitsForRedis() {
        StrategyLease fresh = new StrategyLease(redis, config, meters);
        OwnRedisResource.server().pause();
        try {
            fresh.begin("db-optimistic", StrategyLease.Family.MYSQL);
            assertFalse(fresh.held(), "served without ever hearing from Redis");
            assertFalse(fresh.unconfirmed());
            assertEquals("Redis does not answer for the strategy lease", fresh.waitingFor());
        } finally {
            OwnRedisResource.server().resume();
        }
        fresh.renewOrClaim();
        assertTrue(fresh.held(), "granted once Redis answers");
        fresh.onStop(null);
    }

    /**
     * db-optimistic needs no Redis to decide: it serves on, says its lease is unconfirmed, and stays ready. Before,
     * Quarkus's own Redis check made readiness DOWN, so a Redis outage took every db-optimistic pod out of the Service.
     */
    @Test
    void withoutRedisThePodServesOn() {
        OwnRedisResource.server().pause();
        try {
            lease.renewOrClaim();
            assertTrue(lease.held());
            assertTrue(lease.unconfirmed());
            // The pod stays ready: the lease's check is UP, unconfirmed, and Redis is reported, not required.
            String ready = given().get("/q/health/ready").then().statusCode(200).extract().asString()
                    .replaceAll("\\s", "");
            assertTrue(ready.contains("\"name\":\"strategy-lease\",\"status\":\"UP\",\"data\":{\"strategy\":"
                    + "\"db-optimistic\",\"confirmed\":false}"), ready);
            assertTrue(ready.contains("\"name\":\"redis\",\"status\":\"UP\",\"data\":{\"reachable\":false,"
                    + "\"neededForPurchases\":false"), ready);
        } finally {
            OwnRedisResource.server().resume();
        }
        lease.renewOrClaim();
        assertFalse(lease.unconfirmed());
    }
}
