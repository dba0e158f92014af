package io.flashstock.faults;

import io.flashstock.testsupport.OwnRedisClusterResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@link ShardLoss} under {@code redis-lua} with write-behind persistence and {@code max-pending} below the sale's size. */
@QuarkusTest
@TestProfile(RedisLuaWriteBehindRedisFaultsTest.BoundedPending.class)
@WithTestResource(OwnRedisClusterResource.class)
class RedisLuaWriteBehindShardLossTest extends ShardLoss {

    @Override
    boolean losesPendingOrdersWithRedisData() {
        return true;
    }
}
