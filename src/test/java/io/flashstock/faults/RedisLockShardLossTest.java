package io.flashstock.faults;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.OwnRedisClusterResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@link ShardLoss} under {@code redis-lock}. */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLock.class)
@WithTestResource(OwnRedisClusterResource.class)
class RedisLockShardLossTest extends ShardLoss {

    @Override
    boolean keepsHotStock() {
        return false;
    }
}
