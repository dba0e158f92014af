package io.flashstock.redis;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteThrough.class)
@WithTestResource(LocalServersResource.class)
class HotStockWriteThroughTest extends HotStockResilience {

    @Override
    boolean everyAcknowledgedOrderSurvivesDataLoss() {
        return true;
    }
}
