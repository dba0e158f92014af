package io.flashstock.faults;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.FaultyMySqlResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * {@link MySqlCut} under {@code redis-lua} with write-behind persistence: purchases do not wait for MySQL, so the
 * cut hits the relay's commits (an answer lost after the relay's batch committed) and confirm, cancel and restock.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteBehind.class)
@WithTestResource(FaultyMySqlResource.class)
class RedisLuaWriteBehindMySqlCutTest extends MySqlCut {

    @Override
    boolean keepsHotStock() {
        return true;
    }
}
