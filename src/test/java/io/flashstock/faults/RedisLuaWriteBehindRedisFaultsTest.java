package io.flashstock.faults;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.FaultyRedisResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@link RedisFaults} under {@code redis-lua} with write-behind persistence. */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteBehind.class)
@WithTestResource(FaultyRedisResource.class)
class RedisLuaWriteBehindRedisFaultsTest extends RedisFaults {

    @Override
    boolean keepsHotStock() {
        return true;
    }

    @Override
    boolean losesPendingOrdersWithRedisData() {
        return true;
    }
}
