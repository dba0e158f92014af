package io.flashstock.faults;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.OwnRedisClusterResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@link ShardLoss} under {@code redis-lua} with write-through persistence. */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteThrough.class)
@WithTestResource(OwnRedisClusterResource.class)
class RedisLuaWriteThroughShardLossTest extends ShardLoss {
}
