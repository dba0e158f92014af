package io.flashstock.faults;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.OwnRedisClusterResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Tag;

/** {@link ShardLoss} under {@code redis-lock}. */
@Tag(Lane.FULL_TAG)
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLock.class)
@WithTestResource(OwnRedisClusterResource.class)
class RedisLockShardLossTest extends ShardLoss {

    @Override
    boolean keepsHotStock() {
        return false;
    }
}
