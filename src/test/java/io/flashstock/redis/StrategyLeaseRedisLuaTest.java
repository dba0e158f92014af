package io.flashstock.redis;

import static io.flashstock.testsupport.Shop.assertCounters;
import static io.flashstock.testsupport.Shop.buy;
import static io.flashstock.testsupport.Shop.createItem;
import static io.flashstock.testsupport.Shop.newSku;
import static io.flashstock.testsupport.Shop.purchase;
import static org.hamcrest.Matchers.endsWith;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.OwnRedisResource;
import io.flashstock.testsupport.Pause;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * A redis-lua pod and the strategy lease: it does not sell, nor take up a hot-stock generation, while a pod of a MySQL
 * strategy serves, and it stops selling when it cannot renew its lease. On a Redis of its own (it writes other pods'
 * leases, it freezes the server), with a 3 s lease.
 */
@QuarkusTest
@TestProfile(StrategyLeaseRedisLuaTest.ShortLease.class)
@WithTestResource(OwnRedisResource.class)
class StrategyLeaseRedisLuaTest {

    public static class ShortLease extends StrategyProfiles.RedisLuaWriteThrough {
        @Override
        public Map<String, String> getConfigOverrides() {
            return OtherLease.withShortLease(super.getConfigOverrides());
        }
    }

    @Inject
    StrategyLease lease;

    @Inject
    RedisDataSource redis;

    /**
     * A rolling update from db-optimistic to redis-lua: the new pod waits while the old ones serve. Before, it sold
     * from a hot stock the db-optimistic pods were changing in MySQL behind it.
     */
    @Test
    void whileAMySqlStrategyServesThisPodNeitherSellsNorTakesUpAGeneration() {
        String sku = newSku("lease-lua");
        createItem(sku, 10, 0);
        buy(sku, "first", 1);

        OtherLease other = OtherLease.of(redis, "mysql", "db-optimistic").hold();
        lease.renewOrClaim();
        assertFalse(lease.held(), "a pod of another family holds a lease");
        purchase(sku, "second", 1, null).then().statusCode(503).contentType("application/problem+json")
                .body("type", endsWith("unavailable"));
        assertCounters(sku, 10, 9, 1, 0);
        assertTrue(OtherLease.readiness(503).contains("db-optimistic"), "readiness says whom it waits for");

        // The MySQL pod dropped the generation: the watch rounds of a waiting pod do not write a new one.
        redis.key().del(RedisKeys.generation());
        Pause.sleep(2_500);
        assertFalse(redis.key().exists(RedisKeys.generation()), "no generation while a MySQL strategy serves");

        other.release();
        lease.renewOrClaim();
        assertTrue(lease.held(), "the other family is gone");
        OtherLease.readiness(200);
        buy(sku, "second", 1);
        assertTrue(redis.key().exists(RedisKeys.generation()), "a new generation once it serves");
        assertCounters(sku, 10, 8, 2, 0);
    }

    /** Redis does not answer: the pod's own copy of its lease runs out, and it serves again once Redis answers. */
    @Test
    void aLeaseThatCannotBeRenewedRunsOut() {
        assertTrue(lease.held());
        OwnRedisResource.server().pause();
        try {
            assertTrue(Pause.until(() -> !lease.held(), 4_000), "stopped serving within the 3 s lease");
        } finally {
            OwnRedisResource.server().resume();
        }
        assertTrue(Pause.until(lease::held, 5_000), "serves again once Redis answers");
    }
}
